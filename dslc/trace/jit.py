"""Compiled walks: a traceback's path walked by Numba code generated from the typed IR.

The step plans (:mod:`dslc.trace.plan`) re-evaluate each visited cell's body in Python
(about 30 us a step). Where a derivation continues from a cell of a table a compiled
backend filled, and every function it can reach from there has a body of a shape this
module compiles, the rest of the walk is one call of a generated ``walk``: per step it
evaluates the body over the filled tables with the CPU generator's own expression
printing (dslc.emit.pyexpr, the names of dslc.emit.cpu: the same code, checks and
table reads as the sweep that filled them), takes at each choice point the FIRST
alternative in source order whose value equals the node's (the plain walk's rule),
checks the body's value against the cell's and records the cell and each choice taken
in arrays. The derivation keeps them (:class:`Walked`) and makes the same
:class:`Step` objects from them only when a step is read (dslc.trace.derive.Steps);
an alignment reads the points off the arrays (dslc.trace.align).

The compiled shapes (:func:`_supported`, the one place that decides): guards, max/min
operator chains, ``if``, max/min reductions over ranges, calls of the tables of the
traced table's sweep that pass the caller's calling arguments unchanged, and
expressions around at most one contributing part; and only the path case, where a
step calls at most one cell. Not compiled (the step plans walk them): an expression
adding several calls (a tree, as in ``f(i + 1, k) + f(k + 1, j)``), a sum,
reductions over alphabets or extension iterables, tuple or bool values, calls of
plain functions or of tables outside the sweep, declared ranges, groups evaluated on
demand. At run time a derivation goes back to the step plans from the cell it
started at (:meth:`Walks.walk` returns None) where a value is not exact in float64
(NaN, an int of 2^53 or more), a check of the generated code fails (the interpreter
reports the error), a body's value differs from its cell's, or a cell's value has no
exact conversion: the compiled route decides only what it decides exactly.

The walk's source and arguments are kept in the disk cache like the backend's own
plans (dslc.cpu.modules, keyed by the table's plan key for the target ``walk``), and Numba caches its machine
code, so a second process neither plans nor compiles it again.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

import numpy as np

from dslc.check import tir
from dslc.errors import DslcError, InternalError, NotCompilable
from dslc.interp.compile import shares_table
from dslc.interp.tables import MISSING
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.lang import types as T
from dslc.trace.choice import Choice
from dslc.trace.derive import _chain

# column 2 of a choice record: an element chosen by a reduction / an empty reduction
_ELEMENT, _EMPTY = 1, 2
_TYPES = (T.INT, T.FLOAT, T.PROB)
_BAD = 2  # status: not decided exactly here, the step plans walk it


class Shape:
    """The functions one compiled walk covers (those reachable from ``root``), its
    choice points numbered in one fixed order, and why not, where it cannot."""

    def __init__(self, interp, root: str):
        self.interp = interp
        fns = interp.program.functions
        self.names = tuple(sorted(f.name for f in tir.reachable(fns, root) if f.is_table))
        self.fid = {n: k for k, n in enumerate(self.names)}
        self.rank = max(len(fns[n].rec_params) for n in self.names)
        self.points: dict = {}  # id(node) -> point number
        self.decode: list = []  # point number -> its Choice objects, or a reduction's
        self.why = None
        try:
            for n in self.names:
                cf = interp.functions[n]
                if cf.tf.ret not in _TYPES:
                    raise NotCompilable(f"{n} has {cf.tf.ret} values")
                if any(p.range is not None for p in cf.tf.rec_params):
                    raise NotCompilable(f"{n} declares ranges")
                self._point(cf.tf, [Choice("guard", k, _text(g.body))
                                    for k, g in enumerate(cf.tf.guards)])
                for g in cf.tf.guards:
                    if g.cond is not None and self._contributing(g.cond):
                        raise NotCompilable("a guard's condition reads a table")
                    self._supported(g.body, cf)
        except NotCompilable as e:
            self.why = str(e)

    def _point(self, node, decode) -> None:
        self.points[id(node)] = len(self.decode)
        self.decode.append(decode)

    def _contributing(self, e) -> bool:
        fns = self.interp.program.functions
        return any(isinstance(x, tir.Call) and any(f.is_table for f in tir.reachable(fns, x.func))
                   for x in tir.walk(e))

    def _supported(self, e, cf) -> int:
        """The most calls one step through ``e`` records (0 or 1), or NotCompilable."""
        if not self._contributing(e):
            return 0
        match e:
            case tir.MinMax(op=op) if e.type in _TYPES:
                alts = _chain(e, op)
                self._point(e, [Choice(op, k, _text(a)) for k, a in enumerate(alts)])
                return max(self._supported(a, cf) for a in alts)
            case tir.Cond():
                self._point(e, [Choice("if", 0, _text(e.then)), Choice("if", 1, _text(e.orelse))])
                if self._contributing(e.cond):
                    raise NotCompilable("a condition reads a table")
                return max(self._supported(e.then, cf), self._supported(e.orelse, cf))
            case tir.Reduce(op="max" | "min") if e.type in _TYPES \
                    and isinstance(e.iterable, tir.RangeIter):
                self._point(e, (e.op, _text(e.body), e.var))
                if any(self._contributing(x) for x in (e.iterable.lo, e.iterable.hi, e.where)
                       if x is not None):
                    raise NotCompilable("a reduction's range reads a table")
                return self._supported(e.body, cf)
            case tir.Call():
                callee = self.interp.functions[e.func]
                if not (callee.is_table and e.func in self.fid and shares_table(e, cf, callee)
                        and all(n in cf.calling_names for n in callee.calling_names)):
                    raise NotCompilable(f"the call of {e.func}")
                return 1
            case tir.Arith() | tir.Neg() | tir.Coerce() | tir.Builtin():
                calls = sum(self._supported(c, cf) for c in tir.children(e))
                if calls > 1:
                    raise NotCompilable("a step adding several calls (a tree)")
                return calls
        raise NotCompilable(f"a {type(e).__name__} over calls")

    def choices(self, rows) -> tuple:
        """The Choice objects of a step's choice records ``(point, index, kind)``."""
        out = []
        for pid, index, kind in rows:
            d = self.decode[pid]
            if kind == _ELEMENT:
                out.append(Choice(d[0], 0, d[1], d[2], int(index)))
            elif kind == _EMPTY:
                out.append(Choice(d[0], -1, "(empty)", d[2], None))
            else:
                out.append(d[index])
        return tuple(out)


def _text(e) -> str:
    from dslc.interp.compile import span_text
    return span_text(e.span)


class WalkSource:
    """The generated ``walk`` of a :class:`Shape` over one table plan (its groups)."""

    def __init__(self, shape: Shape, gen):
        self.shape, self.gen = shape, gen
        g = gen.group_of.get(shape.names[0])
        for n in shape.names:
            if gen.group_of.get(n) is not g or g.on_demand or g.windowed or g.runtime_order:
                raise NotCompilable(f"{n} is not filled whole by the sweep of {shape.names[0]}")

    def generate(self) -> tuple[str, list]:
        from dslc.emit.cpu import HEADER, printed
        from dslc.emit.pyexpr import Lines

        gen, shape = self.gen, self.shape
        b = Lines(gen.extent_lines())
        b.assign("ns", _C(0))
        b.assign("nc", _C(0))
        loop = b.child()
        room = ir.bare("or", ir.bare(">=", _NS, _at("st.shape", _C(0))),
                       ir.bare(">", ir.bare("+", _NC, _C(len(shape.decode))),
                               _at("ch.shape", _C(0))))
        loop.if_(room, _status(loop, 1))
        for k in range(shape.rank):
            loop.store(_at("st", _NS, _C(k + 1)), _N(f"q_{k}"))
        loop.store(_at("st", _NS, _C(0)), _N("fid"))
        loop.assign("nf", _C(-1))
        for k in range(shape.rank):
            loop.assign(f"n_{k}", _C(0))
        for k, n in enumerate(shape.names):
            (loop.elif_ if k else loop.if_)(ir.bare("==", _N("fid"), _C(k)),
                                            self._function(n, loop))
        loop.store(_at("st", _NS, _C(shape.rank + 1)), _NC)
        loop.augment("ns", "+", _C(1))
        loop.if_(ir.bare("<", _N("nf"), _C(0)), _status(loop, 0))
        loop.assign("fid", _N("nf"))
        for k in range(shape.rank):
            loop.assign(f"q_{k}", _N(f"n_{k}"))
        b.while_(_C(True), loop)
        args = gen.task_args(windows=False)
        params = printed(args) + [f"T_{n}" for n in shape.names] + ["fid"] + \
            [f"q_{k}" for k in range(shape.rank)] + ["st", "sv", "ch"]
        src = [HEADER, gen.pr.library("core", "domain"), *gen.helpers.values(), _exact(gen.pr),
               gen.pr.function("walk", params, b.render(1), "SHORT")]
        return "\n".join(src), args

    def _function(self, name: str, outer):
        """The statements of one step of ``name``: its body followed, checked against
        the cell's stored value."""
        gen, shape = self.gen, self.shape
        f = shape.interp.program.functions[name]  # (the nodes the shape numbered)
        gen.current = name
        em = gen.emitter(gen.task_names(f), {p.name for p in f.rec_params})
        b = outer.child()
        for k, p in enumerate(f.rec_params):
            b.assign(f"x_{p.name}", _N(f"q_{k}"))
        guards = [(g, b.child()) for g in f.guards]
        pid = shape.points[id(f)]
        for k, (g, gb) in enumerate(guards):
            self._record(gb, pid, str(k))
            gb.assign("val", _N(self._follow(g.body, f, em, gb, True)))
        tail = _status(b, _BAD)  # no guard applies: the interpreter's error
        for k in reversed(range(len(guards))):
            g, gb = guards[k]
            if g.cond is None:
                tail = gb
                continue
            branch = b.child()
            cond = em.text(em.expr(g.cond, branch))
            branch.if_(cond, gb)
            branch.else_(tail)
            tail = branch
        b.extend(tail)
        stored = gen.stored_value(name, [f"x_{p.name}" for p in f.rec_params])
        sv = _at("sv", _NS)
        b.store(sv, stored)
        same = ir.bare("and", ir.bare("==", _N("val"), sv), _is_exact(f.ret, sv))
        b.if_(ir.Unary("not", ir.Paren(same), paren=False), _status(b, _BAD))
        return b

    @staticmethod
    def _record(b, pid: int, index: str, kind: int = 0) -> None:
        at = _C(int(index)) if index.isdigit() else _N(index)  # (a reduction's element)
        for k, x in enumerate((_C(pid), at, _C(kind))):
            b.store(_at("ch", _NC, _C(k)), x)
        b.augment("nc", "+", _C(1))

    def _value(self, e, em, b) -> str:
        """``e``'s value as text, held in a temporary where it is more than a name."""
        x = em.as_value(e, b) if e.type == T.INT else em.expr(e, b)
        return em.text(em._hoist(x, b))

    def _follow(self, e, f, em, b, need: bool):
        """Statements recording ``e``'s choices and its call; its value's text where
        ``need`` (``Plans.node``'s contract, in generated code)."""
        shape = self.shape
        if not shape._contributing(e):
            return self._value(e, em, b) if need else None
        match e:
            case tir.MinMax(op=op):
                return self._chain(e, op, f, em, b)
            case tir.Cond():
                out = b.fresh("c")
                cond = em.text(em.expr(e.cond, b))
                tb, eb = b.child(), b.child()
                pid = shape.points[id(e)]
                for k, (branch, bb) in enumerate(((e.then, tb), (e.orelse, eb))):
                    self._record(bb, pid, str(k))
                    bb.assign(out, _N(self._follow(branch, f, em, bb, True)))
                b.if_(cond, tb)
                b.else_(eb)
                return out
            case tir.Reduce():
                return self._reduction(e, f, em, b)
            case tir.Call():
                callee = shape.interp.program.functions[e.func]
                rec = [a for a, p in zip(e.args, callee.params) if p.recursive]
                for k, a in enumerate(rec):
                    b.assign(f"n_{k}", em.as_int(a, b))
                b.assign("nf", _C(shape.fid[e.func]))
        for c in tir.children(e):
            self._follow(c, f, em, b, False)
        return self._value(e, em, b) if need else None

    def _chain(self, e, op, f, em, b) -> str:
        alts = _chain(e, op)
        vals = []
        for a in alts:
            v = self._value(a, em, b)
            b.if_(ir.Unary("not", _is_exact(e.type, _N(v)), paren=False), _status(b, _BAD))
            vals.append(v)
        it = iter(vals)

        def fold(x):  # the tree's own shape, as the interpreter folds it
            if isinstance(x, tir.MinMax) and x.op == op:
                return ir.Call(op, (fold(x.left), fold(x.right)))
            return _N(next(it))
        want = b.fresh("w")
        b.assign(want, fold(e))
        pid = self.shape.points[id(e)]
        tail = _status(b, _BAD)
        for k in reversed(range(len(alts))):
            took = b.child()
            self._record(took, pid, str(k))
            self._follow(alts[k], f, em, took, False)
            branch = b.child()
            branch.if_(ir.bare("==", _N(vals[k]), _N(want)), took)
            branch.else_(tail)
            tail = branch
        b.extend(tail)
        return want

    def _reduction(self, e, f, em, b) -> str:
        it, var = e.iterable, em.names.local(e.var)
        lo, hi = (em.text(em._hoist(em.as_int(x, b), b)) for x in (it.lo, it.hi))
        acc, found = b.fresh("acc"), b.fresh("found")
        b.assign(acc, em.pr.ir_inf(negative=e.op == "max"))

        def over(body_of):
            body = b.child()
            if e.where is None:
                body_of(body)
            else:
                inner = body.child()
                cond = em.text(em.expr(e.where, body))
                body_of(inner)
                body.if_(cond, inner)
            b.loop(var, (lo, f"{hi} + 1"), body)

        def extreme(x):
            v = self._value(e.body, em, x)
            x.if_(ir.Unary("not", _is_exact(e.type, _N(v)), paren=False), _status(x, _BAD))
            x.assign(acc, ir.Call(e.op, (_N(acc), _N(v))))
        over(extreme)
        b.assign(found, _C(False))
        pid = self.shape.points[id(e)]

        def chosen(x):
            v = self._value(e.body, em, x)
            hit = x.child()
            self._record(hit, pid, var, _ELEMENT)
            self._follow(e.body, f, em, hit, False)
            hit.assign(found, _C(True))
            hit.break_()
            x.if_(ir.bare("==", _N(v), _N(acc)), hit)
        over(chosen)
        empty = b.child()
        self._record(empty, pid, "0", _EMPTY)
        b.if_(ir.Unary("not", _N(found), paren=False), empty)
        return acc


_N, _C = ir.Name, ir.Const
_NS, _NC = _N("ns"), _N("nc")


def _at(array: str, *index) -> ir.Load:
    """An element of one of the walk's own arrays (or of an array's shape)."""
    return ir.Load(array, index)


def _status(b, status: int):
    """A child body of ``b`` ending the walk: ``return ns, nc, status`` (0: the
    derivation ends, 1: the arrays are full, _BAD: the step plans walk it)."""
    out = b.child()
    out.return_(ir.Tuple((_NS, _NC, _C(status)), bare=True))
    return out


def _is_exact(t, v) -> ir.Call:
    """``v`` (a number the walk compares) is exact: no NaN, and for an int below 2^53."""
    return ir.Call("_exact_int" if t == T.INT else "_exact", (v,))


def _exact(pr) -> str:
    """The walk's helpers ``_exact`` and ``_exact_int`` (see :func:`_is_exact`)."""
    v = _N("v")
    same = ir.bare("==", v, v)
    size = ir.Call("abs", (v,))
    below = ir.bare("or", ir.bare("<", size, _C(9007199254740992.0)),
                    ir.bare("==", size, _C(math.inf, "np.inf")))
    return "\n\n".join(pr.function(name, ["v"], pr.task_text((kb.Return(x),), 1))
                       for name, x in (("_exact", same),
                                       ("_exact_int", ir.bare("and", same, below))))


@dataclass(frozen=True, eq=False)
class Walked:
    """The steps one compiled walk took, kept as its arrays: a derivation makes a
    step's :class:`Step` fields (its point, its value, its Choice objects) only when
    the step is read, and an alignment reads the points of whole runs of steps at once.
    ``tables``: by function id of ``shape``; ``st``: per step its function id, its
    point (padded to the shape's rank) and where its choice records end in
    ``codes`` (each record as one int, see :meth:`Walks._steps`); ``sv``: each
    step's cell as the number the walk compared with its body, and ``ones`` each
    function's conversion of such a number to the interpreter's value
    (``Numbers.one``, kept: the tables are released once the derivation is made)."""

    shape: Shape
    tables: tuple
    st: np.ndarray
    sv: np.ndarray
    ones: tuple
    codes: np.ndarray
    m: int
    decoded: dict  # a sequence of records -> its Choice objects (made once)

    def __len__(self) -> int:
        return len(self.st)

    @property
    def fids(self) -> np.ndarray:
        return self.st[:, 0]

    def value(self, n: int):
        """Step ``n``'s cell as the interpreter's value. The walk compared the number
        with the body's and checked it exact (``_exact``/``_exact_int``: no NaN, no
        int at or beyond 2^53) before taking the step, so it converts exactly."""
        got = self.ones[int(self.st[n, 0])](float(self.sv[n]))
        if got is MISSING:
            raise InternalError(f"a compiled walk took step {n} at a number without an exact "
                                "value")
        return got

    def rec(self, n: int) -> tuple:
        row = self.st[n]
        return tuple(row[1:1 + len(self.tables[int(row[0])].func.rec_names)].tolist())

    def choices(self, n: int) -> tuple:
        start = int(self.st[n - 1, self.shape.rank + 1]) if n else 0
        key = tuple(self.codes[start:int(self.st[n, self.shape.rank + 1])].tolist())
        hit = self.decoded.get(key)
        if hit is None:
            m = self.m
            hit = self.decoded[key] = self.shape.choices((c % m // 4, c // m, c % 4) for c in key)
        return hit


class Walks:
    """The compiled walks of one tracer, made (or loaded from the cache) when a walk
    first reaches a table filled by ``cpu`` (the CPU backend)."""

    def __init__(self, tracer, cpu):
        self.tracer, self.cpu = tracer, cpu
        self._shapes: dict = {}
        self._walks: dict = {}
        self._last: dict = {}  # function -> (its calling values other than sequences, walk)
        self.compile_s = 0.0  # seconds spent planning and loading walks (measured)
        self.steps = 0  # steps walked by compiled code (the benchmark and tests read it)
        self.lock = threading.Lock()  # around planning (the runner's: dslc.trace.run)
        self._kept = threading.local()  # each thread's walk arrays (_room)

    def shape(self, name: str) -> Shape:
        hit = self._shapes.get(name)
        if hit is None:
            hit = self._shapes[name] = Shape(self.tracer.interp, name)
        return hit

    def walk(self, table, rec: tuple):
        """The steps from cell ``rec`` of ``table`` to the end of the derivation, as
        a :class:`Walked` record (:meth:`_steps`); None where the step plans walk it."""
        if table.numbers is None or table.outside is not None:
            return None
        shape = self.shape(table.func.name)
        if shape.why is not None:
            return None
        tables = self._tables(table, shape)
        if tables is None:
            return None
        calling = {n: table.env[n] for n in table.func.calling_names}
        compiled = self._compiled(table.func.name, calling, shape)
        if compiled is None:
            return None
        fn, args = compiled
        try:
            bound = self.cpu._task_args(args, calling, (), None)
        except Exception:  # noqa: BLE001 (a binding the compiled task takes differently)
            return None
        raws = [t.numbers.raw for t in tables]
        cap = 4 * (sum(sum(t.extents) for t in tables) + 4)
        q = list(rec) + [0] * (shape.rank - len(rec))
        while True:
            st, sv, ch = self._room(cap, shape.rank, len(shape.decode))
            try:
                ns, nc, status = fn(*bound, *raws, shape.fid[table.func.name], *q, st, sv, ch)
            except Exception:  # noqa: BLE001 (a failed check: the interpreter's error)
                return None
            if status != 1:
                break
            cap *= 8
        if status != 0:
            return None
        got = self._steps(shape, tables, st[:ns].copy(), sv[:ns], ch[:nc])  # (kept: no slack)
        self.steps += 0 if got is None else len(got)
        return got

    def _room(self, cap: int, rank: int, decode: int) -> tuple:
        """The arrays a walk records its steps, values and choices in, for ``cap``
        steps: kept between walks on this thread and grown, never shrunk (fresh
        arrays of about 2 MB a hit took their pages' first touches on every walk);
        nothing a walk returns is a view of them (``walk`` copies what it keeps)."""
        have = getattr(self._kept, "arrays", None)
        if have is None or have[0] < cap or have[1:3] != (rank, decode):
            have = self._kept.arrays = (cap, rank, decode,
                                        np.empty((cap, rank + 2), np.int64),
                                        np.empty(cap, np.float64),
                                        np.empty((cap * decode + 1, 3), np.int64))
        return have[3][:cap], have[4][:cap], have[5][:cap * decode + 1]

    @staticmethod
    def _steps(shape, tables, st, sv, ch):
        """The :class:`Walked` record of the steps walked: points, numbers and choices
        stay arrays until a step is read (its value then converted by its table's
        ``one``, kept here since the tables are released)."""
        m = 4 * len(shape.decode)  # each record as one int: index * m + point * 4 + kind
        codes = ch[:, 1] * m + ch[:, 0] * 4 + ch[:, 2]
        ones = tuple(t.numbers.one for t in tables)
        return Walked(shape, tuple(tables), st, sv.copy(), ones, codes, m, {})

    def _tables(self, table, shape):
        interp = self.tracer.interp
        out = []
        for name in shape.names:
            if name == table.func.name:
                t = table
            else:
                t = table.siblings.get(name)
                if t is None:
                    callee = interp.functions[name]
                    cenv = {n: table.env[n] for n in callee.calling_names}
                    cenv["$task"] = table.task
                    try:  # (opened as the step plans would open it: filled by the backend)
                        t = interp.table_for(table.task, callee, cenv, (), None)
                    except (DslcError, IndexError):  # extents from a first call's point
                        return None
                    table.siblings[name] = t
            if t.numbers is None or t.outside is not None:
                return None
            out.append(t)
        return out

    def _compiled(self, func: str, calling: dict, shape: Shape):
        """``(walk, args)`` for ``func``'s table plan, or None where none can be made."""
        from dslc.cpu.convert import plan_shape
        from dslc.lang.values import Matrix, Sequence

        cpu = self.cpu
        # one walk serves every binding whose values other than sequences have the same
        # shapes: its code reads extents from its arguments, and reads only cells the
        # sweep that filled the tables read, with the same checks (a plan for a box
        # serves every box inside it, and the cells visited are in the table's box);
        # the settings do not shape it (the plain CPU generator's code; the disk key
        # holds them all the same)
        values = tuple(v for v in calling.values() if not isinstance(v, Sequence))
        last = self._last.get(func)  # (the hits of a search share these very values)
        if last is not None and len(last[0]) == len(values) \
                and all(a is b for a, b in zip(last[0], values)):
            return last[1]
        fixed = all(type(v) in (int, float, str, bool) or isinstance(v, Matrix)
                    for v in values)  # (no model whose element counts could change)
        memo = (func, tuple((n, plan_shape(v, cpu.program.registry))
                            for n, v in calling.items() if not isinstance(v, Sequence)))
        got = self._walks.get(memo, _NONE)
        if got is _NONE:
            with self.lock:  # (the backend's plans: a fill may be planning on another thread)
                got = self._walks[memo] = self._made(func, calling, shape)
        if fixed:
            self._last[func] = (values, got)  # (holding the values: their ids stay theirs)
        return got

    def _made(self, func: str, calling: dict, shape: Shape):
        """``_compiled``'s walk, planned and loaded (or read from the disk cache)."""
        from dslc.cpu import modules

        cpu = self.cpu
        t0 = time.perf_counter()
        scope = cpu._table_plan_scope(func, calling)
        key = cpu.plan_key(func, "table", scope, None, target="walk")
        hit = modules.cached_plan(key) if cpu.disk_cache else None
        if hit is not None:
            source, args = hit[0], hit[1]
        else:
            source, args = _generate(cpu.program, func, scope, shape)
            modules.store_plan(key, source, args, ())
        got = None
        if source:
            got = (modules.load(source).walk, args)
        self.compile_s += time.perf_counter() - t0
        return got


_NONE = object()  # (no walk made yet: None is a walk that cannot be made)


def _generate(program, func: str, scope: dict, shape: Shape) -> tuple[str, list]:
    """The walk's source and arguments (an empty source: not compilable)."""
    from dslc.emit.cpu import CpuGenerator
    from dslc.plan import lower

    try:
        lowered = lower(program, func, "table", scope, None,
                        emit=lambda task: WalkSource(shape, CpuGenerator(program, task))
                        .generate())
    except NotCompilable:
        return "", []
    return lowered.source, list(lowered.args)
