"""Launch sizes for map kernels: the block-size heuristic of the thesis
(§5.5.2, measured in §7.3.5) and the grid-size rule (§5.5.3, §7.3.6).

Block size. Task-per-block threads share a task's partitions, so the
average partition width decides: below ``LONG`` points (the thesis's
switch, about 500), the most blocks resident per multiprocessor hide latency
better than more threads in fewer blocks (warps of one block wait for each
other at every barrier), and threads beyond the partition's width are
wasted, so a block is the width rounded up to a warp, between one warp and
``SHORT_MAX`` threads (64: 32 resident blocks of 64 fill a multiprocessor's
2,048 threads on current GPUs). At ``LONG`` points and more, more threads per
block win: ``WIDE_BLOCK`` = 256, the largest block that any kernel can launch
(65,536 registers per multiprocessor, at most 255 per thread). Task-per-thread
has no barrier; ``THREAD_BLOCK`` threads (the thesis found 64 slightly better
on 2013 cards, with no clear pattern; 128 is what the register-tiled kernel
was measured at, docs/benchmarks.md) also sets how the database is
interleaved. ``DSLC_CUDA_BLOCK`` overrides every choice.

Grid size. A map launches one thread (or one block) per task in one grid:
the thesis capped grids at 8,192 blocks only to keep desktop GPUs under
their kernel timeout, and found larger grids never slower, so there is no cap;
launches are cut only by the scratch budget and the pipeline
(``dslc.cuda.backend``).
"""

from __future__ import annotations

from dslc.emit.tiles import block_size

WARP = 32
SHORT_MAX = 64
LONG = 500
WIDE_BLOCK = 256


def block_threads(per_block: bool, width: float | None, options) -> tuple[int, str]:
    """Threads per block for a map kernel, and why (``width``: the average
    points per partition, for task-per-block; ``options``: the CompileOptions)."""
    if options.cuda_block is not None:
        return block_size(options), "DSLC_CUDA_BLOCK"
    if not per_block:
        return block_size(options), "task-per-thread: no barriers between threads"
    w = width or 0.0
    if w >= LONG:
        return WIDE_BLOCK, (f"partitions of {w:.0f} points, at least {LONG}: the widest "
                            "block any kernel can launch")
    threads = min(SHORT_MAX, max(WARP, -(-int(w) // WARP) * WARP))
    return threads, (f"partitions of {w:.0f} points, fewer than {LONG}: the most resident "
                     "blocks, no wider than a partition")


def resident_threads() -> int | None:
    """Threads the device holds at once (multiprocessors x threads each), or
    None in the simulator or where the driver cannot tell."""
    try:
        from numba import cuda

        dev = cuda.get_current_device()
        return int(dev.MULTIPROCESSOR_COUNT * dev.MAX_THREADS_PER_MULTI_PROCESSOR)
    except Exception:  # the simulator has no such attributes
        return None
