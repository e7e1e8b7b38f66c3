"""A shard of a map as columns: the buffers sent once, the indexes per shard.

A map's :class:`~dslc.lang.batch.TaskBatch` holds, per parameter, one payload
(a packed buffer of sequences, a tuple of values, or one value every task shares)
and, for a listed column, one index per task. The payloads are what is large (a
database of a million proteins is one :class:`~dslc.lang.records.SeqPack`), so a
pool scatters them once to every worker; a shard is a :class:`Part`: which
payload each parameter reads and the index of every task of the shard into it,
a few bytes a task. A worker rebuilds the shard's batch from the two, without a
copy of the payloads, and runs its backend's ``map`` on it as on any batch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dslc.lang.batch import SeqColumn, Shared, TaskBatch


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
    def cut(batch: TaskBatch, ids: np.ndarray, slots: dict[str, int]) -> "Part":
        """The tasks ``ids`` of ``batch``, in that order (:meth:`TaskBatch.subset`)."""
        cols = [batch.columns[n] for n in batch.names]
        return Part(batch.names, tuple(type(c) for c in cols),
                    tuple(slots[n] for n in batch.names),
                    tuple(None if isinstance(c, Shared) else c.index[ids] for c in cols),
                    len(ids))

    def batch(self, buffers: tuple) -> TaskBatch:
        """The shard's tasks as a batch reading ``buffers`` (the payloads)."""
        cols = {n: kind(buffers[s]) if kind is Shared else kind(buffers[s], index)
                for n, kind, s, index in zip(self.names, self.kinds, self.slots, self.indexes)}
        return TaskBatch(self.names, cols, self.count)


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
