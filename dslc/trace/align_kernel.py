"""An alignment's columns, rows, counts and CIGAR in one compiled call.

dslc.trace.align builds an alignment from its path's points with numpy: some fifty
array operations on a few hundred columns, each a few microseconds of call overhead
however short the array, which made building it as slow as the compiled walk that
found the path. :func:`build` does the same in one pass, and is used where the path
was walked by compiled code (dslc.trace.jit: Numba is loaded and warm there already, so
this module imports it at its top); every other
alignment, and any path this function declines, goes the numpy way, which states
the rules and raises the errors. Both give the same alignment (tests/trace).

It is dslc's own code, the same for every script, so its machine code is kept in Numba's
cache beside this module (as dslc.cpu.packs's fill is): compiled once after installation,
not on the first ``--align`` run of every cache directory.
"""

from __future__ import annotations

import numba
import numpy as np

_GAP, _PLUS, _SPACE = -1, -3, -2  # glyph arrays end with "+", " ", "-"


@numba.njit(cache=True)
def build(at, codes_a, codes_b, ta, tb, pos, use_matrix):
    """``(status, top, mid, bottom, cigar, counts)`` of the path ``at`` (its points
    in the two sequences, (n, 2), in path order: the alignment's end first); rows
    and CIGAR as bytes (``ta``/``tb``: each alphabet's glyphs by code, then ``+``,
    `` ``, ``-``), counts ``(identities, similar, gaps, gap opens)``; ``pos[x, y]``:
    the matrix's score of codes x, y is positive (read where ``use_matrix``).
    ``status`` 0; -1 where a move is not an alignment's or a position is outside its
    sequence (the numpy route then says why), the arrays then empty."""
    m = at.shape[0]
    width = 0
    for j in range(m - 1):
        da = at[j, 0] - at[j + 1, 0]
        db = at[j, 1] - at[j + 1, 1]
        if not ((da == db and da >= 0) or (da > 0 and db == 0) or (db > 0 and da == 0)):
            width = -1
            break
        if at[j + 1, 0] < 0 or at[j + 1, 1] < 0 or (da > 0 and at[j, 0] > len(codes_a)) \
                or (db > 0 and at[j, 1] > len(codes_b)):
            width = -1
            break
        width += max(da, db)
    if width < 0:
        none = np.empty(0, np.uint8)
        return -1, none[:0], none[:0], none[:0], none[:0], np.zeros(4, np.int64)
    top = np.empty(width, np.uint8)
    mid = np.empty(width, np.uint8)
    bottom = np.empty(width, np.uint8)
    cigar = np.empty(2 * width + 1, np.uint8)
    counts = np.zeros(4, np.int64)
    c, nc, run, last = 0, 0, 0, -1
    for j in range(m - 2, -1, -1):  # forward: from the path's last point to its first
        da = at[j, 0] - at[j + 1, 0]
        db = at[j, 1] - at[j + 1, 1]
        for t in range(max(da, db)):
            ga, gb = da <= 0, db <= 0
            ka = -1 if ga else codes_a[at[j + 1, 0] + t]
            kb = -1 if gb else codes_b[at[j + 1, 1] + t]
            xa = ta[len(ta) + _GAP] if ga else ta[ka]
            xb = tb[len(tb) + _GAP] if gb else tb[kb]
            same = not ga and not gb and xa == xb
            close = same
            if use_matrix and not ga and not gb and not same:
                if ka >= pos.shape[0] or kb >= pos.shape[1]:
                    return -1, top[:0], mid[:0], bottom[:0], cigar[:0], counts
                close = pos[ka, kb]
            op = 3 if ga else (2 if gb else (0 if same else 1))
            top[c] = xa
            bottom[c] = xb
            if same:
                mid[c] = xa
            else:
                mid[c] = ta[len(ta) + _PLUS] if close else ta[len(ta) + _SPACE]
            if same:
                counts[0] += 1
            if close:
                counts[1] += 1
            if op >= 2:
                counts[2] += 1
                if op != last:
                    counts[3] += 1
            if op != last and run > 0:
                nc = _put_run(cigar, nc, run, last)
                run = 0
            run += 1
            last = op
            c += 1
    if run > 0:
        nc = _put_run(cigar, nc, run, last)
    return 0, top, mid, bottom, cigar[:nc], counts


@numba.njit(cache=True)
def _put_run(buf, at, n, op):
    """Write ``<n><op>`` (decimal; ``op`` a code into ``=XID``) into ``buf`` from
    ``at``; the new end."""
    digits = 1
    while n >= 10 ** digits:
        digits += 1
    for k in range(digits):
        buf[at + digits - 1 - k] = 48 + n // 10 ** k % 10
    buf[at + digits] = 61 if op == 0 else (88 if op == 1 else (73 if op == 2 else 68))
    return at + digits + 1


_COMPILED: list = []  # build, once asked for


def compiled():
    """:func:`build`, compiled by Numba when first called (its machine code then
    loaded from Numba's cache)."""
    if not _COMPILED:
        _COMPILED.append(build)
    return _COMPILED[0]
