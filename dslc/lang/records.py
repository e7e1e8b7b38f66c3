"""The records of a FASTA file, packed: one buffer of residue codes for the whole file.

A database that is only mapped over never needs one Python object per record: a
``map`` reads its residues straight from the packed buffer (dslc.lang.batch), so
memory stays near one byte per residue. Indexing a :class:`Records` (or iterating
it) makes a :class:`~dslc.lang.values.Sequence` whose codes are a view of the
buffer, for the places that want one value at a time (printing, calls, the
interpreter).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence as AbcSequence
from dataclasses import dataclass

import numpy as np

from dslc.lang.values import Alphabet, Sequence


@dataclass(frozen=True, eq=False)
class SeqPack:
    """Sequences over one alphabet, concatenated: record ``k``'s codes are
    ``codes[offsets[k]:offsets[k + 1]]``, its name the UTF-8 bytes
    ``names[name_offsets[k]:name_offsets[k + 1]]``."""

    alphabet: Alphabet
    codes: np.ndarray  # uint8
    offsets: np.ndarray  # int64, one more than the records
    names: bytes
    name_offsets: np.ndarray  # int64, one more than the records

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @functools.cached_property
    def lengths(self) -> np.ndarray:
        """Each record's length (kept: a map of a million records reads it several
        times, and each difference of the offsets is a pass over them); read-only."""
        lengths = np.diff(self.offsets)
        lengths.flags.writeable = False
        return lengths

    def name(self, k: int) -> str:
        return self.names[self.name_offsets[k]:self.name_offsets[k + 1]].decode("utf-8")

    def sequence(self, k: int) -> Sequence:
        return Sequence(self.name(k), self.alphabet,
                        self.codes[self.offsets[k]:self.offsets[k + 1]])

    @staticmethod
    def of(seqs: list[Sequence], alphabet: Alphabet) -> "SeqPack":
        """Sequences already made (those of the line reader) packed."""
        offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in seqs], out=offsets[1:])
        codes = np.concatenate([s.codes for s in seqs]) if seqs else np.zeros(0, np.uint8)
        names = [s.name.encode("utf-8") for s in seqs]
        name_offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
        np.cumsum([len(n) for n in names], out=name_offsets[1:])
        return SeqPack(alphabet, codes.astype(np.uint8, copy=False), offsets, b"".join(names),
                       name_offsets)


class Records(AbcSequence):
    """The records ``load(seq[A], file)`` gives a script: a list of sequences to
    the script (``len``, indexing, ``map`` over it), one packed buffer underneath.
    The same record read twice is the same object (sequences compare by identity)."""

    def __init__(self, pack: SeqPack):
        self.pack = pack
        self._made: dict[int, Sequence] = {}

    @property
    def alphabet(self) -> Alphabet:
        return self.pack.alphabet

    def __len__(self) -> int:
        return len(self.pack)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(k)
        made = self._made.get(k)
        if made is None:
            made = self._made[k] = self.pack.sequence(k)
        return made

    def __iter__(self):
        return (self[k] for k in range(len(self)))

    def __repr__(self) -> str:
        return f"Records({len(self)} over '{self.alphabet.name}')"


def is_list(v) -> bool:
    """A script list: a Python list, or the packed records of a FASTA file."""
    return isinstance(v, (list, Records))


_NAMES_AT_ONCE = 1 << 14  # names decoded together by RecordNames


class RecordNames(AbcSequence):
    """A map axis's labels read from a FASTA file: the records' names (``str``), kept
    as the packed UTF-8 bytes and decoded when read, a slice at a time where they are
    iterated (105,000 names held as strings were 8 MB of a CPU search's peak memory,
    beside the text that prints them). Equal to any sequence of the same strings (a
    tuple of them among others); pickled as that tuple."""

    def __init__(self, names: bytes, offsets: np.ndarray):
        self._names, self._ends = names, offsets

    def __len__(self) -> int:
        return max(len(self._ends) - 1, 0)

    def __getitem__(self, k):
        if isinstance(k, slice):
            lo, hi, step = k.indices(len(self))
            if step != 1:
                return tuple(self[j] for j in range(lo, hi, step))
            return tuple(self._decoded(lo, hi)) if hi > lo else ()
        n = len(self)
        j = operator.index(k)
        if not -n <= j < n:
            raise IndexError("record name index out of range")
        j %= n
        return self._names[self._ends[j]:self._ends[j + 1]].decode("utf-8")

    def __iter__(self):
        for lo in range(0, len(self), _NAMES_AT_ONCE):
            yield from self._decoded(lo, min(lo + _NAMES_AT_ONCE, len(self)))

    def _decoded(self, lo: int, hi: int) -> list[str]:
        """Names ``lo`` to ``hi``: at once where none holds a line break (a name is
        a header's first word, so none does), else name by name."""
        ends = self._ends[lo:hi + 1]
        a, b = int(ends[0]), int(ends[-1])
        if self._names.find(b"\n", a, b) < 0:
            return _split_names(self._names, ends)
        return [self._names[x:y].decode("utf-8") for x, y in zip(ends.tolist(), ends[1:].tolist())]

    def __eq__(self, other):
        if other is self or (isinstance(other, RecordNames) and other._names is self._names
                             and np.array_equal(other._ends, self._ends)):
            return True
        if not isinstance(other, AbcSequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(other) == len(self) and all(x == y for x, y in zip(self, other))

    def __hash__(self):
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __reduce__(self):
        return tuple, (tuple(self),)


def record_names(pack) -> RecordNames:
    """A pack's names (``names``, ``name_offsets``), decoded as they are read."""
    return RecordNames(pack.names, pack.name_offsets)


def _split_names(text: bytes, ends: np.ndarray) -> list[str]:
    """The names between consecutive ``ends`` (offsets into ``text``, none of
    whose names holds a line break), decoded at once."""
    count = len(ends) - 1
    first = int(ends[0])
    part = np.frombuffer(text, dtype=np.uint8, count=int(ends[-1]) - first, offset=first)
    keep = np.ones(len(part) + count - 1, dtype=bool)  # the name bytes' new places: all
    keep[ends[1:-1] - first + np.arange(count - 1)] = False  # but the break after each name
    spaced = np.full(len(keep), 10, dtype=np.uint8)
    spaced[keep] = part
    return spaced.tobytes().decode("utf-8").split("\n")
