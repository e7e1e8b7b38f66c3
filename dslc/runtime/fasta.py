"""FASTA reading: multi-record, wrapped lines, gzip (detected by content).

* A record starts at a ``>`` line; its name is the first word after the ``>``
  (``record<k>`` when the header is empty). The rest of the header is ignored.
* Sequence lines may be wrapped at any width; blank lines, Windows line endings
  and whitespace inside sequence lines are ignored. Lines starting with ``;``
  (old-style FASTA comments) are skipped.
* Compressed files are recognised by the gzip magic bytes, whatever their name.
* Case: when every symbol of the alphabet is written in upper case (``ACGT``,
  the 24 protein symbols, ``*`` included), lower-case letters in the file are
  read as their upper-case forms, so soft-masked FASTA loads as it is. An
  alphabet with any lower-case letter in it is matched exactly.
* Alphabets whose symbols are longer than one character (``["10", "11"]``) read
  each record as whitespace-separated tokens, one symbol per token.

Records are validated against the alphabet as they are encoded; the first
symbol outside it is reported with the file, the record name, its 1-based
position in the record and the line of the file it sits on. Every problem with
the file (missing, a directory, unreadable, bad gzip, no records, sequence data
before the first header) is a :class:`DslcError` at the ``span`` given: the
``load`` statement of the script.
"""

from __future__ import annotations

import gzip
import zlib

import numpy as np

from dslc.errors import DslcError, Span
from dslc.runtime.values import Alphabet, Sequence

_GZIP_MAGIC = b"\x1f\x8b"


def read_text(path: str, span: Span | None, what: str = "file") -> str:
    """A text file's contents (gunzipped if it starts with the gzip magic)."""
    path = str(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise DslcError(f"cannot open {what} '{path}': no such file", span) from None
    except IsADirectoryError:
        raise DslcError(f"cannot read {what} '{path}': it is a directory", span) from None
    except PermissionError:
        raise DslcError(f"cannot read {what} '{path}': permission denied", span) from None
    except OSError as e:
        raise DslcError(f"cannot read {what} '{path}': {e.strerror or e}", span) from None
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise DslcError(f"{what} '{path}' looks gzipped but cannot be decompressed: {e}",
                            span) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DslcError(f"{what} '{path}' is not a text file (byte {e.start + 1} is not UTF-8)",
                        span) from None
    if "\0" in text:
        byte = data.index(b"\0") + 1
        raise DslcError(f"{what} '{path}' is not a text file (byte {byte} is a NUL)",
                        span) from None
    return text


def _case_fold(alphabet: Alphabet) -> dict[str, str] | None:
    """How lower-case letters map onto the alphabet, or ``None`` to match exactly.

    Only when every symbol is upper case (no lower-case letter in any symbol, at
    least one letter in all) are lower-case letters folded. For one-character
    symbols the map sends the lower-case form of each alphabet letter to the
    letter itself, so a stranger is still reported as written in the file;
    multi-character tokens are upper-cased whole."""
    syms = alphabet.symbols
    if any(s != s.upper() for s in syms) or not any(c.isalpha() for s in syms for c in s):
        return None
    return {s.lower(): s for s in syms if s.lower() != s and len(s.lower()) == 1}


def parse_fasta_text(text: str, alphabet: Alphabet, source_name: str = "<fasta>",
                     span: Span | None = None) -> list[Sequence]:
    """The records of FASTA ``text``, encoded over ``alphabet``.

    ``source_name`` names the text in error messages (the file's path);
    ``span`` is where errors are reported (the script's ``load`` statement)."""
    records: list[tuple[str, list[tuple[int, str]]]] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith(">"):
            words = line[1:].split(None, 1)
            name = words[0] if words else f"record{len(records) + 1}"
            records.append((name, []))
            continue
        if not records:
            raise DslcError(f"{source_name}:{lineno}: sequence data before the first '>' header "
                            "(is this a FASTA file?)", span)
        records[-1][1].append((lineno, line))
    if not records:
        raise DslcError(f"{source_name} holds no FASTA records (no line starts with '>')", span)
    if len(alphabet) > 255:
        raise DslcError(f"alphabet '{alphabet.name}' has {len(alphabet)} symbols; sequences "
                        "can be read over at most 255", span)
    fold = _case_fold(alphabet)
    return [_encode(name, lines, alphabet, fold, source_name, span) for name, lines in records]


def _symbols_text(alphabet: Alphabet) -> str:
    syms = alphabet.symbols
    return "".join(syms) if alphabet.single_chars else ", ".join(syms)


def _stranger(what: str, sym: str, pos: int, lineno: int, alphabet: Alphabet,
              span: Span | None) -> DslcError:
    return DslcError(
        f"{what}: symbol '{sym}' at position {pos} (line {lineno}) is not in alphabet "
        f"'{alphabet.name}' ({_symbols_text(alphabet)})", span)


def _encode(name: str, lines: list[tuple[int, str]], alphabet: Alphabet,
            fold: dict[str, str] | None, source_name: str, span: Span | None) -> Sequence:
    what = f"{source_name}: record '{name}'"
    if alphabet.single_chars:
        pieces = ["".join(ln.split()) for _, ln in lines]
        body = "".join(pieces)
        folded = body.translate(str.maketrans(fold)) if fold else body
        codes = _encode_chars(folded, alphabet)
        if codes is None:  # find the first stranger, as written in the file
            pos = 0
            for (lineno, _), piece in zip(lines, pieces):
                for c in piece:
                    pos += 1
                    if not alphabet.has(fold.get(c, c) if fold else c):
                        raise _stranger(what, c, pos, lineno, alphabet, span)
            raise AssertionError("unreachable: a stranger was seen but not found")
        return Sequence(name, alphabet, codes)
    out: list[int] = []
    for lineno, ln in lines:
        for tok in ln.split():
            sym = tok.upper() if fold is not None else tok
            if not alphabet.has(sym):
                raise _stranger(what, tok, len(out) + 1, lineno, alphabet, span)
            out.append(alphabet.code(sym))
    return Sequence(name, alphabet, np.asarray(out, dtype=np.uint8))


def _encode_chars(text: str, alphabet: Alphabet) -> np.ndarray | None:
    """Codes of ``text`` (one symbol per character), or ``None`` if a character
    is not in the alphabet. ASCII text over an ASCII alphabet goes through a
    lookup table; anything else through the alphabet itself."""
    if text.isascii() and all(s.isascii() for s in alphabet.symbols):
        lut = np.full(256, 255, dtype=np.uint8)
        for k, s in enumerate(alphabet.symbols):
            lut[ord(s)] = k
        codes = lut[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]
        if (codes == 255).any():
            return None
        return codes
    if not all(alphabet.has(c) for c in set(text)):
        return None
    return alphabet.encode(text)


def read_fasta(path: str, alphabet: Alphabet, span: Span | None = None) -> list[Sequence]:
    """The records of the FASTA file at ``path`` (plain or gzipped), encoded over
    ``alphabet``; see the module's docstring for the format and case rules.
    Errors are :class:`DslcError` reported at ``span``."""
    path = str(path)
    return parse_fasta_text(read_text(path, span, "FASTA file"), alphabet, path, span)
