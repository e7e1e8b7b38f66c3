"""The CUDA backend.

A ``map`` whose plan compiles for the device runs one thread per task
(register-tiled where the dependences allow, :mod:`dslc.emit.tiles`), tasks
ordered longest first so the threads of a warp do similar work, in launches
sized to a scratch-memory budget (inputs larger than the device are processed
in chunks with the same results). A single call or whole table of at least
``DSLC_CUDA_WHOLE`` cells (default 1,000,000) runs as one problem on the whole
GPU (:mod:`dslc.emit.wavefront`); smaller ones, and anything the device cannot
take, run on the CPU backend it holds (composition: the CPU backend is a part,
not a base class). ``DSLC_CUDA_BLOCK`` (threads per block, default
128), ``DSLC_CUDA_SCRATCH_MB`` (storage per launch, default half the free memory),
``DSLC_CUDA_TILE`` (tile rows, default 32), ``DSLC_CUDA_PIPELINE`` (tasks per
launch when a large map is cut so packing overlaps kernels), ``DSLC_CUDA_LANES``
(1 or 32 threads per point of a whole problem) and ``DSLC_CUDA_COOP=0`` (no
cooperative launch) override the defaults (:mod:`dslc.cuda.launch` for block
sizes).

Every map and call is decided in :meth:`CudaBackend.choose`, which the run
and ``dslc explain`` both call; the decision is a record
(:class:`dslc.cpu.decision.Decision`) kept in ``decisions``.
"""

from __future__ import annotations

import math
import time
import warnings
import weakref
from dataclasses import dataclass, field, fields, replace

import numba
import numpy as np

from dslc import settings, timings
from dslc.cpu import modules
from dslc.lang import types as T
from dslc.cpu.backend import EXACT, Chosen, CpuBackend, Inexact, per_model
from dslc.cpu.convert import NonFinite, layout_spec, plan_shape, python_numbers
from dslc.cpu.decision import WHOLE_GPU, Decision, Decisions, Placement, Storage
from dslc.emit.cuda import kernel_source
from dslc.emit.strategies import build, strategy
from dslc.check.ranges import request_outside
from dslc.plan import lower
from dslc.kernel.value_type import ValueType
from dslc.emit.precision import STATIC, float32_info, largest
from dslc.emit.tiles import block_size
from dslc.cuda.launch import block_threads, resident_threads
from dslc.cuda import layout, rules
from dslc.lang import gather
from dslc.cuda import kernel_cache
from dslc.cuda.ahead import Ahead
from dslc.cuda.arena import MapMemory
from dslc.cuda import target_start
from dslc.cuda.rules import hybrid, partition_width
from dslc.cuda.placement import place
from dslc.emit.pyexpr import NotCompilable
from dslc.emit import tuples
from dslc.interp.backend import in_map
from dslc.lang.batch import SeqColumn, TaskBatch
from dslc.lang.values import Sequence


def _cuda():
    import numba
    from numba import cuda

    # a small map is a small grid by design: no under-utilisation warning on stderr
    numba.config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
    return cuda


PIN_BYTES = 32 << 20  # a buffer this large is copied from page-locked memory


def _upload(codes: np.ndarray, stream=0):
    """The device copy of a packed sequence buffer (one byte for an empty one). A
    large one is page-locked where it lies for the copy (``cuda.pinned``): on an
    H100, 340 MB took 33-40 ms so, locking included, against 56 ms copied from
    pageable memory, which the driver stages through its own small buffers (on an
    H200 the copy ahead was already off the first map's path, which did not move:
    docs/benchmarks.md). The copy has finished before the lock is released."""
    cuda = _cuda()
    if codes.nbytes < PIN_BYTES or not codes.flags.c_contiguous:
        return cuda.to_device(codes if len(codes) else np.zeros(1, np.uint8), stream=stream)
    with cuda.pinned(codes):
        device = cuda.to_device(codes, stream=stream)
        if stream:
            stream.synchronize()
    return device


@dataclass(frozen=True)
class Kernel:
    """A map's generated kernel (memoised by the shapes that decide it) and the
    decision that chose it, before the map's own sizes are added."""

    source: str
    args: tuple  # the task's arguments (kernel.ir.TaskArg)
    plan: object = field(compare=False)
    storage: tuple = ()
    dtype: str = "float64"
    per_block: bool = False
    block: int = 128
    decision: Decision | None = None


@dataclass(frozen=True)
class Launches:
    """What a map's run needs beyond its kernel: how arguments travel, where the
    shared model arrays live, and the tasks of each launch."""

    kernel: Kernel
    travel: dict = field(compare=False)
    placed: dict = field(compare=False)
    launches: tuple = field(compare=False)
    # per launch: its sequences' longest (name -> length), and an earlier launch
    # whose tasks read the same rows of every sequence column not in ``constant``
    # (columns with one value in each launch), or itself (see ``_launches``)
    longest: tuple = field(default=(), compare=False)
    rows_as: tuple = field(default=(), compare=False)
    constant: frozenset = field(default=frozenset(), compare=False)


@dataclass(frozen=True)
class Whole:
    """A single problem's whole-GPU wavefront: its generator, plan and sources."""

    gen: object = field(compare=False)
    plan: object = field(compare=False)
    device_src: str = ""
    host_src: str = ""
    args: tuple = ()  # the task's arguments (kernel.ir.TaskArg)
    cooperative: bool = False  # every partition in one launch, the grid synchronised


class CudaBackend:
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

    def __init__(self, program, globals_: dict, cpu: CpuBackend | None = None):
        self.program = program
        self.globals = globals_
        # what the device does not take runs here (``cpu``: one that already ran the
        # script, as for ``dslc explain``)
        self.cpu = cpu if cpu is not None else CpuBackend(program, globals_)
        self.decisions = Decisions()  # (entry, work) -> the last decision for it
        self.device_fallbacks: dict[str, str] = {}
        self.kernel_seconds = 0.0  # time spent in kernels (for benchmarks)
        self.launches = 0  # kernel launches of the last map (for benchmarks)
        self.reruns: dict[str, int] = {}  # entry -> map tasks the device left to the CPU
        self.kernel_files: dict[str, str] = {}  # map entry -> its kernel's module (dslc.auto)
        self.device_generated: dict[str, tuple] = {}  # entry -> (plan, kernel source)
        self._kernels: dict = {}
        self._plans: dict = {}
        # a packed buffer (by id) or its rows interleaved -> (weak ref, device copies)
        self._uploaded: dict = {}
        self._ahead = Ahead(_upload)  # packed buffers copied while a map is planned
        self._map_memory = None  # MapMemory: what every map reuses
        self._target = target_start.shared()  # Numba-CUDA's set-up, on a thread (real devices)
        if not settings.simulated():
            self._target.start()

    # ------------------------------------------------------------------ the CPU part
    disk_cache = property(lambda self: self.cpu.disk_cache,
                          lambda self, v: setattr(self.cpu, "disk_cache", v))
    direct_scalars = property(lambda self: self.cpu.direct_scalars,
                              lambda self, v: setattr(self.cpu, "direct_scalars", v))

    @property
    def fallbacks(self) -> dict[str, str]:
        """Entries the CPU part runs on the interpreter, and why."""
        return self.cpu.fallbacks

    @property
    def generated(self) -> dict[str, tuple]:
        """entry -> (plan, source) last generated, on the device or the CPU."""
        return {**self.cpu.generated, **self.device_generated}

    def explain(self) -> dict:
        return self.cpu.explain()

    def direct(self, func: str) -> bool:
        return self.cpu.direct(func)

    def code_cached(self, func: str, tasks, is_map: bool) -> bool:
        return self.cpu.code_cached(func, tasks, is_map)

    @property
    def strategy(self) -> dict[str, str]:
        """entry -> the device strategy it last ran with, and why (benchmarks, ``-v``)."""
        return {d.entry: summary(d) for d in self.decisions.values() if d.backend == "cuda"}

    @property
    def placement(self) -> dict[str, dict]:
        """map entry -> argument -> (memory, why) of its last device run."""
        return {d.entry: {p.argument: (p.memory, p.why) for p in d.placement}
                for d in self.decisions.values() if d.placement}

    # ------------------------------------------------------------------ decisions
    def decide(self, func: str, work: str, tasks) -> Decision:
        """How this backend runs ``work`` ("map": ``tasks`` a batch or list of task
        dicts; "call" or "table": ``tasks`` the arguments): :meth:`choose`'s record."""
        return self.choose(func, work, tasks).decision

    def choose(self, func: str, work: str, tasks) -> Chosen:
        """The one place the CUDA backend decides: a map's kernel (task-per-block,
        register-tiled or plain task-per-thread; value type; block, grid and
        launches; placement), a large call's whole-GPU wavefront, or the CPU
        part's own decision with the reason the device declined."""
        if work == "map":
            return self._choose_map(func, TaskBatch.of(tasks))
        f = self.program.functions[func]
        if work == "table":
            kind, request, scope = "table", None, tasks
        elif self.cpu.direct(func):
            return self._on_cpu(func, work, tasks, "straight-line code")
        elif request_outside(self.program, func, tasks):
            return self._on_cpu(func, work, tasks, "a cell outside the declared ranges")
        else:
            kind, request, scope = self.cpu.call_entry(f, tasks)
        return self._choose_whole(func, work, kind, scope, request, tasks)

    def _on_cpu(self, func, work, tasks, why: str) -> Chosen:
        """The CPU part's decision, with why the device did not take it first."""
        d = self.cpu.decide(func, work, tasks)
        return Chosen(replace(d, why=(why,) + d.why))

    def _ran(self, chosen: Chosen) -> Chosen:
        self.decisions.add(chosen.decision)
        return chosen

    def _choose_whole(self, func, work, kind, scope, request, tasks) -> Chosen:
        """A single problem on the whole GPU (emit.wavefront) when it is at least
        ``DSLC_CUDA_WHOLE`` cells (default 1,000,000; smaller ones run on the
        CPU, where a launch per partition would cost more than it saves)."""
        tupled = rules.tuples_on_the_cpu(self.program, func)
        if tupled:  # (the device cannot run it: ``-v`` says so, as for a refused kernel)
            self.device_fallbacks[func] = tupled
            return self._on_cpu(func, work, tasks, tupled)
        try:
            with timings.planning():
                plan = lower(self.program, func, kind, scope, request).task
        except NotCompilable as e:
            return self._on_cpu(func, work, tasks, f"not planned: {e}")
        cells = sum(math.prod(v + 1 for v in (g.extents.values[n] for n in g.extents.names[fn]))
                    for g in plan.groups for fn in g.functions)
        least = settings.number("DSLC_CUDA_WHOLE", 1_000_000)
        if cells < least:
            return self._on_cpu(func, work, tasks, f"{cells:,} cells, fewer than "
                                f"DSLC_CUDA_WHOLE={least:,}: a launch per partition would "
                                "cost more than it saves")
        from dslc.emit.wavefront import choose_lanes

        # a warp per point where cells reduce over ranges (real GPU), else a thread
        lanes = choose_lanes(self.program, plan, self.real_gpu(), block_size(),
                             resident_threads())
        whole = strategy("cuda whole-GPU wavefront")
        try:
            with timings.planning():
                gen = build(whole, self.program, plan, lanes, simulated=settings.simulated())
                device_src, host_src, args = gen.generate()
        except NotCompilable as e:
            self.device_fallbacks[func] = str(e)
            return self._on_cpu(func, work, tasks, f"not compiled for the device: {e}")
        coop = not settings.simulated() and settings.choice("DSLC_CUDA_COOP") != "0"
        how = "every partition in one cooperative launch" if coop else "a launch per partition"
        d = Decision(func, "cuda", work, whole.name, block=block_size(),
                     lanes=max(ln.width for ln in gen.lanes) if gen.lanes else 1,
                     why=(f"{how}, {gen.describe()}",
                          f"{cells:,} cells, at least DSLC_CUDA_WHOLE={least:,}"))
        return Chosen(d, kind, scope, request,
                      Whole(gen, plan, device_src, host_src, tuple(args), coop))

    # ------------------------------------------------------------------ one big problem
    def value(self, func: str, args: dict, span, description: str = ""):
        f = self.program.functions[func]
        try:
            c = self._ran(self.choose(func, "call", args))
            raw = self._run_whole(c) if c.decision.backend == "cuda" else None
        except (IndexError, ValueError, ZeroDivisionError):
            raw = None  # the entry's own body stopped on the host: the CPU says why
        if raw is not None and raw == raw:  # NaN: a check the kernel met, the CPU says why
            v = float(raw)
            if f.ret != T.INT or not math.isfinite(v) or abs(v) < EXACT:
                return self.cpu.result(v, f.ret, span)
        return self.cpu.value(func, args, span, description)

    def table(self, func: str, calling: dict, span, description: str = ""):
        self.cpu.interp.check_table_fits(func, calling, span)
        try:
            c = self._ran(self.choose(func, "table", calling))
            raw = self._run_whole(c) if c.decision.backend == "cuda" else None
        except (IndexError, ValueError, ZeroDivisionError):
            raw = None
        ret = self.program.functions[func].ret
        if raw is None or np.isnan(raw).any() or \
                (ret == T.INT and (np.abs(raw[np.isfinite(raw)]) >= EXACT).any()):
            return self.cpu.table(func, calling, span, description)
        return self.cpu.table_values(func, calling, raw, span)

    def _run_whole(self, chosen: Chosen):
        w, scope, request = chosen.compiled, chosen.scope, chosen.request
        gen, plan = w.gen, w.plan
        self._map_memory = None  # the maps' memory may be wanted here
        self.device_generated[plan.entry] = (plan, w.device_src)
        self._target.wait()
        cuda = _cuda()
        dev, host = modules.load(w.device_src), modules.load(w.host_src)
        windows = tuple(g.window for g in plan.groups)
        hargs = [self.cpu.arg_value(a, scope, windows, request) for a in w.args]
        dargs = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in hargs]
        env = dict(plan_extents(plan))
        env.update({f"W_{gi}": g.schedule.window for gi, g in enumerate(plan.groups)
                    if g.windowed})
        dims = [tuple(int(d.eval(env)) for d in ds) for _, ds in gen.storage]
        store = [cuda.device_array(d, dtype=np.float64) for d in dims]
        accs = [cuda.to_device(np.array([gen.initial(k)])) for k in range(len(plan.fused))]
        res = cuda.to_device(np.array([np.nan]))
        block = block_size()
        cuda.synchronize()
        with timings.computing():  # (a kernel's first launch compiles it: not counted)
            t0 = time.perf_counter()
            self._sweep(chosen, dev, dargs, store, accs, res, env, block)
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

    def _sweep(self, chosen, dev, dargs, store, accs, res, env, block):
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
            if not self._cooperative(chosen, dev, gi, grid, block,
                                     (*dargs, *store, *accs, res),
                                     g.schedule.first, g.schedule.partitions):
                kernel = getattr(dev, f"part_{gi}")
                with simulated_shuffles(gen.simulated and width > 1):
                    for c0 in range(g.schedule.first, g.schedule.first + g.schedule.partitions):
                        for ph in range(gen.phases[gi]):  # (a function each: _phases)
                            kernel[grid, block](*dargs, *store, *accs, res, c0, ph)

    def _cooperative(self, chosen, dev, gi, grid, block, args, first, count) -> bool:
        """Every partition in one cooperative launch, the grid synchronised
        between partitions (no launch per partition), where the decision chose
        it. Where the device refuses (an older driver or toolkit), a launch per
        partition, and the record says why."""
        if not chosen.compiled.cooperative:
            return False
        kernel = getattr(dev, f"all_{gi}")
        try:
            kernel.compile(tuple(_typeof(a) for a in args) + (_typeof(first), _typeof(count)))
            fit = kernel.overloads[next(iter(kernel.overloads))].max_cooperative_grid_blocks(block)
            kernel[max(1, min(grid, fit)), block](*args, first, count)
            return True
        except Exception as e:  # an older driver or toolkit: a launch per partition
            self.device_fallbacks.setdefault("_cooperative", str(e))
            d = chosen.decision
            self.decisions.add(replace(d, why=(
                f"a launch per partition, {chosen.compiled.gen.describe()}",
                f"the cooperative launch was refused: {e}") + d.why[1:]))
            return False

    # ------------------------------------------------------------------ maps
    def map(self, func: str, tasks, span, progress=None) -> list:
        if not len(tasks):
            return []
        batch = TaskBatch.of(tasks)
        out = per_model(self.map, func, batch, span, progress, self.program.registry)
        if out is not None:
            return out
        self._upload_ahead(batch)
        f = self.program.functions[func]
        c = self._ran(self.choose(func, "map", batch))
        if c.decision.backend == "cpu":
            return self.cpu.map(func, batch, span, progress)
        try:
            values = self._launch(c.compiled, f, batch, progress)
        except NonFinite as e:  # data the kernel assumes finite: the CPU (and interpreter)
            self.device_fallbacks[func] = str(e)
            self._ran(self._on_cpu(func, "map", batch, f"not run on the device: {e}"))
            return self.cpu.map(func, batch, span, progress)
        # a task the kernel could not finish (NaN), or an int beyond 2^53: the CPU
        # backend gives the exact value or reports why
        if isinstance(f.ret, T.TupleT):  # a row of components per task
            out, redo = self._tuple_values(values, f.ret, span)
        else:
            out, redo = self._values(values, f.ret)
        for k in redo:
            self.reruns[func] = self.reruns.get(func, 0) + 1
            out[k] = in_map(lambda: self.cpu.map(func, [batch[k]], span), [k])[0]
        if progress is not None:
            progress(len(batch))
        return out

    def _upload_ahead(self, batch) -> None:
        """Start copying the batch's large packed buffers not yet on the device,
        while the map is planned (dslc.cuda.ahead)."""
        for col in batch.columns.values():
            if isinstance(col, SeqColumn) and self._on_device(col.pack.codes) is None:
                self._ahead.start(col.pack.codes)

    def _choose_map(self, func: str, batch) -> Chosen:
        f = self.program.functions[func]
        try:
            kind, widest, request = self.cpu.map_entry(f, batch)
            k = self._device_compile(func, kind, widest, request, batch)
            travel = _interleaved_travel(list(k.args), modules.argument_travel(k.args, batch))
            placed = self._placements(k.args, travel, batch.first, k.plan, k.dtype)
        except (NotCompilable, NonFinite) as e:
            self.device_fallbacks[func] = str(e)
            return self._on_cpu(func, "map", batch, f"not compiled for the device: {e}")
        launches, longest, rows_as, constant = self._launches(batch, k.plan, k.storage, k.dtype)
        grid = max(len(ids) if k.per_block else -(-len(ids) // k.block) for ids in launches)
        d = replace(k.decision, tasks=len(batch), grid=grid, launches=len(launches),
                    placement=tuple(Placement(_shown(a), p.memory, p.why)
                                    for a, p in _by_arg(k.args, placed)))
        return Chosen(d, kind, widest, request, Launches(
            k, travel, placed, tuple(launches), tuple(longest), tuple(rows_as), constant))

    @staticmethod
    def _values(values: np.ndarray, ret) -> tuple[list, np.ndarray]:
        """A map's numbers as the interpreter's values, and the tasks to redo."""
        return python_numbers(values, ret == T.INT)

    def _tuple_values(self, values: np.ndarray, ret, span) -> tuple[list, list[int]]:
        """A map's rows of tuple components as tuples, and the tasks to redo (a
        component NaN, or an int component beyond 2^53)."""
        out, redo = [], []
        for k, row in enumerate(values):
            try:
                out.append(self.cpu.result(row, ret, span))
            except Inexact:
                out.append(None)
                redo.append(k)
        return out, redo

    # ------------------------------------------------------------------ compile
    def _device_compile(self, func, kind, scope, request, tasks) -> Kernel:
        """The kernel for a map: task-per-block (emit.blocks) where ``hybrid``
        picks it, else task-per-thread: register-tiled (emit.tiles) where the
        group's dependences allow, float32 where emit.precision's static bound
        holds for these tasks, else the general kernel in float64."""
        shared, lens = tasks.shared, tasks.lengths
        key = (func, kind, request, shared, tuple(
            (n, plan_shape(v, self.program.registry)) for n, v in sorted(scope.items())),
            settings.key())
        if key not in self._plans:
            with timings.planning():
                self._plans[key] = lower(self.program, func, kind, scope, request).task
        plan = self._plans[key]
        dtype = self._dtype(plan, tasks, lens, shared)
        per_block, why = hybrid(plan, len(tasks))
        block, sized = block_threads(per_block, partition_width(plan))
        key += (dtype, per_block, block)
        if key not in self._kernels:
            self._kernels[key] = self._kept(key, func, plan) or self._made(
                key, func, plan, tasks, dtype, per_block, why, block, sized)
        k = self._kernels[key]
        if k.decision is not None and k.decision.why[:1] != (why,):
            # the kernel serves other task counts: its first reason is this map's
            k = replace(k, decision=replace(k.decision, why=(why,) + k.decision.why[1:]))
        self.device_generated[func] = (plan, k.source)
        return k

    def _kept(self, key, func, plan) -> Kernel | None:
        """The kernel an earlier process generated under ``key`` (dslc.cuda.kernel_cache)."""
        kept = kernel_cache.load(kernel_cache.key_of(self.program, func, key))
        if kept is None:
            return None
        kept.pop("format")
        return Kernel(plan=plan, **kept)

    def _made(self, key, func, plan, *how) -> Kernel:
        """The kernel generated now, and kept on disk for later processes."""
        with timings.planning():  # (generating a kernel's source)
            k = self._generate(func, plan, *how)
        kernel_cache.store(kernel_cache.key_of(self.program, func, key),
                           {f.name: getattr(k, f.name) for f in fields(k) if f.name != "plan"})
        return k

    def _generate(self, func, plan, tasks, dtype, per_block, why, block, sized) -> Kernel:
        """A map kernel's source and the decision that chose it (``why``: the
        hybrid rule's reason; a strategy declined adds the generator's reason)."""
        said = dict(entry=func, backend="cuda", work="map")
        common = (("hybrid", rules.hybrid_note(self.program, plan)),
                  ("scratch", rules.scratch()), ("placement", rules.PLACEMENT),
                  ("single calls", rules.single_calls(self.program, func)))
        reasons = [why]
        if per_block:
            blocks = strategy("cuda task-per-block")
            try:
                gen = build(blocks, self.program, plan, block)
                source, args = gen.generate()
                d = Decision(**said, strategy=blocks.name, value_type=gen.dtype,
                             block=block, why=(why, f"{block} threads: {sized}"),
                             storage=_storage(gen.storage, True, False),
                             notes=(("register tile", "none (a block per task)"),) + common)
                return Kernel(source, tuple(args), plan, tuple(gen.storage), gen.dtype,
                              True, block, d)
            except NotCompilable as e:
                reasons.append(f"no task-per-block: {e}")
        block = block_size()
        sized = rules.block_source(block_threads(False, None)[1])
        shared_seqs = frozenset(n for n in tasks.shared if tasks.is_seq(n))
        chosen = strategy("cuda register-tiled")
        try:
            gen = build(chosen, self.program, plan, shared_seqs, value=ValueType(dtype))
            source, args = gen.generate()
            tile = (("register tile", rules.tile(gen.rows)),
                    ("specialised", rules.SPECIALISED))
        except NotCompilable as e:
            chosen = strategy("cuda task-per-thread")
            gen = build(chosen, self.program, plan)
            source, args = gen.generate()
            reasons.append(str(e))
            tile = (("register tile", f"none ({e})"),)
        tiled = chosen.key == "cuda register-tiled"
        d = Decision(**said, strategy=chosen.name, value_type=gen.dtype, block=block,
                     rows=gen.rows if tiled else None, why=tuple(reasons),
                     storage=_storage(gen.storage, False, tiled),
                     notes=(("block", sized),) + tile + common)
        return Kernel(source, tuple(args), plan, tuple(gen.storage), gen.dtype, False,
                      block, d)

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
                arrays += [np.asarray(self.cpu.convert(v), dtype=np.float64) for v in column]
            except (NotCompilable, TypeError, ValueError):
                return "float64"
        for name in self.globals:
            try:
                arrays.append(np.asarray(self.cpu.convert(self.globals[name]), dtype=np.float64))
            except (NotCompilable, TypeError, ValueError):
                pass
        values = largest(arrays)
        extent = max([extent] + list(plan_extents(plan).values()))
        if values is None or info.static_bound(values, extent) >= STATIC:
            return "float64"
        return "float32"

    # ------------------------------------------------------------------ launch
    def _launch(self, run: Launches, f, batch, progress=None) -> np.ndarray:
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
        cuda = _cuda()
        k, travel, placed = run.kernel, run.travel, run.placed
        source, args, plan, storage = k.source, list(k.args), k.plan, list(k.storage)
        dtype, per_block, block = k.dtype, k.per_block, k.block
        width = tuples.width(f.ret)  # a tuple result: a row of components per task
        self._target.wait()
        chosen = strategy("cuda task-per-block" if per_block else "cuda task-per-thread")
        module = modules.load(source + "\n" + kernel_source(
            chosen, args, travel, [fn for fn, _ in storage], placed, width))
        self.kernel_files[f.name] = module.__file__
        launches = run.launches
        memory = self._memory()
        streams, arenas = memory.streams, memory.arenas
        held: list = [None, None]  # a stream's previous launch's host arrays: alive until done
        rows_of = (lambda n: n) if width is None else (lambda n: (n, width))
        done = memory.pinned(rows_of(len(batch)))  # every launch's values
        iota = memory.iota(max(len(ids) for ids in launches))
        results, timers, waits, at = [], [], [], 0
        made: dict = {}  # (sequence, launch) -> its interleaved copy, base and lengths
        for n, ids in enumerate(launches):
            stream, arena = streams[n % 2], arenas[n % 2]
            host = self._pack(args, travel, batch, ids, plan, f, dtype, block, stream,
                              (run, n, made, arena))
            stream.synchronize()  # launch n - 2 (or the last map's) has finished
            arena.reset()
            held[n % 2] = host
            if progress is not None and n >= 2:
                progress(sum(len(ids) for ids in launches[:n - 1]))
            arrays = [arena.put(a) if isinstance(a, np.ndarray) else a for a in host]
            dims = self._dims(plan, storage, run.longest[n])
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
        jit = launch_compile_seconds(waits, settings.simulated())
        self.kernel_seconds += max(0.0, seconds - jit)
        timings.add_compute(max(0.0, seconds - jit))
        timings.add_compile(jit)
        self.launches = len(launches)
        out = np.empty(len(batch) if width is None else (len(batch), width), dtype=np.float64)
        for ids, values in results:
            gather.put(out, ids, values)
        return out

    def _memory(self) -> MapMemory:
        """The streams and memory every map reuses (made on the first map)."""
        if self._map_memory is None:
            self._map_memory = MapMemory(_cuda())
        return self._map_memory

    def _interleaved(self, batch, name, ids, block, bases: dict, stream, same=None, put=None,
                     rows_of=None):
        """Sequence ``name`` of tasks ``ids`` interleaved by block on the device
        (:mod:`dslc.cuda.layout`), from its resident packed buffer; the device
        copy is kept, like :meth:`_resident`'s, while the packed buffer lives,
        under the rows the launch reads: the same database searched again by
        another query reuses it. A sequence every
        task of the launch reads (a query) is one block that every block's base
        points to. ``same``: whether every task of ``ids`` reads one sequence, where
        the caller knows (else found out); ``put``: where the interleaving's small
        host arrays are copied to the device (the launch's arena: nothing to free);
        ``rows_of``: a dict given the tasks' lengths where this call gathers them
        (the launch's length argument, not gathered again)."""
        codes, items = batch.seq_items(name, ids[:1] if same else ids)
        same = same or items is None or bool((items == items[0]).all())
        rows = None if items is None else items[:1] if same else items
        key = (id(codes), block, same, None if rows is None else (len(rows), int(rows[0])))
        hit = self._uploaded.get(key)
        if hit is not None and hit[0]() is codes and (rows is None or np.array_equal(hit[3], rows)):
            device, base = hit[1], hit[2]
            hit[4].wait(stream or 0)  # made on the other stream of this map: written first
        else:
            starts, lens = batch.seq_rows(name, ids[:1] if same else ids, rows)[1:]
            if same:  # one sequence for every task (a query): every block shares one
                starts, lens = np.full(block, starts[0]), np.full(block, lens[0])
            elif rows_of is not None:
                rows_of[name] = lens
            device, base = layout.interleave(_cuda(), self._resident(codes, stream), starts,
                                             lens, block, stream, put=put)
            self._keep(key, codes, device, base, rows, _ready(stream))
        bases[name] = np.zeros(-(-len(ids) // block), dtype=np.int64) if same else base
        return device

    def _keep(self, key, codes: np.ndarray, *made) -> None:
        """Keep ``made`` (device copies) under ``key`` while ``codes`` lives."""
        self._uploaded[key] = (weakref.ref(codes), *made)
        weakref.finalize(codes, self._uploaded.pop, key, None)

    def _resident(self, codes: np.ndarray, stream):
        """The device copy of a packed sequence buffer, uploaded on first use and
        kept while the buffer lives (a database loaded once and searched by many
        maps, or by many calls of the Python API, is uploaded once)."""
        device = self._on_device(codes)
        if device is not None:
            return device
        device = self._ahead.take(codes)  # (dslc.cuda.ahead)
        if device is None:
            device = _upload(codes, stream)
        self._keep(id(codes), codes, device)
        return device

    def _on_device(self, codes: np.ndarray):
        """The resident device copy of a packed buffer, or None."""
        hit = self._uploaded.get(id(codes))
        return hit[1] if hit is not None and hit[0]() is codes else None

    def _launches(self, batch, plan, storage, dtype) -> tuple:
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
        held = self._map_memory.held if self._map_memory is not None else 0
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
            cuts = self._cut(b - a, lens, piece, budget, plan, storage, dtype)
            if twin == g:
                head = head[:2] + ([c[:2] for c in cuts],)
            same = twin != g and head[2] == [c[:2] for c in cuts]
            for k, (lo, hi, top) in enumerate(cuts):
                rows_as.append(head[1] + k if same else len(out))
                out.append(ids[lo:hi])
                longest.append(top)
        return out, longest, rows_as, constant

    def _cut(self, count, lens, piece, budget, plan, storage, dtype) -> list[tuple]:
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
                dims = self._dims(plan, storage, top)
                per_task = sum(np.dtype(dtype).itemsize * math.prod(d) for d in dims) or 8
                if per_task * chunk <= budget or chunk == 1:
                    break
                chunk = max(1, min(chunk // 2, budget // per_task))
            out.append((start, start + chunk, top))
            start += chunk
        return out

    def _placements(self, args, travel, task, plan, dtype) -> dict:
        """Memory for the model arrays every task shares (dslc.cuda.placement), by
        argument name."""
        windows = tuple(g.window for g in plan.groups)
        arrays, where, names = {}, {}, {}
        for a in args:
            if travel[a.name] != "shared" or a.role not in ("argument", "global", "layout"):
                continue
            if a.role == "argument" and isinstance(task.get(a.of), Sequence):
                continue  # sequences stay in global memory, interleaved
            v = self.cpu.arg_value(a, task, windows, None)
            if isinstance(v, np.ndarray) and v.dtype.kind in "fiu":  # bool arrays stay global
                arrays[a.name] = v.astype(dtype) if v.dtype == np.float64 else v
                where[a.name] = self._where(a, task)
                names[a.name] = _shown(a)
        return place(arrays, where, names)

    def _where(self, arg, task: dict) -> str:
        """Where an extension pinned a layout array (``sdk.DeviceArray.where``)."""
        if arg.role != "layout":
            return "auto"
        array, model = arg.of
        value = task[model] if model in task else self.globals.get(model)
        spec = layout_spec(value, self.program.registry)
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
        return [tuple(int(d.eval(env)) for d in ds) for _, ds in storage]

    def _pack(self, args, travel, batch, ids, plan, f, dtype, block, stream, at=None) -> list:
        """The arrays of the launch of tasks ``ids``, in the kernel's argument
        order: host arrays, and the resident device copy of each sequence
        column's packed buffer. ``at``: ``(run, n, made, arena)``, the map's
        :class:`Launches`, this launch's number in it, what its earlier launches
        made of their sequences (filled here) and this launch's arena; without it
        the launch makes everything itself."""
        at = at or (None, 0, {}, None)
        windows = tuple(g.window for g in plan.groups)
        plain = [a for a in args if travel[a.name] in ("cseq", "scalar", "shared")]
        packed = iter(modules.pack(plain, travel, batch, self.cpu, windows, f, ids))
        host, bases = [], {}
        for a in args:
            k = travel[a.name]
            if k == "cseq":
                host += [self._resident(next(packed), stream), next(packed), next(packed)]
            elif k in ("scalar", "shared"):
                host.append(next(packed))
            elif k == "iseq":
                host.append(self._sequence(batch, a.of, ids, block, bases, stream, at)[0])
            elif k == "ibase":
                host.append(bases[a.of])
            elif k == "ilen":
                host.append(self._sequence(batch, a.of, ids, block, bases, stream, at)[1])
        run, n, made = at[:3]
        if run is not None:  # only what a later launch may take stays in ``made``
            for m in [m for m, j in made if j == n and (run.rows_as[n] != n or m in run.constant)]:
                del made[(m, n)]
        # model arrays in the table type
        return [a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype == np.float64
                and dtype != "float64" else a for a in host]

    def _sequence(self, batch, name, ids, block, bases, stream, at) -> tuple:
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
                device = self._interleaved(batch, name, ids, block, bases, stream,
                                           same=constant or None,
                                           put=None if arena is None else arena.put,
                                           rows_of=gathered)
                lens = batch.lengths[name][ids[:1]].repeat(len(ids)) if constant else \
                    gathered[name] if name in gathered else gather.take(batch.lengths[name], ids)
                made[(name, n)] = (device, lens, bases[name], _ready(stream))
        device, lens, bases[name] = made[(name, n)][:3]
        return device, lens


def _ready(stream):
    """An event recorded on ``stream`` now: a launch on the other stream that reads
    what was just enqueued there waits for it (``event.wait``)."""
    ready = _cuda().event()
    ready.record(stream or 0)
    return ready


LAUNCH_S = 0.05  # a kernel launch is asynchronous: a call that blocks longer compiled


def busy_seconds(timers: list) -> float:
    """Seconds the device spent in the launches timed by ``timers`` (``(began,
    ended)`` event pairs): the union of their spans, each measured from the first
    event. Launches on two streams overlap, and summing each launch's own span
    counted the overlap twice: the same ten-million-task map on an H200 read 2.0 s
    of kernels summed in one run, 1.2 s as the union in the next."""
    if not timers:
        return 0.0
    ref = timers[0][0]
    spans = sorted((ref.elapsed_time(a), ref.elapsed_time(b)) for a, b in timers)
    busy, end = 0.0, float("-inf")
    for lo, hi in spans:
        if hi > end:
            busy += hi - max(lo, end)
            end = hi
    return busy / 1e3


def launch_compile_seconds(waits: list[float], simulated: bool) -> float:
    """Of the host's seconds inside each kernel launch call, those that were the
    kernel's compile (or its load from numba-cuda's cache) at its first launch:
    a launch returns at once otherwise. The device's events around the launch
    count that wait too, so it is moved from kernel seconds to compile seconds.
    In the simulator a launch runs the kernel itself: nothing is counted."""
    if simulated:
        return 0.0
    return sum(w for w in waits if w > LAUNCH_S)


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
        free, _ = _cuda().current_context().get_memory_info()
        return max((int(free) + held) // 2, 4096 * 2**20)
    except Exception:  # the simulator, or a driver that cannot tell
        return 4096 * 2**20


def _typeof(v):
    from numba import typeof

    return typeof(v)


def _interleaved_travel(args: list, travel: dict) -> dict:
    """Arguments of a register-tiled kernel (emit.tiles): a sequence argument with
    a ``base`` (its thread block's first position) is interleaved by block, a
    ``length`` its lengths, ``thread`` the thread's number in its block."""
    out = dict(travel)
    interleaved = {a.of for a in args if a.role == "base"}
    for a in args:
        if a.role == "base":
            out[a.name] = "ibase"
        elif a.role == "argument" and a.of in interleaved:
            out[a.name] = "iseq"
        elif a.role == "length":
            out[a.name] = "ilen"
        elif a.role == "thread":
            out[a.name] = "thread"
    return out


def _by_arg(args, placed: dict):
    """(argument, placement) for each placed argument (``placed`` by name), in
    placement order."""
    named = {a.name: a for a in args}
    return [(named[n], p) for n, p in placed.items()]


def _shown(arg) -> str:
    """A placed argument as a decision shows it: the source's name, or a layout
    array's ``ARRAY_MODEL``."""
    return "_".join(arg.of) if arg.role == "layout" else arg.of


def plan_extents(plan) -> dict[str, int]:
    out = {}
    for g in plan.groups:
        out.update(g.extents.values)
    return out


def summary(d: Decision) -> str:
    """A device decision in one line (``strategy``: benchmarks and ``-v``)."""
    if d.strategy == WHOLE_GPU:
        return f"whole problem: {'; '.join(d.why)}"
    tile = f", register tile of {d.rows} rows" if d.rows else ""
    return f"{d.strategy} ({'; '.join(d.why)}){tile}, {d.value_type}"


def _storage(storage, per_block: bool, tiled: bool) -> tuple[Storage, ...]:
    """A map kernel's working storage as the decision records it."""
    from dslc.emit.cuda import storage_role

    out = []
    for name, dims in storage:
        role = storage_role(name)
        why = f"{role}; " if role else "the tile's boundary rows (double-buffered); " \
            if tiled else ""
        dims = tuple(str(d) for d in dims)  # loop-IR expressions over the extents
        shape = ("tasks", *dims) if per_block else (*dims, "tasks")
        why += "a block's own task, shared by its threads" if per_block else \
            "task innermost, so a warp's accesses coalesce"
        out.append(Storage(name, "global", tuple(shape), why))
    return tuple(out)
