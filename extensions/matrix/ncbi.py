"""The NCBI substitution-matrix format, for files and for ``define matrix`` blocks.

A header row of column symbols, then one row per symbol: ``A 4 -1 -2 ...``.
Lines starting with ``#`` and ``//`` comments are ignored. The matrix is
re-ordered to the alphabet's symbol order; entries are ints unless one of them
is written with a point or an exponent.
"""

from __future__ import annotations

import numpy as np

from dslc.errors import DslcError, Span
from dslc.runtime.values import Alphabet, Matrix


def _at(span: Span | None, line: int) -> Span | None:
    """The span of line ``line`` (0-based) of a text that starts at ``span``."""
    if span is None:
        return None
    return Span(span.file, span.line + line, 1 if line else span.col)


def parse_matrix(text: str, alphabet: Alphabet, name: str = "matrix",
                 span: Span | None = None) -> Matrix:
    rows = []
    for k, raw in enumerate(text.splitlines()):
        line = raw.split("//", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        rows.append((k, line.split()))
    if not rows:
        raise DslcError(f"matrix '{name}' is empty", span)
    (hline, header), body = rows[0], rows[1:]
    if len(set(header)) != len(header):
        dup = sorted({s for s in header if header.count(s) > 1})
        raise DslcError(f"matrix '{name}': symbol {dup[0]} appears twice in the header",
                        _at(span, hline))
    if len(body) != len(header):
        raise DslcError(f"matrix '{name}' has {len(header)} columns but {len(body)} rows; "
                        "it must be square", _at(span, body[-1][0] if body else hline))
    values: dict[tuple[str, str], str] = {}
    is_float = False
    for (k, cells), want in zip(body, header):
        sym, entries = cells[0], cells[1:]
        if sym != want:
            raise DslcError(f"matrix '{name}': row '{sym}' where row '{want}' was expected "
                            "(rows must follow the header's order)", _at(span, k))
        if len(entries) != len(header):
            raise DslcError(f"matrix '{name}': row '{sym}' has {len(entries)} entries, "
                            f"expected {len(header)}", _at(span, k))
        for col, v in zip(header, entries):
            try:
                float(v)
            except ValueError:
                raise DslcError(f"matrix '{name}': entry '{v}' in row '{sym}' is not a number",
                                _at(span, k)) from None
            is_float = is_float or any(c in v for c in ".eE")
            values[(sym, col)] = v
    missing = [s for s in alphabet.symbols if s not in header]
    extra = [s for s in header if not alphabet.has(s)]
    if missing:
        raise DslcError(f"matrix '{name}' lacks symbols of alphabet '{alphabet.name}': "
                        + " ".join(missing), _at(span, hline))
    if extra:
        raise DslcError(f"matrix '{name}' has symbols outside alphabet '{alphabet.name}': "
                        + " ".join(extra), _at(span, hline))
    n = len(alphabet)
    conv = float if is_float else int
    arr = np.empty((n, n), dtype=np.float64 if is_float else np.int64)
    for a, sa in enumerate(alphabet.symbols):
        for b, sb in enumerate(alphabet.symbols):
            arr[a, b] = conv(values[(sa, sb)])
    return Matrix(name, alphabet, arr)


def load_matrix_file(path: str, alphabet: Alphabet, span: Span | None = None) -> Matrix:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise DslcError(f"cannot open matrix file '{path}': no such file", span) from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError, OSError) as e:
        raise DslcError(f"cannot read matrix file '{path}': {getattr(e, 'strerror', None) or e}",
                        span) from None
    try:
        return parse_matrix(text, alphabet, name=path.rsplit("/", 1)[-1], span=None)
    except DslcError as e:
        raise DslcError(f"{path}: {e.message}", span) from None
