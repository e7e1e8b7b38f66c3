"""A single problem on the whole GPU: its wavefront's partitions launched (one
cooperative launch where the device takes it), its table or value read back
(functions over the backend, which holds the decisions and kernel seconds)."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from dslc import timings
from dslc.cpu import modules
from dslc.cpu.backend import Chosen
from dslc.cuda.device import numba_cuda, typeof
from dslc.cuda.records import plan_extents
from dslc.emit.tiles import block_size


def run_whole(be, chosen: Chosen):
    w, scope, request = chosen.compiled, chosen.scope, chosen.request
    gen, plan = w.gen, w.plan
    be._map_memory = None  # the maps' memory may be wanted here
    be.device_generated[plan.entry] = (plan, w.device_src)
    be._target.wait()
    cuda = numba_cuda()
    dev, host = modules.load(w.device_src), modules.load(w.host_src)
    windows = tuple(g.window for g in plan.groups)
    hargs = [be.cpu.arg_value(a, scope, windows, request) for a in w.args]
    dargs = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in hargs]
    env = dict(plan_extents(plan))
    env.update({f"W_{gi}": g.schedule.window for gi, g in enumerate(plan.groups)
                if g.windowed})
    dims = [tuple(int(d.eval(env)) for d in ds) for _, ds in gen.storage]
    store = [cuda.device_array(d, dtype=np.float64) for d in dims]
    accs = [cuda.to_device(np.array([gen.initial(k)])) for k in range(len(plan.fused))]
    res = cuda.to_device(np.array([np.nan]))
    block = block_size(be.options)
    cuda.synchronize()
    with timings.computing():  # (a kernel's first launch compiles it: not counted)
        t0 = time.perf_counter()
        sweep(be, chosen, dev, dargs, store, accs, res, env, block)
        cuda.synchronize()
        be.kernel_seconds += time.perf_counter() - t0
    names = [f for f, _ in gen.storage]
    if plan.kind == "cell":
        entry_group = next(g for g in plan.groups if plan.entry in g.functions)
        if entry_group.windowed:  # captured as the sweep passed it
            return res.copy_to_host()[0]
        return store[names.index(plan.entry)][tuple(int(q) for q in request)]
    tables = [t.copy_to_host() for t in store]
    if plan.kind == "table":
        return tables[names.index(plan.entry)]
    return host.final(*hargs, *tables, *[a.copy_to_host() for a in accs])


def sweep(be, chosen, dev, dargs, store, accs, res, env, block):
    """Every partition of every group of a whole problem, launched."""
    from dslc.emit.wavefront import simulated_shuffles

    gen, plan = chosen.compiled.gen, chosen.compiled.plan
    for gi, g in enumerate(plan.groups):
        # each point takes gen.lanes[gi].width threads (a warp where split)
        width = gen.lanes[gi].width
        points = int(gen.points(gi).eval(env))
        grid = max(1, min(-(-points * width // block), 4096))
        if gen.simulated and width > 1:
            grid = min(grid, 2)  # each simulated lane is a Python thread: few, striding
        if not cooperative(be, chosen, dev, gi, grid, block,
                           (*dargs, *store, *accs, res),
                           g.schedule.first, g.schedule.partitions):
            kernel = getattr(dev, f"part_{gi}")
            with simulated_shuffles(gen.simulated and width > 1):
                for c0 in range(g.schedule.first, g.schedule.first + g.schedule.partitions):
                    for ph in range(gen.phases[gi]):  # (a function each: _phases)
                        kernel[grid, block](*dargs, *store, *accs, res, c0, ph)


def cooperative(be, chosen, dev, gi, grid, block, args, first, count) -> bool:
    """Every partition in one cooperative launch, the grid synchronised
    between partitions (no launch per partition), where the decision chose
    it. Where the device refuses (an older driver or toolkit), a launch per
    partition, and the record says why."""
    if not chosen.compiled.cooperative:
        return False
    kernel = getattr(dev, f"all_{gi}")
    try:
        kernel.compile(tuple(typeof(a) for a in args) + (typeof(first), typeof(count)))
        fit = kernel.overloads[next(iter(kernel.overloads))].max_cooperative_grid_blocks(block)
        kernel[max(1, min(grid, fit)), block](*args, first, count)
        return True
    except Exception as e:  # an older driver or toolkit: a launch per partition
        be.device_fallbacks.setdefault("_cooperative", str(e))
        d = chosen.decision
        be.decisions.add(replace(d, why=(
            f"a launch per partition, {chosen.compiled.gen.describe()}",
            f"the cooperative launch was refused: {e}") + d.why[1:]))
        return False
