"""One big problem on the whole GPU (the thesis's unimplemented
task-per-multiple-blocks): partition after partition, the points of a partition
spread over every thread of the grid.

A schedule ``S(x) = a . x`` with some ``|a_k| = 1`` names each point of partition
``c`` by its other coordinates: ``x_k = a_k * (c - sum_{m != k} a_m x_m)``. A
kernel launch computes one partition: thread ``t`` of ``T`` takes the flattened
other coordinates ``t, t + T, ...``, keeps those whose ``x_k`` lies in the
domain, and computes every function of the group at that point, callees first.
Points of one partition never read each other (the schedule is legal), so the
only synchronisation needed is between partitions: on a real GPU one
cooperative launch runs every partition with a grid-wide barrier between them
(``all_<group>``); in the simulator, or where a cooperative launch is refused,
the host launches the partitions in order (``part_<group>``). Storage (whole tables, or the rotating window) lives in
global memory; fused reductions of the entry accumulate with atomics (``max``,
``min``, ``sum`` of ints and floats), the requested cell is captured by the
thread that computes it. The entry's own body then runs on the host over the
accumulators and any tables it reads.

A point's cell may hold an O(n) reduction (such as ``max(k in i + 4 ...
j - 1 ...)``) while a partition has only O(n) points, too few to fill a GPU one
thread per point. So a group whose cells reduce over a range may give each
point a whole warp (``G = 32`` lanes, see :func:`choose_lanes`): every lane
computes the same point, the outermost ``max``/``min``/int ``sum`` over a range
of each cell strides over the lanes (``range(lo + _lane, hi + 1, G)``) and a
butterfly of warp shuffles combines the lanes' parts so that every lane holds
the whole value; the rest of the cell runs identically on every lane (they
write the same value: benign), fused updates and the captured cell on lane 0
only. Those three reductions are exact however their values are grouped;
float and prob sums would round differently and stay whole on each lane. All
lanes of a warp share one point, hence one control flow, which is what a
full-mask ``shfl_xor_sync`` needs. The simulator has no warp shuffles: there
the same butterfly calls :func:`simulated_shfl_xor`, which pairs the Python
threads of a warp through a per-block exchange. The atomic updates and the
lanes' combinations are kernel IR records (kernel.ir.Atomic, WarpReduce), and so
are each thread's numbering (kernel.ir.Thread: its first point and the stride between
its points, its lane) and the cooperative kernel's grid barrier (kernel.body.Barrier of
scope ``grid``, through kernel.ir.GridGroup): the kernels' printer spells them
(targets.printer: a device's, or the simulator's), and the verifier allows the grid's
barrier only in the cooperative kernel.

Only plans whose checks were all proved away compile here (a task-per-thread kernel
flags a failed check and the CPU re-runs that task; here there is no task to re-run).
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace

from dslc.check import tir
from dslc.lang import types as T
from dslc.emit import cpu
from dslc.emit.cpu import (CPU, Task, fused_emitter, fused_start,
                           fused_undefined, in_bounds, printed, requested_tests, window_slot)
from dslc.emit.cuda import HEADER
from dslc.emit.pyexpr import Lines, ExprEmitter, NotCompilable, Rule
from dslc.kernel import ir
from dslc.kernel.verify import verify_body
from dslc.plan.task import GroupPlan, TaskPlan
from dslc.poly import loopir as L
from dslc.targets.printer import CudaPrinter, Printer, SimulatedCudaPrinter

_ATOMIC = {"max": "max", "min": "min", "sum": "add"}  # a fused reduction's atomic update

WARP = ir.WARP  # lanes per point when reductions are split: a whole warp (full-mask shuffles)


@dataclass(frozen=True)
class Lanes:
    """How many threads (lanes) share each point of one group's kernel, and why."""

    width: int
    why: str

    def describe(self) -> str:
        if self.width == 1:
            return f"points over all threads, one thread per point ({self.why})"
        return f"a warp ({self.width} lanes) per point, reductions split over the lanes " \
            f"({self.why})"


def splittable(e: tir.Reduce) -> bool:
    """A reduction over an integer range whose value does not depend on how its
    terms are grouped (``max``, ``min``, ``sum`` of ints: float sums round)."""
    return isinstance(e.iterable, tir.RangeIter) and (
        e.op in ("max", "min") or (e.op == "sum" and e.type == T.INT))


def outermost_reductions(e: tir.TExpr):
    """The reductions of ``e`` not inside another reduction (the ones split)."""
    if isinstance(e, tir.Reduce):
        yield e
        return
    for c in tir.children(e):
        yield from outermost_reductions(c)


def splits(program, g: GroupPlan) -> bool:
    """Does some cell body of group ``g`` hold a reduction worth splitting?"""
    return any(splittable(r) for f in g.functions for gd in program.functions[f].guards
               for x in (gd.cond, gd.body) if x is not None for r in outermost_reductions(x))


def choose_lanes(program, plan: TaskPlan, real_gpu: bool, block: int,
                 resident: int | None = None, forced: int | None = None) -> tuple[Lanes, ...]:
    """Lanes per point of each group: a warp where a cell has a reduction to split
    on a real GPU whose ``resident`` threads a partition's points, one thread
    each, would not fill (the partitions are narrow and the cells long), one
    thread otherwise: a full GPU gains nothing from idle lanes, and in the
    simulator each lane is a Python thread (``DSLC_CUDA_LANES`` forces either
    everywhere). Blocks must hold whole warps, and cells ordered at run time
    (done flags set by one lane while another tests them) keep a thread per
    point. ``forced``: the compile options' ``cuda_lanes``."""
    out = []
    for g in plan.groups:
        if g.runtime_order:
            out.append(Lanes(1, "cells ordered at run time"))
        elif block % WARP:
            out.append(Lanes(1, f"blocks of {block} threads are not whole warps"))
        elif forced is not None:
            out.append(Lanes(forced, f"DSLC_CUDA_LANES={forced}"))
        elif not splits(program, g):
            out.append(Lanes(1, "no max, min or int sum over a range in a cell"))
        elif not real_gpu:
            out.append(Lanes(1, f"the CUDA simulator; DSLC_CUDA_LANES={WARP} to split"))
        elif resident is not None and g.width() >= resident:
            out.append(Lanes(1, f"partitions of {g.width():.0f} points fill the {resident} "
                                "threads the device holds"))
        else:
            out.append(Lanes(WARP, "a cell reduces over a range"))
    return tuple(out)


class _LaneSplit:
    """The rules (pyexpr.Rule) of cell bodies of a kernel whose ``width`` lanes share
    a point: each outermost splittable reduction strides over the lanes and is
    combined across them (a warp reduction, kernel.ir.WarpReduce); reductions inside
    it, and others, run whole on every lane. One per emitter: it keeps which
    reductions are being split."""

    def __init__(self, width: int):
        self.width, self.depth = width, 0
        self.split: set[int] = set()  # ids of the reductions being split

    def rules(self) -> tuple[Rule, ...]:
        return (Rule("reduce", self.reduce), Rule("range_header", self.range_header))

    def reduce(self, em, default, e, b):
        split = self.depth == 0 and splittable(e)
        if split:
            self.split.add(id(e))
        self.depth += 1  # whatever it holds (its bounds included) runs whole
        try:
            acc = default(e, b)
        finally:
            self.depth -= 1
            self.split.discard(id(e))
        if split:
            b.temporary(acc.id, ir.WarpReduce(e.op, acc, self.width))
        return acc

    def range_header(self, em, default, e, var, lo, hi):
        if id(e) not in self.split:
            return default(e, var, lo, hi)
        return var, (ir.Bin("+", lo, ir.Name("_lane")), ir.Bin("+", hi, ir.Const(1)),
                     ir.Const(self.width))


def _past(extent: str) -> ir.Bin:
    """``extent + 1``: the number of values of a coordinate from 0 to ``extent``."""
    return ir.bare("+", ir.Name(extent), ir.Const(1))


def eliminated(coeffs) -> int:
    """The coordinate recomputed from the partition (the last with |a_k| = 1)."""
    k = next((k for k in reversed(range(len(coeffs))) if abs(coeffs[k]) == 1), None)
    if k is None:
        raise NotCompilable("no schedule coefficient of magnitude 1")
    return k


@dataclass(frozen=True, eq=False)
class Wavefront:
    """The built kernels: ``part_<group>(<args>, <storage>, <accumulators>, res, c0)``
    (one partition) and ``all_<group>(..., first, count)`` (every partition, grid
    sync between them) in ``device``, and a host function ``final(<args>, <storage>,
    <accumulators>)`` in ``host``, with what the backend's launches need."""

    device: str
    host: str
    args: tuple  # the task's arguments (kernel.ir.TaskArg)
    plan: TaskPlan
    storage: tuple  # (function, loop-IR dims)
    lanes: tuple[Lanes, ...]
    phases: dict  # per group: phases of a partition (_phases)
    simulated: bool

    def generate(self) -> tuple[str, str, list]:
        """(device module source, host module source, the task's arguments)."""
        return self.device, self.host, list(self.args)

    def describe(self) -> str:
        """How the points of the groups meet threads (CudaBackend.strategy)."""
        return "; ".join(dict.fromkeys(ln.describe() for ln in self.lanes)) or \
            "points over all threads"

    def points(self, gi: int) -> L.Expr:
        """How many coordinate tuples a partition kernel of group ``gi`` walks
        (each takes ``self.lanes[gi].width`` threads), over the extents."""
        g = self.plan.groups[gi]
        k = eliminated(g.schedule.coeffs)
        ext = g.extents.names[g.functions[0]]
        out: L.Expr = L.Const(1)
        for m in range(len(ext)):
            if m != k:
                past = L.Add(L.Var(ext[m]), L.Const(1))
                out = past if out == L.Const(1) else L.Mul(out, past)
        return out

    def initial(self, k: int) -> float:
        """The start value of accumulator ``k``."""
        return fused_start(self.plan.fused[k])


def build_wavefront(strategy, program, plan: TaskPlan, lanes: tuple[Lanes, ...] | None = None,
                    simulated: bool = False) -> Wavefront:
    """One problem on the whole GPU (emit.strategies "cuda whole-GPU wavefront"):
    kernels per partition and the host's final step; ``lanes`` per group
    (:func:`choose_lanes`; default a thread per point), ``simulated``: for the CUDA
    simulator (the warp shuffles are its stand-in). It applies no pass of the table
    (its kernels are built whole)."""
    task = Task(
        program, plan, None, WAVEFRONT,
        simulated=simulated,  # (before the task asks for its printer)
        storage=[],  # (function, loop-IR dims)
        lanes=lanes or tuple(Lanes(1, "the default") for _ in plan.groups),
        width=1,  # lanes of the point whose cells are being generated
        phases={})  # per group: phases of a partition (_phases)
    if any(g.runtime_order for g in plan.groups):  # (the CPU's _retry, per task)
        raise NotCompilable("a partition swept until done (the whole-problem kernels "
                            "sweep each partition once)")
    for fu in plan.fused:
        if fu.type == T.PROB or fu.op not in _ATOMIC:
            raise NotCompilable("a fused reduction with no atomic update")
        if fused_undefined(fu, program):
            raise NotCompilable("a fused sum that could meet inf - inf (an atomic add "
                                "cannot report it)")
    device, host, args = generate(task)
    return Wavefront(device, host, tuple(args), plan, tuple(task.storage), task.lanes,
                     task.phases, simulated)


# ---------------------------------------------------------------- pieces and kernels
# (``self``: the task being built, an emit.cpu task)

def allocate(self, b, func, dims):
    self.storage.append((func, dims))


def printer(self):
    """The kernels are device code (the simulator's where its warp shuffles stand
    in for a device's); the host's final step is printed apart (_final_body, _final)."""
    return SimulatedCudaPrinter() if self.simulated else CudaPrinter()


def emitter(self, names, rec, safe_indexes=frozenset()):
    """Cell bodies of a point shared by lanes split their reductions; helper
    functions (called from anywhere, lanes diverged or not) never do."""
    if self.width == 1 or names.helper:
        return cpu.emitter(self, names, rec, safe_indexes)
    return ExprEmitter(names, self.program.consts, rec, self.program.alphabets,
                       safe_indexes, rules=_LaneSplit(self.width).rules())


def _once(self, tests: list) -> ir.Expr:
    """``tests`` all true, for work done once per point: by lane 0 where lanes
    share it."""
    lane0 = [] if self.width == 1 else [ir.Bin("==", ir.Name("_lane"), ir.Const(0), bare=True)]
    return ir.bare("and", *lane0, *tests)


def fuse(self, b, k, fu, xs, val):
    inner = b.child()
    inner.atomic(_ATOMIC[fu.op], ir.Load(f"acc{k}", (ir.Const(0),), "global"), val)
    b.if_(_once(self, in_bounds(k, xs)), inner)


def capture(self, b, xs, val):
    inner = b.child()
    inner.store(ir.Load("res", (ir.Const(0),), "global"), val)
    b.if_(_once(self, requested_tests(xs)), inner)


def generate(self) -> tuple[str, str, list]:
    """(device module source, host module source, the task's arguments:
    kernel.ir.TaskArg)."""
    plan = self.plan
    head = _head(self)
    fused_by_func: dict[str, list] = {}
    for k, fu in enumerate(plan.fused):
        fused_by_func.setdefault(fu.func, []).append((k, fu))
    stores = []
    for gi, g in enumerate(plan.groups):  # every group's storage first: each kernel takes all
        stores.append(Lines([], head.counter))
        self._storage(stores[-1], gi, g)
    # the host's final step before the kernels: the entry's own body may read
    # globals no cell reads (a model's layout arrays), and the kernels and the
    # final step take the same task arguments
    final = _final_body(self)
    kernels = [_kernel(self, gi, g, head, stores[gi], fused_by_func)
               for gi, g in enumerate(plan.groups)]
    args = self.task_args()
    if self.pr.fails():
        raise NotCompilable("a run-time check the kernel could not report")
    lanes = self.pr.lanes_library()  # the warp reductions' butterflies the kernels call
    device = "\n".join([HEADER, self.pr.library("core"), "\n".join(self.helpers.values())]
                       + ([lanes] if lanes else []) + kernels)
    return device, _final(self, args, *final), args


def _head(self) -> Lines:
    """Extents and the fused reductions' bounds: the start of every kernel and
    of the host's final step (each printed for its own target)."""
    head = Lines(self.extent_lines())
    entry_em = self.emitter(self.task_names(self.program.functions[self.plan.entry]), set())
    for k, fu in enumerate(self.plan.fused):
        for i, (lo, hi) in enumerate(fu.bounds):
            head.assign(f"lo{k}_{i}", entry_em.as_int(lo, head))
            head.assign(f"hi{k}_{i}", entry_em.as_int(hi, head))
    return head


def _kernel(self, gi, g, head: Lines, store: Lines, fused_by_func) -> str:
    width = self.lanes[gi].width
    sweeps = [_sweep(self, gi, g, head, phase, fused_by_func, width)
              for phase in _phases(g)]
    self.phases[gi] = len(sweeps)
    start = _threads(width, head)
    start.extend(head)
    start.extend(store)
    params = printed(self.task_args()) + [f"T_{f}" for f, _ in self.storage] + \
        [f"acc{k}" for k in range(len(self.plan.fused))] + ["res"]
    one = start.child()  # one phase of one partition (``ph``: which)
    one.extend(start)
    if len(sweeps) == 1:
        one.extend(sweeps[0])
    else:
        for ph, sweep in enumerate(sweeps):
            one.if_(ir.Bin("==", ir.Name("ph"), ir.Const(ph), bare=True), sweep)
    # every partition in one launch, the grid synchronised between them and
    # between a partition's phases (a cooperative launch: real GPUs only, the
    # simulator has no grid sync)
    every = Lines([ir.Assign("grid", ir.GridGroup())], head.counter)
    every.extend(start)
    step = every.child()
    for sweep in sweeps:
        step.extend(sweep)
        step.barrier("grid", "grid")
    first = ir.Name("first")
    every.loop("c0", (first, ir.bare("+", first, ir.Name("count"))), step)
    # the device's rules (its atomics, warp reductions, the grid's barrier)
    verify_body(tuple(one.stmts), self.TARGET, params + ["c0", "ph"])
    verify_body(tuple(every.stmts), self.TARGET, params + ["first", "count"],
                cooperative=True)
    return (self.pr.function(f"part_{gi}", params + ["c0", "ph"], one.render(1, self.pr),
                             "KERNEL") + "\n\n"
            + self.pr.function(f"all_{gi}", params + ["first", "count"],
                               every.render(1, self.pr), "KERNEL"))


def _phases(g) -> list[list[str]]:
    """The group's functions in their order inside a partition, as phases run one
    after the other, each phase's points over all threads together: one phase,
    each point computing every function, where every same-partition call is to
    the very point that makes it (``Schedule.same_point_order``); else a phase per
    function, as the CPU's loop nest runs them (a call to another point of the
    same partition would read a cell another thread has not written yet)."""
    order = [f for f in g.schedule.order if f in g.functions]
    return [order] if g.schedule.same_point_order else [[f] for f in order]


def _sweep(self, gi, g, head: Lines, functions: list[str], fused_by_func,
           width: int) -> Lines:
    """One partition's points over the grid, each computing ``functions``' cells."""
    coeffs = g.schedule.coeffs
    k = eliminated(coeffs)
    ext = g.extents.names[g.functions[0]]
    body = Lines([], head.counter)
    others = [m for m in range(len(coeffs)) if m != k]
    rest = ir.Name("idx")
    for m in others:  # the flattened other coordinates, one at a time
        body.assign(f"p{m}", ir.bare("%", rest, _past(ext[m])))
        body.assign(rest.id, ir.bare("//", rest, _past(ext[m])))
    total = ir.bare("-", ir.Name("c0"), *(ir.bare("*", ir.Const(coeffs[m]), ir.Name(f"p{m}"))
                                          for m in others if coeffs[m]))
    body.assign(f"p{k}", ir.bare("*", ir.Const(coeffs[k]), ir.Paren(total)))
    point = body.child()
    for f in functions:
        for m, p in enumerate(self.program.functions[f].rec_params):
            point.assign(f"x_{p.name}", ir.Name(f"p{m}"))
        self.width = width
        try:
            point.extend(self._cell(f, fused_by_func.get(f, [])))
        finally:
            self.width = 1
    body.if_(ir.Chain(("<=", "<="), (ir.Const(0), ir.Name(f"p{k}"), ir.Name(ext[k]))), point)
    sweep = Lines([], head.counter)
    for f in g.functions:
        for d in sorted(self.slots.get(f, ())):
            sweep.assign(f"slot_{f}_{d}", window_slot(ir.Name("c0"), d, f, gi))
    span = ir.bare("*", *(ir.Paren(_past(ext[m])) for m in others)) if others \
        else ir.Const(1)
    inner = sweep.child()
    inner.assign("idx", ir.Name("it"))
    inner.extend(body)
    sweep.loop("it", (ir.Name("idx0"), span, ir.Name("nth")), inner)
    return sweep


def _threads(width: int, head: Lines) -> Lines:
    """Each thread's first point (``idx0``) and the stride between its points
    (``nth``): a point per thread, or per ``width`` consecutive threads (a warp)
    whose lane within the point is ``_lane``."""
    start = Lines([], head.counter)
    if width == 1:
        start.assign("idx0", ir.Thread("global"))
        start.assign("nth", ir.Thread("grid"))
        return start
    start.assign("_gid", ir.Thread("global"))
    start.assign("_lane", ir.bare("%", ir.Name("_gid"), ir.Const(width)))
    start.assign("idx0", ir.bare("//", ir.Name("_gid"), ir.Const(width)))
    start.assign("nth", ir.bare("//", ir.Thread("grid"), ir.Const(width)))
    return start


def _final_body(self) -> tuple[Lines, str, list[str]]:
    """The host side after the sweep: the entry's value from the accumulators
    and the tables it reads (kinds ``cell`` and ``table`` need nothing), with
    the host library and helper functions it calls. Host code: its own printer
    and its own helper functions (the kernels' are set back after)."""
    plan = self.plan
    device = self.pr, self.helpers, self.flagged, self.current
    self.pr, self.helpers, self.flagged = Printer(), {}, set()
    try:
        b = _head(self)
        if plan.kind == "value":
            f = self.program.functions[plan.entry]
            fused = {id(fu.node): f"acc{k}[0]" for k, fu in enumerate(plan.fused)}
            em = fused_emitter(self.task_names(f), self.program, fused)
            self.current = None
            b.return_(ir.Name(self.guarded_value(f, em, b)))
        else:
            b.return_(ir.Const(0.0))
        return b, self.pr.library("core", "domain"), list(self.helpers.values())
    finally:
        self.pr, self.helpers, self.flagged, self.current = device


def _final(self, args: list, b: Lines, library: str, helpers: list[str]) -> str:
    """The host module: ``final(<args>, <storage>, <accumulators>)`` around the
    body :func:`_final_body` built, once every task argument is known."""
    params = printed(args) + [f"T_{f}" for f, _ in self.storage] + \
        [f"acc{k}" for k in range(len(self.plan.fused))]
    from dslc.emit.cpu import HEADER as CPU_HEADER
    return "\n".join([CPU_HEADER, library, *helpers,
                      Printer().function("final", params, b.render(1))])


# the strategy's pieces (emit.cpu.Pieces): points of a partition over all threads need
# a schedule; no failure flag: an int past 2^53 inside a cell is not seen (the host
# still checks every value the call returns; docs/robustness.md, "Known limits");
# tuples are left to the plain task (emit.tuples); storage is the kernels' arguments
WAVEFRONT = replace(CPU, TUPLES="the whole-problem wavefront kernel", ON_DEMAND=False,
                    REPORTS_INEXACT=False, TABLES="global", TARGET="cuda", printer=printer,
                    allocate=allocate, emitter=emitter, fuse=fuse, capture=capture)


# ---------------------------------------------------------------- the simulator
# Numba's CUDA simulator has no warp shuffles (no cuda.shfl_xor_sync). It runs
# the threads of one block as Python threads (numba/cuda/simulator/kernel.py:
# a BlockThread per thread, a BlockManager per block, blocks one after the
# other), so a shuffle is an exchange between those threads. Every lane of a
# warp makes the same sequence of shuffles (they share a point), so the n-th
# shuffle of each lane of a warp belongs to one butterfly step: lane ``l``
# leaves its value under (warp, n, l) and takes its partner's from
# (warp, n, l ^ m). Each value is taken exactly once (by its partner), so the
# exchange empties itself; it lives on the block's manager and goes with it.

_EXCHANGE_LOCK = threading.Lock()
_QUICK_SWITCH = 1e-4  # seconds: the GIL switch interval while simulated lanes shuffle


@contextmanager
def simulated_shuffles(active: bool):
    """Run simulated kernels whose lanes shuffle (``active``) with a short GIL
    switch interval. The simulator's block manager polls its threads without
    ever sleeping, so a lane woken by its partner can wait a whole interval
    (5 ms by default) for the interpreter at every shuffle; the interval is
    restored afterwards."""
    if not active:
        yield
        return
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, _QUICK_SWITCH))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


class _Exchange:
    """Values in flight between the simulated threads of one block, by
    (warp, shuffle number, lane): each a slot that only its reader waits on
    (one condition for all would wake every lane at every value)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.slots: dict[tuple[int, int, int], list] = {}

    def slot(self, key) -> list:
        """``[ready event, value]`` under ``key``, made by whichever lane comes first."""
        with self.lock:
            found = self.slots.get(key)
            if found is None:
                found = self.slots[key] = [threading.Event(), None]
            return found

    def drop(self, key) -> None:
        with self.lock:
            del self.slots[key]


def simulated_shfl_xor(v, m: int):
    """``cuda.shfl_xor_sync(0xffffffff, v, m)`` for the simulator's threads."""
    t = threading.current_thread()
    manager = t._manager  # the simulator's BlockManager of this block
    with _EXCHANGE_LOCK:
        ex = getattr(manager, "_dslc_exchange", None)
        if ex is None:
            ex = manager._dslc_exchange = _Exchange()
    step = getattr(t, "_dslc_shuffles", 0)
    t._dslc_shuffles = step + 1
    warp, lane = divmod(t.thread_id, WARP)
    mine = ex.slot((warp, step, lane))
    mine[1] = v
    mine[0].set()
    theirs = ex.slot((warp, step, lane ^ m))
    while not theirs[0].wait(0.05):
        if t.abort:  # another thread of the block failed: no partner will come
            raise RuntimeError("a simulated thread of this block failed")
    ex.drop((warp, step, lane ^ m))
    return theirs[1]
