"""Planning one compiled task: which tables to sweep, in what order, how to store them.

A *task* evaluates one entry: a cell of a recursive function (``map`` takes the
final cell), a whole table, or a non-recursive function whose body reads
tables. Every recursive group the entry reaches is swept with its schedule, in
dependence order between groups. A group keeps only a sliding window of
partitions (thesis §5.5.4) when nothing outside it needs more: its own calls
stay within the window, and the entry reads it only through

* a reduction over a box of the table (``max(i in ... : max(j in ... : h(i, j)))``),
  which is fused into the sweep so the table is never stored, or
* the single cell that is asked for, captured as the sweep passes it.

Otherwise the whole table is kept.

The functions of a group may have fewer recursive parameters than the group has
positions (the schedule's embedding pads them with 0): a window then drops from
such a function's cells the eliminated coordinate only where it is one of its
own (:meth:`GroupPlan.eliminated_in`), and every other fact here is stated in
each function's own parameters.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from dslc.check import tir
from dslc.lang import types as T
from dslc.check.ranges import box_extent, extent_name
from dslc.check.tir import groups
from dslc.deps.extract import dependence_graph, guard_pieces, sequence_indexes
from dslc.deps.ir import ELEMENT, Affine
from dslc.deps.ranges import bound_relations
from dslc.errors import DslcError, NotCompilable
from dslc.plan.reach import reader_extent

if TYPE_CHECKING:  # the scheduler (and isl) is imported where a table is planned
    from dslc.deps.ir import DependenceGraph
    from dslc.poly.loopir import LoopNest
    from dslc.schedule.model import Extents, Schedule

# Windows deeper than this are not kept: past that depth rotating buffers cost more
# than they save, so the planner keeps the whole table (the schedule reports None).
WINDOW_LIMIT = 64


@dataclass(frozen=True)
class Fused:
    """A box reduction of the entry over one table, computed during the sweep."""

    node: tir.Reduce
    func: str
    op: str
    vars: tuple[str, ...]
    bounds: tuple[tuple[tir.TExpr, tir.TExpr], ...]
    type: T.Type


DEMAND = "demand"  # GroupPlan.strategy: cells evaluated on demand (see emit.demand)


@dataclass(frozen=True)
class GroupPlan:
    functions: tuple[str, ...]
    schedule: Schedule | None  # None for a group evaluated on demand
    extents: Extents
    windowed: bool
    eliminated: int | None  # the coordinate recomputed from t in window storage
    safe: frozenset = frozenset()  # call spans whose target is always in the domain
    distance: tuple = ()  # (call span, partition distance) of uniform calls
    pieces: tuple = ()  # (function, ((guard index, DNF), ...)) for guard-split functions
    safe_indexes: frozenset = frozenset()  # spans of s[e] proved inside s
    # spans of same-partition calls through extension accessors (an element any
    # number away, e.g. a silent HMM state's predecessors at the same position),
    # whose order inside the partition is found at run time (see emit.cpu)
    runtime_order: frozenset = frozenset()
    # "affine": swept along ``schedule``; DEMAND: no schedule was found or proved,
    # so each cell is computed when first needed, in an order found at run time
    strategy: str = "affine"
    reason: str = ""  # why the planner chose the strategy (explain shows it)
    # the dependences the schedule was found for (dslc.deps): part of the record, not
    # of the plan's identity
    graph: DependenceGraph | None = field(default=None, compare=False, repr=False)
    # each nest verified as it is built (the CompileOptions' verify_ir, plan.lower's verify)
    verify: bool = field(default=False, compare=False, repr=False)

    @functools.cached_property
    def nest(self) -> LoopNest | None:
        """The loop nest the generators walk: the sweep along the schedule, each
        guard piece its own statement. Built by isl the first time it is asked for;
        None for a group evaluated on demand."""
        return self._nest(dict(self.pieces) or None)

    @functools.cached_property
    def box_nest(self) -> LoopNest | None:
        """The same sweep over each function's box, guards not split into pieces
        (what ``dslc explain`` shows where no declared range cuts a domain)."""
        return self._nest(None)

    def _nest(self, pieces: dict | None) -> LoopNest | None:
        if self.schedule is None:
            return None
        from dslc.poly.nest import build_loop_nest  # isl, only where a nest is built

        return build_loop_nest(self.schedule, self.extents, pieces, verify=self.verify)

    @property
    def on_demand(self) -> bool:
        return self.strategy == DEMAND

    @property
    def window(self) -> int | None:
        """The schedule's window depth (None without a schedule)."""
        return None if self.schedule is None else self.schedule.window

    def cells(self) -> int:
        return sum(math.prod(self.extents.values[n] + 1 for n in self.extents.names[f])
                   for f in self.functions)

    def width(self) -> float:
        """Points per partition on average at the plan's extents: the
        parallelism a partition offers one point per thread (one point at a
        time for a group evaluated on demand)."""
        if self.schedule is None:
            return 1.0
        return self.cells() / max(1, self.schedule.partitions)

    def eliminated_in(self, func: str) -> int | None:
        """The parameter of ``func`` whose coordinate window storage recomputes
        from the partition: ``eliminated`` is a position of the group, and a
        function padded there keeps all of its coordinates."""
        if self.eliminated is None:
            return None
        own = self.schedule.embedding.of(func)
        return own.index(self.eliminated) if self.eliminated in own else None


@dataclass(frozen=True)
class TaskPlan:
    entry: str
    kind: str  # "cell" | "table" | "value"
    groups: tuple[GroupPlan, ...]
    fused: tuple[Fused, ...]
    scope: dict  # task-scope name -> TParam of the entry


def extent_names(program, func: str) -> tuple[str, ...]:
    """isl parameter names for a function's extents: shared by every function
    whose recursive parameter is bound to the same thing (``index[s]`` with the
    same ``s``), so a group's functions have the same domain."""
    out = []
    for p in program.functions[func].rec_params:
        t = p.type
        if isinstance(t, T.IndexT):
            out.append(f"E_len_{t.seq}")
        elif isinstance(t, T.SymT):
            out.append(f"E_sym_{t.alpha.name}")
        elif isinstance(t, T.ExtT):
            out.append(f"E_{t.name}_{t.owner}")
        else:
            out.append(extent_name(program.functions[func], p))
    return tuple(out)


def extent_value(program, func: str, k: int, args: dict, request: tuple | None,
                 earlier: tuple[int, ...] = (), reader: str | None = None) -> int:
    """The extent of parameter ``k`` (``earlier``: those of the parameters before it;
    ``reader``: the non-recursive entry bound to ``args`` whose calls bound an
    undeclared int parameter, :mod:`dslc.plan.reach`)."""
    f = program.functions[func]
    p = f.rec_params[k]
    t = p.type
    if p.range is not None:  # declared: the largest value its range allows
        if not all(q.name in args for q in f.calling_params):
            raise NotCompilable(f"{func} called with explicit arguments to its ranges")
        boxes = dict(zip((q.name for q in f.rec_params), earlier))
        top = box_extent(f, k, args, boxes, program.consts)
        if top < 0:  # an empty range: the interpreter says what is asked of it
            raise NotCompilable(f"the range of {func}'s parameter {p.name} is empty")
        return top
    if isinstance(t, T.IndexT):
        if t.seq not in args:  # the table is called with other sequences than the entry's
            raise NotCompilable(f"{func} called with explicit sequence arguments")
        return len(args[t.seq])
    if isinstance(t, T.SymT):
        return len(program.alphabets[t.alpha.name]) - 1
    if t == T.INT and request is not None:
        if not math.isfinite(request[k]):  # no table has an infinite side: the
            raise NotCompilable(f"{func}'s parameter {p.name} is infinite")  # interpreter says so
        return int(request[k])
    if t == T.INT and reader is not None:
        top = reader_extent(program, reader, args, func, k)
        if top is not None:
            return top
    if isinstance(t, T.ExtT) and t.owner:
        spec = program.registry.types.get(t.name)
        if t.owner in args and spec is not None and spec.size is not None \
                and spec.device_size is not None:
            try:
                return spec.size(args[t.owner]) - 1
            except DslcError as e:  # no such elements in this model: the interpreter says where
                raise NotCompilable(e.message) from None
    raise NotCompilable(f"the domain of {func}'s parameter {p.name}")


def reachable_tables(program, entry: str) -> list[str]:
    return [f.name for f in tir.reachable(program.functions, entry) if f.is_table]


def find_fused(program, entry: tir.TFunction) -> tuple[list[Fused], set[str]]:
    """Box reductions over tables in a non-recursive entry, and the tables the
    entry reads in any other way."""
    fused, other = [], set()

    def visit(e):
        f = _match_box(program, e)
        if f is not None:
            fused.append(f)
            return
        if isinstance(e, tir.Call) and program.functions[e.func].is_table:
            other.add(e.func)
        for c in tir.children(e):
            visit(c)

    for g in entry.guards:
        for part in (g.cond, g.body):
            if part is not None:
                visit(part)
    return fused, other


def _match_box(program, e) -> Fused | None:
    if not isinstance(e, tir.Reduce) or e.op not in ("max", "min", "sum"):
        return None
    vars_, bounds, node, op = [], [], e, e.op
    while isinstance(node, tir.Reduce) and node.op == op and node.where is None \
            and isinstance(node.iterable, tir.RangeIter):
        vars_.append(node.var)
        bounds.append((node.iterable.lo, node.iterable.hi))
        node = node.body
    if not isinstance(node, tir.Call) or not program.functions[node.func].is_table:
        return None
    f = program.functions[node.func]
    rec_args = [a for a, p in zip(node.args, f.params) if p.recursive]
    if len(rec_args) != len(vars_) or not node.rec_only:
        return None
    if not all(isinstance(a, tir.Var) and a.scope == "local" and a.name == v
               for a, v in zip(rec_args, vars_)):
        return None
    for lo, hi in bounds:
        for part in (lo, hi):
            if any(isinstance(x, tir.Var) and x.scope == "local" or isinstance(x, tir.Call)
                   for x in tir.walk(part)):
                return None
    rec_params = [p for p in f.params if p.recursive]
    if not all(_inside(p, lo, hi) for p, (lo, hi) in zip(rec_params, bounds)):
        return None
    return Fused(e, node.func, op, tuple(vars_), tuple(bounds), e.type)


def _inside(p, lo, hi) -> bool:
    """Does a fused range over ``p``'s dimension provably stay in its domain? A fused
    reduction visits the cells the sweep makes, so cells its range names outside the
    table would be skipped (or read from padding) where the interpreter reports the
    recursive argument outside its domain. For a sequence index (``0 .. len(s)``) the
    range must run from a sum of lengths and a number at least 0 (``0``, ``len(s)``)
    to ``len(s) - c``, ``c >= 0`` (each an affine expression of literals and lengths);
    any other range over it is read from the table, each read checked."""
    if not isinstance(p.type, T.IndexT):
        return True  # (a domain that planning derives from the same bounds)
    low, high = _affine(lo), _affine(hi)
    if low is None or high is None:
        return False
    end = high.pop(None, 0)
    # lengths are never negative: a start of lengths and a number, all added, is >= 0
    return all(v >= 0 for v in low.values()) and high == {p.type.seq: 1} and end <= 0


def _affine(e) -> dict | None:
    """``e`` as {sequence: coefficient of its len, None: constant}, where it is an
    affine expression of int literals and ``len`` of sequence parameters; else None."""
    match e:
        case tir.Lit(value=v) if type(v) is int:
            return {None: v}
        case tir.Builtin(name="len", args=(tir.Var(name=n),)):
            return {n: 1}
        case tir.Neg(operand=x):
            a = _affine(x)
            return None if a is None else {k: -v for k, v in a.items()}
        case tir.Arith(op="+" | "-" as op, left=a, right=b):
            x, y = _affine(a), _affine(b)
            if x is None or y is None:
                return None
            sign = 1 if op == "+" else -1
            out = dict(x)
            for k, v in y.items():
                out[k] = out.get(k, 0) + sign * v
            return {k: v for k, v in out.items() if v or k is None}
        case tir.Arith(op="*", left=a, right=b):
            x, y = _affine(a), _affine(b)
            if x is None or y is None:
                return None
            for c, other in ((x, y), (y, x)):
                if set(c) <= {None}:
                    k = c.get(None, 0)
                    return {n: k * v for n, v in other.items() if k * v or n is None}
    return None


def plan_task(program, entry: str, kind: str, args: dict, request: tuple | None,
              user_schedules: dict, assumed: int | None = None) -> TaskPlan:
    """The task's plan (called by :func:`dslc.plan.lower` only). ``assumed``: only
    the entry's own group is planned, every extent taking that value instead of the
    arguments' (explain, for a group the script never ran; the check of user
    schedules, which holds for every extent)."""
    f = program.functions[entry]
    fused, other = ([], set())
    if kind == "value":
        fused, other = find_fused(program, f)
    needed = reachable_tables(program, entry)
    all_groups = groups(program.functions)
    plans = []
    # a value entry's int arguments given as its request: they bound its tables
    reader = entry if kind == "value" and request is not None else None
    order = _group_order(program, all_groups, needed)
    if assumed is not None:
        order = [grp for grp in order if entry in grp]
    for grp in order:
        from dslc.schedule import model, solve, verify  # isl, where there is a table to plan

        graph = dependence_graph(program.functions, grp, program.consts)
        names = {g: extent_names(program, g) for g in grp}
        values = {}
        for g in grp:
            for k, n in enumerate(names[g]):
                earlier = tuple(values[m] for m in names[g][:k])
                values[n] = assumed if assumed is not None else extent_value(
                    program, g, k, args, request if g == entry else None, earlier, reader)
        ext = model.Extents(names, values)
        runtime = frozenset()
        try:
            if any(g in user_schedules for g in grp):
                sched = verify.checked_schedule(graph, group_schedule(program, grp, user_schedules),
                                                ext, window_limit=WINDOW_LIMIT)
            else:
                try:
                    sched = solve.find_schedule(graph, ext, window_limit=WINDOW_LIMIT)
                except DslcError as err:
                    if not extension_dims(program, grp):
                        raise  # the program's own error, reported as before
                    sched, runtime = _runtime_ordered(graph, ext, err)
        except DslcError as err:
            if not (data_dependent(graph) or by_elements(graph)) or not unprovable(err):
                raise
            plans.append(demand_plan(program, grp, graph, ext, err))
            continue
        read_outside = any(g in other for g in grp) or kind == "table" or any(
            _called_from_outside(program, g, grp) for g in grp)
        affine = not data_dependent(graph)  # a declared direction bounds a target on one side
        # keep the innermost loop's coordinate as a storage index (unit-stride access):
        # the coordinate recomputed from the partition is the last with |a| = 1
        elim = next((k for k in reversed(range(len(sched.coeffs))) if abs(sched.coeffs[k]) == 1),
                    None)
        windowed = (not read_outside and affine and sched.window is not None
                    and elim is not None)
        safe, distance = _call_facts(graph, ext, sched, bound_relations(
            [program.functions[g] for g in grp], program.consts))
        _declared_calls_proved(program, graph, safe, grp, entry)
        pieces = group_pieces(program, graph)
        plans.append(weighed(GroupPlan(grp, sched, ext, windowed, elim if windowed else None,
                                       safe, distance, pieces, _safe_indexes(program, grp, ext),
                                       runtime, graph=graph)))
    scope = {p.name: p for p in f.params}
    return TaskPlan(entry, kind, tuple(plans), tuple(fused), scope)


def _declared_calls_proved(program, graph, safe: frozenset, grp: tuple, entry: str) -> None:
    """Compiled code checks a call's target against the callee's box only, so a
    group with declared ranges compiles only when isl proves every call into
    them inside (the interpreter reports the exact call otherwise), and only
    when no other function reads them (the entry's own request is checked on
    the host, :func:`dslc.check.ranges.request_outside`)."""
    dom = {f.name: f.domain for f in graph.functions}
    if not any(dom.values()) and all(d is not None for d in dom.values()):
        return
    if any(d is None for d in dom.values()):
        raise NotCompilable("a declared range that is not affine in the recursive parameters")
    for d in graph.deps:
        if dom[d.callee] and d.span not in safe:
            raise NotCompilable(f"a call of {d.callee} not proved inside its declared ranges")
    for g in grp:
        if dom[g] and _called_from_outside(program, g, grp):
            raise NotCompilable(f"{g} (declared ranges) read from outside its group")


# The most copies of its cells the separated sweep of a group ordered at run time
# may hold, counted against the sweep over boxes (one statement per function).
# Separating guard pieces peels base rows and columns into loops of their own, which
# saves a guard test per cell; isl peels every combination of pieces, so the code
# grows with their product. In a group ordered at run time every copy of a cell also
# carries its done flag, its missing-read test and the partition's retry loop, so
# a peel saves little there and costs the most code (examples/hmmsearch.bio: six
# copies of six functions, 663 lines a module, a third of its compile time).
SEPARATED_CAP = 4


def weighed(g: GroupPlan) -> GroupPlan:
    """``g``, or ``g`` with its guard pieces dropped (each cell tests its guards)
    where it is ordered at run time and its separated nest would hold more than
    ``SEPARATED_CAP`` times the statements of the nest over boxes: compile time is
    a cost the compiler weighs. Pieces cut by declared ranges stay: without them
    the sweep would leave the declared domain."""
    if not g.pieces or not g.runtime_order or g.schedule is None or \
            any(rf.domain for rf in g.graph.functions):
        return g
    if nest_size(g.nest) <= SEPARATED_CAP * nest_size(g.box_nest):
        return g
    return replace(g, pieces=())


def nest_size(nest) -> int:
    """The statements (cells placed) of a loop nest: the copies of cell code."""
    from dslc.poly import loopir as L

    return sum(isinstance(s, L.Call) for s in L.walk(nest.body))


def group_pieces(program, graph) -> tuple:
    """The pieces of each function's domain that loop nests sweep: its guard
    pieces (``guard_pieces``), each cut by its declared ranges; a function with
    declared ranges and no guard pieces is one piece (``None``) cut by them."""
    out = []
    for rf in graph.functions:
        p = guard_pieces(program.functions[rf.name], program.consts)
        dom = tuple(rf.domain or ())
        if dom:
            p = [(k, tuple(conj + dom for conj in dnf)) for k, dnf in (p or [(None, ((),))])]
        if p is not None:
            out.append((rf.name, tuple(p)))
    return tuple(out)


def extension_dims(program, grp: tuple[str, ...]) -> bool:
    """Has a function of the group an extension-typed recursive parameter (an
    HMM state: calls through accessors are ordered inside a partition at run
    time, ``_runtime_ordered``, before evaluation on demand is considered)?"""
    return any(isinstance(p.type, T.ExtT) for g in grp for p in program.functions[g].rec_params)


def data_dependent(graph) -> bool:
    """Does a call of the group reach a cell whose offset depends on data
    (``ways(i, m - coin(i - 1))``, ``q(m - q(m - 1))``: an argument that is no
    affine function of the caller's parameters)?"""
    return any(d.data_dependent for d in graph.deps)


def by_elements(graph) -> bool:
    """Does a call of the group move by a constant array's element (``dist(src[e])``),
    whose order, where no affine schedule gives one, only the array's values give?"""
    return any(d.reads_elements for d in graph.deps)


def unprovable(err: DslcError) -> bool:
    """Is a scheduling failure one that evaluation on demand answers? A user
    schedule broken by a call with known offsets is wrong, and stays an error;
    one refused over a call whose offset depends on data (isl treats ``?`` as any
    cell) is only unproved."""
    from dslc.schedule.problems import InvalidScheduleError, PartitionCycleError

    if isinstance(err, InvalidScheduleError):
        return err.call.data_dependent or err.call.reads_elements
    if isinstance(err, PartitionCycleError):
        return any(d.data_dependent or d.reads_elements for d in err.calls)
    return True


def demand_plan(program, grp: tuple[str, ...], graph, ext: Extents, err: DslcError) -> GroupPlan:
    """The plan of a group no affine schedule is known to order because some
    calls' offsets depend on data: every cell is computed when first needed
    (emit.demand), so the order is the one the data gives at run time."""
    calls = ", ".join(dict.fromkeys(
        f"{d.callee}({', '.join('?' if a is None or _element_of(a) else str(a) for a in d.args)})"
        for d in graph.deps if d.data_dependent or d.reads_elements))
    reason = f"the offsets of {calls} depend on data, and {_unproved(err)}"
    return GroupPlan(grp, None, ext, False, None, strategy=DEMAND, reason=reason,
                     safe_indexes=_safe_indexes(program, grp, ext), graph=graph)


def _element_of(a: Affine) -> bool:
    """Does ``a`` move by a constant array's element (known only at run time)?"""
    return any(v.startswith(ELEMENT) for v, _ in a.coeffs)


def _unproved(err: DslcError) -> str:
    """Why no affine schedule is known, in a clause (the located error is for
    the compile-time refusal this plan replaces)."""
    from dslc.schedule.problems import (InvalidScheduleError, NoScheduleError,
                                        PartitionCycleError)

    if isinstance(err, NoScheduleError):
        return f"no affine schedule is proved to order them (coefficients up to ±{err.bound})"
    if isinstance(err, InvalidScheduleError):
        return "the schedule written for the group cannot be proved for them"
    if isinstance(err, PartitionCycleError):
        return "every schedule proved legal leaves a cycle inside a partition"
    return f"no schedule is proved ({err.message})"


def group_schedule(program, grp: tuple[str, ...], user_schedules: dict) -> tuple[int, ...]:
    """The coefficients of the user schedule a group follows: the one written
    for a function with the most recursive parameters where there is one (it
    names every position of the group), else the first."""
    written = [g for g in grp if g in user_schedules]
    widest = max(written, key=lambda g: len(program.functions[g].rec_params))
    return user_schedules[widest]


def _runtime_ordered(graph, ext: Extents, err: Exception):
    """A schedule for a group no affine schedule orders because some calls reach,
    in the same partition, an element anywhere in an extension dimension (``?``:
    ``hmm_fwd(t.start, i)`` from a silent state). Those calls are left out of the
    search; the schedule must then keep every such dimension inside a partition
    (coefficient 0), and the generated code finds the order within a partition at
    run time (cells wait for the cells they read; see emit.cpu). Calls that move
    only along those dimensions (``k - 1`` at the same position) then stay in
    their partition too, and are ordered at run time with them: a profile's
    delete states and the sum into its end state beside the begin state read at
    every node."""
    from dslc.schedule.solve import find_schedule

    params = {f.name: f.params for f in graph.functions}
    if len({len(ps) for ps in params.values()}) > 1:
        # the calls left out are matched position by position: not across padding
        raise NotCompilable(f"{err} (a run-time order inside a partition for functions "
                            "with different numbers of recursive parameters)") from None

    def same_partition_any(d) -> bool:
        mine = params[d.caller]
        if not any(a is None for a in d.args):
            return False
        return all(a is None or _identity(a, mine, k) for k, a in enumerate(d.args))

    inside = {k for d in graph.deps if same_partition_any(d)
              for k, a in enumerate(d.args) if a is None}

    def same_partition(d) -> bool:
        """Does ``d`` stay in its caller's partition once the ``inside``
        dimensions have coefficient 0 (``hs_d(k - 1, i)`` beside ``hs_b(?, i)``)?
        Such calls are ordered at run time like the ``?`` ones."""
        mine = params[d.caller]
        return all(k in inside or (a is not None and _identity(a, mine, k))
                   for k, a in enumerate(d.args))

    opaque = [d for d in graph.deps if inside and same_partition(d)]
    if not opaque:
        raise NotCompilable(str(err)) from None
    rest = replace(graph, deps=tuple(d for d in graph.deps if not same_partition(d)))
    try:
        sched = find_schedule(rest, ext, window_limit=WINDOW_LIMIT)
    except DslcError as e2:
        raise NotCompilable(str(e2)) from None
    if any(sched.coeffs[k] != 0 for k in inside):
        raise NotCompilable(str(err)) from None
    return sched, frozenset(d.span for d in opaque)


def _identity(a, mine, k: int) -> bool:
    """Is argument ``a`` at position ``k`` the caller's own coordinate there?"""
    return k < len(mine) and a.coeffs == ((mine[k], 1),) and a.const == 0


def _call_facts(graph, ext: Extents, sched: Schedule, related: tuple = ()):
    """Which calls need no domain check (decided exactly with isl from the
    guards, the extents' context and ``related``, what the extents of declared
    ranges are to each other: dslc.deps.ranges.bound_relations), and the
    partition distance of calls that move by a constant. A
    negative distance (the target in a later partition) belongs to a call the
    schedule's legality proves is never made (its target always leaves a guard or
    a declared range): it gets no slot, its reference is only ever compiled."""
    from dslc.poly.isl_sets import target_always_inside

    params = {f.name: f.params for f in graph.functions}
    dom = {f.name: f.domain or () for f in graph.functions}
    ctx = {f.name: f.context for f in graph.functions}
    safe, distance = set(), []
    for d in graph.deps:
        names = set(ext.names[d.caller]) | set(ext.names[d.callee])
        known = tuple(c for c in related if {v for v, _ in c.expr.coeffs} <= names)
        # an argument bounded by a declared direction may still leave the domain on
        # its other side: its target is never proved inside
        if not d.declared and target_always_inside(
                d, params[d.caller], ext.names[d.caller], ext.names[d.callee], dom[d.caller],
                dom[d.callee], params[d.callee], ctx[d.caller] + ctx[d.callee] + known):
            safe.add(d.span)
        dist = _uniform_distance(d, params[d.caller], sched)
        if dist is not None and dist >= 0:
            distance.append((d.span, dist))
    return frozenset(safe), tuple(distance)


def _uniform_distance(d, mine: tuple[str, ...], sched: Schedule) -> int | None:
    """``S(x) - S(target)`` of a call that moves every position by a constant
    (``f(i - 1, j)``; a padding position stays 0, so a smaller callee's missing
    positions must be padding of the caller too), else None."""
    emb = sched.embedding
    at_x = dict(zip(emb.of(d.caller), mine))
    at_y = dict(zip(emb.of(d.callee), d.args))
    total = 0
    for k, c in enumerate(sched.coeffs):
        x = Affine.of(0, **{at_x[k]: 1}) if k in at_x else Affine.of(0)
        y = at_y.get(k, Affine.of(0))
        if y is None or y.coeffs != x.coeffs:
            return None
        total += c * (x.const - y.const)
    return total


def _safe_indexes(program, grp, ext: Extents) -> frozenset:
    """Sequence indexes ``s[e]`` proved inside ``s`` wherever they are evaluated."""
    from dslc.poly.isl_sets import index_always_inside

    out = set()
    for g in grp:
        f = program.functions[g]
        params = tuple(p.name for p in f.rec_params)
        lengths = {p.type.seq: n for p, n in zip(f.rec_params, ext.names[g])
                   if isinstance(p.type, T.IndexT)}
        for node, aff, when in sequence_indexes(f, program.consts):
            seq = node.seq
            if isinstance(seq, tir.Var) and seq.name in lengths and index_always_inside(
                    params, ext.names[g], aff, lengths[seq.name], when):
                out.add(node.span)
    return frozenset(out)


def _called_from_outside(program, g: str, grp: tuple) -> bool:
    """Read by a table function of another group, the entry's included: groups are
    swept one after another, callees first, so such a reader runs when the sweep of
    ``g`` has finished and a window would hold only its last partitions, whatever
    cell the reader asks for. (A non-recursive function reading a table is not
    compiled at all, and the entry's own reads are fused reductions or the captured
    cell, see ``find_fused``.)"""
    for name, f in program.functions.items():
        if name in grp or not f.is_table:
            continue
        for guard in f.guards:
            for part in (guard.cond, guard.body):
                if part is not None and any(isinstance(e, tir.Call) and e.func == g
                                            for e in tir.walk(part)):
                    return True
    return False


def _group_order(program, all_groups, needed: list[str]) -> list[tuple[str, ...]]:
    """The groups the entry needs, callees' groups first."""
    wanted = [g for g in all_groups if any(f in needed for f in g)]
    order, done = [], set()

    def deps_of(grp):
        out = set()
        for f in grp:
            for e in (x for guard in program.functions[f].guards
                      for part in (guard.cond, guard.body) if part is not None
                      for x in tir.walk(part)):
                if isinstance(e, tir.Call) and program.functions[e.func].is_table \
                        and e.func not in grp:
                    out.add(e.func)
        return out

    def visit(grp):
        if grp in done:
            return
        done.add(grp)
        for f in deps_of(grp):
            visit(next(g for g in wanted if f in g))
        order.append(grp)

    for grp in wanted:
        visit(grp)
    return order
