"""CPU code generation: a task plan -> Python source for ``numba.njit``.

The generated module has one ``task`` function (one entry evaluated for one
binding of its arguments: every table swept partition by partition along the
isl loop nest) and one ``batch`` function that runs a range of a map's tasks, which
threads take in chunks (dslc.cpu.threads). Nothing in here knows any particular algorithm: it only reads the
typed IR, the schedule and the loop nest.

A group's functions may have fewer recursive parameters than the group has
positions (padded with 0 by the schedule's embedding): each function's cells
are indexed by its own parameters, its partition is ``S`` on its own
positions, and the loop nest places its statements. Only the loop nest's sweep
knows where a padded function's points are, so a generator placing cells by
another route (one partition's points over GPU threads) refuses such a group.

Every strategy's builder (emit.strategies names them) shares this module's code by
composition: it makes one :class:`Task`, the context holding the plan and what has been
built so far, whose methods are the shared builders of cells, sweeps, storage,
arguments and guards, with the strategy's :class:`Pieces` (the CPU's: :data:`CPU`), the
functions those builders call where strategies differ. The CPU's pieces are the
functions at the end of this module; their first parameter, ``self``, is the task.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

from dslc import sdk
from dslc.check import tir
from dslc.lang import types as T
from dslc.check.ranges import box_code
from dslc.deps.extract import directed_args
from dslc.emit import demand
from dslc.emit.built import Built
from dslc.emit.args import arg_name, argument  # noqa: F401 (the generators' names for them)
from dslc.emit import infinity
from dslc.emit import tuples
from dslc.plan.task import GroupPlan, TaskPlan
from dslc.emit.loopexpr import loop_expr
from dslc.emit.pyexpr import (Lines, ExprEmitter, Names, NotCompilable, Rule, leaf, named,
                              plain_read, render_code)
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel import value_type
from dslc.kernel.ir import TaskArg
from dslc.kernel.module import Function, Module
from dslc.kernel.strategies import lower
from dslc.kernel.verify import verify_body
from dslc.poly import loopir as L
from dslc.targets.printer import Printer

HEADER = "import numpy as np\nimport numba\n"


_STORED = (T.INT, T.FLOAT, T.PROB)  # table values kept as they are (bools become 0/1)


def _stored_type(t: T.Type) -> bool:
    """Is a table of ``t`` values kept as it is (numbers; tuples one number per
    component, emit.tuples)?"""
    return t in _STORED or isinstance(t, T.TupleT)


def length(p: str) -> TaskArg:
    """The task argument carrying each task's length of sequence argument ``p``
    (where the backend, not the task, knows it: a padded or interleaved buffer)."""
    return TaskArg(f"n_{p}", "length", p, "int64")


def printed(args) -> list[str]:
    """The task arguments' names as the generated code spells them."""
    return [a.name for a in args]


class _TaskNames(Names):
    """Names inside one task: scope parameters, the current point, tables; or, given
    its own printer ``pr``, inside a non-recursive helper function (``helper``): its
    own parameters, and the task's globals it reads passed in after them. How a
    parameter is spelled is the strategy's (``Pieces.param``, ``Pieces.helper_param``)."""

    def __init__(self, gen: "Task", func: tir.TFunction | None,
                 pr: Printer | None = None):
        self.gen, self.func, self.pr = gen, func, pr
        self.helper = pr is not None
        # the task's globals this helper reads, itself or through the helpers it
        # calls: passed in after its own parameters (a matrix a score helper reads)
        self.globals_read: dict[str, None] = {}

    def infinities(self):
        return infinity.of(self.gen.program)

    def function_name(self):
        return None if self.func is None else self.func.name

    def printer(self):
        return self.pr if self.helper else self.gen.pr

    def param(self, name, t):
        pieces = self.gen.pieces
        return (pieces.helper_param if self.helper else pieces.param)(self, name, t)

    def local(self, name):
        return f"v_{name}"

    def global_(self, name, t):
        if self.gen.has_layout(t):
            arg = TaskArg(f"g_{name}", "global", name)
            self.gen.globals_used[arg.name] = arg
            if self.helper:
                self.globals_read[arg.name] = None
            return ir.Name(arg.name)
        raise NotCompilable(f"global '{name}'")

    def table_read(self, call, args, block):
        return self.gen.read(call.func, args, call.span)

    def call(self, call, args, block):
        f = self.gen.program.functions[call.func]
        if self.helper:
            if f.is_table:
                raise NotCompilable(f"helper reading the table of {call.func}")
            out = self.gen.helper_call(call.func, args, self.pr)
            self.globals_read.update(dict.fromkeys(self.gen.helper_globals[call.func]))
            return out
        if f.is_table:
            rec = [a for a, p in zip(args, f.params) if p.recursive]
            for a, p in zip(call.args, f.params):
                if not p.recursive:
                    self.gen.check_inherited(a, p.name)
            in_group = self.func is not None and call.func in self.gen.group_functions(
                self.func.name)
            for k, name, direction in directed_args(call, self.func, f, in_group):
                rec[k] = direction_checked(rec[k], self.param(name, T.INT), direction,
                                           self.printer())
            return self.gen.read(call.func, rec, call.span)
        return self.gen.helper_call(call.func, args, self.printer())

    def coordinates(self, call):
        f = self.gen.program.functions[call.func]
        return frozenset(k for k, p in enumerate(f.params) if p.recursive and f.is_table)

    def layout_array(self, model, array):
        if self.helper:
            raise NotCompilable("a model's device layout read inside a helper function")
        return self.gen.layout_arg(model, array)

    def guarded_load(self, array, index):
        return self.gen.guarded_load(array, index, self.printer())

    def ext_index(self, e, base, keys):
        if e.indexer is not None and e.indexer.device_array is not None:
            return ir.Index(base, tuple(keys))
        raise NotCompilable("indexing an extension value without a device layout")

    def alphabet_size(self, alpha):
        if alpha.kind == "named":
            return ir.Const(len(self.gen.program.alphabets[alpha.name]))
        raise NotCompilable(f"alphabet of {alpha}")

    def symbol(self, lit):
        raise NotCompilable(f"symbol literal '{lit.text}' of a run-time alphabet")

    def ext_attr(self, e, block):
        raise NotCompilable(f"accessor .{e.accessor.name}")


def param(self, name, t):
    """A parameter's name inside the task (``self``: its names, :class:`_TaskNames`)."""
    if self.func is not None and self.func.is_table:
        p = self.func.param(name)
        if p is not None and p.recursive:
            return ir.Name(f"x_{name}")
    arg = ir.Name(arg_name(self.gen.scope_name(name)))
    if isinstance(t, T.IndexT) or (isinstance(t, T.ExtT) and t.owner):
        # a position or an element passed to a plain entry: an int64 index
        # (numbers travel as floats, see cpu.backend.convert)
        return self.gen.pr.ir_int64(arg)
    return arg


def helper_param(self, name, t):
    """A parameter's name inside a helper function: its own."""
    return f"p_{name}"


def window_slot(partition: ir.Expr, back: int, func: str, gi: int) -> ir.Expr:
    """The window slot of ``func``'s cells ``back`` partitions before ``partition``
    (group ``gi``'s window of ``W_gi`` partitions, from ``tmin_func``)."""
    step_back = ir.bare("-", partition, ir.Const(back), ir.Name(f"tmin_{func}"))
    return ir.bare("%", step_back, ir.Name(f"W_{gi}"))


def _is_name(x, name: str) -> bool:
    """Is ``x`` (text or a record) the variable ``name``?"""
    return x == name or isinstance(x, (ir.Name, ir.Text)) and name in (
        getattr(x, "id", None), getattr(x, "text", None))


def direction_checked(arg, mine, direction: str, pr: Printer) -> ir.Expr:
    """``arg`` checked against a declared direction (``int m decreasing``: below the
    caller's ``mine``) with the domain helper every generator already has (a kernel
    turns it into a flag, the backend re-runs the task and the interpreter reports
    the call): decreasing is ``0 <= arg <= mine - 1``, increasing ``arg - mine - 1 >=
    0`` (a value below 0 is outside the domain anyway). ``arg``: a record; ``mine``:
    a record, or text where a generator's names are still text (emit.packs)."""
    mine = leaf(mine)
    if direction == "decreasing":
        return pr.ir_check("_dom", arg, ir.bare("-", mine, ir.Const(1)))
    below = ir.bare("-", ir.Paren(arg), mine, ir.Const(1))
    above = pr.ir_check("_dom", below, ir.Const(9223372036854775807))
    return ir.Paren(ir.bare("+", above, mine, ir.Const(1)))


class Task:
    """The task being built: what every strategy's builder shares (its program and
    plan, the names and helpers it has made, the cell it is making) and the shared
    builders of cells, sweeps, storage and arguments as its methods. What differs
    between strategies is not here: each calls its strategy's ``pieces``
    (:class:`Pieces`), the record its builder composed."""

    # the strategy's constants (:class:`Pieces`)
    ON_DEMAND = property(lambda self: self.pieces.ON_DEMAND)
    REPORTS_INEXACT = property(lambda self: self.pieces.REPORTS_INEXACT)
    TUPLES = property(lambda self: self.pieces.TUPLES)
    TARGET = property(lambda self: self.pieces.TARGET)
    TABLES = property(lambda self: self.pieces.TABLES)

    def __init__(self, program, plan: TaskPlan, strategy=None, pieces: "Pieces | None" = None,
                 **own):
        """``strategy``: the row of the table (emit.strategies, a kernel.strategies
        ``Strategy``) whose passes the task's body is given (None: none, the
        traceback's walk); ``pieces``: the strategy's own pieces (default the CPU's,
        :data:`CPU`); ``own``: the strategy's own state, set before anything is built
        (a piece reads it)."""
        self.pieces = CPU if pieces is None else pieces
        self.__dict__.update(own)
        self.program, self.plan, self.strategy = program, plan, strategy
        if self.TUPLES is not None:
            tuples.refuse(program, plan, self.TUPLES)
        on_demand = [g for g in plan.groups if g.on_demand]
        if on_demand and not self.ON_DEMAND:
            raise NotCompilable(f"{', '.join(on_demand[0].functions)} is evaluated on demand "
                                f"({on_demand[0].reason})")
        self.demand_arities: set[int] = set()  # read helpers the demand evaluator uses
        self._demand_counter = [0]  # one name counter for every cell of the evaluator
        self.globals_used: dict[str, TaskArg] = {}  # by printed name
        self.pr = self.printer()  # how the task's code is spelled (targets.printer)
        self.helpers: dict[str, str] = {}
        self.helper_globals: dict[str, tuple[str, ...]] = {}  # globals a helper takes
        self.flagged: set[str] = set()  # helper functions holding a check (take the flag)
        self.host_allocations = 0  # arrays the task allocates itself (a kernel cannot)
        lengths = tuples.widths(program)
        if lengths:  # (a key no function has: names are identifiers)
            self.helpers["<tuples>"] = tuples.helpers(lengths, self.pr.for_value())
        self.group_of = {f: g for g in plan.groups for f in g.functions}
        self.current: str | None = None  # the function whose cell is being generated
        self.slots: dict[str, set[int]] = {}  # function -> partition distances read
        self.sweeping = False  # cells are being placed by the loop nest (see _cell)
        if plan.kind == "table" and not _stored_type(program.functions[plan.entry].ret):
            # a bool table is stored as 0/1, read back as a bool inside the task;
            # its cells as a whole table would come back as numbers (a single
            # cell's result is made a bool again by the backend; maps of them are
            # not compiled)
            raise NotCompilable(f"a table of {program.functions[plan.entry].ret} values "
                                "as the result")

    # ------------------------------------------------------------------ the strategy's pieces
    # (each a function of the task, chosen by the strategy's builder: :class:`Pieces`)
    def printer(self):
        return self.pieces.printer(self)

    def cell_ref(self, func, index):
        return self.pieces.cell_ref(self, func, index)

    def allocate(self, b, func, dims):
        return self.pieces.allocate(self, b, func, dims)

    def guarded_load(self, array, index, pr):
        return self.pieces.guarded_load(self, array, index, pr)

    def done_ref(self, func, index):
        return self.pieces.done_ref(self, func, index)

    def miss_ref(self):
        return self.pieces.miss_ref(self)

    def missing(self):
        return self.pieces.missing(self)

    def allocate_done(self, b, func, dims):
        return self.pieces.allocate_done(self, b, func, dims)

    def allocate_miss(self, b):
        return self.pieces.allocate_miss(self, b)

    def extent_expr(self, f, k):
        return self.pieces.extent_expr(self, f, k)

    def extent_lines(self):
        return self.pieces.extent_lines(self)

    def fuse(self, b, k, fu, xs, val):
        return self.pieces.fuse(self, b, k, fu, xs, val)

    def capture(self, b, xs, val):
        return self.pieces.capture(self, b, xs, val)

    def after_sweep(self, b):
        return self.pieces.after_sweep(self, b)

    def nest(self, g):
        return self.pieces.nest(self, g)

    def emitter(self, names, rec, safe_indexes=frozenset()):
        return self.pieces.emitter(self, names, rec, safe_indexes)

    def read(self, func, args, span=None):
        return self.pieces.read(self, func, args, span)

    def write(self, g, func, xs):
        return self.pieces.write(self, g, func, xs)

    def guarded_value(self, f, em, b):
        return self.pieces.guarded_value(self, f, em, b)

    # ------------------------------------------------------------------ names
    def group_functions(self, func: str) -> tuple[str, ...]:
        """The functions of ``func``'s recursive group (none outside the plan)."""
        g = self.group_of.get(func)
        return () if g is None else g.functions

    def has_layout(self, t: T.Type) -> bool:
        """Does an extension lay values of ``t`` out as an array (sdk.TypeSpec.device_array)?"""
        spec = self.program.registry.types.get(t.name) if isinstance(t, T.ExtT) else None
        return spec is not None and spec.device_array is not None

    def layout_arg(self, model: str, array: str) -> str:
        """The task argument carrying array ``array`` of the device layout
        (sdk.Layout) of the model in variable ``model`` (an argument of the entry
        or a global), one value shared by every task of a map; printed
        ``g__ARRAY_MODEL``."""
        if model in self.plan.scope:
            t = self.plan.scope[model].type
        elif model in self.program.global_types:
            t = self.program.global_types[model]
        else:
            raise NotCompilable(f"'{model}' is not an argument of the entry")
        spec = self.program.registry.types.get(t.name) if isinstance(t, T.ExtT) else None
        if spec is None or spec.layout is None or spec.layout.array(array) is None:
            raise NotCompilable(f"no layout array '{array}' for '{model}'")
        name = f"_{array}_{model}"
        if name in self.program.global_types:
            raise NotCompilable(f"global '{name}' clashes with a layout argument")
        arg = TaskArg(f"g_{name}", "layout", (array, model))
        self.globals_used[arg.name] = arg
        return arg.name

    def bound_at_edge(self, e: tir.TExpr, func: str, dim: int, side: str) -> bool:
        """Is fused-reduction bound ``e`` the edge of ``func``'s domain in ``dim``
        (0 below, the sequence's length above), so that the sweep never passes it
        and its test can be left out? Decided on the typed IR; where unsure, no."""
        if side == "lo":
            return isinstance(e, tir.Lit) and type(e.value) is int and e.value == 0
        t = self.program.functions[func].rec_params[dim].type
        if not (isinstance(t, T.IndexT) and isinstance(e, tir.Builtin) and e.name == "len"):
            return False
        s = e.args[0]
        try:
            return isinstance(s, tir.Var) and s.scope == "param" and \
                self.scope_name(s.name) == self.scope_name(t.seq)
        except NotCompilable:
            return False

    def scope_name(self, name: str) -> str:
        if name in self.plan.scope:
            return name
        raise NotCompilable(f"'{name}' is not an argument of the entry")

    def check_inherited(self, arg: tir.TExpr, pname: str) -> None:
        if not (isinstance(arg, tir.Var) and arg.name == pname and arg.scope in ("param", "global")):
            raise NotCompilable("a table read with explicit calling arguments")

    def _checked(self, arg, extent: str, dom: str, *extra: str) -> ir.Helper:
        """``arg`` (a record) checked inside the domain ``0 .. extent``."""
        return self.pr.ir_check(dom, arg, ir.Name(extent), *(ir.Name(x) for x in extra))

    def _stored(self, g: GroupPlan, func: str, args: list[str], checked: list[str],
                span) -> str:
        """Where the cell ``args`` (domain-checked as ``checked``) of ``func`` is read."""
        if not g.windowed:
            if span in g.runtime_order and self.current in g.functions:
                # a same-partition read resolved at run time: not ready yet -> retry
                done = self.done_ref(func, checked)
                return ir.Cond(done, self.cell_ref(func, checked), self.missing())
            return self.cell_ref(func, checked)
        dist = dict(g.distance).get(span) if self.current in g.functions else None
        elim = g.eliminated_in(func)
        rest = [c for k, c in enumerate(checked) if k != elim]
        if dist is not None:
            self.slots.setdefault(func, set()).add(dist)
            slot = ir.Name(f"slot_{func}_{dist}")
            if elim is not None and checked[elim] != args[elim]:
                # the coordinate not used as an index still has its domain checked
                slot = ir.bare("+", slot, ir.bare("*", ir.Const(0), checked[elim]))
            return self.cell_ref(func, [slot] + rest)
        # the partition is computed from the checked coordinates, so the one not
        # used as an index (it follows from the partition) is checked too
        part = ir.bare("-", ir.Paren(self._partition(g, func, checked)), ir.Name(f"tmin_{func}"))
        at = ir.bare("%", ir.Paren(part), ir.Name(f"W_{self._gid(g)}"))
        return self.cell_ref(func, [at] + rest)

    def _in_demand(self) -> bool:
        """Is the cell being generated one of a group evaluated on demand?"""
        g = self.group_of.get(self.current) if self.current is not None else None
        return g is not None and g.on_demand

    def _own_coordinate(self, arg: str, extent: str) -> bool:
        """Is ``arg`` a coordinate of the cell being computed, over the same extent
        (so inside the domain: ``w(v, b)`` from ``v``'s own cell, whatever isl
        could prove about the call's other arguments)?"""
        if self.current is None:
            return False
        f = self.program.functions[self.current]
        names = self.group_of[self.current].extents.names[self.current]
        return any(_is_name(arg, f"x_{p.name}") and n == extent
                   for p, n in zip(f.rec_params, names))

    # the value type (kernel.value_type): emit.precision's decision, the input of the
    # value-type pass (float64 here; emit.packs and emit.tiles take it from the backend)
    value = value_type.FLOAT64

    @property
    def dtype(self) -> str:
        """The storage and arithmetic type of table values."""
        return self.value.dtype

    def value_tables(self) -> frozenset:
        """Arrays holding table values, whose stores the checked float32 argument
        records (kernel.value_type)."""
        return frozenset()

    def verified(self, body: Lines, params: list[str]) -> Lines:
        """``body`` as the kernel IR's verifier passes it: its records read only
        ``params`` and the names it defines, in memory the target has."""
        verify_body(tuple(body.stmts), self.TARGET, known=params)
        return body

    def element(self, array: str, index: list) -> ir.Load:
        """Element ``index`` (records, or names as text) of one of the task's tables or
        flags."""
        return ir.Load(array, tuple(named(i) for i in index), self.TABLES)

    def _partition(self, g: GroupPlan, func: str, args: list) -> ir.Expr:
        """``S`` of ``func``'s point ``args`` (records; its own parameters'
        coefficients)."""
        terms = [ir.bare("*", ir.Const(c), ir.Paren(a))
                 for c, a in zip(g.schedule.own(func), args) if c]
        return ir.bare("+", *terms) if terms else ir.Const(0)

    def _gid(self, g: GroupPlan) -> int:
        return self.plan.groups.index(g)

    def helper_call(self, name: str, args: list, pr: Printer) -> ir.Call:
        """A call of helper function ``name`` with ``args`` (records; generated first:
        whether it holds a check decides whether it takes a kernel's failure flag)."""
        self.need_helper(name)
        flagged = name in self.flagged
        pr.calls_flagged = pr.calls_flagged or flagged
        args = list(args) + [ir.Name(g) for g in self.helper_globals[name]]
        # flagged where the printer's target passes the flag (a device's)
        return ir.Call(f"fn_{name}", tuple(args), flagged and pr.device)

    def need_helper(self, name: str) -> None:
        if name in self.helpers:
            return
        self.helpers[name] = ""  # reserve (recursion is impossible: non-table)
        f = self.program.functions[name]
        pr = self.pr.helper()  # float64 values, its own record of checks
        names = self.helper_names(f, pr)
        em = self.emitter(names, set())
        b = Lines()
        val = self.guarded_value(f, em, b)
        if pr.fails() or pr.calls_flagged:
            self.flagged.add(name)
        self.pr.used |= pr.used
        self.helper_globals[name] = tuple(names.globals_read)
        params = pr.helper_params([f"p_{p.name}" for p in f.params]
                                  + list(self.helper_globals[name]), name in self.flagged)
        body = self.verified(b, params).render(1)
        self.helpers[name] = pr.function(f"fn_{name}", params, f"{body}\n    return {val}")

    # ------------------------------------------------------------------ bodies
    def _guard_chain(self, guards, k, em, b, out, ret):
        g = guards[k]
        value = lambda blk: em.as_value(g.body, blk) if ret == T.INT else em.expr(g.body, blk)  # noqa: E731
        if g.cond is None:
            b.assign(out, value(b))
            return
        cond = em.expr(g.cond, b)
        then, orelse = b.child(), b.child()
        then.assign(out, value(then))
        self._guard_chain(guards, k + 1, em, orelse, out, ret)
        b.if_(cond, then, guard=g.cond)
        b.else_(orelse)

    def _cell(self, func: str, fused_for: list, guard: int | None = None) -> Lines:
        """The code computing one cell of ``func``: all its guards, or only guard
        ``guard`` when the domain was split into guard pieces."""
        f = self.program.functions[func]
        if not _stored_type(f.ret) and f.ret != T.BOOL:
            raise NotCompilable(f"a table of {f.ret} values")
        k = tuples.width(f.ret)
        if k is not None and self.group_of[func].runtime_order:
            raise NotCompilable(f"{func} holds tuples and its cells are ordered inside a "
                                "partition at run time (not compiled for tuples)")
        if not self.sweeping and self.group_of[func].schedule.embedding.padded:
            raise NotCompilable(f"{func}'s group has functions with different numbers of "
                                "recursive parameters: only the loop nest places them")
        em = self.emitter(self.task_names(f), {p.name for p in f.rec_params},
                          self.group_of[func].safe_indexes)
        b = Lines()
        self.current = func
        try:
            if guard is None:
                val = self.guarded_value(f, em, b)
            else:
                val = b.fresh("val")
                body = f.guards[guard].body
                b.assign(val, em.as_value(body, b) if f.ret == T.INT else em.expr(body, b))
        finally:
            self.current = None
        val = _stored(f, val, b, ints=False, pr=self.pr)
        g = self.group_of[func]
        xs = [f"x_{p.name}" for p in f.rec_params]
        store = b.child() if g.runtime_order else b
        if k is not None:
            tuples.exact(store, f.ret, val, self.pr)
            store.eval(tuples.put(k, self.write(g, func, xs), val))
        else:
            self.put(store, self.write(g, func, xs), val)
        for k, fu in fused_for:
            self.fuse(store, k, fu, xs, val)
        if self.plan.kind == "cell" and func == self.plan.entry and g.windowed:
            self.capture(store, xs, val)
        if g.runtime_order:
            return self._retried_cell(b, store, func, xs)
        return b

    def demand_cell(self, func: str, stack: str) -> Lines:
        """One cell of ``func`` in a group evaluated on demand, at the top of
        ``stack`` (emit.demand)."""
        f = self.program.functions[func]
        g = self.group_of[func]
        em = self.emitter(self.task_names(f), {p.name for p in f.rec_params}, g.safe_indexes)
        b = Lines([], self._demand_counter)
        self.current = func
        try:
            val = self.guarded_value(f, em, b)
        finally:
            self.current = None
        val = _stored(f, val, b, ints=True, pr=self.pr)
        return demand.cell_body(self, func, stack, b, val)

    def _retried_cell(self, value: Lines, store: Lines, func: str, xs: list[str]) -> Lines:
        """A cell of a group whose same-partition order is found at run time: computed
        when every same-partition cell it reads is done, else left for the next pass."""
        done = self.done_ref(func, xs)
        store.store(done, ir.Const(1))
        body = value.child()
        body.store(self.miss_ref(), ir.Const(0))
        body.extend(value)
        later = body.child()
        later.augment("_left", "+", ir.Const(1))
        body.if_(ir.Bin("==", self.miss_ref(), ir.Const(0)), store)
        body.else_(later)
        out = value.child()
        out.if_(ir.Bin("==", done, ir.Const(0)), body)
        return out

    def task_names(self, f) -> "_TaskNames":
        return _TaskNames(self, f)

    def helper_names(self, f, pr: Printer) -> "_TaskNames":
        return _TaskNames(self, f, pr)

    @functools.cached_property
    def sums_bounded(self) -> bool:
        """Is every int value of the plan a small multiple of its leaves
        (emit.precision's linear argument), so that an int sum needs no check
        against 2^53 (ExprEmitter.exact)?"""
        from dslc.emit.precision import linear_sums

        return linear_sums(self.program, self.plan)

    @staticmethod
    def put(b: Lines, where, val: str) -> None:
        """``val`` (a local's name) written where a cell is kept: a table element (a
        ``Load``), or a local (a register of emit.tiles, named)."""
        if isinstance(where, str):
            b.assign(where, ir.Name(val))
        else:
            b.store(where, ir.Name(val))

    # ------------------------------------------------------------------ task
    def task_body(self) -> tuple[Lines, list[TaskArg]]:
        """The task's statements (before its strategy's passes) and its arguments."""
        plan = self.plan
        b = Lines(self.extent_lines())
        if plan.kind == "cell":
            names = self.group_of[plan.entry].extents.names[plan.entry]
            for i, e in enumerate(names):
                b.eval(self.pr.ir_check("_dom", ir.Name(f"q_{i}"), ir.Name(e)))
            k = tuples.width(self.program.functions[plan.entry].ret)
            nan = ir.Const(math.nan, self.pr.nan())
            b.assign("res", nan if k is None else ir.Tuple((nan,) * k))
        fused_by_func: dict[str, list] = {}
        entry_names = self.task_names(self.program.functions[plan.entry])
        entry_em = self.emitter(entry_names, set())
        for k, fu in enumerate(plan.fused):
            for i, (lo, hi) in enumerate(fu.bounds):
                b.assign(f"lo{k}_{i}", entry_em.as_int(lo, b))
                b.assign(f"hi{k}_{i}", entry_em.as_int(hi, b))
            b.assign(f"acc{k}", fused_init_ir(fu, self.pr))
            fused_by_func.setdefault(fu.func, []).append((k, fu))
        self.sweep(b, fused_by_func)
        self.after_sweep(b)
        if plan.kind == "cell":
            ent_g = self.group_of[plan.entry]
            if not ent_g.windowed:
                qs = [f"q_{i}" for i in range(len(ent_g.extents.names[plan.entry]))]
                b.assign("res", self.stored_value(plan.entry, qs))
            self.give_result(b, ir.Name("res"))
        elif plan.kind == "table":
            self.give_result(b, f"({''.join(f'T_{f}, ' for f in self.whole_tables())})")
        else:
            f = self.program.functions[plan.entry]
            fused_nodes = {id(fu.node): f"acc{k}" for k, fu in enumerate(plan.fused)}
            em = fused_emitter(entry_names, self.program, fused_nodes)
            self.give_result(b, ir.Name(self.guarded_value(f, em, b)))
        args = self.task_args()
        return b, args

    def give_result(self, b: Lines, value) -> None:
        """The task's last statement, ``return value`` (a kernel.body.Return record):
        a device task returns the value through its failure flag (the failure-flag
        pass, kernel.failure_flags, reads it off the record)."""
        b.return_(value)

    def whole_tables(self) -> list[str]:
        """The tables a ``table`` entry returns: the entry's, then the others of its
        group, which the same sweep fills whole (a traceback reads them all, one
        sweep instead of one per table); a group filled on demand has only the
        cells its entry needed of the others, so it returns the entry's alone."""
        entry = self.plan.entry
        g = self.group_of[entry]
        return [entry] + ([] if g.on_demand else [f for f in g.functions if f != entry])

    def read_stored(self, func: str, index: list[str]) -> str:
        """A stored cell of ``func`` as a value (a tuple's components together)."""
        return self.pr.expr(self.stored_value(func, index))

    def stored_value(self, func: str, index: list) -> ir.Expr:
        """:meth:`read_stored` as a record."""
        k = tuples.width(self.program.functions[func].ret)
        ref = self.cell_ref(func, index)
        return ref if k is None else ir.Call(tuples.getter(k), (ref,))

    def result_width(self) -> int | None:
        """The number of components of the task's result (a tuple), else None."""
        return tuples.width(self.program.functions[self.plan.entry].ret)

    def task_args(self, per_argument=lambda name: [], windows: bool = True) -> list[TaskArg]:
        """The task's arguments, in order: the entry's (each followed by what a
        backend adds for it, ``per_argument(name)``), the globals its code reads,
        the window depths (``windows``) and, for a cell, the cell asked for."""
        plan = self.plan
        entry = self.program.functions[plan.entry]
        args = []
        for p in entry.params if plan.kind == "value" else entry.calling_params:
            args += [argument(p.name), *per_argument(p.name)]
        args += [self.globals_used[n] for n in sorted(self.globals_used)]
        if windows:
            args += [TaskArg(f"W_{gi}", "window", gi, "int64")
                     for gi, g in enumerate(plan.groups) if g.windowed]
        if plan.kind == "cell":
            args += [TaskArg(f"q_{i}", "cell", i, "int64") for i in range(len(
                self.group_of[plan.entry].extents.names[plan.entry]))]
        return args

    def extent_assignments(self) -> list[tuple]:
        """(name, expression) of every extent the plan's groups use, each once:
        what :meth:`extent_lines` prints, as data for generators that need the
        names it defines (emit.tiles passes them to its device functions)."""
        pairs = [(name, self.extent_expr(f, k)) for g in self.plan.groups
                 for f in g.functions for k, name in enumerate(g.extents.names[f])]
        return list(dict.fromkeys(pairs))

    def sweep(self, b: Lines, fused_by_func: dict) -> None:
        """Every group's storage and its loop nest, callees' groups first (the
        task's body between its prologue and its result)."""
        for gi, g in enumerate(self.plan.groups):
            if g.on_demand:
                demand.emit_group(self, b, gi, g)
                continue
            self._storage(b, gi, g)
            pieces = dict(g.pieces)
            cells = {}
            self.sweeping = True
            try:
                for f in g.functions:
                    if f in pieces:
                        for k, _ in pieces[f]:
                            # piece None: the whole (declared) domain, guards tested per cell
                            cells[(f, k)] = self._cell(f, fused_by_func.get(f, []), k)
                    else:
                        cells[(f, None)] = self._cell(f, fused_by_func.get(f, []))
            finally:
                self.sweeping = False
            self._loops(b, self.nest(g), cells, g, gi)

    def _bound_atom(self, e: tir.TExpr) -> str:
        """A calling value in a declared range, as the task's code reads it."""
        match e:
            case tir.Var(scope="global", name=n):
                return str(int(self.program.consts[n]))
            case tir.Var(name=n):
                return f"int({arg_name(self.scope_name(n))})"
            case tir.Builtin(name="len", args=(s,)):
                return f"len({arg_name(self.scope_name(s.name))})"
            case tir.ExtAttr(base=tir.Var(name=n), accessor=sdk.Accessor(
                    device=sdk.Length(array="", axis=axis))):  # a 2-D array's g.rows, g.cols
                a = arg_name(self.scope_name(n))
                return f"len({a})" if axis == 0 else f"len({a}[0])"
        raise NotCompilable(f"a declared range's bound {e}")

    def _storage(self, b: Lines, gi: int, g: GroupPlan) -> None:
        for f in g.functions:
            ext = g.extents.names[f]
            # shapes are loop-IR expressions over the extents and window depths: the
            # text of a host allocation, evaluated by a backend allocating on a device
            if g.windowed:
                elim = g.eliminated_in(f)
                dims = [L.Var(f"W_{gi}")] + [_past(e) for k, e in enumerate(ext) if k != elim]
                lows = [ir.bare("*", ir.Call("min", (ir.Const(0), ir.Const(c))), ir.Name(e))
                        for c, e in zip(g.schedule.own(f), ext) if c]
                b.assign(f"tmin_{f}", ir.bare("+", *lows) if lows else ir.Const(0))
            else:
                dims = [_past(e) for e in ext]
            self._allocate(b, f, dims)
            if g.runtime_order:
                self.allocate_done(b, f, dims)
        if g.runtime_order:
            self.allocate_miss(b)

    def _allocate(self, b: Lines, func: str, dims: list) -> None:
        """Storage for ``func``'s cells: a tuple's components one more dimension."""
        k = tuples.width(self.program.functions[func].ret)
        self.allocate(b, func, dims if k is None else dims + [L.Const(k)])

    def _loops(self, b: Lines, body: L.Stmt, cells: dict, g: GroupPlan, gi: int,
               in_partition: bool = False, retried: bool = False) -> None:
        """The loop nest's statements as code; ``cells``: the code of each
        (function, guard piece) cell; ``retried``: inside one partition's retry
        loop already (:meth:`_lone_partitions`)."""
        if g.runtime_order and not in_partition and not retried:
            self._lone_partitions(b, body, cells, g, gi)
            return
        for node in L.statements(body):
            self._statement(b, node, cells, g, gi, in_partition, retried)

    def _statement(self, b: Lines, node: L.Stmt, cells: dict, g: GroupPlan, gi: int,
                   in_partition: bool, retried: bool) -> None:
        """One statement of the loop nest as code (see :meth:`_loops`)."""
        if isinstance(node, L.For):
            inner = b.child()
            if node.kind == "partition" and g.windowed:
                # one modulo per partition and distance, not one per access
                for f in g.functions:
                    for d in sorted(self.slots.get(f, ())):
                        inner.assign(f"slot_{f}_{d}", window_slot(ir.Name(node.var), d, f, gi))
            self._loops(inner, node.body, cells, g, gi,
                        in_partition or node.kind == "partition", retried)
            if g.runtime_order and node.kind == "partition":
                inner = self._retry(inner)
            kind = "parallel" if node.kind == "parallel" else "sequential"
            over = (loop_expr(node.lower), ir.bare("+", loop_expr(node.upper), ir.Const(1)),
                    ir.Const(node.step))
            b.loop(node.var, over, inner, kind, partition=node.kind == "partition")
        elif isinstance(node, L.Guard):
            then, orelse = b.child(), b.child()
            self._loops(then, node.body, cells, g, gi, in_partition, retried)
            b.if_(loop_expr(node.cond), then)
            if L.statements(node.orelse):
                self._loops(orelse, node.orelse, cells, g, gi, in_partition, retried)
                b.else_(orelse)
        elif isinstance(node, L.Call):
            f = self.program.functions[node.function]
            coords = tuple(ir.Assign(f"x_{p.name}", loop_expr(a))
                           for p, a in zip(f.rec_params, node.args))
            point = tuple(f"x_{p.name} = {a.to_python()}"
                          for p, a in zip(f.rec_params, node.args))
            b.nest(kb.Point(coords))
            if g.windowed and not in_partition:
                # a lone point outside any partition loop: its own slots
                part = self._partition(g, f.name, [ir.Name(f"x_{p.name}") for p in f.rec_params])
                for h in g.functions:
                    for d in sorted(self.slots.get(h, ())):
                        b.assign(f"slot_{h}_{d}", window_slot(part, d, h, gi))
            if g.runtime_order and not in_partition and not retried:
                lone = b.child()
                self.compute(lone, point, cells[(node.function, node.piece)])
                b.extend(self._retry(lone))
            else:
                self.compute(b, point, cells[(node.function, node.piece)])

    def _lone_partitions(self, b: Lines, body: L.Stmt, cells: dict, g: GroupPlan,
                         gi: int) -> None:
        """The statements outside any partition loop of a group ordered at run
        time: isl writes a partition it peels (a base row, a guard piece of its
        own) as lone statements, one per function and piece, in an order that
        need not be the one the data gives. Consecutive statements of one
        partition (their points' ``S`` equal as affine forms) are retried
        together until all are done, as a partition loop's body is; one whose
        partition is not known alone is retried by itself (``_loops``)."""
        stmts = L.statements(body)
        k = 0
        while k < len(stmts):
            part = self._partition_of(g, stmts[k])
            end = k + 1
            while part is not None and end < len(stmts) and \
                    self._partition_of(g, stmts[end]) == part:
                end += 1
            if part is None:
                self._statement(b, stmts[k], cells, g, gi, False, False)
            else:
                region = b.child()
                self._loops(region, L.Body(stmts[k:end]), cells, g, gi, retried=True)
                b.extend(self._retry(region))
            k = end

    def _partition_of(self, g: GroupPlan, stmt: L.Stmt):
        """The affine form (``loopir.linear``) of the partition every statement
        instance of ``stmt`` lies in, or None (a partition loop, no call, calls
        in different partitions, or a form that is not affine)."""
        forms = set()
        for node in L.walk(stmt):
            if isinstance(node, L.For) and node.kind == "partition":
                return None
            if isinstance(node, L.Call):
                coeffs = g.schedule.own(node.function)
                total = L.Const(0)
                for c, a in zip(coeffs, node.args):
                    if c:
                        total = L.Add(total, L.Mul(L.Const(c), a))
                forms.add(L.linear(total))
        if len(forms) != 1 or None in forms:
            return None
        return forms.pop()

    def _retry(self, sweep: Lines) -> Lines:
        """Repeat one partition's sweep until every cell is done (cells read in the
        same partition through accessors: their order is known only at run time);
        a pass that finishes no cell means a cycle, reported by the interpreter."""
        left, prev = ir.Name("_left"), ir.Name("_prev")
        loop = sweep.child()
        loop.assign("_prev", left)
        loop.assign("_left", ir.Const(0))
        loop.extend(sweep)
        stuck = sweep.child()
        stuck.eval(self.pr.ir_check("_chk", ir.Const(-1), ir.Const(0)))
        stuck.break_()  # where a failed check does not stop the task (a GPU kernel)
        loop.if_(ir.bare("and", ir.Bin("!=", left, ir.Const(0), bare=True),
                         ir.Bin("==", left, prev, bare=True)), stuck)
        out = sweep.child()
        out.assign("_left", ir.Const(-1))
        out.while_(ir.Bin("!=", left, ir.Const(0), bare=True), loop)
        return out

    def compute(self, b: Lines, point: tuple, cell: Lines) -> None:
        """Place one cell's code at its point of the loop nest (the point's
        coordinates, ``point``, are already assigned)."""
        b.nest(kb.Cell(tuple(cell.stmts)))


def build_task(strategy, program, plan: TaskPlan) -> Built:
    """The CPU's task (emit.strategies "cpu plain"): one binding's sweep, its tables
    allocated by the task itself, then the row's passes (``strategy``: the row; None
    applies none)."""
    task = Task(program, plan, strategy)
    body, args = task.task_body()
    return Built(module_record(task, args, body), tuple(args), task.pr,
                 width=task.result_width())


def module_record(self, args: list[TaskArg], body: Lines) -> Module:
    """The module: the task after its strategy's passes (verified), the helpers
    and module values it needs."""
    src = [HEADER, self.pr.library("core", "domain")]
    if self.result_width() is not None:  # a map's batch stores each component
        src.append(f"RESULT_WIDTH = {self.result_width()}\n")
    if self.plan.kind == "table":  # the tables ``task`` returns, in order
        src.append(f"TABLES = {tuple(self.whole_tables())!r}\n")
    if self.demand_arities:
        src.append(self.pr.library("demand"))
        src += [demand.read_helper(n) for n in sorted(self.demand_arities)]
    src += [h for h in self.helpers.values()]
    if self.strategy is not None:
        lower(self.strategy, body, self.TARGET, printed(args))
    body = self.verified(body, printed(args))
    src.append(Function("task", tuple(printed(args)), tuple(body.stmts)))
    return Module(tuple(src))


def requested(xs: list[str]) -> ir.Expr:
    """``x_i == q_0 and ...``: the point is the requested cell."""
    return ir.bare("and", *requested_tests(xs))


def requested_tests(xs: list[str]) -> list[ir.Expr]:
    """``x_i == q_0``, ...: each coordinate the requested cell's."""
    return [ir.Bin("==", ir.Name(x), ir.Name(f"q_{i}"), bare=True) for i, x in enumerate(xs)]


def in_bounds(k: int, xs: list[str]) -> list[ir.Expr]:
    """``lo{k}_0 <= x_i <= hi{k}_0``, ...: the point inside fused reduction ``k``'s
    bounds, a coordinate at a time."""
    return [ir.Chain(("<=", "<="), (ir.Name(f"lo{k}_{i}"), ir.Name(x), ir.Name(f"hi{k}_{i}")))
            for i, x in enumerate(xs)]


def _past(extent: str) -> L.Expr:
    """``extent + 1``: cells 0 .. extent of a dimension."""
    return L.Add(L.Var(extent), L.Const(1))


def fused_step_expr(fu, acc: str, val: ir.Expr, program, pr: Printer) -> ir.Expr:
    """One step of a fused reduction: ``acc`` combined with ``val`` (a record; a sum
    whose cells may be both infinities is checked, emit.infinity): its checks records
    the failure-flag pass sees (kernel.failure_flags), where the value is a number."""
    if isinstance(fu.type, T.TupleT):
        return tuples.combine(fu.op, len(fu.type.items), acc, val, pr)
    return fused_step_ir(fu, ir.Name(acc), val, program, pr)


def fused_step_ir(fu, acc, val, program, pr: Printer) -> ir.Expr:
    """:func:`fused_step_expr` of a scalar reduction (``acc``, ``val``: records)."""
    if fu.type == T.PROB:
        return pr.ir_check("_logaddexp", acc, val)
    if fu.op == "sum" and fused_undefined(fu, program):
        return pr.ir_check("_undef", ir.Bin("+", acc, val))
    return ir.Bin("+", acc, val) if fu.op == "sum" else ir.Call(fu.op, (acc, val))


def fused_undefined(fu, program) -> bool:
    """Can fused ``sum`` ``fu`` meet ``inf - inf`` (its table holding both infinities)?"""
    return fu.op == "sum" and fu.type != T.PROB and \
        infinity.sum_undefined(infinity.of(program).results.get(fu.func, infinity.ANY))


def fused_init_ir(fu, pr: Printer) -> ir.Expr:
    """The empty reduction, the start of a fused accumulator: an infinity or zero of
    the value type."""
    if isinstance(fu.type, T.TupleT):
        return tuples.init(fu.op, len(fu.type.items), pr)
    if fu.op == "max" or fu.type == T.PROB:
        return pr.ir_inf(negative=True)
    return pr.ir_inf() if fu.op == "min" else pr.ir_zero()


def fused_start(fu) -> float:
    """The empty reduction's value (a scalar accumulator's start, for a host)."""
    if fu.op == "max" or fu.type == T.PROB:
        return -math.inf
    return math.inf if fu.op == "min" else 0.0


def fused_reads(fused: dict) -> Rule:
    """The entry's body, where fused reductions are already accumulated: each one
    (``fused``: the id of its node -> its accumulator's name) reads its accumulator."""
    def reduce(em, default, e, b):
        return ir.Name(fused[id(e)]) if id(e) in fused else default(e, b)
    return Rule("reduce", reduce)


def fused_emitter(names, program, fused: dict) -> ExprEmitter:
    """The emitter of the entry's own body over fused accumulators (:func:`fused_reads`)."""
    return ExprEmitter(names, program.consts, set(), program.alphabets,
                       rules=(fused_reads(fused),))


def _stored(f, val: str, b: Lines, ints: bool, pr: Printer) -> str:
    """A cell's value as its float64 table holds it: a bool as 1.0 or 0.0, and an int
    converted where ``ints`` (the on-demand cell, whose guards may yield an int64)."""
    if f.ret == T.BOOL:
        conv = ir.Cond(ir.Name(val), ir.Const(1.0), ir.Const(0.0), paren=False)
    elif f.ret == T.INT and ints:
        conv = pr.ir_value(ir.Name(val))
    else:
        return val
    stored = b.fresh("val")
    b.assign(stored, conv)
    return stored


# ---------------------------------------------------------------- the CPU's pieces
# (``self``: the task being built)

def printer(self) -> Printer:
    """The task's printer: Numba on the CPU, float64 values."""
    return Printer()


def cell_ref(self, func: str, index: list) -> ir.Load:
    """Where a cell of ``func``'s storage lives (CUDA's piece adds the task);
    a tuple cell's components are the innermost dimension (emit.tuples)."""
    return self.element(f"T_{func}", index)


def allocate(self, b: Lines, func: str, dims: list) -> None:
    self.host_allocations += 1
    b.alloc(f"T_{func}", [loop_expr(d) for d in dims], "float64", "empty", comma=True)


def guarded_load(self, array: str, index: list, pr: Printer) -> ir.Expr:
    """A read behind a run-time check: plain, since a failed check stops the task."""
    return plain_read(array, index)


def done_ref(self, func: str, index: list) -> ir.Load:
    """The done flag of a cell of a group ordered at run time (the repeat-until-done
    sweep's state, :meth:`Task._retried_cell`; CUDA's is per-task storage from the
    launch)."""
    return self.element(f"D_{func}", index)


def miss_ref(self) -> ir.Load:
    """Set while a cell is computed when it read a cell not done yet."""
    return self.element("_miss", [ir.Const(0)])


def missing(self) -> ir.Expr:
    """The value of a read of a cell not done yet (it records the miss)."""
    return self.pr.ir_check("_missing", ir.Name("_miss"))


def allocate_done(self, b: Lines, func: str, dims: list) -> None:
    """Done flags for every cell of ``func``, all clear."""
    self.host_allocations += 1
    b.alloc(f"D_{func}", [loop_expr(d) for d in dims], "uint8", comma=True)


def allocate_miss(self, b: Lines) -> None:
    self.host_allocations += 1
    b.alloc("_miss", ir.Const(1), "int64")


def extent_expr(self, f: str, k: int) -> ir.Expr | str:
    """The extent of ``f``'s ``k``-th recursive parameter: a record, or text
    where it is still composed as text (a declared range's bound). Packs read a
    sequence's extent per pack, the register tile an interleaved one's length
    argument."""
    p = self.program.functions[f].rec_params[k]
    t = p.type
    if isinstance(t, T.IndexT):
        return ir.Call("len", (ir.Name(arg_name(self.scope_name(t.seq))),))
    if isinstance(t, T.SymT):
        return ir.Const(len(self.program.alphabets[t.alpha.name]) - 1)
    fn = self.program.functions[f]
    if p.range is not None:  # declared: the interval maximum of its upper bound
        names = self.group_of[f].extents.names[f]
        return box_code(fn, k, self._bound_atom, dict(zip((q.name for q in fn.rec_params),
                                                          names[:k])))
    if t == T.INT and f == self.plan.entry and self.plan.kind == "cell":
        return ir.Name(f"q_{k}")
    if t == T.INT and self.plan.kind == "value":  # bounded by the entry's calls, for
        # the arguments the plan was made for (dslc.plan.reach)
        g = self.group_of[f].extents
        return ir.Const(int(g.values[g.names[f][k]]))
    if isinstance(t, T.ExtT) and t.owner:
        spec = self.program.registry.types.get(t.name)
        if spec is not None and spec.device_size is not None:
            names = self.task_names(self.program.functions[f])
            size = render_code(spec.device_size, lambda a: names.layout_array(t.owner, a),
                               pr=self.pr)
            return ir.Paren(ir.bare("-", size, ir.Const(1)))
    raise NotCompilable(f"the extent of {f}'s parameter {p.name}")


def extent_lines(self) -> list:
    """``E_... = ...``: every extent the plan's groups use, each once (the
    loop nest's bounds read them as names)."""
    return [ir.Assign(name, leaf(value)) for name, value in self.extent_assignments()]


def fuse(self, b: Lines, k: int, fu, xs: list[str], val: str) -> None:
    """Accumulate cell value ``val`` at ``xs`` into fused reduction ``k``."""
    conds = ir.bare("and", *in_bounds(k, xs))
    inner = b.child()
    step = fused_step_expr(fu, f"acc{k}", ir.Name(val), self.program, self.pr)
    inner.assign(f"acc{k}", step)
    b.if_(conds, inner)


def capture(self, b: Lines, xs: list[str], val: str) -> None:
    """Keep the requested cell as the window sweeps past it."""
    inner = b.child()
    inner.assign("res", ir.Name(val))
    b.if_(requested(xs), inner)


def nest(self, g: GroupPlan) -> L.Stmt:
    """The loop nest that places group ``g``'s cells (:meth:`Task.sweep`): the
    schedule's, made by the planner (dslc.poly.nest)."""
    return g.nest.body


def after_sweep(self, b: Lines) -> None:
    """Code between the sweep and the task's result (a backend whose threads
    share a task combines their partial reductions here; nothing here)."""


def emitter(self, names, rec: set, safe_indexes: frozenset = frozenset()) -> ExprEmitter:
    """The expression emitter every body of this task is generated with."""
    return ExprEmitter(names, self.program.consts, rec, self.program.alphabets, safe_indexes)


def read(self, func: str, args: list, span=None) -> ir.Expr:
    g = self.group_of.get(func)
    if g is None:
        raise NotCompilable(f"table {func} outside the plan")
    ext = g.extents.names[func]
    if g.on_demand and self.current in g.functions:
        checked = [a if self._own_coordinate(a, e) else self._checked(a, e, "_ddom", "_need")
                   for a, e in zip(args, ext)]
        state = (ir.Name(f"T_{func}"), ir.Name(f"S_{func}"), ir.Name("_need"),
                 ir.Const(g.functions.index(func)))
        ref = ir.Call(f"_rd{len(args)}", state + tuple(checked))
        if self.program.functions[func].ret == T.BOOL:
            return ir.Bin("!=", ref, ir.Const(0), paren=True)
        return ref
    if span is not None and span in g.safe and self.current in g.functions:
        checked = list(args)
    else:
        # inside a cell evaluated on demand an argument may come from a
        # placeholder: its domain check counts only before one (emit.demand)
        extra = ("_need",) if self._in_demand() else ()
        dom = "_ddom" if self._in_demand() else "_dom"
        checked = [a if self._own_coordinate(a, e) else self._checked(a, e, dom, *extra)
                   for a, e in zip(args, ext)]
    ref = self._stored(g, func, args, checked, span)
    ret = self.program.functions[func].ret
    if ret == T.BOOL:
        return ir.Bin("!=", ref, ir.Const(0), paren=True)  # stored as 0/1
    if isinstance(ret, T.TupleT):
        return ir.Call(tuples.getter(len(ret.items)), (ref,))  # the cell's components
    return ref


def write(self, g: GroupPlan, func: str, xs: list[str]) -> ir.Load | str:
    if not g.windowed:
        return self.cell_ref(func, xs)
    # cells are written in their own partition: the partition loop's variable
    self.slots.setdefault(func, set()).add(0)
    rest = [x for k, x in enumerate(xs) if k != g.eliminated_in(func)]
    return self.cell_ref(func, [f"slot_{func}_0"] + rest)


def guarded_value(self, f: tir.TFunction, em: ExprEmitter, b: Lines) -> str:
    """``f``'s guards as a chain of ``if``s into ``b``, each assigning its body's
    value (by ``em``) to one fresh local, whose name is returned (the register
    tile gives only the guards its box leaves live)."""
    out = b.fresh("val")
    self._guard_chain(f.guards, 0, em, b, out, f.ret)
    return out


@dataclass(frozen=True)
class Pieces:
    """What a strategy's builder chooses of the task it builds: its constants, and
    the functions the shared builders of :class:`Task` call where strategies
    differ (where a cell is kept, how storage is made, how a fused reduction and the
    requested cell are updated, how expressions are emitted). Each function takes
    the task being built first; a strategy's record is :data:`CPU` with the pieces it
    replaces (``dataclasses.replace``), its own functions composing the CPU's where
    they extend them."""

    # can the strategy evaluate a group on demand (emit.demand)? Strategies that
    # place cells by the schedule alone (lanes, GPU kernels) cannot
    ON_DEMAND: bool
    # can its code report an int past 2^53 where it is made (ExprEmitter.exact)? The
    # whole-GPU wavefront cannot report a check at all
    REPORTS_INEXACT: bool
    # does it hold tuple values (emit.tuples)? The specialised ones name their
    # strategy here and leave tuples to the plain strategies
    TUPLES: str | None
    TARGET: str  # the verifier's target (kernel.verify)
    # the memory space of the task's tables and flags: arrays it allocates itself
    # (emit.cuda: per-task storage the launch passes)
    TABLES: str
    printer: Callable
    param: Callable  # (names, name, type): a parameter inside the task
    helper_param: Callable  # (names, name, type): inside a helper function
    cell_ref: Callable
    allocate: Callable
    guarded_load: Callable
    done_ref: Callable
    miss_ref: Callable
    missing: Callable
    allocate_done: Callable
    allocate_miss: Callable
    extent_expr: Callable
    extent_lines: Callable
    fuse: Callable
    capture: Callable
    after_sweep: Callable
    nest: Callable  # (task, group): the loop nest placing the group's cells
    emitter: Callable
    read: Callable
    write: Callable
    guarded_value: Callable


CPU = Pieces(ON_DEMAND=True, REPORTS_INEXACT=True, TUPLES=None, TARGET="cpu", TABLES="local",
             printer=printer, param=param, helper_param=helper_param, cell_ref=cell_ref,
             allocate=allocate, guarded_load=guarded_load, done_ref=done_ref,
             miss_ref=miss_ref, missing=missing, allocate_done=allocate_done,
             allocate_miss=allocate_miss, extent_expr=extent_expr, extent_lines=extent_lines,
             fuse=fuse, capture=capture, after_sweep=after_sweep, nest=nest, emitter=emitter,
             read=read, write=write, guarded_value=guarded_value)
