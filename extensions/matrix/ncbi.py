"""The NCBI substitution-matrix format, for files and for ``define matrix`` blocks.

A header row of column symbols, then one row per symbol::

    #  comment lines start with '#'
       A  C  G  T
    A  2 -1 -1 -1
    C -1  2 -1 -1
    ...

Lines starting with ``#`` and anything after ``//`` are comments; indentation
and blank lines are ignored. Rows may come in any order, but each header
symbol must have exactly one row and every row as many entries as the header
has symbols. The matrix is re-ordered to the alphabet's symbol order, and its
symbols must be exactly the alphabet's: missing and extra symbols are both
errors, but for nucleotide matrices such as NCBI's NUC.4.4: IUPAC ambiguity
codes (``N``, ``R``, ``Y``, ...) beyond the alphabet are cut away, and an
alphabet with ``U`` and no ``T`` reads a matrix's ``T`` as its ``U``. Entries are
``int64`` unless one of them is written with a point or an
exponent (``0.5``, ``1e-3``) or is ``inf``/``-inf``; then they are all
``float64``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from dslc import sdk
from dslc.sdk import Alphabet, DslcError, Matrix, Span

_INT = re.compile(r"[+-]?[0-9]+\Z")  # ASCII digits: Python's \d matches every script's
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z|[+-]?inf(inity)?\Z",
                    re.I)


class _Where:
    """Turns a position in the parsed text into an error location.

    Inline (``source`` is ``None``): text line ``k`` (0-based) is line
    ``span.line + line_offset + k`` of the script; on the first line (when
    ``line_offset`` is 0) columns start at ``span.col``, which is where the text
    after a ``define`` block's ``{`` begins. From a file (``source`` given): the
    error stays at ``span`` (the ``load`` statement) and its message names the
    file, line and column."""

    def __init__(self, span: Span | None, line_offset: int, source: str | None):
        self.span, self.line_offset, self.source = span, line_offset, source

    def error(self, message: str, k: int, col: int = 0, width: int = 1,
              hint: str | None = None) -> DslcError:
        if self.source is not None:
            return DslcError(f"{self.source}:{k + 1}:{col + 1}: {message}", self.span, hint)
        if self.span is None:
            return DslcError(f"line {k + 1 + self.line_offset}: {message}", None, hint)
        line = self.span.line + self.line_offset + k
        c = self.span.col + col if k == 0 and self.line_offset == 0 else col + 1
        return DslcError(message, Span(self.span.file, line, c, line, c + max(1, width)), hint)

    def line_label(self, k: int) -> int:
        """The line number a user sees for text line ``k``."""
        if self.source is not None or self.span is None:
            return k + 1 + (0 if self.source is not None else self.line_offset)
        return self.span.line + self.line_offset + k

    def whole(self, message: str, hint: str | None = None) -> DslcError:
        if self.source is not None:
            return DslcError(f"{self.source}: {message}", self.span, hint)
        return DslcError(message, self.span, hint)


def _cells(text: str) -> list[tuple[int, list[tuple[int, str]]]]:
    """The non-comment lines as ``(line index, [(column, word), ...])``."""
    rows = []
    # lines end at \n alone, as the script's are counted (a form feed is white space)
    for k, raw in enumerate(text.split("\n")):
        line = raw.split("//", 1)[0]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        rows.append((k, [(m.start(), m.group()) for m in re.finditer(r"\S+", line)]))
    return rows


def _check_entry(v: str, what: str, where: str, error) -> None:
    """Refuse an entry that is no number as the language writes one: not a number,
    a digit outside ASCII (which Python's ``float()`` would read), or a float that
    overflows to infinity without saying ``inf``. ``error(message, hint)`` makes
    the located error."""
    foreign = sdk.foreign_digit(v)
    if foreign is not None:
        raise error(f"{what} {where}: " + sdk.foreign_digit_message(v, foreign))
    if not (_INT.match(v) or _FLOAT.match(v)):
        raise error(f"{what} '{sdk.shown_number(v)}' {where} is not a number")
    if "inf" not in v.lower() and sdk.finite_float(v) is None:
        raise error(f"{what} {sdk.shown_number(v)} {where} is too large for a float",
                    "write inf for an infinity")


def _listing(symbols) -> str:
    return " ".join(f"'{s}'" for s in symbols)


def parse_matrix(text: str, alphabet: Alphabet, name: str = "matrix",
                 span: Span | None = None, line_offset: int = 0,
                 source: str | None = None) -> Matrix:
    """The matrix written in NCBI layout in ``text``, over ``alphabet``.

    ``span`` is where ``text`` starts in the script (a ``define matrix`` body)
    and ``line_offset`` how many lines further down it really starts, so errors
    point at the offending line and word of the ``.bio`` file. ``source`` names
    a file the text came from; errors then stay at ``span`` and name the file's
    line instead (see :func:`load_matrix_file`)."""
    where = _Where(span, line_offset, source)
    rows = _cells(text)
    if not rows:
        raise where.whole(f"matrix '{name}' is empty: it needs a header row of symbols and "
                          "one row per symbol")
    (hk, header), body = rows[0], rows[1:]
    symbols = [w for _, w in header]
    seen: dict[str, int] = {}
    for col, sym in header:
        if sym in seen:
            raise where.error(f"matrix '{name}': symbol '{sym}' appears twice in the header",
                              hk, col, len(sym))
        seen[sym] = col
    n = len(symbols)
    if not body:
        raise where.error(f"matrix '{name}' has a header of {n} symbols but no rows; it must "
                          "be square", hk, header[0][0], len(symbols[0]))

    entries: dict[str, list[str]] = {}
    row_line: dict[str, int] = {}
    is_float = False
    wide = None  # the first int entry beyond 64 bits (an error unless the matrix is float)
    for k, cells in body:
        (c0, sym), values = cells[0], cells[1:]
        if sym in entries:
            raise where.error(f"matrix '{name}': row '{sym}' appears twice (first on line "
                              f"{where.line_label(row_line[sym])})",
                              k, c0, len(sym))
        if sym not in seen:
            if _INT.match(sym) or _FLOAT.match(sym):
                raise where.error(f"matrix '{name}': a row must start with its symbol, "
                                  f"found the number '{sym}'", k, c0, len(sym))
            raise where.error(f"matrix '{name}': row '{sym}' is not a symbol of the header "
                              f"({' '.join(symbols)})", k, c0, len(sym))
        if len(values) != n:
            at = values[n] if len(values) > n else (cells[-1][0], cells[-1][1])
            raise where.error(f"matrix '{name}': row '{sym}' has {len(values)} entries, "
                              f"the header has {n} symbols", k, at[0], len(at[1]))
        for col, v in values:
            _check_entry(v, f"matrix '{name}': entry", f"in row '{sym}'",
                         lambda message, hint=None, k=k, col=col, v=v:
                         where.error(message, k, col, len(v), hint))
            if _INT.match(v):
                if wide is None and sdk.int_of(v) is None:
                    wide = (k, col, v, sym)
                continue
            is_float = True
        entries[sym] = [v for _, v in values]
        row_line[sym] = k
    if len(entries) != n:
        lacking = [s for s in symbols if s not in entries]
        raise where.error(f"matrix '{name}' has {n} columns but {len(entries)} rows; it must be "
                          f"square (no row for {_listing(lacking)})", body[-1][0],
                          body[-1][1][0][0], len(body[-1][1][0][1]))

    rename = _nucleotide_names(alphabet, seen)
    missing = [s for s in alphabet.symbols if rename.get(s, s) not in seen]
    extra = [s for s in symbols if not alphabet.has(s) and s not in rename.values()]
    if extra and all(s in IUPAC_AMBIGUOUS for s in extra) and not missing:
        extra = []  # a nucleotide matrix with ambiguity codes, cut to the alphabet
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"lacks {'symbol' if len(missing) == 1 else 'symbols'} "
                         f"{_listing(missing)} of alphabet '{alphabet.name}'")
        if extra:
            parts.append(f"has {'symbol' if len(extra) == 1 else 'symbols'} {_listing(extra)} "
                         f"outside alphabet '{alphabet.name}'")
        col = seen[extra[0]] if extra else header[0][0]
        raise where.error(f"matrix '{name}' " + " and ".join(parts), hk, col,
                          len(extra[0]) if extra else 1,
                          hint="a matrix needs a row and a column for each symbol of its "
                               "alphabet, and no others")

    pos = {s: j for j, s in enumerate(symbols)}
    rows = [rename.get(s, s) for s in alphabet.symbols]  # the file's name for each symbol
    order = [pos[s] for s in rows]
    if is_float:
        grid = np.array([[float(v) for v in entries[s]] for s in rows],
                        dtype=np.float64).reshape(len(order), n)
    else:
        if wide is not None:
            k, col, v, s = wide
            raise where.error(f"matrix '{name}': entry {sdk.shown_number(v)} in row '{s}' does "
                              "not fit in a 64-bit integer", k, col, len(v))
        ints = [[sdk.int_of(v) for v in entries[s]] for s in rows]  # (each fits: not wide)
        grid = np.array(ints, dtype=np.int64).reshape(len(order), n)
    return Matrix(name, alphabet, np.ascontiguousarray(grid[:, order]))


IUPAC_AMBIGUOUS = frozenset("BDHKMNRSVWY")  # nucleotide codes standing for several bases


def _nucleotide_names(alphabet: Alphabet, seen: dict) -> dict[str, str]:
    """``{"U": "T"}`` where an RNA alphabet reads a DNA matrix (NUC.4.4 writes
    T): the alphabet's U takes the matrix's T row and column."""
    if alphabet.has("U") and not alphabet.has("T") and "T" in seen and "U" not in seen:
        return {"U": "T"}
    return {}


def load_matrix_file(path: str, alphabet: Alphabet, span: Span | None = None,
                     name: str | None = None) -> Matrix:
    """The matrix in the NCBI-format file at ``path`` (plain or gzipped), over
    ``alphabet``. Every error, including a missing or unreadable file, is a
    :class:`DslcError` at ``span`` (the ``load`` statement) whose message names
    the file and, for a malformed matrix, the line and column in it."""

    path = str(path)
    text = sdk.read_text(path, span, "matrix file")
    return parse_matrix(text, alphabet, name=name or Path(path).name, span=span, source=path)
