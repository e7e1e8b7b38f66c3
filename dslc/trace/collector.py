"""Python's cyclic garbage collector paused while tracebacks and alignments are made.

A traceback of a search's top hits allocates a few thousand small containers (the
entry's steps, the walk's arrays and their wrappers, the alignments' rows), and every
700 of them Python runs a collection; each tenth of those traverses older objects,
and now and then a full collection traverses every object of the process (a
process with Numba loaded holds millions: 20 to 100 ms each, measured on the tracing
benchmark, benchmarks/trace_hits.py). Which call pays it depends on the allocation
count when it comes, not on the work asked for, so it made the alignments' time jump
from run to run. Paused here, the collections fall due again when the pause ends, on
Python's own thresholds (the objects made in the pause are counted as usual): the
collector's work is not skipped, it no longer lands inside the traceback's own
steps. Nesting is safe, and a collector the caller had disabled stays disabled.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    """Run the body with the cyclic collector disabled, restoring it as it was
    (also when the body raises)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
