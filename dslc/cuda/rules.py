"""The rules the CUDA backend decides a map's kernel by (task-per-block or
task-per-thread), and the notes its decision records carry: what it would do
at other sizes (more tasks, a single large call), the register tile, the
scratch budget, the placement rule. They sit beside the code that applies
them, so ``dslc explain`` prints them from the record and never restates them.
"""

from __future__ import annotations

from dslc import settings
from dslc.cuda.placement import OVERRIDE
from dslc.emit.pyexpr import NotCompilable

# fewer map tasks than this leave a large GPU's threads idle: on an H200, the
# local-alignment benchmark (q = 375) ran faster one block per task at 4,096 tasks (1.55x) and one thread per
# task at 16,384 (2.4x); docs/benchmarks-log.md, "Task-per-block or task-per-thread"
HYBRID_TASKS = 8192
WIDE = 32  # points per partition that keep a block's warp busy


def hybrid(plan, tasks: int, options) -> tuple[bool, str]:
    """Task-per-block or task-per-thread for a map of ``tasks`` tasks
    (``DSLC_CUDA_STRATEGY=block|thread`` forces one). One task per thread needs
    many tasks to fill the GPU (an H100 runs over 100,000 threads at once);
    below ``DSLC_CUDA_HYBRID_TASKS`` tasks (default 8,192), a block per task
    wins when its partitions are wide enough to keep a warp busy: on average
    at least ``WIDE`` points at the plan's extents (``options``: the CompileOptions)."""
    limit = options.cuda_hybrid_tasks
    limit = HYBRID_TASKS if limit is None else limit
    forced = options.cuda_strategy
    if forced in ("block", "thread"):
        return forced == "block", f"DSLC_CUDA_STRATEGY={forced}"
    if options.simulated:
        # the simulator runs every thread of a block in Python: a block per task
        # only where asked for
        return False, "the CUDA simulator (DSLC_CUDA_STRATEGY=block to choose blocks)"
    if tasks >= limit:
        return False, f"{tasks} tasks, at least DSLC_CUDA_HYBRID_TASKS={limit}"
    width = partition_width(plan)
    if width is None:
        return False, "no table to sweep"
    if width < WIDE:
        return False, f"partitions of {width:.0f} points on average, fewer than {WIDE}"
    return True, (f"{tasks} tasks, fewer than DSLC_CUDA_HYBRID_TASKS={limit}, partitions of "
                  f"{width:.0f} points on average")


def partition_width(plan) -> float | None:
    """Points per partition on average, at the plan's extents, in the group
    with the most partitions (None: the plan sweeps no table)."""
    if not plan.groups:
        return None
    return max(plan.groups, key=lambda g: g.schedule.partitions if g.schedule else 0).width()


def hybrid_note(program, plan, options) -> str:
    """When a map of this plan's entry runs one block per task instead (on a
    real GPU, by :func:`hybrid`), at the plan's extents."""
    from dslc.cuda.launch import block_threads
    from dslc.emit.strategies import build, strategy

    width = partition_width(plan)
    if width is None or width < WIDE:
        return (f"one thread per task at any count (partitions average "
                f"{0 if width is None else width:.0f} points, fewer than {WIDE})")
    try:
        build(strategy("cuda task-per-block"), program, plan, 128).generate()
    except NotCompilable as e:
        return f"one thread per task at any count (no task-per-block: {e})"
    threads, why = block_threads(True, width, options)
    return (f"one block per task for maps of fewer than DSLC_CUDA_HYBRID_TASKS (default "
            f"{HYBRID_TASKS:,}) tasks on a GPU (partitions average {width:.0f} points at "
            f"these extents), {threads} threads per block ({why}); "
            f"DSLC_CUDA_STRATEGY=block|thread forces one")


def tuples_on_the_cpu(program, entry: str) -> str | None:
    """Why single calls of an entry holding tuples run on the CPU part (the
    whole-problem kernel does not hold them, emit.tuples), or None."""
    from dslc.emit.tuples import tuple_type

    found = tuple_type(program, entry)
    if found is None:
        return None
    return (f"on the CPU backend's compiled code, whatever their size: {entry} uses tuple "
            f"values ({found}), which the whole-problem kernel does not hold")


def single_calls(program, entry: str) -> str:
    """Where a single call or table of ``entry`` runs."""
    return tuples_on_the_cpu(program, entry) or (
        "a call or table of at least DSLC_CUDA_WHOLE cells (default 1,000,000) runs as one "
        "problem on the whole GPU: partitions in order (one cooperative launch with grid "
        "sync on a real GPU), the points of a partition over all threads (a warp per point "
        "where a cell reduces over a range and a thread per point would leave the GPU idle; "
        "DSLC_CUDA_LANES=1|32); smaller ones on the CPU")


def scratch() -> str:
    """The storage budget of a launch."""
    mb = settings.text("DSLC_CUDA_SCRATCH_MB") or \
        "half the device's free memory, at least 4096"
    return (f"up to {mb} MB of task storage per launch (tasks beyond it run in further "
            "launches; beyond DSLC_CUDA_PIPELINE tasks a map is cut so that packing "
            "overlaps the kernels)")


def tile(rows: int) -> str:
    return (f"{rows} rows (DSLC_CUDA_TILE, default 32): dependences are uniform steps back "
            "in two dimensions, so rows of a tile live in registers and only its last rows "
            "go to memory (a dimension whose sequence every task shares is tiled, else the "
            "first)")


def block_source(why: str) -> str:
    return f"{why}; DSLC_CUDA_BLOCK overrides"


SPECIALISED = ("tiles run code specialised to where they lie: guards decided by each row's "
               "box, the first columns peeled, stream-invariant sequence reads hoisted, the "
               "next column's loads issued early")

PLACEMENT = ("model arrays every task shares (a substitution matrix, HMM tables): shared "
             "memory when they fit (16 KiB each, 32 KiB per block), copied there once per "
             "block; constant memory where a layout pins it; else global. Sequences: global, "
             f"interleaved by block so a warp's reads coalesce. {OVERRIDE} overrides")
