"""The entries' whole-table reductions of many tracebacks computed together, on threads.

A search's entry, ``max(i ... : max(j ... : h(i, j)))``, is the first step of each
hit's traceback: it takes each row's extreme of the hit's whole filled table
(:func:`dslc.trace.derive._numeric_block`), a pass over megabytes of numbers that
the walk would make once per hit on one core, one hit after the other. Traced
together (:meth:`dslc.trace.run.TraceRunner.traces`), each hit's first step is first
run as a *probe* that stops where it asks for such a reduction (or at the end of the
first step), the reductions asked for are computed on threads (numpy releases the GIL
while it reduces), and the walks then read them here instead of computing them. The
same numbers, the same reduction, the same derivations: only when it is computed
changes. Nothing here knows the recurrence: a probe asks for what the walk would.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np


class Probed(Exception):
    """A probe's end: the reduction it asked for is recorded, or its first step is done."""


class Ahead:
    """Row extremes of table blocks: ``known`` (computed ahead, for the walks),
    ``wanted`` (while a probe runs: what it asked for, else None)."""

    def __init__(self):
        self.known: dict = {}
        self.wanted: list | None = None

    def rows(self, raw: np.ndarray, index: tuple, transpose: bool, op: str):
        """Each row's ``op`` (max or min) of ``raw[index]`` (transposed first where
        ``transpose``), or None where that block is not 2-D; during a probe, the
        request recorded and :class:`Probed` raised."""
        key = _key(raw, index, transpose, op)
        hit = self.known.get(key)
        if hit is not None and hit[0] is raw:
            return hit[1]
        if self.wanted is not None:
            self.wanted.append((raw, index, transpose, op))
            raise Probed()
        return row_extremes(raw, index, transpose, op)

    def compute(self, threads: int) -> None:
        """The reductions the probes asked for, on up to ``threads`` threads."""
        wanted, self.wanted = self.wanted or [], None
        if not wanted:
            return
        with ThreadPoolExecutor(max(1, min(threads, len(wanted)))) as pool:
            got = list(pool.map(lambda w: row_extremes(*w), wanted))
        for w, rows in zip(wanted, got):
            self.known[_key(*w)] = (w[0], rows)

    def clear(self) -> None:
        self.known.clear()
        self.wanted = None


def row_extremes(raw: np.ndarray, index: tuple, transpose: bool, op: str):
    """Each row's max or min of ``raw[index]`` (transposed first where ``transpose``),
    or None where that block is not 2-D (a tuple's components: the generic path)."""
    block = raw[index]
    if block.ndim != 2:
        return None
    block = block.T if transpose else block
    return block.max(axis=1) if op == "max" else block.min(axis=1)


def _key(raw, index: tuple, transpose: bool, op: str) -> tuple:
    """(slices are not hashable before Python 3.12: their bounds are)"""
    return (id(raw), tuple((x.start, x.stop, x.step) if isinstance(x, slice) else x
                           for x in index), transpose, op)
