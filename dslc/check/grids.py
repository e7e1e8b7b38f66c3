"""Two-dimensional arrays of numbers: ``const g = [[1, 2], [3, 4]]`` and
``load(ints2d, "grid.txt")``.

A grid (a cost grid, an adjacency matrix, a table of weights) is data fixed for
the whole run, as a one-dimensional array is (check.arrays), and is written the
same way, as a core extension against :mod:`dslc.sdk`: ``g[i, j]`` is an element
(two int keys, like ``m[a, b]`` of a matrix and ``r[i, j]`` of a table), ``len(g)``
the number of rows, ``g.rows`` and ``g.cols`` the two extents. Two types keep the
element type static: ``ints2d`` and ``floats2d``.

A grid is rectangular and has at least one row (``[[]]`` is one row of nothing),
so its compiled form is a plain 2-D float64 array whose first row always exists
(the column count is the length of row 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dslc import sdk
from dslc.check.arrays import INT_MAX, INT_MIN, _number, _show, _TOKEN
from dslc.errors import DslcError, Span

GRID_KINDS = ("ints2d", "floats2d")


@dataclass(frozen=True, eq=False)
class NumGrid:
    """``kind`` is ``ints2d`` or ``floats2d``; ``rows`` are tuples of Python numbers
    of one length ``cols`` (the int infinities are ``float('inf')``)."""

    kind: str
    rows: tuple
    cols: int
    name: str = ""
    counted = True  # len(g) in a script statement (lang.script_stats): its rows

    def __len__(self) -> int:
        return len(self.rows)

    def device(self) -> np.ndarray:
        return np.asarray(self.rows, dtype=np.float64).reshape(len(self.rows), self.cols)

    def __str__(self) -> str:
        return "[" + ", ".join("[" + ", ".join(_show(v) for v in r) + "]" for r in self.rows) + "]"


def make_grid(rows: list[tuple[list, Span]], span: Span | None, name: str = "") -> NumGrid:
    """A nested literal's value. Every row must have the first row's length (the
    error is at the first row that does not); ``ints2d`` when every element is an
    int or an infinity, else ``floats2d`` (the ints widen)."""
    cols = len(rows[0][0])
    for values, at in rows:
        if len(values) != cols:
            raise DslcError(f"a 2-D array is rectangular: this row has {len(values)} "
                            f"element{'s' if len(values) != 1 else ''}, the first has {cols}",
                            at, hint="pad the row, or keep the rows in separate arrays")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise DslcError("a 2-D array holds numbers only", at)
            if v != v:
                raise DslcError("an array cannot hold NaN", at)
    flat = [v for values, _ in rows for v in values]
    if all(type(v) is int or math.isinf(v) for v in flat):
        for v in flat:
            if type(v) is int and not INT_MIN <= v <= INT_MAX:
                raise DslcError(f"integer overflow: {v} does not fit in 64 bits", span)
        return NumGrid("ints2d", tuple(tuple(r) for r, _ in rows), cols, name)
    return NumGrid("floats2d", tuple(tuple(float(v) for v in r) for r, _ in rows), cols, name)


def parse_grid(text: str, kind: str, file: str, name: str = "") -> NumGrid:
    """A file of rows: each line that holds numbers is a row (``#`` starts a comment,
    blank lines are skipped); every row must be as long as the first."""
    scalar = "ints" if kind == "ints2d" else "floats"
    rows, cols = [], None
    for lineno, line in enumerate(text.splitlines(), 1):
        row = []
        for m in _TOKEN.finditer(line):
            tok = m.group()
            if tok.startswith("#"):
                break
            row.append(_number(tok, scalar, Span(file, lineno, m.start() + 1, lineno,
                                                 m.end() + 1)))
        if not row:
            continue
        if cols is None:
            cols = len(row)
        elif len(row) != cols:
            raise DslcError(f"a 2-D array is rectangular: line {lineno} has {len(row)} "
                            f"number{'s' if len(row) != 1 else ''}, the first row has {cols}",
                            Span(file, lineno, 1, lineno, len(line) + 1))
        rows.append(tuple(row))
    if not rows:
        raise DslcError(f"a 2-D array needs at least one row, and {file} holds no numbers",
                        Span(file, 1, 1))
    return NumGrid(kind, tuple(rows), cols, name)


def _load(kind: str):
    def load(arg, path, span, ctx):
        if arg is not None:
            raise DslcError(f"load({kind}, file) takes no [...]", span)
        return parse_grid(sdk.read_text(path, span, f"{kind} file"), kind, path)
    return load


def element(g: NumGrid, i, j):
    """``g[i, j]``, or the error that names the grid and its extents."""
    where = f" '{g.name}'" if g.name else ""
    if type(i) is not int or not 0 <= i < len(g.rows):
        raise DslcError(f"row {_show(i)} is outside the 2-D array{where} "
                        f"(rows 0..{len(g.rows) - 1})")
    if type(j) is not int or not 0 <= j < g.cols:
        raise DslcError(f"column {_show(j)} is outside the 2-D array{where} "
                        f"(columns 0..{g.cols - 1})")
    return g.rows[i][j]


# the compiled extents: rows are the device array's length, columns the length of
# its row 0 (which every grid has)
_ROWS, _COLS = sdk.VALUE.len, sdk.VALUE.width


def _spec(kind: str) -> sdk.TypeSpec:
    value = sdk.INT if kind == "ints2d" else sdk.FLOAT
    return sdk.TypeSpec(
        name=kind, role="calling",
        index_keys=lambda t: (sdk.INT, sdk.INT), index_value=lambda t: value,
        index_eval=element,
        accepts=lambda v: isinstance(v, NumGrid) and v.kind == kind,
        device_array=NumGrid.device,
        device_index=sdk.VALUE[sdk.checked(sdk.key(0), _ROWS), sdk.checked(sdk.key(1), _COLS)],
        doc=f"a 2-D array of {kind[:-2]}; g[i, j], len(g) rows, g.rows, g.cols")


def _extent(kind: str, name: str, code) -> sdk.Accessor:
    return sdk.Accessor(
        on=kind, name=name, result=lambda t: sdk.INT,
        evaluate=lambda owner, g: len(g.rows) if name == "rows" else g.cols,
        doc=f"the number of {name}", device=code)


extension = sdk.Extension(
    name="grids",
    types=tuple(_spec(k) for k in GRID_KINDS),
    accessors=tuple(_extent(k, n, c) for k in GRID_KINDS
                    for n, c in (("rows", _ROWS), ("cols", _COLS))),
    loaders=tuple(sdk.LoaderSpec(k, _load(k), lambda arg, alpha, k=k: sdk.ExtT(k))
                  for k in GRID_KINDS),
)
