"""The FASTA byte reader's inner loop: one compiled pass over a block of whole lines.

numpy needs a pass over the bytes per question (where lines start, which are
headers, which bytes are residues, their codes, the names): about ten passes
and a gather over a 340 MB file. This loop (Numba, compiled once and cached on
disk like any other kernel) asks them all of each byte as it goes: residue
codes through the alphabet's table straight into the packed buffer, each
header's first residue and name. It does not judge anything it is unsure of:
whatever the line reader might read differently or report (an indented header,
a lone carriage return, a control or non-ASCII byte in a header, a symbol
outside the alphabet) makes it return ``DECLINE``, and the caller leaves the
whole file to the line reader, which gives the value or the exact error.

The same function runs as plain Python on a small file (:func:`scanner`): a
file of a few hundred kilobytes is read before Numba would have started, so a
small run that loads one never imports it.
"""

from __future__ import annotations

import numpy as np

DECLINE = -1
_LF, _CR, _TAB, _SPACE, _GT, _SEMI = 10, 13, 9, 32, 62, 59
# what the table gives, beyond residue codes (all below _BLANK)
_BLANK, _CR_CODE, _END, _BAD = 252, 253, 254, 255
FIRST_SPECIAL = _BLANK


def line_table(lut):
    """The residue table ``lut`` (255: not a residue) with the codes the scan
    uses for the bytes of a sequence line that are not residues: blanks, a
    carriage return, the line break."""
    table = lut.copy()
    table[[_SPACE, _TAB]] = _BLANK
    table[_CR], table[_LF] = _CR_CODE, _END
    return table


def scan_lines(block, lut, odd, codes, at, starts, names, name_lens):
    """Read ``block`` (whole lines, the last ending in ``\\n``): residue codes
    (``lut``: :func:`line_table`) written to ``codes`` from ``at``
    on; for each header, the index of its record's first residue in
    ``starts`` and its name (first word after the ``>``) appended to
    ``names``, its length in ``name_lens``. Returns ``(residues, headers,
    residues before the first header)``, or ``(DECLINE, 0, 0)``."""
    n = len(block)
    if n == 0 or block[n - 1] != _LF or lut[_LF] != _END:
        return DECLINE, 0, 0  # (every loop below stops at a line break: make sure of one)
    i, r, h, nb, first = 0, at, 0, 0, -1
    while i < n:
        c = block[i]
        if c == _GT or c == _SEMI:  # a header or a comment line
            end = i + 1
            while block[end] != _LF:
                if odd[block[end]] or (block[end] == _CR and block[end + 1] != _LF):
                    return DECLINE, 0, 0
                end += 1
            if c == _GT:
                if first < 0:
                    first = r - at
                starts[h] = r
                j = i + 1
                while block[j] == _SPACE or block[j] == _TAB or block[j] == _CR:
                    j += 1
                s = j
                while j < end and not (block[j] == _SPACE or block[j] == _TAB
                                       or block[j] == _CR):
                    names[nb] = block[j]
                    nb += 1
                    j += 1
                name_lens[h] = j - s
                h += 1
            i = end + 1
            continue
        if c == _SPACE or c == _TAB:  # indented: a header or comment is the line reader's
            j = i
            while block[j] == _SPACE or block[j] == _TAB:
                j += 1
            if block[j] == _GT or block[j] == _SEMI:
                return DECLINE, 0, 0
        j = i  # a sequence line: every byte not blank is a residue
        while True:
            code = lut[block[j]]
            if code < _BLANK:  # (one look-up and one test for most bytes)
                codes[r] = code
                r += 1
            elif code == _END:
                break
            elif code == _BAD or (code == _CR_CODE and block[j + 1] != _LF):
                return DECLINE, 0, 0
            j += 1
        i = j + 1
    return r - at, h, (r - at if first < 0 else first)


_compiled = []  # scan_lines compiled, once made


def scanner(compiled: bool):
    """:func:`scan_lines` compiled by Numba (cached on disk like every kernel),
    or as plain Python over memoryviews (whose items index as Python ints,
    several times faster than numpy's scalars); both take numpy arrays."""
    if not compiled:
        return _plain
    if not _compiled:
        from numba import njit

        _compiled.append(njit(cache=True, nogil=True)(scan_lines))
    return _compiled[0]


def _plain(*args):
    return scan_lines(*(memoryview(a) if isinstance(a, np.ndarray) else a for a in args))
