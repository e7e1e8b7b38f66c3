"""Freed tables' memory kept for the next tables a trace fills.

:meth:`dslc.trace.run.TraceRunner.traces` fills the tables of a few calls at a time
and frees them before the next ones: the point is that the next fill writes into
memory the process already has, instead of faulting in fresh, zeroed pages (the
first touch of a page costs about as much as computing its cells, and threads
faulting together contend for the process's memory map).

glibc does not reuse them by default. The generated sweep allocates each table with
``np.empty`` (Numba's allocator: ``malloc``); a block above the mmap threshold
(128 KiB at first) is its own mapping, unmapped when freed, and although glibc then
raises the threshold to the freed block's size, it also returns any free memory above
twice that at the top of a heap to the system (``M_TRIM_THRESHOLD``): a chunk's tables,
freed together, are mostly given back and the next chunk faults them in again.
:func:`keep_freed_memory` fixes both at the ceiling glibc's own rule reaches (a 32 MiB
threshold, 64 MiB kept), once per process: tables up to 32 MiB come from the heap and
their memory stays for the next ones. The setting is process-wide and permanent (as
glibc's rule is); it is left alone where the user tuned malloc through its environment
variables, and it does nothing outside glibc.
"""

from __future__ import annotations

from dslc.malloc import M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, mallopt

MMAP_THRESHOLD = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what its dynamic rule pairs with that threshold
_done: list = []


def keep_freed_memory() -> bool:
    """Set glibc's thresholds (above) once; True where they are set now or were."""
    if not _done:
        _done.append(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                     and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _done[0]
