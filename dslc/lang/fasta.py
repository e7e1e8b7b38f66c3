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
before the first header, not text, too large) is a :class:`DslcError` at the
``span`` given: the ``load`` statement of the script.

Files are read a chunk at a time and records encoded as they are read, so a
file's whole text is never held: ``DSLC_MAX_LOAD_BYTES`` bounds what one load
reads (after decompression, so a gzip bomb stops early),
``DSLC_MAX_RECORD_RESIDUES`` what one record holds (:mod:`dslc.lang.limits`).
"""

from __future__ import annotations

import codecs
import gzip
import os
import re
import stat
import threading
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dslc.errors import DslcError, Span
from dslc.lang.gather import usable_cores
from dslc.lang.limits import (FIFO_WAIT_SETTING, LOAD_SETTING, RECORD_SETTING, max_fifo_wait,
                              max_load_bytes, max_record_residues)
from dslc.lang.records import Records, SeqPack
from dslc.lang.values import Alphabet, Sequence, warn_stand_ins

_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20  # bytes read at a time
_BATCH = 1 << 20  # characters of a record encoded at a time
_FIRST_SPECIAL = 252  # byte reader codes from here on mark blanks (dslc.lang.fasta_scan)
_COMPILED_FROM = 1 << 18  # bytes read before the byte reader's pass is compiled (fasta_scan)
_HEADER_ROOM = 1 << 16  # what a line may hold beyond a record's residues
_DEFLATE_MOST = 1032  # the most bytes one compressed byte of deflate data gives
# control codes no text file holds (tab, line breaks, form feed excepted)
_NOT_TEXT = re.compile(rb"[\x00-\x08\x0e-\x1f]")
_CONTROL = bytes(range(0, 9)) + bytes(range(0x0e, 0x20))  # the same, to delete (faster)
# what str.splitlines breaks at
_BREAKS = ("\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


# what a script's lines end at: a form feed, a vertical tab, U+2028 ... are no line
# breaks in a script (a script's spans count lines as the parser does)
_NEWLINES = ("\n", "\r")
_NEWLINE = re.compile(r"\r\n|\r|\n")


def _split_newlines(text: str) -> list[str]:
    """``text.splitlines()``, breaking at ``\\n``, ``\\r\\n`` and ``\\r`` only."""
    pieces = _NEWLINE.split(text)
    if pieces[-1] == "":
        pieces.pop()
    return pieces


def read_text(path: str, span: Span | None, what: str = "file",
              newlines_only: bool = False, limit: tuple[int, str] | None = None) -> str:
    """A text file's contents (gunzipped if it starts with the gzip magic), read
    through :func:`text_lines`: its limits and checks hold for every loader.
    Its lines are joined by ``\\n``; ``newlines_only``: only ``\\n``, ``\\r\\n``
    and ``\\r`` end a line (a script), not form feeds and the like. ``limit``:
    ``(bytes, setting)`` in place of the load limit."""
    return "\n".join(line for _, line in text_lines(path, span, what,
                                                    newlines_only=newlines_only, limit=limit))


def text_lines(path: str, span: Span | None, what: str = "file",
               max_line: tuple[int, str] | None = None,
               newlines_only: bool = False,
               limit: tuple[int, str] | None = None) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a text file, plain or gzipped, read a chunk at a
    time so that nothing larger than a line is held: reading stops with a
    :class:`DslcError` at ``span`` past ``DSLC_MAX_LOAD_BYTES`` (counted after
    decompression), at a byte no text file holds (NUL, other control codes,
    bytes that are not UTF-8), and at a line longer than ``max_line``
    (``(limit, why)``). Line numbers are those of ``str.splitlines`` (with
    ``newlines_only``: of ``\\n``, ``\\r\\n`` and ``\\r`` alone). ``limit``:
    ``(bytes, setting)`` in place of the load limit (a script's is smaller)."""
    path = str(path)
    limit = limit or (max_load_bytes(), LOAD_SETTING)
    with open_data(path, what, span) as fh:
        stream = gzip.GzipFile(fileobj=fh) if _starts_gzip(fh, path, what, span) else fh
        yield from _lines(_chunks(stream, path, what, span), limit, max_line, path, what, span,
                          _split_newlines if newlines_only else str.splitlines,
                          _NEWLINES if newlines_only else _BREAKS)


def open_data(path: str, what: str, span: Span | None):
    """``path`` opened for reading in binary, or one DslcError naming it. A FIFO
    (a named pipe; ``<(zcat x.gz)`` is one) is read as it comes, but opening one
    waits for a program to open it for writing: that wait is bounded
    (:func:`_open_fifo`), so a FIFO nobody writes to is an error, not a hang."""
    try:
        if stat.S_ISFIFO(os.stat(path).st_mode):
            return _open_fifo(path, what, span)
        return open(path, "rb")
    except OSError as e:
        raise _open_error(e, path, what, span) from None


def _open_fifo(path: str, what: str, span: Span | None):
    """Open the FIFO ``path`` on a thread of its own, waiting at most
    ``DSLC_FIFO_WAIT_SECONDS`` for a writer (a plain ``open`` blocks until one
    comes, with no timeout). Once a writer is there, reading blocks as for any
    pipe: a program slow to write its first bytes (``<(sort big.txt)``) is waited
    for. Where none came, this process opens the FIFO for writing for a moment so
    that the waiting ``open`` returns, and the thread ends."""
    wait = max_fifo_wait()
    box: dict = {}

    def opener() -> None:
        try:
            box["fh"] = open(path, "rb")
        except OSError as e:
            box["error"] = e

    thread = threading.Thread(target=opener, name="dslc-fifo-open", daemon=True)
    thread.start()
    thread.join(wait)
    if thread.is_alive():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        thread.join(5)
        if "fh" in box:
            box["fh"].close()
        raise DslcError(f"cannot read {what} '{path}': it is a FIFO (a named pipe) and no "
                        f"program opened it for writing within {wait} s "
                        f"({FIFO_WAIT_SETTING})", span,
                        "start the program that writes to it, or name the file itself")
    if "error" in box:
        raise box["error"]
    return box["fh"]


def _starts_gzip(fh, path: str, what: str, span: Span | None) -> bool:
    """Whether the open file ``fh`` starts with the gzip magic (peeked, not
    consumed); a read that fails (EIO from a special file) is one DslcError."""
    try:
        return fh.peek(2)[:2] == _GZIP_MAGIC
    except OSError as e:
        raise _open_error(e, path, what, span) from None


def _open_error(e: OSError, path: str, what: str, span: Span | None) -> DslcError:
    if isinstance(e, FileNotFoundError):
        return DslcError(f"cannot open {what} '{path}': no such file", span)
    if isinstance(e, IsADirectoryError):
        return DslcError(f"cannot read {what} '{path}': it is a directory", span)
    if isinstance(e, PermissionError):
        return DslcError(f"cannot read {what} '{path}': permission denied", span)
    return DslcError(f"cannot read {what} '{path}': {e.strerror or e}", span)


def _chunks(stream, path: str, what: str, span: Span | None) -> Iterator[bytes]:
    """The (decompressed) bytes of ``stream`` a chunk at a time."""
    while True:
        try:
            chunk = stream.read(_CHUNK)
        except (EOFError, zlib.error, gzip.BadGzipFile) as e:
            raise DslcError(f"{what} '{path}' looks gzipped but cannot be decompressed: "
                            f"{e or 'the file ends too early'}", span) from None
        except OSError as e:
            raise _open_error(e, path, what, span) from None
        if not chunk:
            return
        yield chunk


def _lines(chunks: Iterable[bytes], limit: tuple[int, str], max_line, path: str, what: str,
           span: Span | None, split=str.splitlines,
           breaks: tuple[str, ...] = _BREAKS) -> Iterator[tuple[int, str]]:
    """The numbered lines of decoded chunks. A line still open at the end of a
    chunk waits as a list of pieces, joined once when it ends: an unwrapped
    chromosome is one line of hundreds of megabytes, read in linear time."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    limit, setting = limit
    total, lineno = 0, 0
    pending: list[str] = []  # the start of a line not ended yet
    pending_len = 0

    def not_text(chunk: bytes, at: int, why: str) -> DslcError:
        line = lineno + chunk.count(b"\n", 0, at) + 1
        return DslcError(f"{what} '{path}' is not a text file: line {line} {why}", span,
                         "is it a binary or compressed file of another kind?")

    def check_open_line() -> None:
        if max_line is not None and pending_len > max_line[0]:
            raise DslcError(f"{what} '{path}': line {lineno + 1} is longer than {max_line[0]:,} "
                            f"characters ({max_line[1]})", span)

    for chunk in chunks:
        total += len(chunk)
        if total > limit:
            raise DslcError(f"{what} '{path}' holds more than {setting} = {limit:,} bytes "
                            f"(uncompressed); reading stopped near line {lineno + 1}", span,
                            f"set {setting} higher to read it")
        bad = len(chunk.translate(None, _CONTROL)) < len(chunk) and _NOT_TEXT.search(chunk)
        if bad:
            raise not_text(chunk, bad.start(), f"holds the byte 0x{chunk[bad.start()]:02x}"
                           + (" (NUL)" if chunk[bad.start()] == 0 else ""))
        try:
            text = decoder.decode(chunk)
        except UnicodeDecodeError as e:
            raise not_text(chunk, e.start, "holds bytes that are not UTF-8") from None
        pieces = split(text)
        if len(pieces) <= 1 and not text.endswith(breaks) and not (
                pending and pending[-1].endswith("\r")):  # no line ends in this chunk
            pending.append(text)
            pending_len += len(text)
            check_open_line()
            continue
        if pending:
            text = "".join(pending) + text
            pieces = split(text)
        pending, pending_len = [], 0
        if text.endswith("\r"):  # maybe the first half of a "\r\n"
            pending.append(pieces.pop() + "\r")
        elif pieces and not text.endswith(breaks):
            pending.append(pieces.pop())
        for piece in pieces:
            lineno += 1
            yield lineno, piece
        pending_len = len(pending[0]) if pending else 0
        check_open_line()
    try:
        pending.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        raise DslcError(f"{what} '{path}' is not a text file: line {lineno + 1} ends in the "
                        "middle of a UTF-8 character", span) from None
    for piece in split("".join(pending)):
        lineno += 1
        yield lineno, piece


def case_fold(alphabet: Alphabet) -> dict[str, str] | None:
    """How lower-case letters map onto the alphabet, or ``None`` to match exactly.

    Only when every symbol is upper case (no lower-case letter in any symbol, at
    least one letter in all) are lower-case letters folded. For one-character
    symbols the map sends the lower-case form of each alphabet letter to the
    letter itself, so a stranger is still reported as written in the file;
    multi-character tokens are upper-cased whole."""
    syms = alphabet.symbols
    if any(s != s.upper() for s in syms) or not any(c.isalpha() for s in syms for c in s):
        return None
    stand_ins = tuple(frm for frm, _ in alphabet.stand_ins if frm == frm.upper())
    return {s.lower(): s for s in syms + stand_ins if s.lower() != s and len(s.lower()) == 1}


def parse_fasta_text(text: str, alphabet: Alphabet, source_name: str = "<fasta>",
                     span: Span | None = None) -> list[Sequence]:
    """The records of FASTA ``text``, encoded over ``alphabet``.

    ``source_name`` names the text in error messages (the file's path);
    ``span`` is where errors are reported (the script's ``load`` statement)."""
    return parse_fasta_lines(enumerate(text.splitlines(), 1), alphabet, source_name, span)


def parse_fasta_lines(lines: Iterable[tuple[int, str]], alphabet: Alphabet,
                      source_name: str = "<fasta>", span: Span | None = None) -> list[Sequence]:
    """The records of numbered FASTA lines, each record encoded as it is read
    (see :class:`_Record`) and refused past ``DSLC_MAX_RECORD_RESIDUES``."""
    if len(alphabet) > 255:
        raise DslcError(f"alphabet '{alphabet.name}' has {len(alphabet)} symbols; sequences "
                        "can be read over at most 255", span)
    ctx = _Context(alphabet, case_fold(alphabet), source_name, span, max_record_residues())
    ctx.read_as.update(alphabet.read_as())
    records: list[Sequence] = []
    current: _Record | None = None
    for lineno, raw in lines:
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith(">"):
            if current is not None:
                records.append(current.finish())
            words = line[1:].split(None, 1)
            current = _Record(words[0] if words else f"record{len(records) + 1}", ctx)
            continue
        if current is None:
            raise DslcError(f"{source_name}:{lineno}: sequence data before the first '>' header "
                            "(is this a FASTA file?)", span)
        current.add(lineno, line)
    if current is None:
        raise DslcError(f"{source_name} holds no FASTA records (no line starts with '>')", span)
    records.append(current.finish())
    ctx.warn()
    return records


@dataclass(frozen=True)
class _Context:
    """What encoding a record needs to know about the file being read, and the
    stand-ins it read (``read_as``: the alphabet's, none in strict mode; each
    one's count in ``seen``, reported once for the file by :meth:`warn`)."""

    alphabet: Alphabet
    fold: dict[str, str] | None
    source: str
    span: Span | None
    limit: int  # residues a record may hold
    read_as: dict[str, str] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)

    def warn(self) -> None:
        warn_stand_ins(self.source, self.alphabet, self.seen, self.span)


class _Record:
    """One record as it is read: its lines are encoded a batch at a time (a
    batch being what one numpy call encodes cheaply), so the text of a long
    record is never held whole, and a record past the limit stops the reading
    at the line that crosses it."""

    def __init__(self, name: str, ctx: _Context):
        self.name, self.ctx = name, ctx
        self.batch: list[tuple[int, str]] = []
        self.batch_chars = 0
        self.parts: list[np.ndarray] = []
        self.count = 0

    def add(self, lineno: int, line: str) -> None:
        self.batch.append((lineno, line))
        self.batch_chars += len(line)
        if self.batch_chars >= _BATCH or self.batch_chars > self.ctx.limit:
            self.flush()

    def flush(self) -> None:
        if not self.batch:
            return
        ctx = self.ctx
        codes = _encode(self.name, self.batch, ctx, self.count)
        if self.count + len(codes) > ctx.limit:
            raise self._too_long()
        self.count += len(codes)
        self.parts.append(codes)
        self.batch, self.batch_chars = [], 0

    def _too_long(self) -> DslcError:
        ctx, seen, lineno = self.ctx, self.count, self.batch[-1][0]
        for lineno, line in self.batch:
            seen += len(line.split()) if not ctx.alphabet.single_chars else \
                sum(not c.isspace() for c in line)
            if seen > ctx.limit:
                break
        return DslcError(f"{ctx.source}: record '{self.name}' holds more than {RECORD_SETTING} = "
                         f"{ctx.limit:,} residues (line {lineno})", ctx.span,
                         f"set {RECORD_SETTING} higher to read it")

    def finish(self) -> Sequence:
        self.flush()
        codes = np.concatenate(self.parts) if self.parts else np.zeros(0, np.uint8)
        return Sequence(self.name, self.ctx.alphabet, codes)


def _symbols_text(alphabet: Alphabet) -> str:
    syms = alphabet.symbols
    return "".join(syms) if alphabet.single_chars else ", ".join(syms)


def _stranger(what: str, sym: str, pos: int, lineno: int, alphabet: Alphabet,
              span: Span | None) -> DslcError:
    return DslcError(
        f"{what}: symbol '{sym}' at position {pos} (line {lineno}) is not in alphabet "
        f"'{alphabet.name}' ({_symbols_text(alphabet)})", span,
        alphabet.strict_hint(sym.upper() if sym.upper() != sym else sym))


def _encode(name: str, lines: list[tuple[int, str]], ctx: _Context, before: int) -> np.ndarray:
    """Codes of some lines of record ``name``, whose ``before`` residues came
    earlier; the first stranger is reported with its position in the record."""
    alphabet, fold, span, read_as = ctx.alphabet, ctx.fold, ctx.span, ctx.read_as
    what = f"{ctx.source}: record '{name}'"
    if alphabet.single_chars:
        pieces = ["".join(ln.split()) for _, ln in lines]
        body = "".join(pieces)
        folded = body.translate(str.maketrans(fold)) if fold else body
        codes = _encode_chars(folded, alphabet)
        if codes is None and read_as:  # stand-ins, counted for the file's warning
            for c, n in ((c, folded.count(c)) for c in read_as):
                ctx.seen[c] = ctx.seen.get(c, 0) + n
            codes = _encode_chars(folded.translate(str.maketrans(read_as)), alphabet)
        if codes is None:  # find the first stranger, as written in the file
            pos = before
            for (lineno, _), piece in zip(lines, pieces):
                for c in piece:
                    pos += 1
                    sym = fold.get(c, c) if fold else c
                    if not alphabet.has(read_as.get(sym, sym)):
                        raise _stranger(what, c, pos, lineno, alphabet, span)
            raise AssertionError("unreachable: a stranger was seen but not found")
        return codes
    out: list[int] = []
    for lineno, ln in lines:
        for tok in ln.split():
            sym = tok.upper() if fold is not None else tok
            if sym in read_as:
                ctx.seen[sym] = ctx.seen.get(sym, 0) + 1
                sym = read_as[sym]
            if not alphabet.has(sym):
                raise _stranger(what, tok, before + len(out) + 1, lineno, alphabet, span)
            out.append(alphabet.code(sym))
    return np.asarray(out, dtype=np.uint8)


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


def read_fasta(path: str, alphabet: Alphabet, span: Span | None = None) -> Records:
    """The records of the FASTA file at ``path`` (plain or gzipped), encoded over
    ``alphabet`` into one packed buffer (dslc.lang.records); see the module's
    docstring for the format and case rules. Errors are :class:`DslcError`
    reported at ``span``.

    A file of one-character ASCII symbols is read by a compiled pass over its bytes
    (:func:`_read_packed`); anything that path does not take (other alphabets,
    bytes outside printable ASCII, a symbol outside the alphabet, a limit
    crossed, a malformed file) is read again by the line reader, which gives
    the value or the exact error."""
    path = str(path)
    if alphabet.single_chars and all(s.isascii() for s in alphabet.symbols) \
            and len(alphabet) < _FIRST_SPECIAL and _regular(path):
        pack = _read_packed(path, alphabet, span)
        if pack is not None:
            return Records(pack)
    return Records(SeqPack.of(_read_lines(path, alphabet, span), alphabet))


def _regular(path: str) -> bool:
    """Whether ``path`` is a regular file, which can be read twice. A FIFO
    (``<(zcat x.gz)``) or a device is read once, by the line reader: were the byte
    reader to leave it to the line reader after a chunk, that one would find the
    stream consumed, and read the rest of the records only, or none."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False  # (the line reader reports the file)


def _read_lines(path: str, alphabet: Alphabet, span: Span | None) -> list[Sequence]:
    limit = max_record_residues()
    why = f"a record holds at most {RECORD_SETTING} = {limit:,} residues"
    lines = text_lines(path, span, "FASTA file", (limit + _HEADER_ROOM, why))
    return parse_fasta_lines(lines, alphabet, path, span)


def resolve_path(path: str, base_dir: Path) -> Path:
    """Data files are found next to the script first, then in the working
    directory, so an example runs from anywhere."""
    p = Path(os.path.expanduser(path))
    if p.is_absolute():
        return p
    near = base_dir / p
    return near if near.exists() or not p.exists() else p


class _Declined(Exception):
    """Something the byte reader leaves to the line reader (which reports it)."""


def _read_packed(path: str, alphabet: Alphabet, span: Span | None) -> SeqPack | None:
    """The file's records packed straight from its bytes, or None to leave it to
    the line reader. Whole lines are taken a chunk at a time, each block read by
    one compiled pass (dslc.lang.fasta_scan): header and comment lines are those
    whose first byte is ``>`` or ``;``, every other byte that is not whitespace
    is a residue, translated through a 256-entry table (lower case folded as
    :func:`case_fold` says). The buffer is sized once, from the file's size or a
    gzipped file's trailer (:func:`_gzip_size`), the residues being fewer than the
    (decompressed) bytes; only a multi-member gzip file (or one past 4 GiB) grows it."""
    lut = _byte_table(alphabet)
    fh = open_data(path, "FASTA file", span)
    try:
        with fh:
            zipped = _starts_gzip(fh, path, "FASTA file", span)
            size = min(_gzip_size(fh) if zipped else os.fstat(fh.fileno()).st_size,
                       max_load_bytes()) + 1
            reader = _PackReader(lut, max_load_bytes(), max_record_residues(), size)
            try:
                stream = gzip.GzipFile(fileobj=fh) if zipped else fh
                for chunk in _chunks(stream, path, "FASTA file", span):
                    reader.feed(chunk)
                return reader.finish(alphabet)
            finally:
                reader.close()
    except _Declined:
        return None


def _gzip_size(fh) -> int:
    """The decompressed size a gzipped file's trailer gives (ISIZE, its last four
    bytes: the last member's size modulo 2^32), or 0 where the file is too short
    to hold one. For a file of one member under 4 GiB it bounds the residues, so
    the buffer is allocated once (lazily: pages are touched as residues land);
    otherwise it is a first size, and the buffer grows as before."""
    try:
        end = os.fstat(fh.fileno()).st_size
        if end < 18:  # a gzip header (10 bytes) and trailer (8) at least
            return 0
        at = fh.tell()
        fh.seek(end - 4)
        trailer = fh.read(4)
        fh.seek(at)
    except OSError:  # not seekable (a pipe): the buffer grows as it is read
        return 0
    if len(trailer) != 4:
        return 0
    # deflate expands at most about 1032-fold: a larger ISIZE is not this file's (a
    # truncated file's last bytes are compressed data), and is not allocated
    return min(int.from_bytes(trailer, "little"), end * _DEFLATE_MOST)


def _byte_table(alphabet: Alphabet) -> np.ndarray:
    lut = np.full(256, 255, dtype=np.uint8)
    fold = case_fold(alphabet) or {}
    for k, s in enumerate(alphabet.symbols):
        lut[ord(s)] = k
    for low, up in fold.items():  # (a stand-in's lower case stays out: the line
        if alphabet.has(up):  # reader reads stand-ins, and counts them)
            lut[ord(low)] = alphabet.code(up)
    return lut


# bytes the line reader must see: controls, DEL and (bytes.isascii) non-ASCII
_ODD_ASCII = bytes(b for b in range(128) if (b < 32 and b not in (9, 10, 13)) or b == 127)
_ODD = np.zeros(256, dtype=bool)
_ODD[list(_ODD_ASCII)] = True
_ODD_HEADER = _ODD.copy()  # what a header or comment line may not hold
_ODD_HEADER[128:] = True


_READ_THREADS = min(8, usable_cores())  # blocks of a big file read at once (_PackReader)


def _header_room(end: int) -> tuple[np.ndarray, np.ndarray]:
    """Room for the record starts and name lengths of a block of ``end`` bytes
    (a header takes at least two: ``>`` and a line break)."""
    most = end // 2 + 1
    return np.empty(most, dtype=np.int64), np.empty(most, dtype=np.int64)


class _PackReader:
    """The state of :func:`_read_packed` between chunks: the packed residues so
    far, and each block's record starts and names. Each block of whole lines is
    read by one compiled pass (dslc.lang.fasta_scan), which writes residue codes
    straight into the buffer.

    Once the compiled pass serves, blocks are read ``width`` at a time on as many
    threads (the pass releases the GIL): each into a scratch buffer of its own,
    since where a block's residues go depends on how many the blocks before it
    hold; the blocks are then taken in file order (their residues copied into the
    buffer, their record starts moved by the residues before them), so the result
    and what is declined are the serial reading's. A 340 MB file is about 350
    blocks: a one-core pass of about a second, shared by the host's cores."""

    def __init__(self, lut: np.ndarray, load_limit: int, record_limit: int, size: int = 0):
        from dslc.lang import fasta_scan

        self.scan = fasta_scan
        lut = lut.copy()
        lut[_ODD] = 255  # an odd byte in a sequence line declines as a stranger does
        self.lut, self.load_limit, self.record_limit = fasta_scan.line_table(lut), load_limit, \
            record_limit
        self.rest = b""  # the start of a line not ended yet
        self.total = 0
        self.buffer = np.zeros(size, dtype=np.uint8)  # (a plain file's size: its residues fit)
        self.residues = 0
        self.headers = 0
        self.starts: list[np.ndarray] = []  # each block's records' first residues
        self.names: list[bytes] = []  # each block's names, one after another
        self.name_lens: list[np.ndarray] = []
        self.scratch = np.zeros(0, dtype=np.uint8)  # a block's names, reused
        self.width = _READ_THREADS if _READ_THREADS > 1 else 1
        self.pending: list[tuple[bytes, int]] = []  # blocks waiting to be read together
        self.pool = None  # the threads that read them, made for the first

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.total > self.load_limit:
            raise _Declined()
        data = self.rest + chunk if self.rest else chunk
        end = data.rfind(b"\n") + 1
        if end == 0:
            if len(data) > 64 * _CHUNK:  # one huge unwrapped line: the line reader's
                raise _Declined()
            self.rest = data
            return
        self.rest = data[end:]
        if self.width > 1 and self.total > _COMPILED_FROM:
            self.pending.append((data, end))
            if len(self.pending) >= self.width:
                self._flush()
        else:
            self._lines(data, end)

    def _lines(self, data: bytes, end: int) -> None:
        """The whole lines ``data[:end]`` read into the buffer."""
        self._flush()
        self._reserve(self.residues + end)
        if len(self.scratch) < end:
            self.scratch = np.empty(end, dtype=np.uint8)
        starts, lens = _header_room(end)
        scan = self.scan.scanner(self.total > _COMPILED_FROM)
        count, headers, before = scan(
            np.frombuffer(data, dtype=np.uint8, count=end), self.lut, _ODD_HEADER,
            self.buffer, self.residues, starts, self.scratch, lens)
        self._take(count, headers, before, starts, lens, self.scratch)

    def _flush(self) -> None:
        """The blocks waiting read on the threads, then taken in file order."""
        if not self.pending:
            return
        blocks, self.pending = self.pending, []
        if self.pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(self.width, thread_name_prefix="dslc-fasta")
        scan = self.scan.scanner(True)
        for codes, (count, headers, before), starts, lens, names in self.pool.map(
                lambda block: self._alone(scan, *block), blocks):
            if count != self.scan.DECLINE:
                self._reserve(self.residues + count)
                self.buffer[self.residues:self.residues + count] = codes[:count]
                starts[:headers] += self.residues
            self._take(count, headers, before, starts, lens, names)

    def _alone(self, scan, data: bytes, end: int):
        """One block read on its own: its residues from 0 in a buffer of its own."""
        codes, names = np.empty(end, dtype=np.uint8), np.empty(end, dtype=np.uint8)
        starts, lens = _header_room(end)
        got = scan(np.frombuffer(data, dtype=np.uint8, count=end), self.lut, _ODD_HEADER,
                   codes, 0, starts, names, lens)
        return codes, got, starts, lens, names

    def _take(self, count, headers, before, starts, lens, names) -> None:
        """A block's reading, its residues already in the buffer at their place."""
        if count == self.scan.DECLINE or (not self.headers and before > 0):
            raise _Declined()  # (residues before the first header: the line reader's)
        if headers:  # (copies: a view would keep the block's whole header room alive)
            self.starts.append(starts[:headers].copy())
            self.name_lens.append(lens[:headers].copy())
            self.names.append(names[:int(lens[:headers].sum())].tobytes())
        self.headers += headers
        self.residues += count

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def _reserve(self, need: int) -> None:
        """Room for ``need`` residues, the buffer grown in place (a large buffer
        is remapped, not copied, so reading holds about one copy of them)."""
        if need > len(self.buffer):
            self.buffer.resize(max(need, len(self.buffer) * 3 // 2, 1 << 16), refcheck=False)

    def _packed_names(self) -> tuple[bytes, np.ndarray]:
        """Every name one after another, and their offsets; an empty header's
        name is ``record<k>``."""
        lens = np.concatenate(self.name_lens)
        blob = b"".join(self.names)
        offsets = np.zeros(len(lens) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        if lens.all():
            return blob, offsets
        ends = offsets.tolist()
        names = [blob[a:b] or b"record%d" % (k + 1)
                 for k, (a, b) in enumerate(zip(ends, ends[1:]))]
        np.cumsum(np.fromiter(map(len, names), dtype=np.int64, count=len(names)),
                  out=offsets[1:])
        return b"".join(names), offsets

    def finish(self, alphabet: Alphabet) -> SeqPack:
        self._flush()
        if self.rest:
            rest, self.rest = self.rest + b"\n", b""
            self._lines(rest, len(rest))
        if not self.headers:
            raise _Declined()  # no records: the line reader says so
        offsets = np.concatenate(self.starts + [np.array([self.residues], dtype=np.int64)])
        if len(offsets) > 1 and int(np.diff(offsets).max()) > self.record_limit:
            raise _Declined()
        codes = self.buffer
        codes.resize(self.residues, refcheck=False)
        names, name_offsets = self._packed_names()
        return SeqPack(alphabet, codes, offsets, names, name_offsets)
