"""The process's worker threads: every long-lived pool dslc starts, by name, and the one
fork hook that forgets them.

A pool is started on first use and kept for the life of the process (starting threads
per call cost more than the work for small chunks: a search's top hits are filled a
chunk at a time, gathers run per launch). A child made by ``fork`` has none of its
parent's threads, so a pool inherited from the parent would take work and never run
it; the hook below drops every pool in the child, which starts its own on first use.
Keeping the pools here, not one registry and one hook per user, means a new pool cannot
forget the hook.

Users: the CPU backend's table sweeps (``tables``, as many threads as Numba's), gathers
split over cores (``gather``), a traceback's next chunk filled while this one is walked
(``ahead``, one thread) and sequence buffers copied to the GPU while a map is planned
(``upload``, one thread). A pool tied to one object's lifetime (a FASTA reader's, shut
down when it closes) is that object's own.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

_POOLS: dict[tuple[str, int], ThreadPoolExecutor] = {}  # (name, threads) -> its pool


def pool(name: str, threads: int) -> ThreadPoolExecutor:
    """The pool ``name`` of ``threads`` threads (named ``dslc-NAME``), started on first
    use and shared by every later caller asking for the same."""
    key = (name, threads)
    found = _POOLS.get(key)
    if found is None:
        found = _POOLS[key] = ThreadPoolExecutor(threads, thread_name_prefix=f"dslc-{name}")
    return found


def started() -> dict[tuple[str, int], ThreadPoolExecutor]:
    """The pools this process has started (a forked child: none until it asks)."""
    return dict(_POOLS)


os.register_at_fork(after_in_child=_POOLS.clear)  # a forked child has none of the threads
