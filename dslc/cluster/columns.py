"""A shard of a map as columns: the buffers sent once, the indexes per shard.

A map's :class:`~dslc.lang.batch.TaskBatch` holds, per parameter, one payload
(a packed buffer of sequences, a tuple of values, or one value every task shares)
and, for a listed column, one index per task. The payloads are what is large (a
database of a million proteins is one :class:`~dslc.lang.records.SeqPack`). A
pool scatters the small ones (the queries, a matrix, a model) once to every
worker, and cuts a wide packed buffer (the database: :func:`wide`) into the
records each shard reads, sent with that shard alone, so each residue travels
once whatever the number of workers. A shard is a :class:`Part`: which payload
each parameter reads and the index of every task of the shard into it, a few
bytes a task. A worker rebuilds the shard's batch from the two, without a copy
of the payloads, and runs its backend's ``map`` on it as on any batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dslc.lang.batch import NARROW, SeqColumn, Shared, TaskBatch
from dslc.lang.records import SeqPack


def payload(col):
    """What a column holds for all its tasks (the part worth sending once)."""
    if isinstance(col, Shared):
        return col.value
    return col.pack if isinstance(col, SeqColumn) else col.items


def payloads(batch: TaskBatch) -> tuple[tuple, dict[str, int]]:
    """The batch's distinct payloads (by identity: a pack two parameters read is
    sent once) and, per parameter, the number of the one it reads."""
    found: dict[int, int] = {}
    out: list = []
    slots = {}
    for n in batch.names:
        p = payload(batch.columns[n])
        if id(p) not in found:
            found[id(p)] = len(out)
            out.append(p)
        slots[n] = found[id(p)]
    return tuple(out), slots


@dataclass(frozen=True, eq=False)
class Part:
    """Tasks of a batch without its payloads: per parameter its column's class,
    the payload it reads (a number into the scattered tuple) and, for a listed
    column, every task's index into that payload."""

    names: tuple[str, ...]
    kinds: tuple[type, ...]
    slots: tuple[int, ...]
    indexes: tuple  # np.ndarray per listed column, None for a shared one
    count: int

    @staticmethod
    def cut(batch: TaskBatch, ids: np.ndarray, slots: dict[str, int],
            sliced: frozenset = frozenset()) -> tuple["Part", dict]:
        """The tasks ``ids`` of ``batch``, in that order (:meth:`TaskBatch.subset`),
        and the payloads of their own: each packed buffer numbered in ``sliced`` is
        cut to the records these tasks read (:func:`take`), its indexes renumbered."""
        kinds, indexes, own = [], [], {}
        for n in batch.names:
            c = batch.columns[n]
            kinds.append(type(c))
            index = None if isinstance(c, Shared) else c.index[ids]
            if slots[n] in sliced:
                rows, index = np.unique(index, return_inverse=True)
                own[slots[n]] = take(c.pack, rows)
            indexes.append(index)
        part = Part(batch.names, tuple(kinds), tuple(slots[n] for n in batch.names),
                    tuple(indexes), len(ids))
        return part, own

    def batch(self, buffers: tuple) -> TaskBatch:
        """The shard's tasks as a batch reading ``buffers`` (the payloads)."""
        cols = {n: kind(buffers[s]) if kind is Shared else kind(buffers[s], index)
                for n, kind, s, index in zip(self.names, self.kinds, self.slots, self.indexes)}
        return TaskBatch(self.names, cols, self.count)


def wide(batch: TaskBatch, slots: dict[str, int]) -> frozenset:
    """The payloads worth cutting per shard rather than sending whole to every
    worker: packed buffers of more than ``NARROW`` records that one parameter
    reads (a database, not the queries a product pairs with all of it)."""
    readers: dict[int, int] = {}
    for n in batch.names:
        readers[slots[n]] = readers.get(slots[n], 0) + 1
    return frozenset(slots[n] for n, c in batch.columns.items()
                     if isinstance(c, SeqColumn) and len(c.pack) > NARROW
                     and readers[slots[n]] == 1)


def take(pack: SeqPack, rows: np.ndarray) -> SeqPack:
    """The records ``rows`` of ``pack`` (in that order) as a pack of their own."""
    codes, offsets = _gather(pack.codes, pack.offsets, rows)
    names, name_offsets = _gather(np.frombuffer(pack.names, dtype=np.uint8),
                                  pack.name_offsets, rows)
    return SeqPack(pack.alphabet, codes, offsets, names.tobytes(), name_offsets)


def _gather(flat: np.ndarray, offsets: np.ndarray, rows: np.ndarray):
    """The runs ``flat[offsets[r]:offsets[r + 1]]`` of ``rows``, concatenated, and
    their new offsets (one numpy gather, no loop over the rows)."""
    lens = offsets[rows + 1] - offsets[rows]
    out = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=out[1:])
    where = np.repeat(offsets[rows] - out[:-1], lens) + np.arange(out[-1], dtype=np.int64)
    return flat[where], out


def as_column(values: list) -> np.ndarray:
    """A shard's values as one array to send back: numbers of one kind as a
    numeric array (exact: ints only where all fit in 64 bits), anything else
    (tuples, ints beyond 64 bits, mixed kinds) as objects, unchanged."""
    kinds = {type(v) for v in values}
    for kind, dtype in ((float, np.float64), (bool, np.bool_), (int, np.int64)):
        if kinds <= {kind}:
            try:
                return np.array(values, dtype=dtype)
            except OverflowError:
                break
    return np.fromiter(values, dtype=object, count=len(values))
