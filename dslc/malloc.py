"""glibc malloc's options that dslc sets, in one place (Linux with glibc only).

Two are set, each where dslc knows the allocation pattern: a traceback's fill keeps the
memory of freed tables for the next ones (dslc.trace.memory), and a ``dslc`` command's
process uses one malloc arena (:func:`one_arena`). Neither is set where the user tuned
malloc through its environment variables (``settings.malloc_tuned``), and neither
changes a value, only where memory comes from.
"""

from __future__ import annotations

import ctypes
import platform

from dslc import settings

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8  # glibc's malloc.h


def mallopt(option: int, value: int) -> bool:
    """glibc's ``mallopt(option, value)``; False where it is not glibc's malloc, the
    user tuned malloc themselves, or glibc refused."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc" \
            or settings.malloc_tuned():
        return False
    try:
        call = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    call.argtypes, call.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(call(option, value))


def one_arena() -> bool:
    """One malloc arena for the whole process, set before any thread starts.

    By default glibc gives threads arenas of their own (up to eight per core), and
    memory freed in one stays in it: a search's threads (the FASTA reader's, the lanes'
    scratch in Numba's threads) left memory resident that the process no longer used,
    8-10 MB of a whole CPU search's 250 MB peak, at no measured cost in time
    (docs/benchmarks-log.md, "Without a GPU").
    Small blocks still come from each thread's own cache (glibc's tcache) and large
    ones are mapped, so the threads rarely wait for the one arena's lock."""
    return mallopt(M_ARENA_MAX, 1)
