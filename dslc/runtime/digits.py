"""Ints printed at once: a whole int64 array written as ASCII digits by numpy.

A map of ten million scores printed through ``str`` of each value costs seconds
of Python objects (a string per cell, then joins). Here every cell's decimal
text is written into one byte matrix, a row per cell, right-aligned in a column
of a fixed width: one numpy pass per decimal digit of the largest magnitude.
That is exactly what the text grid prints (``str.rjust`` of ``str(int)`` in
columns of one width), and, with the padding dropped, what JSON prints
(``json`` writes an int as ``int.__repr__``). The texts are those of
:mod:`dslc.runtime.cells` (``_text_int``): digits, a ``-`` before a negative
value, and ``inf``/``-inf`` for the infinities an int result may hold.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from dslc.runtime import cells

_SPACE, _MINUS, _ZERO = 32, 45, 48
_POWERS = [10**k for k in range(20)]  # a uint64 magnitude has at most 20 digits
_TEXT_INF = (b"inf", b"-inf")  # (as cells._text_int writes them)
_JSON_INF = (b'"inf"', b'"-inf"')  # (as render._json_num gives them, encoded)


@dataclass(frozen=True, eq=False)
class IntCells:
    """An int result's cells (C order): their magnitudes, signs, where the
    infinities are, and each cell's text length."""

    mag: np.ndarray  # |value| (uint32 where every one fits, else uint64; 0 where infinite)
    neg: np.ndarray  # value < 0
    up: np.ndarray | None  # +inf cells (None where there are none)
    down: np.ndarray | None  # -inf cells
    lengths: np.ndarray  # characters of each cell's text (uint8)

    @property
    def width(self) -> int:
        return int(self.lengths.max()) if self.lengths.size else 0

    def part(self, lo: int, hi: int) -> "IntCells":
        """Cells ``lo`` to ``hi`` (views)."""
        def cut(a):
            return None if a is None else a[lo:hi]
        return IntCells(self.mag[lo:hi], self.neg[lo:hi], cut(self.up), cut(self.down),
                        self.lengths[lo:hi])

    def padded(self, width: int, sep: bytes = b"", infinities=_TEXT_INF) -> np.ndarray:
        """A ``(cells, width + len(sep))`` byte matrix: each cell's text
        right-aligned in ``width`` columns (``str.rjust``), then ``sep``;
        ``infinities``: the texts of +inf and -inf cells. Written a column (a
        digit place) at a time into the transposed matrix, whose columns are
        contiguous, and transposed once at the end."""
        out = np.full((width + len(sep), self.mag.size), _SPACE, dtype=np.uint8)
        _write_digits(out[:width], self.mag, self.neg, self.lengths - self.neg)
        for mask, text in zip((self.up, self.down), infinities):
            if mask is not None and mask.any():
                at = np.flatnonzero(mask)
                for k, byte in enumerate(text):
                    out[width - len(text) + k, at] = byte
        for k, byte in enumerate(sep):
            out[width + k] = byte
        return np.ascontiguousarray(out.T)


def int_cells(arr: np.ndarray, value_type: str) -> IntCells | None:
    """The cells of an int result with no None cell, or None (another value
    type, None cells, a NaN or a value beyond int64: cells.text_array's path)."""
    if value_type != "int":
        return None
    got = cells.numeric(arr, value_type)
    if got is None or got[1] is not None:
        return None
    ints = cells._ints(got[0])
    if ints is None:
        return None
    return of_ints(*ints)


def of_ints(values: np.ndarray, up: np.ndarray | None = None,
            down: np.ndarray | None = None) -> IntCells:
    """The cells of int64 ``values`` (``up``/``down``: the +inf and -inf cells)."""
    neg = values < 0
    mag = _magnitudes(values, neg)
    lengths = _digit_counts(mag) + neg
    if up is not None:
        lengths[up], lengths[down] = 3, 4
    return IntCells(mag, neg, up, down, lengths)


def _magnitudes(values: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """``|v|`` of each int64, as uint32 where all fit (32-bit division is
    several times faster), else as uint64 (``-2**63`` included)."""
    if not values.size or (int(values.min()) > -2**32 and int(values.max()) < 2**32):
        return np.abs(values).astype(np.uint32)
    u = values.astype(np.uint64)
    return np.where(neg, ~u + np.uint64(1), u)


def _digit_counts(mag: np.ndarray) -> np.ndarray:
    counts = np.ones(mag.shape, dtype=np.uint8)
    top = int(mag.max()) if mag.size else 0
    for power in _POWERS[1:]:
        if power > top:
            break
        counts += mag >= mag.dtype.type(power)
    return counts


def _write_digits(out: np.ndarray, mag: np.ndarray, neg: np.ndarray,
                  counts: np.ndarray) -> None:
    """Each magnitude's decimal digits (``counts`` of them), a ``-`` before a
    negative one, right-aligned in the columns of ``out`` (a row per
    character place; its other bytes are spaces already)."""
    width = out.shape[0]
    ten = mag.dtype.type(10)
    mag, rest, digit = mag.copy(), np.empty_like(mag), np.empty_like(mag)
    for k in range(int(counts.max()) if counts.size else 0):
        np.floor_divide(mag, ten, out=rest)  # (numpy divides by a constant fast;
        np.multiply(rest, ten, out=digit)  # its remainder is several times slower)
        np.subtract(mag, digit, out=digit)
        digit += _ZERO
        np.copyto(out[width - 1 - k], digit, casting="unsafe", where=counts > k)
        mag, rest = rest, mag
    at = np.flatnonzero(neg)
    out[width - 1 - counts[at].astype(np.intp), at] = _MINUS


def rows_pieces(ints: IntCells, width: int, prefixes: list[str],
                at_once: int) -> Iterator[str]:
    """The lines of a grid whose cells are ``ints``, each cell right-aligned in
    ``width`` columns with a space between cells, a row per prefix after it, joined by
    line breaks: in pieces of at most ``at_once`` cells, each written when it is asked
    for (a map's row of 105,000 scores is never held whole, nor its bytes beside it)."""
    cols = ints.mag.size // max(len(prefixes), 1)
    for r, prefix in enumerate(prefixes):
        yield ("\n" if r else "") + prefix
        for lo in range(r * cols, (r + 1) * cols, at_once):
            hi = min(lo + at_once, (r + 1) * cols)
            text = ints.part(lo, hi).padded(width, b" ").tobytes()
            yield (text[:-1] if hi == (r + 1) * cols else text).decode("ascii")


def json_text(ints: IntCells, shape: tuple[int, ...]) -> str:
    """The cells as the JSON of their nested lists (``json.dumps`` of the
    ``tolist()`` of their JSON values: ``", "`` between items, infinities as
    strings): every cell written padded, then the padding dropped by one mask."""
    lengths = ints.lengths.astype(np.int64)
    if ints.up is not None:
        lengths[ints.up], lengths[ints.down] = len(_JSON_INF[0]), len(_JSON_INF[1])
    width = int(lengths.max())
    matrix = ints.padded(width, b", ", _JSON_INF)
    keep = np.arange(width + 2) >= (width - lengths)[:, None]
    text = matrix[keep].tobytes().decode("ascii")
    cols = shape[-1]
    ends = np.cumsum(lengths.reshape(-1, cols).sum(axis=1) + 2 * cols).tolist()
    rows = ["[" + text[a:b - 2] + "]" for a, b in zip([0] + ends, ends)]
    for size in reversed(shape[:-1]):
        rows = ["[" + ", ".join(rows[k:k + size]) + "]" for k in range(0, len(rows), size)]
    return rows[0]
