"""How a map's tasks are cut into launches: the scratch budget, the pipeline's
tasks per launch, and each launch's storage shapes (functions over the backend,
which holds the map memory and the program)."""

from __future__ import annotations

import math

import numpy as np

from dslc import settings
from dslc.cuda.device import numba_cuda
from dslc.cuda.launch import resident_threads
from dslc.lang import gather


def pipeline_tasks() -> int:
    """Tasks per launch when a map is cut up so that packing overlaps the
    kernels (``DSLC_CUDA_PIPELINE``; 0: one launch where memory allows).
    The default is eight waves of the threads the device holds at once, so the
    partly idle last wave of each launch costs at most an eighth of it."""
    resident = resident_threads()
    return settings.number("DSLC_CUDA_PIPELINE", 8 * resident if resident else 1 << 20)


def scratch_budget(held: int = 0) -> int:
    """Bytes of task storage per launch: ``DSLC_CUDA_SCRATCH_MB``, else half the
    device's free memory, counting the ``held`` bytes the maps' arenas keep for
    launches as free (fewer, fuller launches: each launch ends in a partly idle
    last wave), at least 4 GiB where the device cannot say."""
    if settings.is_set("DSLC_CUDA_SCRATCH_MB"):
        return settings.number("DSLC_CUDA_SCRATCH_MB", 0) * 2**20
    try:
        free, _ = numba_cuda().current_context().get_memory_info()
        return max((int(free) + held) // 2, 4096 * 2**20)
    except Exception:  # the simulator, or a driver that cannot tell
        return 4096 * 2**20


def launches(be, batch, plan, storage, dtype) -> tuple:
    """``(launches, longest, rows_as, constant)``: the tasks of each launch, its
    sequences' longest, an earlier launch reading the same rows of every
    sequence column not in ``constant`` (or itself), and the columns with one
    value in each launch. A launch's storage fits the scratch budget
    (half of it when there are several, since two are in flight). Tasks run
    longest first, so a launch's first task roughly bounds every task's
    storage (launches grow as tasks shrink); the exact bound is the launch's
    largest extent of every dimension. Beyond ``pipeline_tasks()`` tasks a map
    is cut into launches of about that many, so that packing overlaps the
    kernels. Where the batch's groups (:attr:`TaskBatch.grouped`: a product's
    queries) are large, no launch spans two of them, so every query's launches
    read the database's rows in the same order and its interleaved copy is
    made and uploaded once (:meth:`_interleaved`). A group whose rows are its
    twin's (:attr:`TaskBatch.twins`) reuses that group's lengths, and its
    launches cut at the same positions read the twin's launches' rows
    (``rows_as``): nothing of the database is gathered again per query."""
    held = be._map_memory.held if be._map_memory is not None else 0
    budget = scratch_budget(held)
    piece = pipeline_tasks() or len(batch)
    order, bounds = batch.grouped
    twins, constant = batch.twins, batch.constant
    if len(bounds) > 2 and int(np.diff(bounds).min()) < piece // 4:
        order, bounds = batch.order, np.array([0, len(batch)])  # small groups: one order
        twins, constant = np.zeros(1, dtype=np.int64), batch.shared
    if len(batch) > piece or len(bounds) > 2:
        budget //= 2
    out, longest, rows_as = [], [], []
    head = None  # the last group that is its own twin: (its lengths, first launch, cuts)
    for g in range(len(bounds) - 1):
        a, b = int(bounds[g]), int(bounds[g + 1])
        ids, twin = order[a:b], int(twins[g])
        if twin == g:
            head = ({n: gather.take(v, ids) for n, v in batch.lengths.items()
                     if n not in constant}, len(out), None)
        lens = {n: np.broadcast_to(v[ids[0]], b - a) if n in constant else head[0][n]
                for n, v in batch.lengths.items()}
        cuts = cut(be, b - a, lens, piece, budget, plan, storage, dtype)
        if twin == g:
            head = head[:2] + ([c[:2] for c in cuts],)
        same = twin != g and head[2] == [c[:2] for c in cuts]
        for k, (lo, hi, top) in enumerate(cuts):
            rows_as.append(head[1] + k if same else len(out))
            out.append(ids[lo:hi])
            longest.append(top)
    return out, longest, rows_as, constant


def cut(be, count, lens, piece, budget, plan, storage, dtype) -> list[tuple]:
    """``(start, end, longest)`` of each launch of ``count`` tasks in the order
    ``lens`` gives them: at most ``piece`` tasks within ``budget``; ``lens``: each sequence
    parameter's lengths in those tasks, in that order (a launch's longest is
    the maximum of a slice, not of a gather); ``longest`` its maximum in the
    launch, by parameter."""
    out, start = [], 0
    while start < count:
        chunk = min(piece, count - start)
        while True:
            end = start + chunk
            top = {n: int(v[start:end].max()) for n, v in lens.items()}
            dims = storage_dims(be, plan, storage, top)
            per_task = sum(np.dtype(dtype).itemsize * math.prod(d) for d in dims) or 8
            if per_task * chunk <= budget or chunk == 1:
                break
            chunk = max(1, min(chunk // 2, budget // per_task))
        out.append((start, start + chunk, top))
        start += chunk
    return out


def storage_dims(be, plan, storage, longest: dict) -> list[tuple[int, ...]]:
    """Storage shapes (without the task) for tasks whose sequences are no
    longer than ``longest`` (sequence name -> length)."""
    env = {}
    for g in plan.groups:
        for func in g.functions:
            for k, name in enumerate(g.extents.names[func]):
                p = be.program.functions[func].rec_params[k].type
                seq = getattr(p, "seq", None)
                env[name] = longest[seq] if seq in longest else g.extents.values[name]
    env.update({f"W_{gi}": g.schedule.window for gi, g in enumerate(plan.groups)
                if g.windowed})
    return [tuple(int(d.eval(env)) for d in ds) for _, ds in storage]
