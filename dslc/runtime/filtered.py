"""Maps over earlier results, and maps that run only some of their tasks.

A search pipeline computes a cheap score for every task, the expensive one only
where the cheap one passes, and statistics from the expensive one: each value
once. Two forms of ``map`` make that a script:

* a map result among a map's operands is not crossed with the others cell by
  cell: the new map runs over *its* tasks, task ``k`` taking its cell ``k``
  (``map(evalue, m (*) score (*) n)`` over ``score``'s models x proteins). A list
  operand is then one of those axes (the same records), aligned with it; other
  values are broadcast. :func:`grid_of` works out that grid.
* ``map(f, A (*) B where keep)`` runs only the tasks whose cell of ``keep`` (a map
  result of bools over the same grid) is true. The others do not run on any
  backend (the backend receives only the kept tasks) and their cells are
  *absent*: ``None`` in the result's object array, as a table's cells outside
  its declared ranges are. A map over a result with absent cells skips those
  tasks too (there is no operand to give them), so absence flows down a
  pipeline. :func:`scatter` places the kept tasks' values.

Nothing here knows what the functions compute; the grid and the mask are the
script's values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dslc.errors import DslcError
from dslc.lang.records import RecordNames, is_list
from dslc.lang.results import Axis, MapResult, absent, to_array
from dslc.lang.sequences import describe


@dataclass(frozen=True)
class Grid:
    """The tasks of a map over earlier results: its shape and axes, and for each
    operand how a task reads it (``"cell"``: a map result's cell; an int: the
    item of a list at that axis's index; None: the value itself)."""

    shape: tuple[int, ...]
    axes: tuple[Axis, ...]
    reads: tuple


def grid_of(operands: list, spans: list, func: str, labels, lengths) -> Grid | None:
    """The grid of a map whose operands include a map result (None: no operand
    is one, the map crosses its lists). Every map result must be over the same
    grid and every list one of its axes; ``labels(v)``/``lengths(v)`` give a
    list's record names and sequence lengths, as a map's axis records them."""
    results = [k for k, v in enumerate(operands) if isinstance(v, MapResult)]
    if not results:
        return None
    first = operands[results[0]]
    for k in results[1:]:
        other = operands[k]
        if not same_grid(first, other.values.shape, other.axes):
            raise DslcError(f"operand {k + 1} of map({func}, ...) is a result over "
                            f"{_grid_text(other)}, operand {results[0] + 1} over "
                            f"{_grid_text(first)}: results read together need the same grid",
                            spans[k])
    reads: list = []
    used: set[int] = set()
    for k, v in enumerate(operands):
        if isinstance(v, MapResult):
            reads.append("cell")
        elif is_list(v):
            axis = _axis_of(v, first, used, labels, lengths)
            if axis is None:
                raise DslcError(f"operand {k + 1} of map({func}, ...) is a list of {len(v)} that "
                                f"is no axis of the result it is read with "
                                f"({_grid_text(first)})", spans[k],
                                hint="a map over earlier results runs over their tasks; pass "
                                     "the lists they were mapped over, or single values")
            used.add(axis)
            reads.append(axis)
        else:
            reads.append(None)
    return Grid(first.values.shape, first.axes, tuple(reads))


def _axis_of(v, result: MapResult, used: set, labels, lengths) -> int | None:
    """The first axis of ``result`` not yet taken whose items are ``v``'s (the
    same record names and sequence lengths, so the same list)."""
    names, sizes = None, None
    for a, (axis, n) in enumerate(zip(result.axes, result.values.shape)):
        if a in used or n != len(v):
            continue
        if names is None:
            names, sizes = labels(v), lengths(v)
        if same_labels(axis.labels, names) and axis.lengths == sizes:
            return a
    return None


def same_grid(result: MapResult, shape: tuple, axes: tuple) -> bool:
    """Whether ``result`` is over the grid ``shape``/``axes``: the same shape and,
    axis by axis, the same record names (an axis's name is the text of the
    operand it came from, which two spellings of one list differ in)."""
    return result.values.shape == tuple(shape) and all(
        same_labels(a.labels, b.labels) for a, b in zip(result.axes, axes))


def same_labels(a, b) -> bool:
    """Two axes' labels are the same names (record names compared as they are
    packed, without decoding a million of them where they are the same file's)."""
    if a is b:
        return True
    a, b = (() if x is None else x for x in (a, b))
    if isinstance(a, RecordNames) or isinstance(b, RecordNames):
        return a == b
    return tuple(a) == tuple(b)


def _grid_text(r: MapResult) -> str:
    return " x ".join(f"{a.name} ({n})" for a, n in zip(r.axes, r.values.shape)) or "one task"


def cell_values(grid: Grid, operands: list, ids: np.ndarray) -> list[list]:
    """Each task ``ids[i]``'s operand values, read as ``grid.reads`` says (a
    result's cell as a script value)."""
    where = np.unravel_index(ids, grid.shape) if grid.shape else ()
    out = []
    for t in range(len(ids)):
        idx = tuple(int(w[t]) for w in where)
        out.append([v[idx] if how == "cell" else v[idx[how]] if how is not None else v
                    for v, how in zip(operands, grid.reads)])
    return out


def present(grid: Grid, operands: list) -> np.ndarray | None:
    """Per task (flat), whether every result it reads has its cell (None: all do)."""
    mask = None
    for v, how in zip(operands, grid.reads):
        if how == "cell":
            gone = absent(v.values).ravel()
            if gone.any():
                mask = ~gone if mask is None else mask & ~gone
    return mask


def where_mask(value, span, shape: tuple, axes: tuple) -> np.ndarray:
    """``where keep``'s value as a flat mask of the tasks to run: a map result of
    bools over the map's grid (an absent cell keeps nothing)."""
    if not isinstance(value, MapResult) or value.value_type != "bool":
        raise DslcError(f"a map's where needs a map result of bools, got {describe(value)}", span,
                        hint="keep = map(passes, ...) with a function returning bool")
    if not same_grid(value, shape, axes):
        want = " x ".join(f"{a.name} ({n})" for a, n in zip(axes, shape)) or "one task"
        raise DslcError(f"this where is over {_grid_text(value)}, the map over {want}", span,
                        hint="filter with a result over the same lists, in the same order")
    return true_cells(value.values)


def true_cells(values: np.ndarray) -> np.ndarray:
    """A bool result's cells as a flat mask: true where a cell holds true (an
    absent cell, None, is not)."""
    flat = values.ravel()
    if flat.dtype == object:
        return np.fromiter((v is True or v is np.True_ for v in flat), dtype=bool,
                           count=len(flat))
    return flat.astype(bool)


def scatter(raw: list, kept: np.ndarray | None, count: int, value_type: str) -> np.ndarray:
    """The map's values in task order: the kept tasks' ``raw`` results, every
    other cell absent (None). ``kept`` None: every task ran."""
    arr = to_array(raw, value_type)
    if kept is None:
        return arr
    out = np.full(count, None, dtype=object)
    for k, v in zip(kept.tolist(), arr.tolist() if arr.dtype != object else list(arr)):
        out[k] = v
    return out
