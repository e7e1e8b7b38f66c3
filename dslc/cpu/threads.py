"""A map's tasks run on the process's threads through a serial compiled launch.

A launch (the loop that hands a map's tasks or packs to the generated ``task`` or
``lanes``) could run its loop in parallel with Numba's ``prange``; but a
``parallel=True`` function is compiled through Numba's parfor passes and a second
lowering of the loop as a gufunc, which on the development machine (2 vCPUs) costs
about 2 s of CPU time per map on top of the task's own compile: as much as the task
itself for a Smith-Waterman pack, and nearly all of the compile of a map over a
straight-line function (docs/benchmarks-log.md, "First runs"). A first run of a script
pays it for every map.

So the launch is compiled serial, over a range of its iterations, with ``nogil``, and
Python threads run it: each takes the next chunk of iterations (in the map's order,
largest tasks first) until none is left, the GIL released while the compiled loop runs.
Taking chunks as they free up balances the threads (a ``prange`` loop gives each
thread one contiguous block of the iterations, whatever its chunk size says, so the
sorted order had to be dealt round-robin into those blocks), and a second run loads
the same cached launch.

The number of threads is Numba's (``numba.get_num_threads()``, which ``NUMBA_NUM_THREADS``
and the API's thread settings set), so a run uses the cores it was given before.
"""

from __future__ import annotations

import threading

import numba


# chunks per thread: enough that the last chunks (the smallest tasks) even out the
# threads' ends, few enough that a chunk's call (its arguments typed by the
# dispatcher, some microseconds) is nothing beside the tasks it runs
CHUNKS_PER_THREAD = 16


def run_chunks(n: int, call, threads: int | None = None) -> None:
    """``call(a, b)`` over consecutive chunks ``[a, b)`` covering ``range(n)``, the
    chunks handed out in order to ``threads`` threads (Numba's number by default)
    as each finishes its last. The first exception a chunk raises is raised here,
    after every thread has stopped (no chunk starts once one has failed), so the
    caller's arrays are no longer written when it handles it."""
    t = numba.get_num_threads() if threads is None else threads
    if n <= 0:
        return
    if t <= 1 or n == 1:
        call(0, n)
        return
    size = max(1, -(-n // (t * CHUNKS_PER_THREAD)))
    lock = threading.Lock()
    state = {"next": 0, "error": None}

    def work():
        while True:
            with lock:
                a = state["next"]
                if a >= n or state["error"] is not None:
                    return
                b = min(n, a + size)
                state["next"] = b
            try:
                call(a, b)
            except BaseException as e:  # (re-raised by the caller's thread)
                with lock:
                    if state["error"] is None:
                        state["error"] = e
                return

    helpers = [threading.Thread(target=work, daemon=True) for _ in range(min(t, n) - 1)]
    for h in helpers:
        h.start()
    work()  # the calling thread takes chunks too
    for h in helpers:
        h.join()
    if state["error"] is not None:
        raise state["error"]
