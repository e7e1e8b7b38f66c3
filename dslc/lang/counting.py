"""A stable counting sort of small non-negative keys, compiled by Numba.

A GPU map of a million tasks orders them by size before it cuts its launches
(dslc.lang.batch ``largest_first``), and that order is on the path of the map's
first launch. numpy's stable sort of 16-bit keys (a radix sort) takes about 20 ms
for a million keys on the machines measured; a counting sort, one pass to count
and one to place, takes a few. It is compiled lazily, only for arrays large
enough to repay it, and cached on disk like every generated kernel, so a process
pays the compile once per cache.
"""

from __future__ import annotations

import numpy as np

LARGE = 200_000  # fewer keys: numpy's sort costs less than loading compiled code

_compiled = []


def counting_order(key: np.ndarray, top: int, out: np.ndarray) -> None:
    """``out``: the indexes of ``key`` (ints in ``[0, top]``) by key, ties in
    index order (the order numpy's stable argsort gives)."""
    start = np.zeros(top + 2, dtype=np.int64)
    for k in key:
        start[k + 1] += 1
    for v in range(1, top + 2):
        start[v] += start[v - 1]
    for i in range(len(key)):
        k = key[i]
        out[start[k]] = i
        start[k] += 1


def stable_order(key: np.ndarray, top: int) -> np.ndarray:
    """The stable order of non-negative int keys at most ``top`` (int64 indexes)."""
    if len(key) < LARGE:
        return np.argsort(key, kind="stable").astype(np.int64, copy=False)
    if not _compiled:
        from numba import njit

        _compiled.append(njit(cache=True, nogil=True)(counting_order))
    out = np.empty(len(key), dtype=np.int64)
    _compiled[0](key, top, out)
    return out
