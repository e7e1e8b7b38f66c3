"""Printing results: aligned text for people, JSON for programs.

JSON: ints and floats as numbers, infinities as ``"inf"``/``"-inf"``,
probabilities as ``{"prob": p, "log": ln_p}``, tables and map results as
nested lists.
"""

from __future__ import annotations

import itertools
import json
import math
import uuid
from collections.abc import Iterator

import numpy as np

from dslc.check.arrays import NumArray
from dslc.check.grids import NumGrid
from dslc.lang.records import RecordNames, is_list
from dslc.lang.results import MapResult, Prob, TableResult, wrap
from dslc.lang.values import Alphabet, Matrix, Sequence
from dslc.runtime import cells as at_once
from dslc.runtime import digits


# ------------------------------------------------------------------ JSON
def to_json_value(v):
    if v is None:  # a cell outside a declared range
        return None
    if hasattr(v, "to_json"):  # a derivation or an alignment (dslc.trace): its fields
        return to_json_value(v.to_json())
    if isinstance(v, dict):
        return {k: to_json_value(x) for k, x in v.items()}
    if isinstance(v, Prob):
        return {"prob": _json_num(v.p), "log": _json_num(v.log)}
    if isinstance(v, (TableResult, MapResult)):
        return result_json(v.values, v.value_type)
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float, np.integer, np.floating)):
        return _json_num(v)
    if isinstance(v, Sequence):
        return {"name": v.name, "sequence": v.text}
    if isinstance(v, (list, tuple)) or is_list(v):  # a tuple: a JSON list of its components
        return [to_json_value(x) for x in v]
    if isinstance(v, str):
        return v
    if isinstance(v, NumArray):
        return [_json_num(x) for x in v.values]
    if isinstance(v, NumGrid):
        return [[_json_num(x) for x in row] for row in v.rows]
    if isinstance(v, Matrix):
        return {"matrix": v.name, "alphabet": list(v.alphabet.symbols), "values": v.values.tolist()}
    return str(v)


def _json_num(v):
    """A number as JSON: infinities (and a NaN, which the language never produces
    but JSON has no word for) as strings, so the output always parses."""
    f = float(v)
    if f != f:
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if isinstance(v, (int, np.integer)):
        return int(v)
    return f


def result_json(arr: np.ndarray, value_type: str):
    """A result array as nested lists of JSON values: at once where it holds
    numbers (dslc.runtime.cells), else cell by cell (:func:`_nested`)."""
    fast = at_once.json_flat(arr, value_type)
    return _nested(arr, value_type) if fast is None else fast.tolist()


def _nested(arr: np.ndarray, value_type: str):
    """The reference: each cell wrapped as a script value, then made JSON."""
    if not isinstance(arr, np.ndarray):  # a cell of an object array
        return to_json_value(wrap(arr, value_type))
    if arr.ndim == 0:
        return to_json_value(wrap(arr[()], value_type))
    return [_nested(arr[k], value_type) for k in range(arr.shape[0])]


# The key of ``--format json``'s notes: what TSV prints as ``# COLUMN: note`` lines (the
# statistics an E-value result was made with), by the printed value's key. No printed
# value's key begins with ``#`` (a name or an expression), so none can take its place.
NOTES_KEY = "#notes"


def render_json(printed: list[tuple[str, object]]) -> str:
    """The printed values as one JSON object, and under :data:`NOTES_KEY` the note of
    each that carries one. An int result's nested lists are written at once
    (dslc.runtime.digits) and put in place of a marker the encoder writes where
    they go."""
    out, seen, written = {}, {}, {}
    for name, value in printed:
        key = name
        if key in out:
            seen[name] = seen.get(name, 1) + 1
            key = f"{name} ({seen[name]})"
        text = _int_result_json(value)
        if text is None:
            out[key] = to_json_value(value)
        else:
            out[key] = f"\x00{uuid.uuid4().hex}"
            written[json.dumps(out[key])] = text
    notes = {key: value.note for key, (_, value) in zip(out, printed)
             if isinstance(value, MapResult) and value.note}
    if notes:
        out[NOTES_KEY] = notes
    text = json.dumps(out, indent=None, allow_nan=False)
    for marker, body in written.items():
        text = text.replace(marker, body, 1)
    return text


def _int_result_json(value) -> str | None:
    """The JSON of a table or map result of ints with at least one cell and
    no None cell, or None (:func:`to_json_value` then)."""
    if not isinstance(value, (TableResult, MapResult)) or not value.values.ndim \
            or not value.values.size:
        return None
    ints = digits.int_cells(value.values, value.value_type)
    return None if ints is None else digits.json_text(ints, value.values.shape)


# ------------------------------------------------------------------ text
def fmt_scalar(v) -> str:
    if v is None:  # a cell outside a declared range
        return ""
    if isinstance(v, Prob):
        p = v.p
        if v.log == -math.inf:
            return "0 (log -inf)"
        if p == 0.0 or p < 1e-300:
            return f"{p:.6g} (log {v.log:.10g})"
        return f"{p:.10g} (log {v.log:.10g})"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f"{f:.10g}"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, tuple):
        return "(" + ", ".join(fmt_scalar(x) for x in v) + ")"
    return str(v)


def _cell(arr, idx, value_type) -> str:
    return fmt_scalar(wrap(arr[idx], value_type))


def text_cells(arr: np.ndarray, value_type: str) -> list[str]:
    """Every cell's text in C order: at once where the array holds numbers
    (dslc.runtime.cells), else cell by cell (:func:`text_cells_reference`)."""
    fast = at_once.text_cells(arr, value_type)
    return text_cells_reference(arr, value_type) if fast is None else fast


def text_cells_reference(arr: np.ndarray, value_type: str) -> list[str]:
    """The reference: each cell wrapped as a script value, then formatted."""
    return [_cell(arr, idx, value_type) for idx in np.ndindex(arr.shape)]


def render_text(printed: list[tuple[str, object]]) -> str:
    return "".join(text_pieces(printed))


def text_pieces(printed: list[tuple[str, object]]) -> Iterator[str]:
    """:func:`render_text`'s text in pieces, one line (or a grid's body) at a time,
    so that a writer holds one printed value's lines, not their joins as well: a map
    over 105,000 proteins prints two lines of 2 MB each, and the joined copies of
    them (the value's, the whole text's, its encoding) were 10 MB of a search's peak
    memory."""
    for k, (name, value) in enumerate(printed):
        for j, line in enumerate(_lines_one(name, value)):
            if k or j:
                yield "\n"
            if isinstance(line, str):
                yield line
            else:
                yield from line


def line_text(line) -> str:
    """A line of :func:`_grid_lines` as one text (a line may be given as an iterator
    of its pieces: :func:`_grid2`'s wide rows)."""
    return line if isinstance(line, str) else "".join(line)


def _lines_one(name: str, value) -> list:
    if hasattr(value, "to_json"):  # a derivation or an alignment (dslc.trace)
        return [f"{name} =", value.text()]
    if isinstance(value, TableResult):
        head = f"{name} = table of {value.func}, {' x '.join(map(str, value.shape))}"
        return [head, *_grid_lines(value.values, value.value_type, value.axes)]
    if isinstance(value, MapResult):
        head = f"{name} = map of {value.func}" + (
            f", {' x '.join(map(str, value.shape))}" if value.values.ndim else "")
        note = [f"# {value.note}"] if value.note else []
        return [head, *note, *_grid_lines(value.values, value.value_type, value.axes)]
    if is_list(value):
        lines = [f"{name} = list of {len(value)}"]
        for k, x in enumerate(value[:20]):
            lines.append(f"  [{k}] {_short(x)}")
        if len(value) > 20:
            lines.append(f"  ... {len(value) - 20} more")
        return lines
    return [f"{name} = {_short(value)}"]


def _short(x) -> str:
    if isinstance(x, Sequence):
        t = x.text
        return f"{x.name} ({len(x)}): {t[:60]}{'...' if len(t) > 60 else ''}"
    if isinstance(x, Alphabet):
        return f"alphabet {x.name}: {' '.join(x.symbols)}"
    if isinstance(x, Matrix):
        return f"matrix {x.name} over {x.alphabet.name}"
    return fmt_scalar(x)


def _grid_lines(arr: np.ndarray, value_type: str, axes) -> list:
    """The grid's lines (a two-dimensional grid's body as one text: joined
    once more with the heading only, not copied again per level; an int grid's
    heading and body as iterators of their pieces, :func:`line_text`)."""
    if arr.ndim == 0:
        return ["  " + text_cells(arr, value_type)[0]]
    if arr.ndim == 1:
        texts = text_cells(arr, value_type)
        if not (axes and axes[0].labels):
            return ["\n".join(map("  [{}] {}".format, itertools.count(), texts))]
        labels = _labels(axes[0], arr.shape[0])
        width = max(len(s) for s in labels)
        name = axes[0].name.replace("{", "{{").replace("}", "}}")
        line = f"  {name}={{:<3}} {{:<{width}}}  {{}}".format  # a line per cell, mapped in C
        return ["\n".join(map(line, itertools.count(), labels, texts))]
    if arr.ndim == 2:
        return _grid2(arr, value_type, axes)
    parts = []
    for k in range(arr.shape[0]):
        parts.append(f"  {axes[0].name} = {k}:")
        parts += _grid_lines(arr[k], value_type, axes[1:])
    return parts


def _labels(axis, n) -> list[str] | RecordNames:
    """The axis's labels as text; record names as they are (read a slice at a time)."""
    if axis.labels and len(axis.labels) == n:
        return axis.labels if isinstance(axis.labels, RecordNames) else list(map(str, axis.labels))
    return [str(k) for k in range(n)]


def _grid2(arr, value_type, axes) -> list:
    """Rows of cells right-aligned in columns of one width: the cells of an int
    result written at once (dslc.runtime.digits), any other cell's text by
    :func:`text_cells`."""
    rows, cols = arr.shape
    ints = digits.int_cells(arr, value_type) if arr.size else None
    flat = None if ints is not None else text_cells(arr, value_type)
    rl, cl = _labels(axes[0], rows), _labels(axes[1], cols)
    numbered = axes[0].labels is not None and len(axes[0].labels) == rows and rl[0] == ""
    cell_w = ints.width if ints is not None else max(map(len, flat), default=0)
    w = max(cell_w, max(map(len, cl), default=0), len(str(cols - 1)))
    corner = f"{axes[0].name}\\{axes[1].name}"
    rw = max([len(f"{k} {x}".strip()) for k, x in enumerate(rl)] + [len(corner)])
    heading = _row_pieces(f"{corner:>{rw}}  ", cl, w)
    if numbered or (axes[1].labels and len(axes[1].labels) == cols and cl[0] == ""):
        head1 = _numbers_row(" " * rw + "  ", cols, w)
        lines = [head1, heading]
        labels = [f"{k} {rl[k]}".strip() if numbered else rl[k] for k in range(rows)]
    else:
        lines = [heading]
        labels = rl
    prefixes = [f"{lab:>{rw}}  " for lab in labels]
    if ints is not None:
        lines.append(digits.rows_pieces(ints, w, prefixes, _CELLS_AT_ONCE))
    else:
        lines += [p + _row(flat[k * cols:(k + 1) * cols], w) for k, p in enumerate(prefixes)]
    return lines


def _numbers_row(prefix: str, count: int, width: int):
    """``prefix``, then 0 .. count - 1 right-aligned in columns of ``width`` (a line
    in pieces, as the grid's body)."""
    if not count:
        return prefix
    ints = digits.of_ints(np.arange(count, dtype=np.int64))
    return digits.rows_pieces(ints, width, [prefix], _CELLS_AT_ONCE)


_CELLS_AT_ONCE = 1 << 14  # cells of a row aligned together by _row


def _row_pieces(prefix: str, texts, width: int) -> Iterator[str]:
    """``prefix + _row(texts, width)`` in pieces of :data:`_CELLS_AT_ONCE` cells
    (a map's heading of 105,000 record names is not held aligned as a whole)."""
    yield prefix
    for k in range(0, len(texts), _CELLS_AT_ONCE):
        yield (" " if k else "") + _row(texts[k:k + _CELLS_AT_ONCE], width)


def _row(texts: list[str], width: int) -> str:
    """Texts right-aligned in columns of ``width`` (``f"{x:>{width}}"`` each,
    mapped in C: a row may hold a million cells), a slice of them at a time, so
    that a million aligned strings are not all held before they are joined."""
    if len(texts) <= _CELLS_AT_ONCE:
        return " ".join(map(str.rjust, texts, itertools.repeat(width)))
    return " ".join(" ".join(map(str.rjust, texts[k:k + _CELLS_AT_ONCE], itertools.repeat(width)))
                    for k in range(0, len(texts), _CELLS_AT_ONCE))
