"""Sequence files other than FASTA: FASTQ and Stockholm, chosen by extension.

``load(seq[A], "reads.fastq")`` (``.fq`` too) and ``load(seq[A], "fam.sto")``
(``.stk``, ``.sth``, ``.stockholm``) read these formats; a further ``.gz`` is
looked through (gzip itself is recognised by content, as for FASTA). Any
other name is read as FASTA.

Biopython parses the formats (its FASTQ and Stockholm readers, the ones most
users already trust); dslc feeds it the file through :func:`fasta.text_lines`,
so the load limits, gzip and text checks are FASTA's, notes the line each
piece of sequence came from, and encodes the residues with FASTA's encoder, so
a symbol outside the alphabet is reported as for FASTA: file, record, position
in the record and line. FASTQ qualities are read (and checked against the
sequence's length by Biopython) but not kept. Stockholm sequences are the
aligned rows without their gaps (``-`` and ``.``, unless the alphabet has them).
"""

from __future__ import annotations

from pathlib import PurePath

from dslc.errors import DslcError, Span
from dslc.lang.fasta import (_HEADER_ROOM, _Context, _Record, case_fold, read_fasta,
                                text_lines)
from dslc.lang.limits import RECORD_SETTING, max_record_residues
from dslc.lang.values import Alphabet, Sequence

FASTQ = (".fastq", ".fq")
STOCKHOLM = (".sto", ".stk", ".sth", ".stockholm")


def sequence_format(path: str) -> str:
    """``fastq``, ``stockholm`` or ``fasta``, from the file's name (``.gz`` aside)."""
    suffixes = [s.lower() for s in PurePath(path).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    last = suffixes[-1] if suffixes else ""
    return "fastq" if last in FASTQ else "stockholm" if last in STOCKHOLM else "fasta"


def read_sequences(path: str, alphabet: Alphabet, span: Span | None = None) -> list[Sequence]:
    """The records of a FASTA, FASTQ or Stockholm file, by its name."""
    kind = sequence_format(str(path))
    if kind == "fasta":
        return read_fasta(path, alphabet, span)
    return (read_fastq if kind == "fastq" else read_stockholm)(str(path), alphabet, span)


class _Lines:
    """A text handle for Biopython over :func:`text_lines` that remembers the
    numbered lines it gave out since :meth:`take` was last called."""

    def __init__(self, path: str, span: Span | None, what: str):
        limit = max_record_residues()
        why = f"a record holds at most {RECORD_SETTING} = {limit:,} residues"
        self._it = text_lines(path, span, what, (limit + _HEADER_ROOM, why))
        self.seen: list[tuple[int, str]] = []
        self.last = 0

    def __iter__(self):
        return self

    def __next__(self) -> str:
        lineno, line = next(self._it)
        self.seen.append((lineno, line))
        self.last = lineno
        return line + "\n"

    def read(self, size: int = -1) -> str:
        """Biopython asks ``read(0)`` to see that the handle is text; the
        readers themselves go line by line."""
        return "" if size == 0 else "".join(self)

    def readline(self) -> str:
        try:
            return next(self)
        except StopIteration:
            return ""


class _StockholmLines(_Lines):
    """The lines of a Stockholm file, checked for what Biopython lets pass: each
    alignment ends with ``//`` before the file ends or the next
    ``# STOCKHOLM 1.0`` header begins, and after a ``//`` comes nothing but blank
    lines or such a header (as Easel, HMMER's reader, requires). A file cut short
    would otherwise be read as a shorter alignment, and a sequence line after
    ``//`` is a failed assertion inside Biopython."""

    HEADER = "# STOCKHOLM 1.0"

    def __init__(self, path: str, span: Span | None):
        super().__init__(path, span, "Stockholm file")
        self.path, self.span = path, span
        self.begun: int | None = None  # the header line of the alignment not yet closed
        self.closed: int | None = None  # the line of the last '//'
        self.filled = 0  # the last line that is not blank

    def _error(self, lineno: int, message: str, hint: str | None = None) -> DslcError:
        return DslcError(f"{self.path}, line {lineno}: {message}", self.span, hint)

    def __next__(self) -> str:
        try:
            line = super().__next__()
        except StopIteration:
            if self.begun is not None:
                raise self._error(self.filled, f"the file ends inside the alignment begun at line "
                                  f"{self.begun}, with no closing '//'",
                                  "the file looks cut short") from None
            raise
        text = line.strip()
        if text:
            self.filled = self.last
        if text == self.HEADER:
            if self.begun is not None:
                raise self._error(self.last, f"a new '{self.HEADER}' header, but the alignment "
                                  f"begun at line {self.begun} has no closing '//'")
            self.begun = self.last
        elif text == "//":
            if self.begun is None:
                raise self._error(self.last, "'//' with no alignment open (no "
                                  f"'{self.HEADER}' header since the last '//')")
            self.begun, self.closed = None, self.last
        elif text and self.begun is None and self.closed is not None:
            raise self._error(self.last, f"'{text[:40]}' after the closing '//' of line "
                              f"{self.closed}: only blank lines or a new '{self.HEADER}' "
                              "header may follow it")
        return line


def _biopython(fmt: str):
    try:
        import Bio  # noqa: F401
    except ImportError:
        raise DslcError(f"reading {fmt} files needs Biopython",
                        hint="pip install biopython (or 'dslc[formats]')") from None


def _context(alphabet: Alphabet, path: str, span: Span | None) -> _Context:
    if len(alphabet) > 255:
        raise DslcError(f"alphabet '{alphabet.name}' has {len(alphabet)} symbols; sequences "
                        "can be read over at most 255", span)
    ctx = _Context(alphabet, case_fold(alphabet), path, span, max_record_residues())
    ctx.read_as.update(alphabet.read_as())
    return ctx


def read_fastq(path: str, alphabet: Alphabet, span: Span | None = None) -> list[Sequence]:
    """The records of a FASTQ file (Biopython's FastqGeneralIterator), each
    named by the first word of its ``@`` line."""
    _biopython("FASTQ")
    from Bio.SeqIO.QualityIO import FastqGeneralIterator

    ctx = _context(alphabet, path, span)
    handle = _Lines(path, span, "FASTQ file")
    out = []
    try:
        for title, seq, _ in FastqGeneralIterator(handle):
            rec = _Record(title.split()[0] if title.split() else f"record{len(out) + 1}", ctx)
            for lineno, line in _fastq_sequence_lines(handle, len(seq)):
                rec.add(lineno, line)
            out.append(rec.finish())
    except ValueError as e:
        raise DslcError(f"{path}: not a valid FASTQ file (near line {handle.last}): {e}",
                        span) from None
    if not out:
        raise DslcError(f"{path} holds no FASTQ records (no line starts with '@')", span)
    ctx.warn()
    return out


def _fastq_sequence_lines(handle: _Lines, length: int) -> list[tuple[int, str]]:
    """The sequence lines of the record Biopython just gave, from the lines it
    read; the line it read ahead (the next record's ``@`` line) is kept."""
    seen = handle.seen
    start = next(k for k, (_, ln) in enumerate(seen) if ln.startswith("@"))
    plus = next(k for k in range(start + 1, len(seen)) if seen[k][1].startswith("+"))
    k, qual = plus + 1, 0
    while k < len(seen) and qual < length:
        qual += len(seen[k][1].rstrip())
        k += 1
    handle.seen = seen[k:]
    return [(n, ln.strip()) for n, ln in seen[start + 1:plus]]


def read_stockholm(path: str, alphabet: Alphabet, span: Span | None = None) -> list[Sequence]:
    """The rows of every alignment in a Stockholm file (Biopython's
    StockholmIterator), gaps removed, in the file's order."""
    _biopython("Stockholm")
    from Bio.AlignIO.StockholmIO import StockholmIterator

    ctx = _context(alphabet, path, span)
    handle = _StockholmLines(path, span)
    gaps = "".join(g for g in "-." if not alphabet.has(g))
    out = []
    try:
        for aln in StockholmIterator(handle):
            rows = _stockholm_rows(handle)
            handle.seen = []
            for record in aln:
                rec = _Record(record.id, ctx)
                for lineno, text in rows.get(record.id, ()):
                    rec.add(lineno, text.translate({ord(g): None for g in gaps}))
                out.append(rec.finish())
    except ValueError as e:
        raise DslcError(f"{path}: not a valid Stockholm file (near line {handle.last}): {e}",
                        span) from None
    if not out:
        raise DslcError(f"{path} holds no Stockholm alignment (no '# STOCKHOLM 1.0' header "
                        "followed by sequence lines)", span)
    ctx.warn()
    return out


def _stockholm_rows(handle: _Lines) -> dict[str, list[tuple[int, str]]]:
    """Each sequence's aligned pieces with their lines: a line ``name text``
    that is not markup (``#``) or the end (``//``)."""
    rows: dict[str, list[tuple[int, str]]] = {}
    for lineno, line in handle.seen:
        words = line.split()
        if len(words) == 2 and not line.startswith(("#", "//")):
            rows.setdefault(words[0], []).append((lineno, words[1]))
    return rows
