"""The sweeps dslc.calibrate times (Numba is imported here, not there)."""

from __future__ import annotations

import time

import numba
import numpy as np

GPU_TASKS = 8192
GPU_LEN = 64  # both sequences of a GPU task
ROW = GPU_LEN + 1  # (a local array's size must be a constant, not an expression)


@numba.njit(cache=True)
def sweep(a, b):
    """The edit distance of ``a`` and ``b``, a row at a time: one min-plus cell
    each, as generated code computes a table's cells."""
    row = np.arange(len(b) + 1).astype(np.float64)
    for i in range(1, len(a) + 1):
        diag = row[0]
        row[0] = i
        for j in range(1, len(b) + 1):
            up = row[j]
            cost = 0.0 if a[i - 1] == b[j - 1] else 1.0
            row[j] = min(min(up, row[j - 1]) + 1.0, diag + cost)
            diag = up
    return row[len(b)]


def gpu_measure(a, b) -> tuple[float, float, float, float]:
    """(kernel cells per second, start seconds, host-to-device bytes per second,
    compile seconds) of this machine's GPU."""
    from numba import cuda

    t0 = time.perf_counter()
    cuda.current_context()
    start = max(time.perf_counter() - t0, fresh_start())
    host = np.zeros(64 * 2**20, dtype=np.uint8)
    cuda.to_device(host[:4096])
    cuda.synchronize()
    t0 = time.perf_counter()
    cuda.to_device(host)
    cuda.synchronize()
    bandwidth = host.nbytes / max(time.perf_counter() - t0, 1e-9)
    kernel = _kernel()
    seqs = cuda.to_device(np.resize(b, GPU_TASKS * GPU_LEN))
    query = cuda.to_device(a[:GPU_LEN].copy())
    out = cuda.device_array(GPU_TASKS, dtype=np.float64)
    grid = (GPU_TASKS + 127) // 128
    t0 = time.perf_counter()
    kernel[grid, 128](query, seqs, out)
    cuda.synchronize()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    kernel[grid, 128](query, seqs, out)
    cuda.synchronize()
    run = max(time.perf_counter() - t0, 1e-9)
    return GPU_TASKS * GPU_LEN * GPU_LEN / run, start, bandwidth, max(first - run, 0.0)


# what a run that takes the GPU starts: dslc's CUDA backend (and Numba's CUDA target
# with it), then a context
_FRESH = """
import time
t0 = time.perf_counter()
import dslc.cuda.backend
from numba import cuda
cuda.current_context()
print(time.perf_counter() - t0)
"""


def fresh_start() -> float:
    """Seconds a fresh process takes to start the GPU as a run does (importing the
    CUDA backend and Numba's CUDA target, then a context), measured in a child
    process: in this one they may be imported already, and a context's start alone
    was a tenth of what a second run on the GPU paid over one on the CPU (1.4 s on
    an H200 host: docs/benchmarks.md). 0.0 where the child fails (the context's own
    start stands)."""
    import subprocess
    import sys

    from dslc import settings

    try:
        done = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True,
                              timeout=120, env=settings.environment())
        return float(done.stdout.split()[-1]) if done.returncode == 0 else 0.0
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return 0.0


def _kernel():
    from numba import cuda

    @cuda.jit
    def tasks(query, seqs, out):
        k = cuda.grid(1)
        if k >= out.shape[0]:
            return
        row = cuda.local.array(ROW, numba.float64)
        for j in range(GPU_LEN + 1):
            row[j] = j
        for i in range(1, GPU_LEN + 1):
            diag = row[0]
            row[0] = i
            for j in range(1, GPU_LEN + 1):
                up = row[j]
                cost = 0.0 if query[i - 1] == seqs[k * GPU_LEN + j - 1] else 1.0
                row[j] = min(min(up, row[j - 1]) + 1.0, diag + cost)
                diag = up
        out[k] = row[GPU_LEN]

    return tasks
