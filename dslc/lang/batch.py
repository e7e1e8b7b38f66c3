"""A map's tasks as columns: what every backend's ``map`` receives.

A map over a database of a million proteins is a million tasks; holding each as a
dict of bound values costs a Python object per task per argument and a pass in
Python to pack them for compiled code. A :class:`TaskBatch` holds one column per
parameter instead:

* :class:`SeqColumn`: a packed buffer of sequences (a FASTA file's
  :class:`~dslc.lang.records.SeqPack`, stored once however many tasks read
  it) and, per task, which of its sequences the task reads;
* :class:`ValueColumn`: bound values (numbers, models), one per item of the
  listed operand, and per task which item;
* :class:`Shared`: one bound value every task shares (a query, a matrix, an HMM).

A product map (queries x database) thus stores the database once, and the
backends pack it once (:meth:`TaskBatch.seq_rows`). The batch still reads as a
list of dicts (``batch[k]``, iteration), made on demand, for the paths that run
one task at a time: the interpreter, and re-runs of single tasks.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from dslc.lang.gather import take
from dslc.lang.records import SeqPack
from dslc.lang.values import Sequence


@dataclass(frozen=True, eq=False)
class Shared:
    """One bound value for every task."""

    value: object


@dataclass(frozen=True, eq=False)
class SeqColumn:
    """Task ``k`` reads sequence ``index[k]`` of ``pack``."""

    pack: SeqPack
    index: np.ndarray  # int64, one per task

    def value(self, k: int) -> Sequence:
        return self.pack.sequence(int(self.index[k]))

    @functools.cached_property
    def whole(self) -> bool:
        """Task ``k`` reads sequence ``k`` of the whole pack (a map over a database):
        its rows are the tasks' own numbers, gathered from nothing."""
        n, ix = len(self.pack.lengths), self.index
        return len(ix) == n and (n == 0 or int(ix[0]) == 0 and int(ix[-1]) == n - 1 and
                                 bool((ix[1:] > ix[:-1]).all()))

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """The sequences tasks ``ids`` read."""
        return ids if self.whole else take(self.index, ids)


@dataclass(frozen=True, eq=False)
class ValueColumn:
    """Task ``k`` takes ``items[index[k]]``."""

    items: tuple
    index: np.ndarray

    def value(self, k: int):
        return self.items[int(self.index[k])]


@dataclass(frozen=True, eq=False)
class TaskBatch:
    """The tasks of one map, by parameter (see the module's docstring)."""

    names: tuple[str, ...]  # the parameters, in order
    columns: dict  # name -> Shared | SeqColumn | ValueColumn
    count: int

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(self.count))]
        if not -self.count <= k < self.count:
            raise IndexError(k)
        k %= self.count
        return {n: self._value(n, k) for n in self.names}

    def __iter__(self):
        return (self[k] for k in range(self.count))

    def _value(self, name: str, k: int):
        col = self.columns[name]
        return col.value if isinstance(col, Shared) else col.value(k)

    @property
    def first(self) -> dict:
        return self[0]

    @functools.cached_property
    def shared(self) -> frozenset:
        """Parameters whose value every task shares."""
        return frozenset(n for n, c in self.columns.items() if isinstance(c, Shared))

    @functools.cached_property
    def uniform(self) -> frozenset:
        """Parameters whose value is the same in every task: the shared ones, and a
        column every task reads one item of (a query file of one record against a
        database, which stays a column: the GPU's product path groups by it; or one
        query's part of a product, :attr:`grouped`, as the CPU backend runs it)."""
        return self.shared | frozenset(n for n, c in self.columns.items()
                                       if self.count and _one_item(c))

    def is_seq(self, name: str) -> bool:
        col = self.columns[name]
        return isinstance(col, SeqColumn) or (isinstance(col, Shared)
                                              and isinstance(col.value, Sequence))

    @functools.cached_property
    def lengths(self) -> dict[str, np.ndarray]:
        """Each sequence parameter's length in every task."""
        out = {}
        for n in self.names:
            col = self.columns[n]
            if isinstance(col, SeqColumn):
                out[n] = col.pack.lengths if col.whole else col.pack.lengths[col.index]
            elif isinstance(col, Shared) and isinstance(col.value, Sequence):
                out[n] = np.full(self.count, len(col.value), dtype=np.int64)
        return out

    @functools.cached_property
    def order(self) -> np.ndarray:
        """Tasks by size, largest first (ties in task order): the work of a task
        is its total sequence length."""
        return largest_first(self._sizes(slice(None), self.shared))

    def _sizes(self, ids, constant) -> np.ndarray:
        """The tasks ``ids``' sizes for ordering them: their sequences' total length,
        leaving out the columns in ``constant`` (one value for these tasks: adding it
        does not change their order, and a million-task sum is a pass saved)."""
        parts = [v[ids] for n, v in self.lengths.items() if n not in constant]
        if not parts:
            n = len(range(self.count)[ids]) if isinstance(ids, slice) else len(ids)
            return np.zeros(n, dtype=np.int64)
        return sum(parts[1:], parts[0])

    @property
    def grouped(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, bounds)``: the tasks grouped by the items of the batch's narrow
        columns (those listing at most ``NARROW`` items: the queries of a queries x
        database product), groups in the order of those items, and by size,
        largest first, within a group (ties in task order); group ``g`` is
        ``order[bounds[g]:bounds[g + 1]]``. Every group of a product then reads
        the wide column's items in the same order, so what a backend derives from
        those rows (the database interleaved for a GPU launch) serves every group
        (:attr:`twins` says which groups)."""
        return self._grouping.order, self._grouping.bounds

    @property
    def twins(self) -> np.ndarray:
        """Per group of :attr:`grouped`, the first group of the run of groups it
        ends, each reading the wide columns' items in the same order as the one
        before it: group ``g``'s wide rows, and so their lengths, equal group
        ``twins[g]``'s position by position (``twins[g] == g``: none before)."""
        return self._grouping.twins

    @property
    def constant(self) -> frozenset:
        """Columns whose value is the same in every task of a group of
        :attr:`grouped`: the shared ones and the narrow ones it groups by."""
        return self._grouping.constant

    @functools.cached_property
    def _grouping(self) -> "Grouping":
        """Within a group the narrow columns are constant, so a task's size differs
        only by the wide sequence columns' items: a group that reads the same items
        in the same task order as the one before it (every query of a product) takes
        that group's order by position instead of sorting again. Ten queries x a
        million proteins are then one sort of a million sizes, not of ten million.
        Where the groups' key is already in order (a product binds the query
        varying slowest), a group is a slice: its bounds are found by bisection
        and its rows and sizes read as views, with no pass over the ten million
        tasks but the check of that order."""
        listed = {n: _items(c) for n, c in self.columns.items() if _items(c) is not None}
        narrow = [n for n, k in listed.items() if k <= NARROW] \
            if any(k > NARROW for k in listed.values()) else []  # else no column is wide
        stride = math.prod(listed[n] for n in narrow)
        if stride <= 1:
            return Grouping(self.order, np.array([0, self.count], dtype=np.int64),
                            np.zeros(1, dtype=np.int64), self.shared | frozenset(narrow))
        key = self.columns[narrow[0]].index if len(narrow) == 1 else _key(self, narrow)
        if bool((key[1:] >= key[:-1]).all()):  # already grouped (a product binds so)
            by_key = None
            bounds = np.unique(np.searchsorted(key, np.arange(stride + 1))).astype(np.int64)
        else:
            by_key = np.argsort(key.astype(np.uint16) if stride <= 2**16 else key,
                                kind="stable").astype(np.int64)
            counts = np.bincount(key, minlength=stride)
            bounds = np.concatenate(([0], np.cumsum(counts[counts > 0]))).astype(np.int64)
        wide = [c.index for n, c in self.columns.items()
                if isinstance(c, SeqColumn) and listed[n] > NARROW]
        order = np.empty(self.count, dtype=np.int64)
        twins = np.arange(len(bounds) - 1, dtype=np.int64)
        last, perm = None, None
        for g, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            ids = slice(a, b) if by_key is None else by_key[a:b]
            rows = [w[ids] for w in wide]
            if last is not None and b - a == len(perm) and all(
                    np.array_equal(x, y) for x, y in zip(rows, last)):
                twins[g] = twins[g - 1]
            else:
                last = rows
                perm = largest_first(self._sizes(ids, self.shared | frozenset(narrow)))
            order[a:b] = perm + a if by_key is None else ids[perm]
        return Grouping(order, bounds, twins, self.shared | frozenset(narrow))

    def seq_items(self, name: str, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """``(codes, items)``: the packed buffer a sequence parameter reads and,
        per task of ``ids``, which of its sequences (None: one for every task)."""
        col = self.columns[name]
        if isinstance(col, Shared):
            return np.ascontiguousarray(col.value.codes, dtype=np.uint8), None
        return col.pack.codes, col.rows(ids)

    def seq_rows(self, name: str, ids: np.ndarray | None = None, items=None):
        """``(codes, starts, lengths)`` of a sequence parameter: task ``ids[i]``'s
        residues are ``codes[starts[i]:starts[i] + lengths[i]]``, ``codes`` being
        the whole packed buffer (no copy). ``items``: the tasks' sequences as
        :meth:`seq_items` gave them, where the caller has them (a gather of a
        million-task launch's rows is not repeated)."""
        ids = np.arange(self.count) if ids is None else ids
        col = self.columns[name]
        if isinstance(col, Shared):
            codes = np.ascontiguousarray(col.value.codes, dtype=np.uint8)
            return (codes, np.zeros(len(ids), dtype=np.int64),
                    np.full(len(ids), len(codes), dtype=np.int64))
        rows = col.rows(ids) if items is None else items
        return col.pack.codes, take(col.pack.offsets, rows), take(col.pack.lengths, rows)

    def column(self, name: str, convert, ids: np.ndarray | None = None) -> np.ndarray:
        """A number parameter's value in every task (``ids``), each item converted
        once by ``convert``."""
        col = self.columns[name]
        ids = np.arange(self.count) if ids is None else ids
        if isinstance(col, Shared):
            return np.full(len(ids), convert(col.value))
        items = np.array([convert(v) for v in col.items])
        return items[col.index[ids]]

    def subset(self, ids) -> "TaskBatch":
        """The tasks ``ids``, in that order."""
        ids = np.asarray(ids, dtype=np.int64)
        cols = {n: c if isinstance(c, Shared) else type(c)(
            c.pack if isinstance(c, SeqColumn) else c.items, c.index[ids])
            for n, c in self.columns.items()}
        return TaskBatch(self.names, cols, len(ids))

    @staticmethod
    def of(tasks) -> "TaskBatch":
        """A batch of tasks given as dicts of bound values (the API's, a test's);
        a batch is returned as it is. Values every task shares (the same object,
        or equal numbers) become one :class:`Shared`; sequences are packed once."""
        if isinstance(tasks, TaskBatch):
            return tasks
        tasks = list(tasks)
        names = tuple(tasks[0]) if tasks else ()
        cols = {n: _column([t[n] for t in tasks]) for n in names}
        return TaskBatch(names, cols, len(tasks))


@dataclass(frozen=True, eq=False)
class Grouping:
    """:attr:`TaskBatch.grouped`, :attr:`TaskBatch.twins` and :attr:`TaskBatch.constant`."""

    order: np.ndarray
    bounds: np.ndarray
    twins: np.ndarray
    constant: frozenset


def _key(batch: TaskBatch, narrow: list[str]) -> np.ndarray:
    """Each task's group number: the narrow columns' items, the first varying fastest."""
    key, stride = np.zeros(batch.count, dtype=np.int64), 1
    for n in narrow:
        key += batch.columns[n].index * stride
        stride *= _items(batch.columns[n])
    return key


def _items(col) -> int | None:
    """How many items a column lists (None: one value shared by every task)."""
    if isinstance(col, SeqColumn):
        return len(col.pack.lengths)
    return len(col.items) if isinstance(col, ValueColumn) else None


def _one_item(col) -> bool:
    """Does every task of a (non-empty) batch read the same item of ``col``?"""
    if _items(col) in (None, 1):
        return True
    return bool((col.index == col.index[0]).all())


NARROW = 64  # a column listing at most this many items groups a batch (TaskBatch.grouped)


def largest_first(sizes: np.ndarray) -> np.ndarray:
    """The indexes of ``sizes`` (non-negative), largest first, ties in index order.
    Keys that fit in 16 bits sort by radix (numpy's stable sort of small ints): a
    million tasks in 12-18 ms on an H200's host rather than the tenth of a second a
    stable sort of int64 keys takes. (A compiled counting sort took 10-13 ms there,
    but loading it from Numba's cache cost a CUDA process 0.27-0.44 s the first time,
    since nothing else in it compiles for the CPU.)"""
    if len(sizes) == 0:
        return np.zeros(0, dtype=np.int64)
    top = int(sizes.max())
    key = top - sizes  # the largest size first
    if int(sizes.min()) >= 0 and top < 2**16:
        key = key.astype(np.uint16)
    return np.argsort(key, kind="stable").astype(np.int64, copy=False)


def same_value(a, b) -> bool:
    """The same argument value (sequences by content: a query bound per task)."""
    if a is b:
        return True
    if isinstance(a, Sequence) and isinstance(b, Sequence):
        return a.alphabet is b.alphabet and np.array_equal(a.codes, b.codes)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return type(a) is type(b) and a == b
    return False


def _column(values: list):
    first = values[0]
    if all(same_value(v, first) for v in values):
        return Shared(first)
    index = np.arange(len(values), dtype=np.int64)
    if all(isinstance(v, Sequence) for v in values) and \
            len({id(v.alphabet) for v in values}) == 1:
        seqs = {id(v): v for v in values}  # a sequence in several tasks packed once
        unique = list(seqs.values())
        where = {id(v): k for k, v in enumerate(unique)}
        pack = SeqPack.of(unique, first.alphabet)
        return SeqColumn(pack, np.array([where[id(v)] for v in values], dtype=np.int64))
    return ValueColumn(tuple(values), index)
