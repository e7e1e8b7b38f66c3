"""A walk's first reduction read off a table where the table was filled.

A search's entry point, ``max(i in ... : max(j in ... : h(i, j)))``, makes a traceback
start by reading a whole table: each row's extreme (:func:`row_extremes`). Done by the
walk, that read comes after the fill, on the walk's thread, from memory another core
wrote; it was the largest part of a hit's walk on a 16-core machine. So the tracer
learns which such reads its walks make (:class:`Reads`: per function, the operator,
the axes and the box relative to the table's extents) and the threads that fill a
chunk's tables make the same reads right after each sweep (:meth:`Reads.ahead`), where
the table is still in that core's cache, keeping each result on the table's numbers
(``Numbers.ahead``) under the exact read it answers. The walk takes a kept result
only where its own read is that one; any other read, or a table filled before a
read was learned, is computed by the walk as before. A guess can cost time, never
a value.

The reads run on the fill's threads while the walks' thread runs Python, so the
learned reads are read without a lock (a snapshot replaced whole when a read is
learned): a fill thread that waits for a lock lets the interpreter lock go, and may
then wait for the walks' thread's switch interval (5 ms) to take it back.
"""

from __future__ import annotations

import threading

_KEEP = 4  # reads remembered per function (a program's entry makes one or two)


class Reads:
    """The whole-table reads walks made, per function, to be made ahead."""

    def __init__(self):
        # function -> its reads, a tuple; the dict is replaced whole when one is learned
        # (on the walks' thread), so the fill's threads read it without taking a lock
        self._seen: dict[str, tuple] = {}
        self._lock = threading.Lock()  # (between learners)

    @classmethod
    def of(cls, learned: dict) -> "Reads":
        """Reads learned elsewhere (:meth:`learned`: another process's walks)."""
        reads = cls()
        reads._seen = {f: tuple(r) for f, r in learned.items()}
        return reads

    def learned(self) -> dict:
        """What :meth:`ahead` would read, as plain data (to send to another process)."""
        return {f: list(r) for f, r in self._seen.items()}

    def learn(self, func: str, op: str, axes: tuple, index: tuple, shape: tuple) -> None:
        """A walk read ``index`` of ``func``'s table (numbers of ``shape``) by ``op``."""
        read = (op, axes, _relative(index, shape))
        if read in self._seen.get(func, ()):
            return
        with self._lock:
            seen = self._seen.get(func, ())
            if read not in seen:
                self._seen = {**self._seen, func: (*seen, read)[-_KEEP:]}

    def ahead(self, tables: dict) -> None:
        """Every learned read of each ``{function: Numbers}`` of one sweep, kept on
        its numbers (run on the thread that filled them)."""
        seen = self._seen  # (one snapshot for the sweep's tables)
        for func, numbers in tables.items():
            reads = seen.get(func, ())
            kept = getattr(numbers, "ahead", None)
            if kept is None:
                continue  # (the interpreter's values: nothing to read ahead)
            for op, axes, relative in reads:
                index = _absolute(relative, numbers.raw.shape)
                if index is not None:
                    kept[key(op, axes, index)] = row_extremes(op, numbers, index, axes)


def key(op: str, axes: tuple, index: tuple) -> tuple:
    """A read's key (slices made hashable)."""
    return (op, axes, tuple((x.start, x.stop) if isinstance(x, slice) else x for x in index))


def row_extremes(op: str, numbers, index: tuple, axes: tuple):
    """``(extremes, values)``: the extreme of each row of the 2-D block ``index`` of
    ``numbers`` along ``axes[1]`` (rows along ``axes[0]``) as numbers and as the
    interpreter's values (None where the numbers say at once that every one is exact:
    the walk converts the one it chooses, :class:`OneByOne`; plain data either way, so
    a fill process sends it as it is), or None where the block is not 2-D (a tuple's
    components) or a row's extreme has no exact value (the walk's generic path says
    why)."""
    block = numbers.raw[index]
    if block.ndim != 2:
        return None
    block = block if axes[0] < axes[1] else block.T
    best = block.max(axis=1) if op == "max" else block.min(axis=1)
    if numbers.exact is not None:  # (None: the walk converts only the extreme it chooses)
        return (best, None) if numbers.exact(best) else None
    values = numbers.many(best)
    return None if values is None else (best, values)


class OneByOne:
    """A row's numbers as the interpreter's values, each converted when read (every
    one exact: ``Numbers.exact`` said so): a reduction reads only its chosen one."""

    __slots__ = ("raw", "one")

    def __init__(self, raw, one):
        self.raw, self.one = raw, one

    def __getitem__(self, k: int):
        return self.one(self.raw[k])


def _relative(index: tuple, shape: tuple) -> tuple:
    """``index`` with each slice's ends from the start and from the end of its axis
    (a table's extents differ from hit to hit; the box the entry reads moves with them)."""
    return tuple(("slice", x.start, x.stop - n) if isinstance(x, slice) else ("at", x)
                 for x, n in zip(index, shape))


def _absolute(relative: tuple, shape: tuple) -> tuple | None:
    """``_relative`` undone for a table of ``shape``; None where it does not fit."""
    if len(relative) > len(shape):
        return None
    out = []
    for r, n in zip(relative, shape):
        if r[0] == "at":
            if not 0 <= r[1] < n:
                return None
            out.append(r[1])
        else:
            start, stop = r[1], n + r[2]
            if not 0 <= start < stop <= n:
                return None
            out.append(slice(start, stop))
    return tuple(out)
