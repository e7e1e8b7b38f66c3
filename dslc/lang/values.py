"""Runtime values shared by the interpreter, the compiled backends and extensions.

Sequences are held encoded: one small integer code per symbol (its position in
the alphabet), so every backend indexes matrices and emission tables the same
way. Alphabets are values too, since ``seq[*]`` parameters learn theirs at run
time from the data they are given.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from dslc.errors import DslcError, Span, warn


@dataclass(frozen=True)
class Alphabet:
    """An ordered set of symbols; a symbol's code is its position.

    ``stand_ins``: symbols outside the alphabet that sequences read as one of
    its own (selenocysteine ``U`` as ``X``): what a search tool does with a rare
    residue, declared by the alphabet rather than decided by the reader. A
    sequence's stand-ins are counted and reported in one warning per file or
    text; ``DSLC_STRICT_RESIDUES=1`` refuses them as any other stranger. They
    are no part of the alphabet's identity (equality, hashing): the codes are
    the same either way."""

    name: str
    symbols: tuple[str, ...]
    _index: dict = field(default=None, compare=False, hash=False, repr=False)
    stand_ins: tuple[tuple[str, str], ...] = field(default=(), compare=False, hash=False)
    # (symbols, hint): the hint an error reading one of these strangers gives (where a
    # wider alphabet reads them); no part of the identity either
    elsewhere: tuple[str, str] | None = field(default=None, compare=False, hash=False)

    def __post_init__(self):
        object.__setattr__(self, "_index", {s: k for k, s in enumerate(self.symbols)})
        if len(self._index) != len(self.symbols):
            raise DslcError(f"alphabet '{self.name}' lists a symbol twice")
        seen = set()
        for frm, to in self.stand_ins:
            if frm in self._index:
                raise DslcError(f"alphabet '{self.name}': '{frm}' is one of its symbols; "
                                "'where' names symbols outside it that sequences read as one "
                                "of its own")
            if to not in self._index:
                raise DslcError(f"alphabet '{self.name}': '{to}' (what '{frm}' is read as) is "
                                "not one of its symbols")
            if frm in seen:
                raise DslcError(f"alphabet '{self.name}': '{frm}' is given a stand-in twice")
            seen.add(frm)

    def read_as(self) -> dict[str, str]:
        """The stand-ins sequences are read with: none under ``DSLC_STRICT_RESIDUES=1``."""
        if not self.stand_ins or strict_residues():
            return {}
        return dict(self.stand_ins)

    def __len__(self) -> int:
        return len(self.symbols)

    @property
    def single_chars(self) -> bool:
        return all(len(s) == 1 for s in self.symbols)

    def code(self, symbol: str, span: Span | None = None) -> int:
        try:
            return self._index[symbol]
        except KeyError:
            raise DslcError(f"'{symbol}' is not a symbol of alphabet '{self.name}'", span) from None

    def has(self, symbol: str) -> bool:
        return symbol in self._index

    def encode(self, text: str, what: str = "sequence", span: Span | None = None) -> np.ndarray:
        """Codes of ``text``, one per character, a stand-in read as its symbol
        (with one warning naming the count); the first stranger is reported with
        its 1-based position so the user can find it in the record."""
        index = self._index
        try:
            return np.fromiter((index[c] for c in text), dtype=np.uint8, count=len(text))
        except KeyError:
            read_as = self.read_as()
            for pos, c in enumerate(text, 1):
                if c not in index and c not in read_as:
                    raise DslcError(
                        f"{what}: symbol '{c}' at position {pos} is not in alphabet "
                        f"'{self.name}' ({''.join(self.symbols) if self.single_chars else ', '.join(self.symbols)})",
                        span, self.strict_hint(c),
                    ) from None
            warn_stand_ins(what, self, {c: text.count(c) for c in read_as if c in text}, span)
            return np.fromiter((index[read_as.get(c, c)] for c in text), dtype=np.uint8,
                               count=len(text))

    def strict_hint(self, symbol: str) -> str | None:
        """Why a symbol with a declared stand-in was refused (strict residues), or
        which alphabet reads a stranger the alphabet names (``elsewhere``)."""
        to = dict(self.stand_ins).get(symbol)
        if to is None:
            if self.elsewhere is not None and symbol in self.elsewhere[0]:
                return self.elsewhere[1]
            return None
        return (f"alphabet '{self.name}' reads '{symbol}' as '{to}', but "
                f"{STRICT_SETTING}=1 refuses stand-ins")


STRICT_SETTING = "DSLC_STRICT_RESIDUES"


def strict_residues() -> bool:
    """Are stand-ins refused (``DSLC_STRICT_RESIDUES=1``)?"""
    from dslc import settings

    return settings.choice(STRICT_SETTING) == "1"


def warn_stand_ins(what: str, alphabet: "Alphabet", counts: dict[str, int],
                   span: Span | None) -> None:
    """One warning for a file's (or a text's) residues read as stand-ins:
    how many, and which as which."""
    counts = {c: n for c, n in counts.items() if n}
    if not counts:
        return
    to = dict(alphabet.stand_ins)
    total = sum(counts.values())
    each = ", ".join(f"{n} '{c}' as '{to[c]}'" for c, n in sorted(counts.items()))
    warn(f"{what}: {total} residue{'s' if total != 1 else ''} outside alphabet "
         f"'{alphabet.name}' read as its declared stand-ins ({each}); "
         f"{STRICT_SETTING}=1 refuses them", span)


@dataclass(frozen=True)
class SeqText:
    """Sequence text handed in from Python (a str, a ``Bio.Seq``, a ``SeqRecord``,
    a numpy character array), not yet encoded. Its lower case is folded as a
    FASTA file's is (soft-masked residues are usually what such text holds),
    and a record keeps its id as the sequence's name."""

    name: str
    text: str


@dataclass(frozen=True, eq=False)
class Sequence:
    """An encoded sequence with its record name (from FASTA) and alphabet."""

    name: str
    alphabet: Alphabet
    codes: np.ndarray

    def __len__(self) -> int:
        return len(self.codes)

    @functools.cached_property
    def pycodes(self) -> bytes:
        """The codes as bytes: the fastest thing to index from Python."""
        return bytes(self.codes.astype(np.uint8))

    @property
    def text(self) -> str:
        syms = self.alphabet.symbols
        sep = "" if self.alphabet.single_chars else " "
        return sep.join(syms[c] for c in self.codes)

    def __repr__(self) -> str:
        t = self.text
        return f"Sequence({self.name!r}, {t[:20] + ('...' if len(t) > 20 else '')!r})"


@dataclass(frozen=True, eq=False)
class Matrix:
    """A substitution matrix over an alphabet: ``values[a, b]`` by symbol codes."""

    name: str
    alphabet: Alphabet
    values: np.ndarray  # int64 or float64, shape (n, n)

    @property
    def is_float(self) -> bool:
        return self.values.dtype.kind == "f"

    @functools.cached_property
    def pyvalues(self) -> list:
        """Nested Python lists: the fastest thing to index from Python."""
        return self.values.tolist()
