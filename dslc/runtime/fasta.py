"""FASTA reading: multi-record, wrapped lines, gzip (detected by content).

Records are validated against the alphabet as they are encoded; the first
symbol outside it is reported with the record name and its 1-based position.
When every symbol of the alphabet is an upper-case letter, lower-case residues
(soft-masked FASTA) are upper-cased first. For alphabets whose symbols are
longer than one character, residues are whitespace-separated tokens.
"""

from __future__ import annotations

import gzip
import zlib

import numpy as np

from dslc.errors import DslcError, Span
from dslc.runtime.values import Alphabet, Sequence


def read_text(path: str, span: Span | None, what: str = "file") -> str:
    """A text file's contents (gunzipped if it starts with the gzip magic)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise DslcError(f"cannot open {what} '{path}': no such file", span) from None
    except IsADirectoryError:
        raise DslcError(f"cannot read {what} '{path}': it is a directory", span) from None
    except OSError as e:
        raise DslcError(f"cannot read {what} '{path}': {e.strerror or e}", span) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise DslcError(f"'{path}' looks gzipped but cannot be decompressed: {e}", span) \
                from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DslcError(f"'{path}' is not a text file", span) from None


def parse_fasta_text(text: str, alphabet: Alphabet, source_name: str = "<fasta>",
                     span: Span | None = None) -> list[Sequence]:
    records: list[tuple[str, list[str]]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith(">"):
            name = line[1:].split(None, 1)[0] if line[1:].strip() else f"record{len(records) + 1}"
            records.append((name, []))
            continue
        if not records:
            raise DslcError(f"{source_name}:{lineno}: sequence data before the first '>' header "
                            "(is this a FASTA file?)", span)
        records[-1][1].append(line)
    if not records:
        raise DslcError(f"{source_name} holds no FASTA records", span)
    upper = all(s.isalpha() and s.isupper() for s in alphabet.symbols)
    out = []
    for name, lines in records:
        out.append(_encode(name, lines, alphabet, upper, source_name, span))
    return out


def _encode(name, lines, alphabet, upper, source_name, span) -> Sequence:
    what = f"{source_name}: record '{name}'"
    if alphabet.single_chars:
        body = "".join("".join(ln.split()) for ln in lines)
        if upper:
            body = body.upper()
        return Sequence(name, alphabet, alphabet.encode(body, what, span))
    tokens = " ".join(lines).split()
    codes = np.empty(len(tokens), dtype=np.uint8)
    for pos, tok in enumerate(tokens, 1):
        if not alphabet.has(tok):
            raise DslcError(f"{what}: symbol '{tok}' at position {pos} is not in alphabet "
                            f"'{alphabet.name}'", span)
        codes[pos - 1] = alphabet.code(tok)
    return Sequence(name, alphabet, codes)


def read_fasta(path: str, alphabet: Alphabet, span: Span | None = None) -> list[Sequence]:
    return parse_fasta_text(read_text(path, span, "FASTA file"), alphabet, path, span)
