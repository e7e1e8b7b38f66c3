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
(:class:`dslc.cpu.decision.Decision`) kept in ``decisions``. This module holds
the decisions and the fall-backs to the CPU; the rest is by concern:
:mod:`~dslc.cuda.map_kernel` (a map's kernel planned, generated and kept),
:mod:`~dslc.cuda.map_sizing` (launches cut to the scratch budget),
:mod:`~dslc.cuda.residency` (sequence buffers kept on the device),
:mod:`~dslc.cuda.map_launch` (a map's launches), :mod:`~dslc.cuda.whole_run` (one
problem on the whole GPU), :mod:`~dslc.cuda.records` (what they pass between
them), :mod:`~dslc.cuda.device` and :mod:`~dslc.cuda.device_time`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from dslc import settings, timings
from dslc.check.ranges import request_outside
from dslc.cpu import modules
from dslc.cpu.backend import EXACT, Chosen, CpuBackend, Inexact, per_model
from dslc.cpu.convert import NonFinite, python_numbers
from dslc.cpu.decision import Decision, Decisions, Placement
from dslc.cuda import layout
from dslc.cuda import map_kernel, map_launch, map_sizing, residency, rules, target_start, whole_run
from dslc.cuda.ahead import Ahead
from dslc.cuda.device import PIN_BYTES, numba_cuda as _cuda, upload as _upload
from dslc.cuda.device_time import LAUNCH_S, busy_seconds, launch_compile_seconds
from dslc.cuda.map_sizing import pipeline_tasks, scratch_budget
from dslc.cuda.records import (Kernel, Launches, Whole, by_arg, interleaved_travel,
                               plan_extents, shown, summary)
from dslc.cuda.launch import resident_threads
from dslc.cuda.rules import hybrid
from dslc.emit.pyexpr import NotCompilable
from dslc.emit.strategies import build, strategy
from dslc.emit.tiles import block_size
from dslc.interp.backend import in_map
from dslc.lang import types as T
from dslc.lang.batch import TaskBatch
from dslc.options import CompileOptions, given
from dslc.plan import lower

# what other modules, benchmarks and tests take from here (the parts' names)
__all__ = ["CudaBackend", "Kernel", "Launches", "Whole", "LAUNCH_S", "PIN_BYTES", "busy_seconds",
           "launch_compile_seconds", "pipeline_tasks", "scratch_budget", "plan_extents",
           "summary", "hybrid", "layout", "modules", "Ahead", "_upload", "_cuda"]


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

    def __init__(self, program, globals_: dict, cpu: CpuBackend | None = None,
                 options: CompileOptions | None = None):
        self.program = program
        self.globals = globals_
        self.options = given(options if options is not None or cpu is None else cpu.options)
        # what the device does not take runs here (``cpu``: one that already ran the
        # script, as for ``dslc explain``)
        self.cpu = cpu if cpu is not None else CpuBackend(program, globals_, self.options)
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
        if not self.options.simulated:
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
                plan = lower(self.program, func, kind, scope, request,
                             verify=self.options.verify_ir).task
        except NotCompilable as e:
            return self._on_cpu(func, work, tasks, f"not planned: {e}")
        cells = sum(math.prod(v + 1 for v in (g.extents.values[n] for n in g.extents.names[fn]))
                    for g in plan.groups for fn in g.functions)
        least = self.options.cuda_whole
        if cells < least:
            return self._on_cpu(func, work, tasks, f"{cells:,} cells, fewer than "
                                f"DSLC_CUDA_WHOLE={least:,}: a launch per partition would "
                                "cost more than it saves")
        from dslc.emit.wavefront import choose_lanes

        # a warp per point where cells reduce over ranges (real GPU), else a thread
        real = not self.options.simulated and self.available()
        lanes = choose_lanes(self.program, plan, real, block_size(self.options),
                             resident_threads(), self.options.cuda_lanes)
        whole = strategy("cuda whole-GPU wavefront")
        try:
            with timings.planning():
                gen = build(whole, self.program, plan, lanes, simulated=self.options.simulated)
                device_src, host_src, args = gen.generate()
        except NotCompilable as e:
            self.device_fallbacks[func] = str(e)
            return self._on_cpu(func, work, tasks, f"not compiled for the device: {e}")
        coop = not self.options.simulated and self.options.cuda_coop
        how = "every partition in one cooperative launch" if coop else "a launch per partition"
        d = Decision(func, "cuda", work, whole.name, block=block_size(self.options),
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


    def _choose_map(self, func: str, batch) -> Chosen:
        f = self.program.functions[func]
        try:
            kind, widest, request = self.cpu.map_entry(f, batch)
            k = self._device_compile(func, kind, widest, request, batch)
            travel = interleaved_travel(list(k.args), modules.argument_travel(k.args, batch))
            placed = self._placements(k.args, travel, batch.first, k.plan, k.dtype)
        except (NotCompilable, NonFinite) as e:
            self.device_fallbacks[func] = str(e)
            return self._on_cpu(func, "map", batch, f"not compiled for the device: {e}")
        launches, longest, rows_as, constant = self._launches(batch, k.plan, k.storage, k.dtype)
        grid = max(len(ids) if k.per_block else -(-len(ids) // k.block) for ids in launches)
        d = replace(k.decision, tasks=len(batch), grid=grid, launches=len(launches),
                    placement=tuple(Placement(shown(a), p.memory, p.why)
                                    for a, p in by_arg(k.args, placed)))
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

    # ------------------------------------------------------------------ the parts, by concern
    # (functions over this backend's state, in the modules named in the docstring)
    _run_whole = whole_run.run_whole
    _device_compile = map_kernel.device_compile
    _launches = map_sizing.launches
    _cut = map_sizing.cut
    _dims = map_sizing.storage_dims
    _launch = map_launch.launch
    _memory = map_launch.map_memory
    _placements = map_launch.placements
    _pack = map_launch.pack
    _upload_ahead = residency.upload_ahead
    _interleaved = residency.interleaved
    _resident = residency.resident
