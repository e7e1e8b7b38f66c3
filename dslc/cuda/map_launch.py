"""A map's launches: each launch's arrays packed and its sequences made resident,
the kernel launched on alternating streams into reused memory, the values
gathered back (functions over the backend, which holds the map memory and the
kernel seconds)."""

from __future__ import annotations

import time
import warnings

import numpy as np

from dslc import timings
from dslc.cpu import modules
from dslc.cpu.convert import layout_spec
from dslc.cuda.arena import MapMemory
from dslc.cuda.device import numba_cuda, ready
from dslc.cuda.device_time import busy_seconds, launch_compile_seconds
from dslc.cuda.map_sizing import storage_dims
from dslc.cuda.placement import place
from dslc.cuda.records import Launches, shown
from dslc.cuda.residency import interleaved, resident
from dslc.emit import tuples
from dslc.emit.cuda import kernel_source
from dslc.emit.strategies import strategy
from dslc.lang import gather
from dslc.lang.values import Sequence


def launch(be, run: Launches, f, batch, progress=None) -> np.ndarray:
    """Every task's value. Tasks run longest first (a warp's threads do
    similar work) in launches that fit the scratch budget; where there are
    several, they alternate between two streams, so the host packs launch
    ``n + 1`` while the device runs launch ``n``, and each launch's values
    come back asynchronously into one page-locked array. Each stream's launches
    reuse one device buffer (:class:`~dslc.cuda.arena.Arena`): no launch
    allocates or frees device memory once the first two have run. A sequence column's
    packed buffer is uploaded once (:meth:`_resident`) and every launch reads
    it where it lies. ``progress(done)`` is called as launches are seen to
    finish."""
    cuda = numba_cuda()
    k, travel, placed = run.kernel, run.travel, run.placed
    source, args, plan, storage = k.source, list(k.args), k.plan, list(k.storage)
    dtype, per_block, block = k.dtype, k.per_block, k.block
    width = tuples.width(f.ret)  # a tuple result: a row of components per task
    be._target.wait()
    chosen = strategy("cuda task-per-block" if per_block else "cuda task-per-thread")
    module = modules.load(source + "\n" + kernel_source(
        chosen, args, travel, [fn for fn, _ in storage], placed, width))
    be.kernel_files[f.name] = module.__file__
    launches = run.launches
    memory = map_memory(be, )
    streams, arenas = memory.streams, memory.arenas
    held: list = [None, None]  # a stream's previous launch's host arrays: alive until done
    rows_of = (lambda n: n) if width is None else (lambda n: (n, width))
    done = memory.pinned(rows_of(len(batch)))  # every launch's values
    iota = memory.iota(max(len(ids) for ids in launches))
    results, timers, waits, at = [], [], [], 0
    made: dict = {}  # (sequence, launch) -> its interleaved copy, base and lengths
    for n, ids in enumerate(launches):
        stream, arena = streams[n % 2], arenas[n % 2]
        host = pack(be, args, travel, batch, ids, plan, f, dtype, block, stream,
                    (run, n, made, arena))
        stream.synchronize()  # launch n - 2 (or the last map's) has finished
        arena.reset()
        held[n % 2] = host
        if progress is not None and n >= 2:
            progress(sum(len(ids) for ids in launches[:n - 1]))
        arrays = [arena.put(a) if isinstance(a, np.ndarray) else a for a in host]
        dims = storage_dims(be, plan, storage, run.longest[n])
        scratch = [arena.empty((len(ids),) + d if per_block else d + (len(ids),), dtype)
                   for d in dims]
        d_out = arena.empty(rows_of(len(ids)), np.float64)
        grid = len(ids) if per_block else (len(ids) + block - 1) // block
        began, ended = cuda.event(), cuda.event()
        began.record(stream)
        called = time.perf_counter()
        module.batch[grid, block, stream](iota[:len(ids)], *arrays, *scratch, d_out)
        waits.append(time.perf_counter() - called)
        ended.record(stream)
        values = done[at:at + len(ids)]
        d_out.copy_to_host(values, stream=stream)
        at += len(ids)
        results.append((ids, values))
        timers.append((began, ended))
    cuda.synchronize()
    with warnings.catch_warnings():  # the simulator's timings are not kernel times
        warnings.simplefilter("ignore")
        seconds = busy_seconds(timers)
    jit = launch_compile_seconds(waits, be.options.simulated)
    be.kernel_seconds += max(0.0, seconds - jit)
    timings.add_compute(max(0.0, seconds - jit))
    timings.add_compile(jit)
    be.launches = len(launches)
    out = np.empty(len(batch) if width is None else (len(batch), width), dtype=np.float64)
    for ids, values in results:
        gather.put(out, ids, values)
    return out


def map_memory(be) -> MapMemory:
    """The streams and memory every map reuses (made on the first map)."""
    if be._map_memory is None:
        be._map_memory = MapMemory(numba_cuda())
    return be._map_memory


def placements(be, args, travel, task, plan, dtype) -> dict:
    """Memory for the model arrays every task shares (dslc.cuda.placement), by
    argument name."""
    windows = tuple(g.window for g in plan.groups)
    arrays, where, names = {}, {}, {}
    for a in args:
        if travel[a.name] != "shared" or a.role not in ("argument", "global", "layout"):
            continue
        if a.role == "argument" and isinstance(task.get(a.of), Sequence):
            continue  # sequences stay in global memory, interleaved
        v = be.cpu.arg_value(a, task, windows, None)
        if isinstance(v, np.ndarray) and v.dtype.kind in "fiu":  # bool arrays stay global
            arrays[a.name] = v.astype(dtype) if v.dtype == np.float64 else v
            where[a.name] = layout_where(be, a, task)
            names[a.name] = shown(a)
    return place(arrays, where, names, be.options.cuda_place)


def layout_where(be, arg, task: dict) -> str:
    """Where an extension pinned a layout array (``sdk.DeviceArray.where``)."""
    if arg.role != "layout":
        return "auto"
    array, model = arg.of
    value = task[model] if model in task else be.globals.get(model)
    spec = layout_spec(value, be.program.registry)
    found = spec.layout.array(array) if spec is not None else None
    return found.where if found is not None else "auto"


def pack(be, args, travel, batch, ids, plan, f, dtype, block, stream, at=None) -> list:
    """The arrays of the launch of tasks ``ids``, in the kernel's argument
    order: host arrays, and the resident device copy of each sequence
    column's packed buffer. ``at``: ``(run, n, made, arena)``, the map's
    :class:`Launches`, this launch's number in it, what its earlier launches
    made of their sequences (filled here) and this launch's arena; without it
    the launch makes everything itself."""
    at = at or (None, 0, {}, None)
    windows = tuple(g.window for g in plan.groups)
    plain = [a for a in args if travel[a.name] in ("cseq", "scalar", "shared")]
    packed = iter(modules.pack(plain, travel, batch, be.cpu, windows, f, ids))
    host, bases = [], {}
    for a in args:
        k = travel[a.name]
        if k == "cseq":
            host += [resident(be, next(packed), stream), next(packed), next(packed)]
        elif k in ("scalar", "shared"):
            host.append(next(packed))
        elif k == "iseq":
            host.append(sequence(be, batch, a.of, ids, block, bases, stream, at)[0])
        elif k == "ibase":
            host.append(bases[a.of])
        elif k == "ilen":
            host.append(sequence(be, batch, a.of, ids, block, bases, stream, at)[1])
    run, n, made = at[:3]
    if run is not None:  # only what a later launch may take stays in ``made``
        for m in [m for m, j in made if j == n and (run.rows_as[n] != n or m in run.constant)]:
            del made[(m, n)]
    # model arrays in the table type
    return [a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype == np.float64
            and dtype != "float64" else a for a in host]


def sequence(be, batch, name, ids, block, bases, stream, at) -> tuple:
    """``(interleaved device copy, lengths)`` of sequence ``name`` in the launch of
    tasks ``ids`` (its base put in ``bases``), made once per launch. A launch
    reading the rows of an earlier launch of the map (``Launches.rows_as``: a
    product's next query) takes that launch's; a column with one value per
    launch (``Launches.constant``: the query) is not gathered to find that out.
    ``at``: as :meth:`_pack` makes it."""
    run, n, made, arena = at
    if (name, n) not in made:
        constant = run is not None and name in run.constant
        was = made.get((name, run.rows_as[n])) if run is not None and not constant else None
        if was is not None:  # (made on either stream: written before this launch runs)
            was[3].wait(stream or 0)
            made[(name, n)] = was
        else:
            gathered: dict = {}
            device = interleaved(be, batch, name, ids, block, bases, stream,
                                 same=constant or None,
                                 put=None if arena is None else arena.put,
                                 rows_of=gathered)
            lens = batch.lengths[name][ids[:1]].repeat(len(ids)) if constant else \
                gathered[name] if name in gathered else gather.take(batch.lengths[name], ids)
            made[(name, n)] = (device, lens, bases[name], ready(stream))
    device, lens, bases[name] = made[(name, n)][:3]
    return device, lens
