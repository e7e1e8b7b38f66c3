"""Gathers and scatters of a million-task map, split over threads.

A map over a database reads each task's row of the packed buffer in the order
the tasks run (largest first: a random order of the rows), so its starts and
lengths are random-access gathers: about 5 ms each for a million tasks on one
core of an H200's host, three of them before a GPU map's first launch can
start and one scatter of its values after the last, all while the device
waits. NumPy's ``take`` and ``put`` release the interpreter lock, so pieces of
one gather run on several cores at once; below :data:`PARALLEL` items a single
call is cheaper than handing out the pieces.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dslc import workers

PARALLEL = 1 << 18  # items from which a gather is split over threads
PIECES = 8  # at most this many threads

def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the platform tells
    it: a process pinned to a few cores of a large machine splits work for those)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on every platform)
        return os.cpu_count() or 1


def _threads() -> int:
    return min(PIECES, usable_cores())


def _pool() -> ThreadPoolExecutor:
    """The process's gather threads (:mod:`dslc.workers`)."""
    return workers.pool("gather", _threads())


def _pieces(n: int) -> list[slice] | None:
    k = _threads()
    if n < PARALLEL or k < 2:
        return None
    cuts = [n * i // k for i in range(k + 1)]
    return [slice(a, b) for a, b in zip(cuts, cuts[1:])]


def take(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``a[idx]`` (``a`` one-dimensional, ``idx`` integer indexes)."""
    pieces = _pieces(len(idx))
    if pieces is None:
        return a[idx]
    out = np.empty(len(idx), dtype=a.dtype)
    list(_pool().map(lambda s: np.take(a, idx[s], out=out[s]), pieces))
    return out


def put(out: np.ndarray, idx: np.ndarray, values: np.ndarray) -> None:
    """``out[idx] = values`` along the first axis (``idx`` without repeats: pieces
    write disjoint rows)."""
    pieces = _pieces(len(idx))
    if pieces is None:
        out[idx] = values
        return

    def one(s):
        out[idx[s]] = values[s]
    list(_pool().map(one, pieces))
