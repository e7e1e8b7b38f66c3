"""The CUDA backend.

A ``map`` whose plan compiles for the device runs one thread per task
(register-tiled where the dependences allow, :mod:`dslc.emit.tiles`), tasks
ordered longest first so the threads of a warp do similar work, in launches
sized to a scratch-memory budget (inputs larger than the device are processed
in chunks with the same results). A single call or whole table of at least
``DSLC_CUDA_WHOLE`` cells (default 1,000,000) runs as one problem on the whole
GPU (:mod:`dslc.emit.wavefront`); smaller ones, and anything the device cannot
take, run on the CPU backend. ``DSLC_CUDA_BLOCK`` (threads per block, default
128), ``DSLC_CUDA_SCRATCH_MB`` (storage per launch, default half the free memory),
``DSLC_CUDA_TILE`` (tile rows, default 32), ``DSLC_CUDA_PIPELINE`` (tasks per
launch when a large map is cut so packing overlaps kernels), ``DSLC_CUDA_LANES``
(1 or 32 threads per point of a whole problem) and ``DSLC_CUDA_COOP=0`` (no
cooperative launch) override the defaults (:mod:`dslc.cuda.launch` for block
sizes).
"""

from __future__ import annotations

import hashlib
import math
import time
import warnings
import weakref

import numba
import numpy as np

from dslc import settings, timings
from dslc.cpu import modules
from dslc.lang import types as T
from dslc.cpu.backend import EXACT, CpuBackend, _Inexact
from dslc.cpu.convert import NonFinite, _layout_spec, _shape
from dslc.emit.cuda import CudaGenerator, kernel_source
from dslc.check.ranges import request_outside
from dslc.plan import lower
from dslc.emit.precision import STATIC, float32_info, largest
from dslc.emit.blocks import BlockGenerator
from dslc.emit.tiles import TiledGenerator, block_size
from dslc.cuda.launch import block_threads, resident_threads
from dslc.cuda.placement import place
from dslc.emit.wavefront import WavefrontGenerator
from dslc.emit.pyexpr import NotCompilable
from dslc.emit import tuples
from dslc.interp.backend import in_map
from dslc.lang.batch import TaskBatch
from dslc.lang.values import Sequence


def _cuda():
    import numba
    from numba import cuda

    # a small map is a small grid by design: no under-utilisation warning on stderr
    numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    return cuda


class CudaBackend(CpuBackend):
    name = "cuda"

    @staticmethod
    def available() -> bool:
        try:
            return bool(_cuda().is_available())
        except Exception:  # no driver, no toolkit: simply not available
            return False

    @staticmethod
    def real_gpu() -> bool:
        """A device, not the simulator (``auto`` only picks a real one)."""
        return CudaBackend.available() and not settings.simulated()

    def __init__(self, program, globals_: dict):
        super().__init__(program, globals_)
        self.device_fallbacks: dict[str, str] = {}
        self.strategy: dict[str, str] = {}  # entry -> the kernel strategy chosen, and why
        self.placement: dict[str, dict] = {}  # entry -> argument -> (memory, why)
        self.kernel_seconds = 0.0  # time spent in kernels (for benchmarks)
        self.launches = 0  # kernel launches of the last map (for benchmarks)
        self.reruns: dict[str, int] = {}  # entry -> map tasks the device left to the CPU
        self.kernel_files: dict[str, str] = {}  # map entry -> its kernel's module (dslc.auto)
        self._kernels: dict = {}
        self._plans: dict = {}
        # a packed buffer (by id) or its rows interleaved -> (weak ref, device copies)
        self._uploaded: dict = {}

    # ------------------------------------------------------------------ one big problem
    def value(self, func: str, args: dict, span, description: str = ""):
        f = self.program.functions[func]
        if self.direct(func) or request_outside(self.program, func, args):
            return super().value(func, args, span, description)
        kind, request, scope = self.call_entry(f, args)
        try:
            raw = self._whole(func, kind, scope, request)
        except (IndexError, ValueError, ZeroDivisionError):
            raw = None  # the entry's own body stopped on the host: the CPU says why
        if raw is not None and raw == raw:  # NaN: a check the kernel met, the CPU says why
            v = float(raw)
            if f.ret != T.INT or not math.isfinite(v) or abs(v) < EXACT:
                return self._result(v, f.ret, span)
        return super().value(func, args, span, description)

    def table(self, func: str, calling: dict, span, description: str = ""):
        self.interp.check_table_fits(func, calling, span)
        try:
            raw = self._whole(func, "table", calling, None)
        except (IndexError, ValueError, ZeroDivisionError):
            raw = None
        ret = self.program.functions[func].ret
        if raw is None or np.isnan(raw).any() or \
                (ret == T.INT and (np.abs(raw[np.isfinite(raw)]) >= EXACT).any()):
            return super().table(func, calling, span, description)
        return self.table_values(func, calling, raw, span)

    def _whole(self, func, kind, scope, request):
        """A single problem on the whole GPU (emit.wavefront) when it is at least
        ``DSLC_CUDA_WHOLE`` cells (default 1,000,000; smaller ones run on the
        CPU, where a launch per partition would cost more than it saves)."""
        try:
            with timings.planning():
                plan = lower(self.program, func, kind, scope, request).task
        except NotCompilable:
            return None  # the CPU backend plans it again and says why
        cells = sum(math.prod(v + 1 for v in (g.extents.values[n] for n in g.extents.names[fn]))
                    for g in plan.groups for fn in g.functions)
        if cells < settings.number("DSLC_CUDA_WHOLE", 1_000_000):
            return None
        from dslc.emit.wavefront import choose_lanes

        # a warp per point where cells reduce over ranges (real GPU), else a thread
        lanes = choose_lanes(self.program, plan, self.real_gpu(), block_size(),
                             resident_threads())
        try:
            with timings.planning():
                gen = WavefrontGenerator(self.program, plan, lanes,
                                         simulated=settings.simulated())
                device_src, host_src, argnames = gen.generate()
        except NotCompilable as e:
            self.device_fallbacks[func] = str(e)
            return None
        self.strategy[func] = f"whole problem: a launch per partition, {gen.describe()}"
        self.generated[func] = (plan, device_src)
        return self._run_whole(gen, plan, device_src, host_src, argnames, scope, request)

    def _run_whole(self, gen, plan, device_src, host_src, argnames, scope, request):
        cuda = _cuda()
        dev, host = modules.load(device_src), modules.load(host_src)
        windows = tuple(g.window for g in plan.groups)
        hargs = [self.arg_value(a, scope, windows, request) for a in argnames]
        dargs = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in hargs]
        env = dict(plan_extents(plan))
        env.update({f"W_{gi}": g.schedule.window for gi, g in enumerate(plan.groups)
                    if g.windowed})
        dims = [tuple(int(eval(d, {"__builtins__": {}}, env)) for d in ds) for _, ds in gen.storage]
        store = [cuda.device_array(d, dtype=np.float64) for d in dims]
        accs = [cuda.to_device(np.array([gen.initial(k)])) for k in range(len(plan.fused))]
        res = cuda.to_device(np.array([np.nan]))
        block = block_size()
        cuda.synchronize()
        with timings.computing():  # (a kernel's first launch compiles it: not counted)
            t0 = time.perf_counter()
            self._sweep(gen, plan, dev, dargs, store, accs, res, env, block)
            cuda.synchronize()
            self.kernel_seconds += time.perf_counter() - t0
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

    def _sweep(self, gen, plan, dev, dargs, store, accs, res, env, block):
        """Every partition of every group of a whole problem, launched."""
        from dslc.emit.wavefront import simulated_shuffles

        for gi, g in enumerate(plan.groups):
            # each point takes gen.lanes[gi].width threads (a warp where split)
            width = gen.lanes[gi].width
            points = int(eval(gen.points(gi), {"__builtins__": {}}, env))
            grid = max(1, min(-(-points * width // block), 4096))
            if gen.simulated and width > 1:
                grid = min(grid, 2)  # each simulated lane is a Python thread: few, striding
            if self._cooperative(dev, gi, grid, block, (*dargs, *store, *accs, res),
                                 g.schedule.first, g.schedule.partitions):
                self.strategy[plan.entry] = ("whole problem: every partition in one "
                                             f"cooperative launch, {gen.describe()}")
            else:
                kernel = getattr(dev, f"part_{gi}")
                with simulated_shuffles(gen.simulated and width > 1):
                    for c0 in range(g.schedule.first, g.schedule.first + g.schedule.partitions):
                        kernel[grid, block](*dargs, *store, *accs, res, c0)

    def _cooperative(self, dev, gi, grid, block, args, first, count) -> bool:
        """Every partition in one cooperative launch, the grid synchronised
        between partitions (no launch per partition). Not in the simulator, and
        not where the device cannot hold the grid at once (``DSLC_CUDA_COOP=0``
        turns it off)."""
        if settings.simulated() or \
                settings.choice("DSLC_CUDA_COOP") == "0":
            return False
        kernel = getattr(dev, f"all_{gi}")
        try:
            kernel.compile(tuple(_typeof(a) for a in args) + (_typeof(first), _typeof(count)))
            fit = kernel.overloads[next(iter(kernel.overloads))].max_cooperative_grid_blocks(block)
            kernel[max(1, min(grid, fit)), block](*args, first, count)
            return True
        except Exception as e:  # an older driver or toolkit: a launch per partition
            self.device_fallbacks.setdefault("_cooperative", str(e))
            return False

    def map(self, func: str, tasks, span, progress=None) -> list:
        if not len(tasks):
            return []
        batch = TaskBatch.of(tasks)
        out = self.map_per_model(func, batch, span, progress)
        if out is not None:
            return out
        f = self.program.functions[func]
        shared, lens = batch.shared, batch.lengths
        try:
            kind, widest, request = self.map_entry(f, batch)
            compiled = self._device_compile(func, kind, widest, request, batch, lens, shared)
        except NotCompilable as e:
            self.device_fallbacks[func] = str(e)
            compiled = None
        if compiled is None:
            return super().map(func, batch, span, progress)
        try:
            values = self._launch(compiled, f, batch, lens, shared, progress)
        except NonFinite as e:  # data the kernel assumes finite: the CPU (and interpreter)
            self.device_fallbacks[func] = str(e)
            return super().map(func, batch, span, progress)
        # a task the kernel could not finish (NaN), or an int beyond 2^53: the CPU
        # backend gives the exact value or reports why
        if isinstance(f.ret, T.TupleT):  # a row of components per task
            out, redo = self._tuple_values(values, f.ret, span)
        else:
            out, redo = self._values(values, f.ret)
        for k in redo:
            self.reruns[func] = self.reruns.get(func, 0) + 1
            out[k] = in_map(lambda: super(CudaBackend, self).map(func, [batch[k]], span), [k])[0]
        if progress is not None:
            progress(len(batch))
        return out

    @staticmethod
    def _values(values: np.ndarray, ret) -> tuple[list, np.ndarray]:
        """A map's numbers as the interpreter's values, and the tasks to redo."""
        redo = (values != values) | (np.abs(values) >= EXACT) & np.isfinite(values)
        if ret == T.INT:
            fin = np.isfinite(values).tolist()
            out = [int(v) if ok else v for v, ok in zip(values.tolist(), fin)]
        else:
            out = values.tolist()
        return out, np.flatnonzero(redo)

    def _tuple_values(self, values: np.ndarray, ret, span) -> tuple[list, list[int]]:
        """A map's rows of tuple components as tuples, and the tasks to redo (a
        component NaN, or an int component beyond 2^53)."""
        out, redo = [], []
        for k, row in enumerate(values):
            try:
                out.append(self._result(row, ret, span))
            except _Inexact:
                out.append(None)
                redo.append(k)
        return out, redo

    # ------------------------------------------------------------------ compile
    def _device_compile(self, func, kind, scope, request, tasks, lens, shared):
        """The kernel for a map: task-per-block (emit.blocks) where ``hybrid``
        picks it, else task-per-thread: register-tiled (emit.tiles) where the
        group's dependences allow, float32 where emit.precision's static bound
        holds for these tasks, else the general kernel in float64."""
        key = (func, kind, request, shared, tuple(
            (n, _shape(v, self.program.registry)) for n, v in sorted(scope.items())),
            settings.key())
        if key not in self._plans:
            with timings.planning():
                self._plans[key] = lower(self.program, func, kind, scope, request).task
        plan = self._plans[key]
        dtype = self._dtype(plan, tasks, lens, shared)
        per_block, why = hybrid(plan, len(tasks))
        block, sized = block_threads(per_block, partition_width(plan))
        key += (dtype, per_block, block)
        if key in self._kernels:
            return self._kernels[key]
        with timings.planning():  # (generating a kernel's source)
            shared_seqs = frozenset(n for n in shared if tasks.is_seq(n))
            gen = None
            if per_block:
                try:
                    gen = BlockGenerator(self.program, plan, block)
                    source, argnames = gen.generate()
                    self.strategy[func] = (f"task-per-block ({why}; {block} threads: "
                                           f"{sized}), float64")
                except NotCompilable as e:
                    gen, why = None, f"{why}, but {e}"
            if gen is None:
                block = block_size()
                try:
                    gen = TiledGenerator(self.program, plan, shared_seqs, dtype=dtype)
                    source, argnames = gen.generate()
                    self.strategy[func] = (f"task-per-thread ({why}), register tile of {gen.rows} "
                                           f"rows, {dtype}")
                except NotCompilable as e:
                    gen = CudaGenerator(self.program, plan)
                    source, argnames = gen.generate()
                    self.strategy[func] = f"task-per-thread ({why}; {e}), float64"
        result = (source, argnames, plan, gen.storage, gen.dtype,
                  isinstance(gen, BlockGenerator), block)
        self._kernels[key] = result
        self.generated[func] = (plan, source)
        return result

    def _dtype(self, plan, tasks, lens, shared) -> str:
        """float32 where the static argument of emit.precision holds (a kernel
        cannot re-run a task whose checked magnitudes went too far)."""
        info = float32_info(self.program, plan)
        if info is None or not info.linear:
            return "float64"
        arrays = []
        extent = max([int(v.max()) for v in lens.values()] + [0])
        for n, col in tasks.columns.items():
            if n in lens:
                continue
            column = [col.value] if n in shared else list({id(v): v for v in col.items}.values())
            try:
                arrays += [np.asarray(self.convert(v), dtype=np.float64) for v in column]
            except (NotCompilable, TypeError, ValueError):
                return "float64"
        for name in self.globals:
            try:
                arrays.append(np.asarray(self.convert(self.globals[name]), dtype=np.float64))
            except (NotCompilable, TypeError, ValueError):
                pass
        values = largest(arrays)
        extent = max([extent] + list(plan_extents(plan).values()))
        if values is None or info.static_bound(values, extent) >= STATIC:
            return "float64"
        return "float32"

    # ------------------------------------------------------------------ launch
    def _launch(self, compiled, f, batch, lens: dict, shared,
                progress=None) -> np.ndarray:
        """Every task's value. Tasks run longest first (a warp's threads do
        similar work) in launches that fit the scratch budget; where there are
        several, they alternate between two streams, so the host packs launch
        ``n + 1`` while the device runs launch ``n``, and each launch's values
        come back asynchronously into page-locked memory. A sequence column's
        packed buffer is uploaded once (:meth:`_resident`) and every launch reads
        it where it lies. ``progress(done)`` is called as launches are seen to
        finish."""
        cuda = _cuda()
        source, argnames, plan, storage, dtype, per_block, block = compiled
        kinds = _interleaved_kinds(argnames, modules.argument_kinds(argnames, batch))
        placed = self._placements(f.name, argnames, kinds, batch.first, plan, dtype)
        width = tuples.width(f.ret)  # a tuple result: a row of components per task
        module = modules.load(source + "\n" + kernel_source(
            argnames, kinds, [fn for fn, _ in storage], placed, per_block, width))
        self.kernel_files[f.name] = module.__file__
        launches = self._launches(batch.order, plan, storage, dtype, lens)
        streams = [cuda.stream(), cuda.stream()]
        held: list = [None, None]  # a stream's previous launch: alive until it is done
        results, timers, waits = [], [], []
        for n, ids in enumerate(launches):
            stream = streams[n % 2]
            host = self._pack(argnames, kinds, batch, ids, plan, f, dtype, block, stream)
            stream.synchronize()  # launch n - 2 has finished: its memory may go
            held[n % 2] = None
            if progress is not None and n >= 2:
                progress(sum(len(ids) for ids in launches[:n - 1]))
            arrays = [cuda.to_device(a, stream=stream) if isinstance(a, np.ndarray) else a
                      for a in host]
            dims = self._dims(plan, storage, {m: int(v[ids].max()) for m, v in lens.items()})
            scratch = [cuda.device_array((len(ids),) + d if per_block else d + (len(ids),),
                                         dtype=dtype, stream=stream) for d in dims]
            rows = len(ids) if width is None else (len(ids), width)
            d_out = cuda.device_array(rows, dtype=np.float64, stream=stream)
            local = cuda.to_device(np.arange(len(ids), dtype=np.int64), stream=stream)
            grid = len(ids) if per_block else (len(ids) + block - 1) // block
            began, ended = cuda.event(), cuda.event()
            began.record(stream)
            called = time.perf_counter()
            module.batch[grid, block, stream](local, *arrays, *scratch, d_out)
            waits.append(time.perf_counter() - called)
            ended.record(stream)
            values = cuda.pinned_array(rows, dtype=np.float64)
            d_out.copy_to_host(values, stream=stream)
            held[n % 2] = (arrays, scratch, d_out, local)
            results.append((ids, values))
            timers.append((began, ended))
        cuda.synchronize()
        with warnings.catch_warnings():  # the simulator's timings are not kernel times
            warnings.simplefilter("ignore")
            seconds = sum(a.elapsed_time(b) for a, b in timers) / 1e3
        jit = launch_compile_seconds(waits, settings.simulated())
        self.kernel_seconds += max(0.0, seconds - jit)
        timings.add_compute(max(0.0, seconds - jit))
        timings.add_compile(jit)
        self.launches = len(launches)
        out = np.empty(len(batch) if width is None else (len(batch), width), dtype=np.float64)
        for ids, values in results:
            out[ids] = values
        return out

    def _interleaved(self, batch, name, ids, block, bases: dict, stream):
        """Sequence ``name`` of tasks ``ids`` interleaved by block (:func:`interleave`)
        on the device; the device copy is kept, like :meth:`_resident`'s, while
        the packed buffer lives, under the rows the launch reads: the same
        database searched again by a query of the same length reuses it."""
        codes, starts, lens = batch.seq_rows(name, ids)
        key = (id(codes), block, hashlib.blake2b(starts.tobytes() + lens.tobytes(),
                                                 digest_size=16).digest())
        hit = self._uploaded.get(key)
        if hit is not None and hit[0]() is codes:
            bases[name] = hit[2]
            return hit[1]
        buf, bases[name] = interleave(codes, starts, lens, block)
        device = _cuda().to_device(buf, stream=stream)
        self._keep(key, codes, device, bases[name])
        return device

    def _keep(self, key, codes: np.ndarray, *made) -> None:
        """Keep ``made`` (device copies) under ``key`` while ``codes`` lives."""
        self._uploaded[key] = (weakref.ref(codes), *made)
        weakref.finalize(codes, self._uploaded.pop, key, None)

    def _resident(self, codes: np.ndarray, stream):
        """The device copy of a packed sequence buffer, uploaded on first use and
        kept while the buffer lives (a database loaded once and searched by many
        maps, or by many calls of the Python API, is uploaded once)."""
        hit = self._uploaded.get(id(codes))
        if hit is not None and hit[0]() is codes:
            return hit[1]
        device = _cuda().to_device(codes if len(codes) else np.zeros(1, np.uint8), stream=stream)
        self._keep(id(codes), codes, device)
        return device

    def _launches(self, order, plan, storage, dtype, lens) -> list[np.ndarray]:
        """The tasks of each launch, in ``order``. A launch's storage fits the
        scratch budget (half of it when there are several, since two are in
        flight). Tasks run longest first, so a launch's first task roughly
        bounds every task's storage (launches grow as tasks shrink); the exact
        bound is the launch's largest extent of every dimension. Beyond
        ``pipeline_tasks()`` tasks a map is cut into launches of about that
        many, so that packing overlaps the kernels."""
        budget = scratch_budget()
        piece = pipeline_tasks()
        if piece and len(order) > piece:
            budget //= 2
        else:
            piece = len(order)
        out, start = [], 0
        while start < len(order):
            chunk = min(piece, len(order) - start)
            while True:
                ids = order[start:start + chunk]
                dims = self._dims(plan, storage, {n: int(v[ids].max()) for n, v in lens.items()})
                per_task = sum(np.dtype(dtype).itemsize * math.prod(d) for d in dims) or 8
                if per_task * len(ids) <= budget or chunk == 1:
                    break
                chunk = max(1, min(chunk // 2, budget // per_task))
            out.append(ids)
            start += len(ids)
        return out

    def _placements(self, func, argnames, kinds, task, plan, dtype) -> dict:
        """Memory for the model arrays every task shares (dslc.cuda.placement),
        recorded in ``self.placement`` for reports."""
        windows = tuple(g.window for g in plan.groups)
        arrays = {}
        for a in argnames:
            if kinds[a] != "shared" or not a.startswith(("a_", "g_")):
                continue
            if a.startswith("a_") and isinstance(task.get(a[2:]), Sequence):
                continue  # sequences stay in global memory, interleaved
            v = self.arg_value(a, task, windows, None)
            if isinstance(v, np.ndarray) and v.dtype.kind in "fiu":  # bool arrays stay global
                arrays[a] = v.astype(dtype) if v.dtype == np.float64 else v
        placed = place(arrays, {a: self._where(a, task) for a in arrays})
        self.placement[func] = {a[2:].lstrip("_"): (p.memory, p.why) for a, p in placed.items()}
        return placed

    def _where(self, arg: str, task: dict) -> str:
        """Where an extension pinned a layout array (``sdk.DeviceArray.where``;
        ``g__ARRAY_MODEL`` names array ARRAY of the layout of model MODEL)."""
        if not arg.startswith("g__"):
            return "auto"
        _, array, model = arg[2:].split("_", 2)
        value = task[model] if model in task else self.globals.get(model)
        spec = _layout_spec(value, self.program.registry)
        found = spec.layout.array(array) if spec is not None else None
        return found.where if found is not None else "auto"

    def _dims(self, plan, storage, longest: dict) -> list[tuple[int, ...]]:
        """Storage shapes (without the task) for tasks whose sequences are no
        longer than ``longest`` (sequence name -> length)."""
        env = {}
        for g in plan.groups:
            for func in g.functions:
                for k, name in enumerate(g.extents.names[func]):
                    p = self.program.functions[func].rec_params[k].type
                    seq = getattr(p, "seq", None)
                    env[name] = longest[seq] if seq in longest else g.extents.values[name]
        env.update({f"W_{gi}": g.schedule.window for gi, g in enumerate(plan.groups)
                    if g.windowed})
        return [tuple(int(eval(d, {"__builtins__": {}}, env)) for d in ds) for _, ds in storage]

    def _pack(self, argnames, kinds, batch, ids, plan, f, dtype, block, stream) -> list:
        """The arrays of the launch of tasks ``ids``, in the kernel's argument
        order: host arrays, and the resident device copy of each sequence
        column's packed buffer."""
        windows = tuple(g.window for g in plan.groups)
        plain = [a for a in argnames if kinds[a] in ("cseq", "scalar", "shared")]
        packed = iter(modules.pack(plain, kinds, batch, self, windows, f, ids))
        host, bases = [], {}
        for a in argnames:
            k = kinds[a]
            if k == "cseq":
                host += [self._resident(next(packed), stream), next(packed), next(packed)]
            elif k in ("scalar", "shared"):
                host.append(next(packed))
            elif k == "iseq":
                host.append(self._interleaved(batch, a[2:], ids, block, bases, stream))
            elif k == "ibase":
                host.append(bases[a[3:]])
            elif k == "ilen":
                host.append(batch.lengths[a[2:]][ids])
        # model arrays in the table type
        return [a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype == np.float64
                and dtype != "float64" else a for a in host]


# fewer map tasks than this leave a large GPU's threads idle: on an H200, Smith-Waterman
# (q = 375) ran faster one block per task at 4,096 tasks (1.55x) and one thread per
# task at 16,384 (2.4x); docs/benchmarks.md, "Task-per-block or task-per-thread"
HYBRID_TASKS = 8192
WIDE = 32  # points per partition that keep a block's warp busy


LAUNCH_S = 0.05  # a kernel launch is asynchronous: a call that blocks longer compiled


def launch_compile_seconds(waits: list[float], simulated: bool) -> float:
    """Of the host's seconds inside each kernel launch call, those that were the
    kernel's compile (or its load from numba-cuda's cache) at its first launch:
    a launch returns at once otherwise. The device's events around the launch
    count that wait too, so it is moved from kernel seconds to compile seconds.
    In the simulator a launch runs the kernel itself: nothing is counted."""
    if simulated:
        return 0.0
    return sum(w for w in waits if w > LAUNCH_S)


def hybrid(plan, tasks: int) -> tuple[bool, str]:
    """Task-per-block or task-per-thread for a map of ``tasks`` tasks
    (``DSLC_CUDA_STRATEGY=block|thread`` forces one). One task per thread needs
    many tasks to fill the GPU (an H100 runs over 100,000 threads at once);
    below ``DSLC_CUDA_HYBRID_TASKS`` tasks (default 8,192), a block per task
    wins when its partitions are wide enough to keep a warp busy: on average
    at least ``WIDE`` points at the plan's extents."""
    limit = settings.number("DSLC_CUDA_HYBRID_TASKS", HYBRID_TASKS)  # checked whatever decides
    forced = settings.choice("DSLC_CUDA_STRATEGY")
    if forced in ("block", "thread"):
        return forced == "block", f"DSLC_CUDA_STRATEGY={forced}"
    if settings.simulated():
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


def pipeline_tasks() -> int:
    """Tasks per launch when a map is cut up so that packing overlaps the
    kernels (``DSLC_CUDA_PIPELINE``; 0: one launch where memory allows).
    The default is eight waves of the threads the device holds at once, so the
    partly idle last wave of each launch costs at most an eighth of it."""
    resident = resident_threads()
    return settings.number("DSLC_CUDA_PIPELINE", 8 * resident if resident else 1 << 20)


def scratch_budget() -> int:
    """Bytes of task storage per launch: ``DSLC_CUDA_SCRATCH_MB``, else half the
    device's free memory (fewer, fuller launches: each launch ends in a partly
    idle last wave), at least 4 GiB where the device cannot say."""
    if settings.is_set("DSLC_CUDA_SCRATCH_MB"):
        return settings.number("DSLC_CUDA_SCRATCH_MB", 0) * 2**20
    try:
        free, _ = _cuda().current_context().get_memory_info()
        return max(int(free) // 2, 4096 * 2**20)
    except Exception:  # the simulator, or a driver that cannot tell
        return 4096 * 2**20


def _typeof(v):
    from numba import typeof

    return typeof(v)


def _interleaved_kinds(argnames: list[str], kinds: dict) -> dict:
    """Arguments of a register-tiled kernel (emit.tiles): a sequence ``a_x``
    with a block base ``ib_x`` is interleaved by block, ``n_x`` its lengths,
    ``ln`` the thread's lane in its block."""
    out = dict(kinds)
    for a in argnames:
        if a.startswith("ib_"):
            out[a], out["a_" + a[3:]] = "ibase", "iseq"
        elif a.startswith("n_"):
            out[a] = "ilen"
        elif a == "ln":
            out[a] = "lane"
    return out


def interleave(codes: np.ndarray, starts: np.ndarray, lens: np.ndarray, block: int):
    """Sequences interleaved by block of ``block`` tasks: residue ``j`` of task
    ``k`` (``codes[starts[k] + j]``) at ``base[k // block] + j * block + k % block``
    (each block padded to its longest sequence), so a warp's reads of residue
    ``j`` are one line."""
    n = len(lens)
    nb = -(-n // block)
    padded = np.zeros(nb * block, dtype=np.int64)
    padded[:n] = lens
    longest = padded.reshape(nb, block).max(axis=1)
    base = np.zeros(nb + 1, dtype=np.int64)
    np.cumsum(longest * block, out=base[1:])
    buf = np.zeros(max(int(base[-1]), 1), dtype=np.uint8)
    if n and int(lens.sum()):
        _scatter(codes, starts, lens, base, block, buf)
    return buf, base[:-1]


@numba.njit(cache=True, parallel=True)
def _scatter(codes, starts, lens, base, block, buf):
    """Each block of tasks on its own core (blocks write disjoint ranges)."""
    n = len(lens)
    for b in numba.prange((n + block - 1) // block):
        for k in range(b * block, min(n, (b + 1) * block)):
            at = base[b] + k - b * block
            for j in range(lens[k]):
                buf[at + j * block] = codes[starts[k] + j]


def plan_extents(plan) -> dict[str, int]:
    out = {}
    for g in plan.groups:
        out.update(g.extents.values)
    return out
