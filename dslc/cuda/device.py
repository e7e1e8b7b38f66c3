"""Numba-CUDA itself, and the copies and events every part of the CUDA backend
shares: how a packed buffer reaches the device, and the event a launch on the
other stream waits for."""

from __future__ import annotations

import numpy as np


def numba_cuda():
    import numba
    from numba import cuda

    # a small map is a small grid by design: no under-utilisation warning on stderr
    numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    return cuda


PIN_BYTES = 32 << 20  # a buffer this large is copied from page-locked memory


def upload(codes: np.ndarray, stream=0):
    """The device copy of a packed sequence buffer (one byte for an empty one). A
    large one is page-locked where it lies for the copy (``cuda.pinned``): on an
    H100, 340 MB took 33-40 ms so, locking included, against 56 ms copied from
    pageable memory, which the driver stages through its own small buffers (on an
    H200 the copy ahead was already off the first map's path, which did not move:
    docs/benchmarks.md). The copy has finished before the lock is released."""
    cuda = numba_cuda()
    if codes.nbytes < PIN_BYTES or not codes.flags.c_contiguous:
        return cuda.to_device(codes if len(codes) else np.zeros(1, np.uint8), stream=stream)
    with cuda.pinned(codes):
        device = cuda.to_device(codes, stream=stream)
        if stream:
            stream.synchronize()
    return device


def ready(stream):
    """An event recorded on ``stream`` now: a launch on the other stream that reads
    what was just enqueued there waits for it (``event.wait``)."""
    ready = numba_cuda().event()
    ready.record(stream or 0)
    return ready


def typeof(v):
    from numba import typeof

    return typeof(v)
