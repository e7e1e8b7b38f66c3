"""Inter-task SIMD for the CPU: ``LANES`` tasks of a ``map`` swept in lockstep.

A ``map`` runs thousands of independent tasks through the same loop nest. The
scalar CPU code (:mod:`dslc.emit.cpu`) runs one task per call; here one call
runs a *pack* of tasks, with every storage array's innermost dimension
the lane (``T_h[slot, i, l]``, the layout the CUDA backend uses for its threads,
thesis §5.5.1.1) and every cell's code inside ``for l in range(LANES)``, a loop
with no dependence that LLVM turns into vector instructions. The generator builds
one lane's body, ``l`` free in it; the lane-groups pass (kernel.lane_groups) puts
the lane loops around it.

The tasks of a group have different extents. The sweep runs over the group's
largest (sequences are padded with symbol code 0 up to the longest); a cell
outside a lane's own domain computes a value nobody inside it reads, because
every call is proved (by isl, :mod:`dslc.plan.task`) to stay in the caller's
domain whatever the extents. What does depend on a lane's own extents is read
per lane: ``len(s)`` in guards and bodies, the bounds of fused reductions, the
cell a ``map`` over a table asks for. Guard pieces that isl split by an extent
(``i == len(s)``) would put that boundary at the group's largest extent, so a
group whose pieces mention an extent tests its guards per cell instead.

Only plans with no run-time check compile here (as for CUDA): a padded lane
cannot tell a real error from a padding artefact. Everything else runs on the
scalar path, which can.
"""

from __future__ import annotations

import math
from dataclasses import replace

from dslc.check import tir
from dslc.emit import narrow
from dslc.emit.args import PACK, pack_travel  # noqa: F401 (this generator's)
from dslc.lang import types as T
from dslc.emit import cpu
from dslc.emit.built import Built
from dslc.emit.cpu import (CPU, HEADER, Task, fused_init_ir, fused_step_ir, length,
                           printed)
from dslc.kernel.module import Function, Module
from dslc.plan.task import TaskPlan
from dslc.emit.pyexpr import Lines, ExprEmitter, NotCompilable, Rule
from dslc.kernel import ir, profiles
from dslc.kernel.lane_groups import Lanes, PerLane
from dslc.kernel.strategies import Strategy, lower
from dslc.kernel.value_type import ValueType
from dslc.targets.printer import VALUE, Printer

# Numba has a ``noalias`` compiler flag (it marks every array argument's data
# pointer noalias) but no decorator option for it; this maps one.
NOALIAS_HEADER = ("from dslc.cpu.options import enable_noalias\n"
                  "enable_noalias()\n")

LANE = ir.Name("l")  # the lane's index: free in the body until kernel.lane_groups

def param(self, name, t):
    """A parameter inside a pack's task (``self``: its names): a lane's own where
    tasks differ in it."""
    if self.func is not None and self.func.is_table:
        p = self.func.param(name)
        if p is not None and p.recursive:
            return f"x_{name}"
    scope = self.gen.scope_name(name)
    if travel_of(self.gen, scope) == "member":
        self.gen.lane_reads += 1
        return f"a_{scope}[l]"
    return f"a_{scope}"


def helper_param(self, name, t):
    """A parameter inside a helper function of a pack (a helper has no lane)."""
    if isinstance(t, T.SeqT):
        raise NotCompilable("a sequence passed to a helper function (packs)")
    return f"p_{name}"


def pack_rules(fused: dict | None = None) -> tuple[Rule, ...]:
    """The rules (pyexpr.Rule) of a pack's code: sequences are ``(length, LANES)``
    blocks and their lengths per lane; fused reductions of the entry (``fused``: the
    id of each one's node -> its accumulator) read their per-lane accumulators."""
    fused = fused or {}

    def seqindex(em, default, e, b):
        s = em.expr(e.seq, b)
        if e.span not in em.safe_indexes:
            raise NotCompilable("a sequence index not proved in range (packs)")
        lane = (LANE,) if _lane_seq(em, e.seq) else ()
        if lane:
            em.names.gen.lane_reads += 1
        return em.pr.ir_int64(ir.Index(s, (em.as_int(e.index, b),) + lane))

    def builtin(em, default, e, b):
        x = e.args[0]
        if e.name == "len" and _lane_seq(em, x):
            em.names.gen.lane_reads += 1
            return ir.Load(f"n_{x.name}", (LANE,), "global")
        return default(e, b)

    def reduce(em, default, e, b):
        if id(e) in fused:
            return ir.Load(fused[id(e)], (LANE,))
        return default(e, b)
    return (Rule("seqindex", seqindex), Rule("builtin", builtin), Rule("reduce", reduce),
            *narrow.rules())


def _lane_seq(em: ExprEmitter, x) -> bool:
    """A sequence argument of the entry that differs between lanes (a helper's
    parameter is its own, whatever its name: a helper has no lane)."""
    if not (isinstance(x, tir.Var) and x.scope == "param" and not em.names.helper):
        return False
    gen = em.names.gen
    return travel_of(gen, gen.scope_name(x.name)) == "seq"


# ---------------------------------------------------------------- pieces and builder
# (``self``: the pack's task being built, an emit.cpu task)

def printer(self):
    """The lane function's values are of the storage type (float32 stays float32),
    named symbolically until the value-type pass (kernel.value_type)."""
    return Printer(VALUE)


def value_tables(self) -> frozenset:
    return frozenset(self.tables)


def emitter(self, names, rec, safe_indexes=frozenset()):
    return ExprEmitter(names, self.program.consts, rec, self.program.alphabets, safe_indexes,
                       rules=pack_rules())


def cell_ref(self, func, index):
    return self.element(f"T_{func}", index + ["l"])


def travel_of(self, name: str) -> str:
    return pack_travel(self.plan.scope[name], self.shared)


def allocate(self, b, func, dims):
    # storage comes from the caller: arrays the function receives are
    # marked noalias, which is what lets LLVM vectorise the lane loops
    self.scratch.append((f"T_{func}", f"({', '.join(map(str, dims))}, LANES)", "DT"))
    self.tables.add(f"T_{func}")


def fuse(self, b, k, fu, xs, val):
    tests = []
    for i, x in enumerate(xs):
        for side, op in (("lo", ">="), ("hi", "<=")):
            name = f"{side}{k}_{i}"
            if name in self.lane_bounds:  # compared as BT: one vector compare
                tests.append(ir.Bin(op, ir.Call("BT", (ir.Name(x),)),
                                    ir.Load(name, (LANE,)), paren=True))
            elif name not in self.trivial_bounds:
                tests.append(ir.Bin(op, ir.Name(x), ir.Name(name), paren=True))
    value = ir.Name(val)
    if tests:
        # a select, not a branch, so the lane loop stays vectorisable
        value = ir.Cond(ir.bare("&", *tests), value, fused_init_ir(fu, self.pr))
    acc = ir.Load(f"acc{k}", (LANE,))
    b.store(acc, fused_step_ir(fu, acc, value, self.program, self.pr))


def capture(self, b, xs, val):
    res = ir.Load("res", (LANE,))
    here = ir.bare("and", *(ir.Bin("==", ir.Name(x), ir.Load(f"q_{i}", (LANE,)), bare=True)
                            for i, x in enumerate(xs)))
    b.store(res, ir.Cond(here, ir.Name(val), res, paren=False))


def extent_expr(self, f, k):
    p = self.program.functions[f].rec_params[k]
    t = p.type
    if p.range is not None:  # lanes share one sweep: its calling values must be shared
        used = {x.name for e in p.range for x in tir.walk(e) if isinstance(x, tir.Var)
                and x.scope == "param"}
        if any(travel_of(self, self.scope_name(n)) != "shared" for n in used):
            raise NotCompilable(f"{f}'s declared range of {p.name} differs between tasks "
                                "(one task per call)")
        return cpu.extent_expr(self, f, k)
    if isinstance(t, T.IndexT):
        seq = self.scope_name(t.seq)
        return f"len(a_{seq})" if travel_of(self, seq) == "shared" else f"a_{seq}.shape[0]"
    if t == T.INT and f == self.plan.entry and self.plan.kind == "cell":
        return f"q_{k}.max()"
    return cpu.extent_expr(self, f, k)


def module(self) -> tuple[Module, list]:
    """The task's body for one lane (the lane index ``l`` free in its cells, its
    initial values and its result: kernel.lane_groups puts them in lane loops)."""
    plan = self.plan
    entry = self.program.functions[plan.entry]
    extents = Lines(self.extent_lines())
    b = extents.child()
    b.extend(extents)
    init = Lines([], b.counter)
    if plan.kind == "cell":
        self.scratch.append(("res", "LANES", "DT"))
        init.store(ir.Load("res", (LANE,)), ir.Const(math.nan, self.pr.nan()))
    fused_by_func: dict[str, list] = {}
    entry_em = self.emitter(self.task_names(entry), set())
    for k, fu in enumerate(plan.fused):
        for i, (lo, hi) in enumerate(fu.bounds):
            for side, e in (("lo", lo), ("hi", hi)):
                _bound(self, b, init, f"{side}{k}_{i}", e, entry_em, fu.func, i, side)
        self.scratch.append((f"acc{k}", "LANES", "DT"))
        init.store(ir.Load(f"acc{k}", (LANE,)), fused_init_ir(fu, self.pr))
        fused_by_func.setdefault(fu.func, []).append((k, fu))
    if init.stmts:
        b.nest(PerLane(tuple(init.stmts)))
    self.sweep(b, fused_by_func)
    tail = Lines([], b.counter)
    out = ir.Load("out", (LANE,))
    if plan.kind == "cell":
        ent_g = self.group_of[plan.entry]
        if ent_g.windowed:
            tail.store(out, ir.Load("res", (LANE,)))
        else:
            qs = [ir.Load(f"q_{i}", (LANE,))
                  for i in range(len(ent_g.extents.names[plan.entry]))]
            tail.store(out, ir.Load(f"T_{plan.entry}", (*qs, LANE)))
    else:
        fused_nodes = {id(fu.node): f"acc{k}" for k, fu in enumerate(plan.fused)}
        em = ExprEmitter(self.task_names(entry), self.program.consts, set(),
                         self.program.alphabets, rules=pack_rules(fused_nodes))
        tail.store(out, ir.Name(self.guarded_value(entry, em, tail)))
    b.nest(PerLane(tuple(tail.stmts)))
    args = lane_args(self)
    return module_record(self, args, b, extents), args


def _bound(self, b, init, name, e, em, func, dim, side):
    """A fused reduction's bound: per lane where it differs between lanes;
    left out where the sweep can never pass it (0 below, the extent above)."""
    blk = Lines([], b.counter)
    reads = self.lane_reads
    text = em.as_int(e, blk)
    if self.lane_reads != reads or blk.stmts:
        self.lane_bounds.add(name)
        self.scratch.append((name, "LANES", "BT"))  # (emit.narrow.consts)
        init.extend(blk)
        init.store(ir.Load(name, (LANE,)), text)
        return
    if self.bound_at_edge(e, func, dim, side):
        self.trivial_bounds.add(name)
        return
    b.assign(name, text)


def _profiles(self, args, body) -> profiles.Profiles:
    """The score profiles the body reads (kernel.profiles), their storage made by
    the caller with the pack's other scratch arrays."""
    lane_seqs, shared, models = set(), set(), set()
    for a in args:
        if a.role not in ("argument", "global", "layout"):
            continue
        p = self.plan.scope.get(a.of) if a.role == "argument" else None
        if p is not None and isinstance(p.type, T.SeqT):
            (lane_seqs if travel_of(self, a.of) == "seq" else shared).add(a.name)
        else:
            models.add(a.name)
    ctx = profiles.Profiles(frozenset(models), frozenset(shared), frozenset(lane_seqs),
                            LANE.id)
    found = profiles.find(body.stmts, ctx)
    self.scratch.extend((p.name, p.shape, "DT") for p in found)
    return replace(ctx, found=found)


def _symbol_extent(self) -> int:
    """The largest extent that is not a sequence length (alphabet sizes),
    for the host's float32 bound."""
    return max([0] + [self.program.functions[f].rec_params and
                      len(self.program.alphabets[p.type.alpha.name]) - 1
                      for g in self.plan.groups for f in g.functions
                      for p in self.program.functions[f].rec_params
                      if isinstance(p.type, T.SymT)])


def lane_args(self) -> list:
    return self.task_args(lambda n: [length(n)] if travel_of(self, n) == "seq" else [])


def module_record(self, args, body, extents=None) -> Module:
    helpers = "\n".join(self.helpers.values())
    found = _profiles(self, args, body)
    names = [n for n, _, _ in self.scratch]
    params = printed(args) + ["out", "big"] + names
    # the strategy's passes (kernel.strategies): the lane loops, the score profiles,
    # then the value type (emit.precision's decision made concrete), verified before
    # and after each
    lower(self.strategy, body, self.TARGET, params, lanes=Lanes(LANE.id, "LANES"),
          profiles=found, value=(self.value, self.pr.INF, value_tables(self)))
    task = Function("lanes", tuple(params), tuple(body.stmts), "NOALIAS")
    if self.pr.fails(self.value):
        raise NotCompilable("a run-time check a padded lane could not report")
    arrays = ", ".join(f"np.empty({shape}, {dt})" for _, shape, dt in self.scratch)
    scratch = self.pr.function("scratch", printed(args), f"{(extents or Lines()).render(1)}\n"
                               f"    return ({arrays}{',' if len(self.scratch) == 1 else ''})",
                               "SHORT")
    consts = (f"LANES = {narrow.lanes(self.value, PACK)}\nDT = np.{self.value.dtype}\n"
              f"INF = {'DT(np.iinfo(DT).max)' if self.value.narrow else 'DT(np.inf)'}\n"
              f"NSCRATCH = {len(self.scratch)}\n"
              f"F32 = {_f32_tuple(self.f32)}\n"
              f"NARROW = {narrow.text(narrow.narrow_info(self.program, self.plan))}\n"
              f"{narrow.consts(self.value)}"
              f"SYM_EXTENT = {_symbol_extent(self)}\n")
    return Module((NOALIAS_HEADER, HEADER, consts, self.pr.library("core"), helpers,
                   scratch, task))

# the strategy's pieces (emit.cpu.Pieces): a pack's members sweep in lockstep along
# the schedule; tuples are left to the plain task (emit.tuples)
PACKS = replace(CPU, TUPLES="a SIMD pack", ON_DEMAND=False, printer=printer, param=param,
                helper_param=helper_param, emitter=emitter, cell_ref=cell_ref,
                allocate=allocate, fuse=fuse, capture=capture, extent_expr=extent_expr)


def build_packs(strategy: Strategy, program, plan: TaskPlan, value: ValueType | str = "float64",
                shared: frozenset = frozenset(), check: bool = False, f32=None) -> Built:
    """Packs of tasks in lockstep on the CPU (emit.strategies "cpu task groups"):
    one pack per call, ``lanes(<arguments>, out, big, <storage>)``, its storage
    (windows, accumulators, per-lane bounds) allocated by the caller through the
    generated ``scratch(<arguments>)``. ``value``: emit.precision's value type (a
    dtype and ``check``: the older form), the input of the value-type pass
    (kernel.value_type; the lanes are generated without it), ``shared``: the
    arguments every task shares, ``f32``: the float32 facts the host keeps."""
    if plan.kind not in ("cell", "value"):
        raise NotCompilable("packs run map entries only")
    task = Task(
        program, _without_extent_pieces(program, plan), strategy, PACKS,
        value=value if isinstance(value, ValueType) else
        ValueType("float32c" if check and value == "float32" else value),
        lane_reads=0,  # values read per lane so far (a bound that reads one differs)
        tables=set(),  # the scratch arrays holding table values
        f32=f32,  # emit.precision.Float32 facts, kept in the module for the host
        shared=shared,  # entry arguments identical in every task
        scratch=[],  # (name, shape, dtype) made by the caller
        lane_bounds=set(),  # fused-reduction bounds that differ per lane
        trivial_bounds=set())  # bounds the sweep cannot pass
    record, args = module(task)
    return Built(record, tuple(args), task.pr, task.value)


def _f32_tuple(info) -> str:
    if info is None:
        return "None"
    return repr((info.linear, info.leaves, info.literal, info.coords, info.groups))


def _without_extent_pieces(program, plan: TaskPlan) -> TaskPlan:
    """Drop guard pieces whose conditions mention anything but the function's own
    recursive parameters (an extent, most often): per-lane extents differ."""
    groups = []
    for g in plan.groups:
        keep = []
        for func, pieces in g.pieces:
            own = {p.name for p in program.functions[func].rec_params}
            names = {v for _, dnf in pieces for conj in dnf for c in conj for v, _ in c.expr.coeffs}
            if names <= own:
                keep.append((func, pieces))
        groups.append(replace(g, pieces=tuple(keep)))
    return replace(plan, groups=tuple(groups))

