"""An unshaped hit table's TSV rows made a block of rows at a time, with numpy.

Joining each row of a search's result (ten million rows: two record names and
a score) with ``"\\t".join`` and then the rows with ``"\\n".join`` makes a
Python string per cell and per row. Here each cell's text carries the separator
that follows it, so a block of rows is one ``str.join`` of the cells laid out
row by row in an object array: a record name is escaped and given its tab once
per record (not once per row it appears in), an int column whose values span a
short range is formatted once per value in that range (by the same
:func:`dslc.runtime.cells.text_array` that formats each cell otherwise) and
looked up, and any other column's cells are formatted by
:func:`~dslc.runtime.cells.text_array` with the separator a cell of its own.
The rows come in the order the table is printed (``hits.shape_ids``: a search
by query, then E-value), gathered by task number. The text is what
``hits._tsv_table``'s row-by-row path gives, byte for byte.
"""

from __future__ import annotations

import math
from itertools import repeat
from operator import add

import numpy as np

from dslc.lang.results import HitTable, _labels
from dslc.runtime import cells

_BLOCK = 1 << 20  # rows whose cells are gathered at a time (bounds the arrays made)
_SPAN = 1 << 22  # the most distinct ints formatted ahead for a lookup
_LONG = 4096  # a last axis this long makes a block of rows per index of the others


def tsv_text(table: HitTable, head: str, field, ids: np.ndarray | None = None) -> str | None:
    """The table's TSV: the line ``head`` (none where it is None), then a line
    per row; None where a column is not numbers (the caller then makes the rows
    one by one). ``field`` escapes a record name (``hits._field``); ``ids``: the
    rows' task numbers in the order printed (None: every task, in task order).

    Where the last axis is long (a database) and the rows of each index of the
    other axes (a query) come together, as a search's table sorted by query
    prints them, those rows share the other axes' record names: they are
    written once after the line break that ends each row (a cell of its own,
    or glued to an int column's looked-up texts), so a row of a search's result
    is two cells. All the cells go into one list for one ``str.join``: the text
    is copied once."""
    shape = table.columns[0][1].values.shape
    if not table.axes:
        return None
    count = math.prod(shape)
    ids = np.arange(count, dtype=np.int64) if ids is None else np.asarray(ids, dtype=np.int64)
    split = len(shape) - 1 if shape[-1] >= _LONG else 0  # axes before it: one index a block
    if split and len(ids) > 1 and np.any(np.diff(ids // math.prod(shape[split:])) < 0):
        split = 0  # (the queries' rows interleave: every row names all its records)
    inner = math.prod(shape[split:])
    last = len(table.columns) - 1
    columns = [_Column.of(r, k == last, inner if k == last else count)
               for k, (_, r) in enumerate(table.columns)]
    if any(c is None for c in columns):
        return None
    names = [_glued(escaped(_labels(a, n), field), "\t") for a, n in zip(table.axes, shape)]
    inner_names = [np.array(x, dtype=object) for x in names[split:]]
    width = len(shape) - split + sum(c.width for c in columns)
    blocks = [(outer, o * inner, lo + s, min(_BLOCK, hi - lo - s))
              for o, outer, lo, hi in _groups(ids, shape[:split], inner)
              for s in range(0, hi - lo, _BLOCK)]
    items: list = [None] * (1 + sum(1 + size * width for *_, size in blocks))
    items[0], at = head or "", 1
    for outer, base, start, size in blocks:
        prefix = "".join(names[d][k] for d, k in enumerate(outer))
        items[at] = "\n" + prefix  # (after the head, or the last row of the block before)
        rows = ids[start:start + size]
        pieces = _pieces(inner_names, columns, shape[split:], rows, rows - base, "\n" + prefix)
        for j, piece in enumerate(pieces, at + 1):
            items[j:at + 1 + size * width:width] = piece
        at += 1 + size * width
        items[at - 1] = items[at - 1][:len(items[at - 1]) - 1 - len(prefix)]  # its last row
    text = "".join(items)
    return text[1:] if head is None and text else text  # (no head: no line break before)


def _groups(ids: np.ndarray, outer_shape: tuple, inner: int) -> list[tuple]:
    """The runs of ``ids`` that share an index of the outer axes: ``(that index
    flat, as a tuple, first, end)`` (one run of them all where there are none)."""
    if not len(ids):
        return []
    if not outer_shape:
        return [(0, (), 0, len(ids))]
    o = ids // inner
    cuts = [0, *(np.flatnonzero(np.diff(o)) + 1).tolist(), len(ids)]
    return [(int(o[lo]), tuple(int(x) for x in np.unravel_index(int(o[lo]), outer_shape)),
             lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:])]


def escaped(texts: list[str], field) -> list[str]:
    """``field`` of each text, called only where some text holds a tab or a
    line break (a record name never does: one scan of them all)."""
    joined = "".join(texts)
    if "\t" in joined or "\n" in joined or "\r" in joined:
        return list(map(field, texts))
    return texts


def _glued(texts, sep: str) -> list[str]:
    return list(map(add, texts, repeat(sep)))


class _Column:
    """A column of values: its cells' texts (flat, C order), or an int
    column's texts of each int of its range and each cell's place in them;
    ``last``: the row's end follows its cells, else a tab."""

    def __init__(self, texts: np.ndarray | None, lookup: tuple | None, last: bool):
        self.texts, self.lookup, self.last = texts, lookup, last
        self.width = 2 if lookup is None else 1  # cells a row (its texts, what follows)
        self.glued: dict[str, np.ndarray] = {}  # the range's texts with what follows them

    @staticmethod
    def of(result, last: bool, rows: int) -> "_Column | None":
        """None where the column is not numbers. ``rows``: how many rows share
        one end of row (the lookup's texts are glued to it once per end)."""
        values = result.values
        if result.value_type == "int":
            lookup = _int_range(values, rows)
            if lookup is not None:
                return _Column(None, lookup, last)
        texts = cells.text_array(values, result.value_type, tsv=True)
        return None if texts is None else _Column(texts, None, last)

    def pieces(self, rows: np.ndarray, end: str) -> list[list]:
        """The cells of tasks ``rows``, then (unless glued to them) what follows
        each: a tab, or ``end`` after a row's last column."""
        after = end if self.last else "\t"
        if self.texts is not None:
            return [self.texts[rows].tolist(), [after] * len(rows)]
        texts, places = self.lookup
        if after not in self.glued:
            self.glued[after] = np.array(_glued(texts, after), dtype=object)
        return [self.glued[after][places[rows]].tolist()]


def _int_range(values: np.ndarray, rows: int) -> tuple[list[str], np.ndarray] | None:
    """An int64 column's ``(texts of every int from its least to its largest
    value, each cell's place in them)`` where that range is well under
    ``rows`` (scores), formatted as every cell is (cells.text_array); None
    otherwise."""
    if not isinstance(values, np.ndarray) or values.dtype.kind not in "iu" or not values.size:
        return None
    low, high = int(values.min()), int(values.max())
    if (high - low) * 4 >= min(rows, _SPAN) or high >= 2**63:
        return None
    texts = cells.text_array(np.arange(low, high + 1, dtype=np.int64), "int")
    if texts is None:
        return None
    return texts.tolist(), values.ravel().astype(np.int64) - low


def _pieces(names: list, columns: list[_Column], shape: tuple, rows: np.ndarray,
            inner: np.ndarray, end: str) -> list[list]:
    """The cells of tasks ``rows`` (their places within ``shape``, the inner
    axes: ``inner``), a list per place in a row: the record names on those axes
    (``names``), then each column's."""
    where = np.unravel_index(inner, shape) if len(shape) > 1 else (inner,)
    pieces = [labels[k].tolist() for labels, k in zip(names, where)]
    for column in columns:
        pieces.extend(column.pieces(rows, end))
    return pieces
