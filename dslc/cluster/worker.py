"""What runs on a Dask worker: a shard of a map, on the worker's own backend.

A worker gets the program as its plan (dslc.runtime.shipped), checks it once per
process and keeps one backend per plan, so compiled code is reused from shard to
shard (and loaded from the on-disk cache where ``DSLC_CACHE_DIR`` is shared).
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

from dslc.cluster.columns import Part, as_column
from dslc.errors import DslcError
from dslc.runtime.shipped import Plan, backend_globals, checked_again  # noqa: F401 (Plan)


@dataclass(frozen=True)
class Failed:
    """A shard's language error, sent back as plain data (a DslcError's
    subclasses do not all survive pickling): ``task`` is its task's position in
    the shard, or None for an error outside any task."""

    message: str
    span: object
    hint: str | None
    task: int | None


@dataclass(frozen=True)
class OutOfMemory:
    """A shard that ran out of memory (the host's or its GPU's), sent back as
    plain data so that the client splits the shard instead of failing the map:
    what the allocator said, and the bytes of the allocation that failed where
    it says (numpy does; a device allocator does not)."""

    detail: str
    needed: int | None


_DRIVERS = ("numba.cuda.cudadrv.driver", "numba_cuda.numba.cuda.cudadrv.driver")
CUDA_ERROR_OUT_OF_MEMORY = 2  # the CUDA driver API's code (cuda.h)


def out_of_memory(error: BaseException) -> OutOfMemory | None:
    """``error`` as an :class:`OutOfMemory` where it, or an error it was raised
    from (a backend turns a ``MemoryError`` into its own DslcError), is a host's
    ``MemoryError`` or a CUDA driver's out-of-memory; else None. The CUDA driver
    module is looked up only where this process has loaded it."""
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, MemoryError) or _device_oom(e):
            return OutOfMemory(str(e) or type(e).__name__, _bytes(e))
        e = e.__cause__ or e.__context__
    return None


def _device_oom(e: BaseException) -> bool:
    for name in _DRIVERS:
        api_error = getattr(sys.modules.get(name), "CudaAPIError", None)
        if api_error is not None and isinstance(e, api_error):
            # the driver's error keeps its code as ``code`` and first argument (the
            # simulator's only as its first argument)
            code = getattr(e, "code", e.args[0] if e.args else None)
            return code == CUDA_ERROR_OUT_OF_MEMORY
    return False


def _bytes(e: BaseException) -> int | None:
    """The size of the allocation that failed, where the error says (numpy's
    names the array's shape and dtype)."""
    shape, dtype = getattr(e, "shape", None), getattr(e, "dtype", None)
    if shape is None or dtype is None:
        return None
    n = int(getattr(dtype, "itemsize", 0))
    for d in shape:
        n *= int(d)
    return n or None


_BACKENDS: dict[str, tuple] = {}  # plan key -> (backend, lock), per worker process
_LOCK = threading.Lock()


def backend_for(plan: Plan):
    """This process's backend for ``plan`` and the lock that runs one shard at a
    time on it (backends keep per-run state)."""
    with _LOCK:
        if plan.key not in _BACKENDS:
            if len(_BACKENDS) >= 8:  # a long-lived worker serving many scripts
                _BACKENDS.pop(next(iter(_BACKENDS)))
            _BACKENDS[plan.key] = (_build(plan), threading.Lock())
        return _BACKENDS[plan.key]


def _build(plan: Plan):
    from dslc import backends

    checked = checked_again(plan)
    return backends.get(plan.backend)(checked, backend_globals(checked))


def run_shard(plan: Plan, func: str, part: Part, buffers: tuple, span):
    """The values of the shard ``part`` (its batch's payloads are ``buffers``,
    scattered once to this worker) as one array (:func:`as_column`), a
    :class:`Failed` for a language error, or an :class:`OutOfMemory` where the
    shard did not fit in this worker's memory (the client splits it)."""
    from dslc import deep
    from dslc.interp.backend import TaskError

    try:
        backend, lock = backend_for(plan)
        with lock:
            values = deep.run(plan.tree.depth, backend.map, func, part.batch(buffers), span)
        return as_column(values)
    except Exception as e:  # noqa: BLE001 - what is not ours is raised again below
        oom = out_of_memory(e)
        if oom is not None:
            return oom
        if isinstance(e, TaskError):
            return Failed(e.error.message, e.error.span, e.error.hint, e.k)
        if isinstance(e, DslcError):
            return Failed(e.message, e.span, e.hint, None)
        raise
