"""The compiled CPU backend: generated Numba code, tasks of a ``map`` in parallel.

Anything the code generator cannot compile (an extension accessor it has no
layout for, say) runs on the interpreter instead, and ``dslc explain`` says so;
a compiled task that stops on a run-time error is re-run on the interpreter,
which reports it with the exact call and values.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass, field

import numpy as np

from dslc import runlog, timings
from dslc.check import tir
from dslc.lang import types as T
from dslc.check.ranges import box_extent, declared, final_outside, outside, request_outside
from dslc.cpu.decision import (CPU_PACKS, CPU_PLAIN, INTERPRETER, PYTHON_VALUES, VALUE_TYPES,
                               Decision, Decisions)
from dslc.errors import DslcError, InternalError, NotCompilable
from dslc.interp.backend import InterpBackend, in_map
from dslc.cpu.convert import (EXACT, Inexact, convert, layout_arrays, layout_spec, plan_shape,
                              python_numbers)
from dslc.lang.batch import TaskBatch
from dslc.lang.values import Sequence
from dslc.options import CompileOptions, given
from dslc.progress import in_chunks, offset

# Numba, isl and the code generators are imported where they are first needed: a
# run whose calls the interpreter answers needs none of them, and one whose plans
# and modules are cached on disk needs Numba alone (docs/architecture.md, start-up).



@dataclass(frozen=True)
class Chosen:
    """A backend's decision and what running it needs: the entry's kind, the
    binding planned for, the cell asked for, and what was compiled (None:
    nothing, the decision names who runs it instead)."""

    decision: Decision
    kind: str | None = None
    scope: dict | None = field(default=None, compare=False)
    request: tuple | None = None
    compiled: object = field(default=None, compare=False)


DIRECT = ("straight-line code: the interpreter answers a single call sooner than compiled "
          "code loads")
# A map of straight-line code over at most this many tasks runs on the interpreter: about
# 30 us a task there (0.1 s for the lot), against 0.5-2 s of compiling its launch on a
# first run (docs/benchmarks-log.md, "First runs"), so a script's small maps (the E-value
# of the sequences a filter passed) cost a first run nothing
DIRECT_MAP_TASKS = 4096
DIRECT_MAP = (f"straight-line code over at most {DIRECT_MAP_TASKS} tasks: the interpreter "
              "answers them sooner than their code compiles")
OUTSIDE = "the cell asked for is outside the declared ranges: the interpreter reports it"


class CpuBackend:
    name = "cpu"
    disk_cache = True  # reuse plans from earlier runs (explain turns it off to see them)
    # straight-line scalar calls on the interpreter (explain turns it off to see their code)
    direct_scalars = True

    @staticmethod
    def available() -> bool:
        """Are Numba and islpy installed? (Found, not imported: importing them
        is most of a small run's time.)"""
        from importlib.util import find_spec

        return all(find_spec(m) is not None for m in ("islpy", "numba"))

    def __init__(self, program, globals_: dict, options: CompileOptions | None = None):
        self.program = program
        self.globals = globals_
        self.options = given(options)  # what code is made under (dslc.options)
        self.interp = InterpBackend(program, globals_)
        self.fallbacks: dict[str, str] = {}  # entry -> why it runs on the interpreter
        self.generated: dict[str, tuple] = {}  # entry -> (plan, source) last compiled
        self.decisions = Decisions()  # (entry, work) -> the last decision for it
        self._memo: dict = {}
        self._table_scopes: dict = {}  # (func, shapes) -> the widest binding planned for
        self.reruns: dict[str, int] = {}  # entry -> compiled tasks re-run on the interpreter
        self.allow_interpreter: bool | None = None  # None: as the options' strict_compile says
        self._bound: dict | None = None  # the whole map's widest binding, while its parts run

    @functools.cached_property
    def packs(self):
        from dslc.cpu.packs import PackMaps

        return PackMaps(self)

    # ------------------------------------------------------------------ decisions
    def decide(self, func: str, work: str, tasks) -> Decision:
        """How this backend runs ``work`` ("map": ``tasks`` a batch or list of
        task dicts; "call" or "table": ``tasks`` the arguments), as the run
        itself decides it (:meth:`choose`)."""
        return self.choose(func, work, tasks).decision

    def choose(self, func: str, work: str, tasks) -> Chosen:
        """The one place the CPU backend decides: the interpreter, plain
        compiled code or (a map) packs, compiling what is chosen
        (memoised, so the run that follows finds it)."""
        if work == "map":
            return self._choose_map(func, TaskBatch.of(tasks))
        f = self.program.functions[func]
        said = functools.partial(Decision, func, "cpu", work)
        if work == "table":  # planned for the widest binding seen (_table_plan_scope)
            kind, request, scope = "table", None, self._table_plan_scope(func, tasks)
        elif self.direct(func):
            return _interpreted(said, DIRECT)
        elif request_outside(self.program, func, tasks):
            return _interpreted(said, OUTSIDE)
        else:
            kind, request, scope = self.call_entry(f, tasks)
        compiled = self.compiled(func, kind, scope, request)
        if compiled is None:
            return self._fall_back(said, func)
        return Chosen(said(CPU_PLAIN, why=(f"compiled as a {kind} entry",)),
                      kind, scope, request, compiled)

    def _choose_map(self, func: str, batch) -> Chosen:
        f = self.program.functions[func]
        said = functools.partial(Decision, func, "cpu", "map", tasks=len(batch))
        if self.direct(func) and len(batch) <= DIRECT_MAP_TASKS:
            return _interpreted(said, DIRECT_MAP)
        try:
            kind, widest, request = self.map_entry(f, batch)
        except NotCompilable as e:
            self.fallbacks[func] = str(e)
            return self._fall_back(said, func)
        lane, declined = self.packs.choose(f, kind, widest, request, batch)
        if lane is not None:
            pack = lane.lanes
            return Chosen(said(CPU_PACKS, value_type=VALUE_TYPES[lane.variant], pack=pack,
                               why=(f"tasks sorted by size in groups of {pack}, a group "
                                    "per core", lane.why)),
                          kind, widest, request, lane)
        compiled = self.compiled(func, kind, widest, request)
        if compiled is None:
            return self._fall_back(said, func)
        return Chosen(said(CPU_PLAIN, why=("a task per call, tasks in parallel",
                                           f"no task groups: {declined}")),
                      kind, widest, request, compiled)

    def _fall_back(self, said, func: str) -> Chosen:
        """Run ``func`` on the interpreter, what the backend could not compile, or
        refuse to under ``DSLC_STRICT_COMPILE=1`` (:func:`refuse_interpreter`)."""
        why = self.fallbacks.get(func, "")
        if self.strict:
            refuse_interpreter(self.program.functions[func], why)
        return _interpreted(said, why)

    @property
    def strict(self) -> bool:
        """Is running on the interpreter refused (``DSLC_STRICT_COMPILE=1``, the
        options' ``strict_compile``)? ``dslc explain`` turns it off on the engine it
        runs, to report every fall-back instead."""
        return self.allow_interpreter is False or (
            self.allow_interpreter is None and self.options.strict_compile)

    def _ran(self, chosen: Chosen) -> Chosen:
        self.decisions.add(chosen.decision)
        return chosen

    # ------------------------------------------------------------------ interface
    def value(self, func: str, args: dict, span, description: str = ""):
        c = self._ran(self.choose(func, "call", args))
        if c.compiled is None:
            return self.interp.value(func, args, span, description)
        f = self.program.functions[func]
        module, task_args, windows = c.compiled
        try:
            bound = self._task_args(task_args, c.scope, windows, c.request)
            with timings.computing():
                raw = module.task(*bound)
            return self.result(raw, f.ret, span)
        except MemoryError:
            raise out_of_memory(func, span) from None
        except (IndexError, ValueError, ZeroDivisionError, Inexact):
            return self._rerun(func, lambda: self.interp.value(func, args, span, description))

    def table(self, func: str, calling: dict, span, description: str = ""):
        self.interp.check_table_fits(func, calling, span)
        c = self._ran(self.choose(func, "table", calling))
        if c.compiled is None:
            return self.interp.table(func, calling, span, description)
        module, args, windows = c.compiled
        try:
            bound = self._task_args(args, calling, windows, None)
            with timings.computing():
                raw = module.task(*bound)[0]  # the entry's (TABLES: the group's)
            return self.table_values(func, calling, raw, span)
        except MemoryError:
            raise out_of_memory(func, span) from None
        except (IndexError, ValueError, ZeroDivisionError, Inexact):
            return self._rerun(func, lambda: self.interp.table(func, calling, span, description))

    def tables(self, func: str, callings: list, span, description: str = "",
               after=None) -> list:
        """For each binding of ``callings``, ``func``'s whole table and the others
        its sweep fills, as numbers read cell by cell (dslc.cpu.tables; ``after``
        there)."""
        from dslc.cpu.tables import whole_tables
        try:
            return whole_tables(self, func, callings, span, description, after)
        except MemoryError:
            raise out_of_memory(func, span) from None

    def map(self, func: str, tasks, span, progress=None) -> list:
        """Every task's value, in task order; ``tasks`` is a :class:`TaskBatch`
        (a list of dicts is taken as one)."""
        if not len(tasks):
            return []
        batch = TaskBatch.of(tasks)
        f = self.program.functions[func]
        parts = map_parts(batch, self.program.registry, self.packs.applies(batch))
        if parts is not None:
            with self._parts_of(batch):
                return _per_part(self.map, func, batch, span, progress, parts)
        c = self._ran(self.choose(func, "map", batch))
        if c.compiled is None:
            return self.interp.map(func, batch, span, progress)
        try:
            if c.decision.strategy == CPU_PACKS:
                raw = self.packs.run(f, c, batch, progress)
            else:
                from dslc.cpu import modules

                module, args, windows = c.compiled
                run = modules.batch_function(module, args, batch, self)
                raw = in_chunks(lambda ids: run(batch.subset(ids), windows, f), batch,
                                progress, progress and task_sizes(batch))
        except MemoryError:
            raise out_of_memory(func, span) from None
        except (IndexError, ValueError, ZeroDivisionError, SystemError) as e:
            # (an error raised inside a parallel batch surfaces as a SystemError,
            # caused by it: out of memory there, the interpreter would not fit either)
            if isinstance(e.__cause__, MemoryError):
                raise out_of_memory(func, span) from e.__cause__
            return self._rerun(func, lambda: self.interp.map(func, batch, span, progress),
                               len(batch))
        return self.map_values(func, f, raw, batch, span)

    @contextlib.contextmanager
    def _parts_of(self, batch):
        """While the parts of ``batch`` are planned: a product over a few items
        (queries) is planned once, for the whole map's widest binding, whose windows
        bound every part's extents (the code reads each part's own at run time): one
        plan, not one per query length. Parts by model keep their own."""
        self._bound = None if _by_model(batch, self.program.registry) is not None \
            else widest_task(batch)
        try:
            yield
        finally:
            self._bound = None

    def map_values(self, func, f, raw: np.ndarray, batch, span) -> list:
        """A map's compiled values as the interpreter gives them; a task with no
        value (NaN: it stopped on a check, modules.batch_function) or an int
        beyond 2^53 is recomputed by the interpreter, which gives the exact value
        or the error. A tuple's components fill a row of ``raw``."""
        if isinstance(f.ret, T.TupleT):
            out = []
            for k, v in enumerate(raw):
                try:
                    out.append(self.result(v, f.ret, span))
                except Inexact:
                    out.append(self._rerun(func, lambda: in_map(
                        lambda: self.interp.map(func, [batch[k]], span), [k])[0]))
            return out
        out, redo = python_numbers(raw, f.ret == T.INT)
        for k in redo.tolist():
            out[k] = self._rerun(func, lambda: in_map(
                lambda: self.interp.map(func, [batch[k]], span), [k])[0])
        return out

    def final_column(self, f, batch, i: int, ids=None) -> np.ndarray:
        """Coordinate ``i`` of every task's final cell (:meth:`final_cell`): the
        length of its sequence where it is an index over one the call does not
        give, else task by task."""
        p = f.rec_params[i]
        if isinstance(p.type, T.IndexT) and p.name not in batch.columns \
                and p.type.seq in batch.lengths:
            lens = batch.lengths[p.type.seq]
            return lens if ids is None else lens[ids]
        ids = range(len(batch)) if ids is None else ids
        return np.array([self.final_cell(f, batch[k])[i] for k in ids], dtype=np.int64)

    # ------------------------------------------------------------------ helpers
    def direct(self, func: str) -> bool:
        """Is a single call of ``func`` (or a map of it over at most
        ``DIRECT_MAP_TASKS`` tasks) answered by the interpreter directly? Where it
        is straight-line code (``tir.straight_line``), compiling or even loading
        compiled code costs more than running it."""
        return self.direct_scalars and tir.straight_line(self.program.functions, func)

    def call_entry(self, f, args: dict):
        """How a single call is compiled: the entry kind (a table's ``cell`` or a
        plain ``value``), the cell asked for, and the arguments the task takes."""
        if f.is_table:
            return ("cell", tuple(args[p.name] for p in f.rec_params),
                    {p.name: args[p.name] for p in f.calling_params})
        scope = {p.name: args[p.name] for p in f.params}
        if tir.reads_undeclared_ints(self.program.functions, f.name):  # its int arguments
            # bound the tables' extents (dslc.plan.reach): the plan is one per their values
            return "value", tuple(v for v in scope.values() if type(v) is int), scope
        return "value", None, scope

    def map_entry(self, f, tasks):
        """How a map over ``f`` is compiled (``tasks``: a :class:`TaskBatch`): the
        entry kind, the binding whose extents bound every task's, and for a
        table the cell asked for."""
        tasks = TaskBatch.of(tasks)
        if _by_model(tasks, self.program.registry) is not None:
            # model layouts are shared by all the tasks of one compiled run
            raise NotCompilable("a map over several models (run once per model)")
        if f.ret == T.BOOL:  # (a map's results come back as numbers, a single call's
            # as the bools they stand for)
            raise NotCompilable(f"a map of {f.name}'s bool values: not compiled, a single "
                                "call is")
        tupled = [p.name for p in f.params if isinstance(p.type, T.TupleT)]
        if tupled:  # (a batch packs each argument as one number or array per task)
            raise NotCompilable(f"a map of {f.name} over tuple arguments ({tupled[0]}): "
                                "not compiled, a single call is")
        widest = _bounded(widest_task(tasks), self._bound)
        if not f.is_table:
            return "value", widest, None
        for p in f.rec_params:  # an int dimension's extent is the cell asked for
            if p.type == T.INT and p.name in widest:
                widest[p.name] = max(int(t[p.name]) for t in tasks)
        if declared(f):
            widest = self._widest_declared(f, tasks, widest)
        return "cell", widest, tuple(self.final_cell(f, widest))

    def _widest_declared(self, f, tasks: list[dict], widest: dict) -> dict:
        """Declared ranges take their extents from calling values (``const n``):
        the binding planned for takes them from the task with the largest final
        cell, and must bound every task's cell in every dimension (a bound such
        as ``0 ... 10 - n`` need not: the map then runs on the interpreter)."""
        cells = [self.final_cell(f, t) for t in tasks]
        if any(final_outside(self.program, f, t, c) for t, c in zip(tasks, cells)):
            raise NotCompilable(f"a task's final cell of {f.name} is outside its declared "
                                "ranges (the interpreter reports it)")
        top = max(range(len(tasks)), key=lambda k: cells[k])
        out = dict(widest)
        out.update({n: v for n, v in tasks[top].items() if not isinstance(v, Sequence)})
        mine = self.final_cell(f, out)
        if any(any(c > m for c, m in zip(cell, mine)) for cell in cells):
            raise NotCompilable(f"a map over {f.name} whose tasks' declared ranges are not "
                                "bounded by one task's")
        return out

    def final_cell(self, f, args: dict) -> list[int]:
        """The cell a call of table function ``f`` asks for: its own index
        arguments where it has them, else the table's last cell."""
        out = []
        for p in f.rec_params:
            t = p.type
            if isinstance(t, T.IndexT) and args.get(p.name) is not None:
                out.append(int(args[p.name]))
            elif isinstance(t, T.IndexT):
                out.append(len(args[t.seq]))
            elif isinstance(t, T.SymT):
                out.append(len(self.program.alphabets[t.alpha.name]) - 1)
            elif p.range is not None:  # the interpreter's final cell: the box's corner
                boxes = dict(zip((q.name for q in f.rec_params), out))
                top = box_extent(f, len(out), args, boxes, self.program.consts)
                if top < 0:
                    raise NotCompilable(f"the range of {f.name}'s parameter {p.name} is empty")
                out.append(top)
            elif t == T.INT and p.name in args:
                out.append(int(args[p.name]))
            else:
                raise NotCompilable(f"the final cell of {f.name}: no extent for {p.name}")
        return out

    def table_values(self, func: str, calling: dict, raw, span):
        """A compiled whole table as the interpreter gives it: cells outside the
        function's declared ranges are None (compiled code never computes them)."""
        f = self.program.functions[func]
        ret = f.ret
        if not declared(f) and not isinstance(ret, T.TupleT):
            return self._all_results(raw, ret)
        # a table of tuples holds each cell's components in one more dimension
        shape = raw.shape[:-1] if isinstance(ret, T.TupleT) else raw.shape
        out = np.empty(shape, dtype=object)
        for idx in np.ndindex(shape):
            if declared(f) and outside(f, tuple(int(x) for x in idx), calling,
                                       self.program.consts) is not None:
                continue
            out[idx] = self.result(raw[idx], ret, span)
        return out

    def _table_plan_scope(self, func: str, calling: dict) -> dict:
        """The binding a whole table is planned for: the widest seen so far for this
        function (per parameter, the longest sequence) among bindings whose other
        arguments have the same shapes. A plan for a box serves every box inside it
        (a map's plan for its widest task runs all its tasks the same way), so the
        tables of a search's top hits, all lengths, cost a few plans, not one each."""
        registry = self.program.registry
        fixed = tuple((n, plan_shape(v, registry)) for n, v in sorted(calling.items())
                      if not isinstance(v, Sequence))
        key = (func, fixed, self.options)
        widest = dict(self._table_scopes.get(key, calling))
        for n, v in calling.items():
            if isinstance(v, Sequence) and len(v) > len(widest[n]):
                widest[n] = v
        self._table_scopes[key] = widest
        return widest

    def compiled(self, func, kind, scope, request):
        """Plan and generate (memoised on the shapes that decide the plan: the
        sequence lengths and the requested cell)."""
        key = (func, kind, request, tuple((n, plan_shape(v, self.program.registry))
                                          for n, v in sorted(scope.items())), self.options)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = result = self._compile_uncached(func, kind, scope, request)
        return result

    def _compile_uncached(self, func, kind, scope, request):
        from dslc.cpu import modules

        key = self.plan_key(func, kind, scope, request)
        hit = modules.cached_plan(key) if self.disk_cache else None
        if hit is not None:
            source, args, windows, _ = hit
            runlog.log.info("%s (%s): plan and code from the cache", func, kind)
            return modules.load(source), args, windows
        # (a small run imports no code generator)
        from dslc.emit.strategies import build, strategy
        from dslc.plan import lower
        from dslc.targets.printer import Printer

        plain = strategy("cpu plain")
        try:
            with timings.planning():
                lowered = lower(self.program, func, kind, scope, request,
                                emit=lambda task: build(plain, self.program, task).module(),
                                verify=self.options.verify_ir)
        except NotCompilable as e:
            self.fallbacks[func] = str(e)
            return None
        plan, args = lowered.task, list(lowered.args)
        source = Printer().module(lowered.module)  # (the text: to compile and to keep)
        windows = tuple(g.window for g in plan.groups)
        modules.store_plan(key, source, args, windows)
        runlog.log.info("%s (%s): planned and generated", func, kind)
        module = modules.load(source)
        self.generated[func] = (plan, source)
        return module, args, windows

    def plan_key(self, func, kind, scope, request, target: str = "cpu") -> str:
        """The disk cache's key of an entry's scalar plan (or of the compiled
        traceback walk of a table, ``target`` "walk", dslc.trace.jit)."""
        from dslc.cpu import modules

        sizes = tuple(plan_shape(v, self.program.registry) for _, v in sorted(scope.items())
                      if not isinstance(v, Sequence))
        return modules.plan_key(self.program, func, f"{kind}{sizes}", request, scope, target,
                                options=self.options)

    def code_cached(self, func: str, tasks: list[dict], is_map: bool) -> bool:
        """Would this map (or call, or table: one task) find its plan, and so its
        generated code, in the disk cache (what ``auto`` weighs against a
        compile)? True where nothing would be compiled (the interpreter runs it)."""
        from dslc.cpu import modules
        from dslc.cpu.packs import shared_arguments

        f = self.program.functions[func]
        if is_map:  # (a map run in parts compiles each part's code: the first one's, asked)
            batch = TaskBatch.of(tasks)
            parts = map_parts(batch, self.program.registry, self.packs.applies(batch))
            if parts is not None:
                with self._parts_of(batch):
                    return self.code_cached(func, batch.subset(parts[0]), True)
        args = tasks[0]
        try:
            if is_map:
                kind, scope, request = self.map_entry(f, tasks)
            elif f.is_table and not all(p.name in args for p in f.rec_params):
                kind, request, scope = "table", None, args
            else:
                kind, request, scope = self.call_entry(f, args)
            key = self.packs.plan_key(func, kind, scope, request, "auto",
                                      shared_arguments(tasks)) \
                if is_map and self.packs.applies(tasks) else \
                self.plan_key(func, kind, scope, request)
        except (NotCompilable, DslcError):
            return True
        return modules.cached_plan(key) is not None

    def _task_args(self, args, scope: dict, windows, request) -> list:
        return [self.arg_value(a, scope, windows, request) for a in args]

    def arg_value(self, arg, scope: dict, windows, request):
        """The value the task takes for ``arg`` (kernel.ir.TaskArg), by its role."""
        if arg.role == "argument":
            return convert(scope[arg.of], self.program.registry)
        if arg.role == "layout":  # an array of the device layout of a model (emit.cpu)
            array, model = arg.of
            value = scope[model] if model in scope else self.globals[model]
            return layout_arrays(value, self.program.registry)[array]
        if arg.role == "global":
            v = self.globals[arg.of]
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return float(v)  # a script number: emit.infinity assumes nothing of it
            return convert(v, self.program.registry)
        if arg.role == "window":
            return windows[arg.of]  # the window depths of the plan's groups
        if arg.role == "cell":
            v = request[arg.of]
            if isinstance(v, float) and not math.isfinite(v):  # the interpreter's error
                raise ValueError(f"an infinite coordinate {arg.of}")
            return int(v)
        raise InternalError(f"no value for task argument {arg}")

    def convert(self, v):
        return convert(v, self.program.registry)

    def result(self, raw, ret, span):
        if isinstance(ret, T.TupleT):  # each component as a number of its type
            return tuple(self.result(x, t, span) for x, t in zip(raw, ret.items))
        v = float(raw)
        if v != v:  # a check the code could not stop on (emit.infinity): the interpreter's word
            raise Inexact()
        if ret == T.INT:
            if math.isinf(v):
                return v
            if abs(v) >= EXACT:
                raise Inexact()
            return int(v)
        if ret == T.BOOL:  # stored and returned as 0 or 1
            return v != 0
        return v

    def exact_results(self, raw, ret) -> bool:
        """Is every number of ``raw`` its cell's value exactly (no NaN, no int at or
        beyond 2^53), so that ``result`` converts each without ``Inexact``?"""
        return _exact(np.asarray(raw, dtype=np.float64).ravel(), ret)

    def _all_results(self, raw, ret):
        """``_result`` of every cell at once (a traceback fills whole tables per hit)."""
        flat = np.asarray(raw, dtype=np.float64).ravel()
        if not _exact(flat, ret):
            raise Inexact()
        if ret != T.INT:
            return flat.astype(object).reshape(raw.shape)  # Python floats
        finite = np.isfinite(flat)
        ints = np.where(finite, flat, 0.0)
        out = ints.astype(np.int64).astype(object)  # Python ints, then the few infinities
        inf = np.flatnonzero(~finite)
        out[inf] = flat[inf].astype(object)
        return out.reshape(raw.shape)

    def _rerun(self, func: str, rerun, tasks: int = 1):
        """The interpreter's answer: the exact value beyond 2^53, or the precise
        error (with call and values) where the compiled task stopped. Counted in
        ``reruns`` and said under ``-v``: a compiled entry whose tasks keep
        coming back here runs at the interpreter's speed."""
        self.reruns[func] = self.reruns.get(func, 0) + tasks
        runlog.log.info("%s: %d compiled task(s) re-run on the interpreter", func, tasks)
        return rerun()

    def explain(self) -> dict:
        return dict(self.fallbacks)


def _exact(flat: np.ndarray, ret) -> bool:
    """``CpuBackend.exact_results`` of a flat float64 array (made once by each caller)."""
    if np.isnan(flat).any():
        return False
    return ret != T.INT or not (np.abs(flat[np.isfinite(flat)]) >= EXACT).any()


def out_of_memory(func: str, span) -> DslcError:
    """What a compiled task that could not allocate its storage says: the
    storage a call needs is estimated before allocating only for whole tables
    and maps (dslc.lang.limits); a single call's working storage is its
    plan's, a window where the plan allows, else whole tables."""
    return DslcError(f"the compiled code of {func} could not allocate its working storage: "
                     "this call needs more memory than the machine has", span,
                     "'dslc explain' shows which tables it keeps whole; ask for a cell "
                     "whose table can be kept as a window, or give shorter sequences")


def task_sizes(batch) -> np.ndarray:
    """Each task's work as its total sequence length (the order the drivers and
    the progress pieces take: largest first)."""
    return sum(batch.lengths.values(), np.zeros(len(batch), dtype=np.int64))


def _by_model(batch, registry):
    """Task indexes grouped by the models (values with a device layout) they use,
    or None when every task uses the same ones."""
    first = batch.first
    names = [n for n, v in first.items()
             if n not in batch.shared and layout_spec(v, registry) is not None]
    if not names:
        return None
    groups: dict[tuple, list[int]] = {}
    for k in range(len(batch)):
        groups.setdefault(tuple(id(batch.columns[n].value(k)) for n in names), []).append(k)
    return list(groups.values()) if len(groups) > 1 else None


def widest_task(batch) -> dict:
    """One binding with the longest sequence of every parameter: its extents
    bound every task's, so its schedule window serves them all."""
    out = dict(batch.first)
    for name, lens in batch.lengths.items():
        out[name] = batch[int(lens.argmax())][name]
    return out


def _bounded(widest: dict, bound: dict | None) -> dict:
    """``widest`` with each sequence that ``bound`` holds longer taken from ``bound``
    (the binding a map's parts are planned for: :meth:`CpuBackend.map`)."""
    if not bound:
        return widest
    out = dict(widest)
    for name, v in bound.items():
        mine = out.get(name)
        if isinstance(v, Sequence) and isinstance(mine, Sequence) and len(v) > len(mine):
            out[name] = v
    return out


def refuse_interpreter(tf, why: str) -> None:
    """The one error of ``DSLC_STRICT_COMPILE=1``: the function the backend could
    not compile, where it is defined, and why, instead of a quiet run on the
    interpreter."""
    raise DslcError(f"{tf.name} cannot be compiled ({why}), and DSLC_STRICT_COMPILE=1 "
                    "refuses to run it on the interpreter", tf.span,
                    hint="dslc explain shows every part that runs on the interpreter; "
                         "DSLC_STRICT_COMPILE=0 runs it there")


def _interpreted(said, why: str) -> Chosen:
    """A decision to run on the interpreter (``said``: the record's fixed fields)."""
    return Chosen(said(INTERPRETER, value_type=PYTHON_VALUES, why=(why,)))


def per_model(map_, func: str, batch, span, progress, registry):
    """A map whose tasks use different models, run as one ``map_`` per model (a
    model's layout is shared by the tasks of one compiled run); None when
    every task uses the same ones."""
    parts = _by_model(batch, registry)
    return None if parts is None else _per_part(map_, func, batch, span, progress, parts)


def item_parts(batch) -> list | None:
    """A product over a few items (ten queries x a database: the batch's narrow
    columns, :attr:`TaskBatch.grouped`) in parts of one item each (task numbers), each
    run as a map of its own, so that in each the item is every task's
    (``TaskBatch.uniform``) and the lanes take it once, its residues scalars in the
    lane loop, instead of a padded block per lane mixing queries of other lengths
    (about twice as fast for 10 queries x the 2,100-protein proteome on the
    development machine: docs/benchmarks.md). None where the batch has no such
    items, or a part would give a thread fewer than two groups of lanes (the parts
    run one after another, so a small part would leave idle threads that one map of
    all the tasks keeps busy)."""
    import numba

    from dslc.emit.args import PACK

    order, bounds = batch.grouped
    if len(bounds) <= 2 or int(np.diff(bounds).min()) < 2 * PACK * numba.get_num_threads():
        return None
    return [order[a:b] for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())]


def map_parts(batch, registry, packs: bool) -> list | None:
    """The parts :meth:`CpuBackend.map` runs a map of ``batch`` in, each as a map of
    its own (by model, then :func:`item_parts` where the map takes packs), or
    None where it runs whole: what is compiled, and cached, is each part's code."""
    parts = _by_model(batch, registry)
    if parts is None and packs:
        parts = item_parts(batch)
    return parts


def _per_part(map_, func: str, batch, span, progress, parts: list) -> list:
    """Every task's value, each of ``parts`` (task numbers) run as a map of its own,
    its errors and progress counted as the whole map's."""
    out = [None] * len(batch)
    done = 0
    for ids in parts:
        part = in_map(lambda: map_(func, batch.subset(ids), span, offset(progress, done)), ids)
        done += len(ids)
        for k, v in zip(ids, part):
            out[k] = v
    return out
