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
The text is what ``hits._tsv_table``'s row-by-row path gives, byte for byte.
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


def tsv_text(table: HitTable, head: str, field) -> str | None:
    """The table's TSV: the line ``head``, then a line per row; None where a
    column is not numbers (the caller then makes the rows one by one).
    ``field`` escapes a record name (``hits._field``).

    Where the last axis is long (a database), the rows of one index of the
    other axes (a query) share those axes' record names: they are written once
    after the line break that ends each row (a cell of its own, or glued to an
    int column's looked-up texts), so a row of a search's result is two cells.
    All the cells go into one list for one ``str.join``: the text is copied
    once."""
    shape = table.columns[0][1].values.shape
    if not table.axes:
        return None
    count = math.prod(shape)
    split = len(shape) - 1 if shape[-1] >= _LONG else 0  # axes before it: one index a block
    inner = math.prod(shape[split:])
    last = len(table.columns) - 1
    columns = [_Column.of(r, k == last, inner if k == last else count)
               for k, (_, r) in enumerate(table.columns)]
    if any(c is None for c in columns):
        return None
    names = [_glued(escaped(_labels(a, n), field), "\t") for a, n in zip(table.axes, shape)]
    inner_names = [np.array(x, dtype=object) for x in names[split:]] if len(shape) - split > 1 \
        else names[split:]
    width = len(shape) - split + sum(c.width for c in columns)
    blocks = [(outer, o * inner + start, start, min(_BLOCK, inner - start))
              for o, outer in enumerate(np.ndindex(*shape[:split]))
              for start in range(0, inner, _BLOCK)] if count else []
    items: list = [None] * (1 + sum(1 + size * width for *_, size in blocks))
    items[0], at = head, 1
    for outer, flat, start, size in blocks:
        prefix = "".join(names[d][k] for d, k in enumerate(outer))
        items[at] = "\n" + prefix  # (after the head, or the last row of the block before)
        pieces = _pieces(inner_names, columns, shape[split:], (flat, size), "\n" + prefix, start)
        for j, piece in enumerate(pieces, at + 1):
            items[j:at + 1 + size * width:width] = piece
        at += 1 + size * width
        items[at - 1] = items[at - 1][:len(items[at - 1]) - 1 - len(prefix)]  # its last row
    return "".join(items)


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

    def pieces(self, start: int, stop: int, end: str) -> list[list]:
        """The cells of rows ``start`` to ``stop``, then (unless glued to
        them) what follows each: a tab, or ``end`` after a row's last column."""
        after = end if self.last else "\t"
        if self.texts is not None:
            return [self.texts[start:stop].tolist(), [after] * (stop - start)]
        texts, places = self.lookup
        if after not in self.glued:
            self.glued[after] = np.array(_glued(texts, after), dtype=object)
        return [self.glued[after][places[start:stop]].tolist()]


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


def _pieces(names: list, columns: list[_Column], shape: tuple, rows: tuple, end: str,
            inner_start: int) -> list[list]:
    """The cells of ``rows`` (the first's index in task order, how many), a
    list per place in a row: the record names on ``shape``'s axes (``names``;
    the rows start at ``inner_start`` of them), then each column's."""
    start, size = rows
    if len(shape) == 1:
        pieces = [labels[inner_start:inner_start + size] for labels in names]
    else:
        where = np.unravel_index(np.arange(inner_start, inner_start + size, dtype=np.int64),
                                 shape)
        pieces = [labels[k].tolist() for labels, k in zip(names, where)]
    for column in columns:
        pieces.extend(column.pieces(start, start + size, end))
    return pieces
