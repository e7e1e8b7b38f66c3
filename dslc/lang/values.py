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

from dslc.errors import DslcError, Span


@dataclass(frozen=True)
class Alphabet:
    """An ordered set of symbols; a symbol's code is its position."""

    name: str
    symbols: tuple[str, ...]
    _index: dict = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "_index", {s: k for k, s in enumerate(self.symbols)})
        if len(self._index) != len(self.symbols):
            raise DslcError(f"alphabet '{self.name}' lists a symbol twice")

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
        """Codes of ``text``, one per character; the first stranger is reported with
        its 1-based position so the user can find it in the record."""
        index = self._index
        try:
            return np.fromiter((index[c] for c in text), dtype=np.uint8, count=len(text))
        except KeyError:
            for pos, c in enumerate(text, 1):
                if c not in index:
                    raise DslcError(
                        f"{what}: symbol '{c}' at position {pos} is not in alphabet "
                        f"'{self.name}' ({''.join(self.symbols) if self.single_chars else ', '.join(self.symbols)})",
                        span,
                    ) from None
            raise


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
