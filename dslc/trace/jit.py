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

The walk's code is built by the strategy ``cpu traceback walk`` (dslc.emit.walk, a row
of dslc.emit.strategies) and printed here. Its source and arguments are kept in the
disk cache like the backend's own plans (dslc.cpu.modules, keyed by the table's plan key
for the target ``walk``), and Numba caches its machine code, so a second process
neither plans nor compiles it again.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from dslc.check import tir
from dslc.errors import DslcError, InternalError, NotCompilable
from dslc.interp.compile import shares_table
from dslc.interp.tables import MISSING
from dslc.lang import types as T
from dslc.trace.choice import Choice

_TYPES = (T.INT, T.FLOAT, T.PROB)


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
                    if g.cond is not None and self.contributing(g.cond):
                        raise NotCompilable("a guard's condition reads a table")
                    self._supported(g.body, cf)
        except NotCompilable as e:
            self.why = str(e)

    def _point(self, node, decode) -> None:
        self.points[id(node)] = len(self.decode)
        self.decode.append(decode)

    def contributing(self, e) -> bool:
        """Does ``e`` read a table (call a function reaching one)?"""
        fns = self.interp.program.functions
        return any(isinstance(x, tir.Call) and any(f.is_table for f in tir.reachable(fns, x.func))
                   for x in tir.walk(e))

    def _supported(self, e, cf) -> int:
        """The most calls one step through ``e`` records (0 or 1), or NotCompilable."""
        if not self.contributing(e):
            return 0
        match e:
            case tir.MinMax(op=op) if e.type in _TYPES:
                alts = tir.chain(e, op)
                self._point(e, [Choice(op, k, _text(a)) for k, a in enumerate(alts)])
                return max(self._supported(a, cf) for a in alts)
            case tir.Cond():
                self._point(e, [Choice("if", 0, _text(e.then)), Choice("if", 1, _text(e.orelse))])
                if self.contributing(e.cond):
                    raise NotCompilable("a condition reads a table")
                return max(self._supported(e.then, cf), self._supported(e.orelse, cf))
            case tir.Reduce(op="max" | "min") if e.type in _TYPES \
                    and isinstance(e.iterable, tir.RangeIter):
                self._point(e, (e.op, _text(e.body), e.var))
                if any(self.contributing(x) for x in (e.iterable.lo, e.iterable.hi, e.where)
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
        from dslc.emit.walk import ELEMENT, EMPTY  # (the walk's record kinds)

        out = []
        for pid, index, kind in rows:
            d = self.decode[pid]
            if kind == ELEMENT:
                out.append(Choice(d[0], 0, d[1], d[2], int(index)))
            elif kind == EMPTY:
                out.append(Choice(d[0], -1, "(empty)", d[2], None))
            else:
                out.append(d[index])
        return tuple(out)


def _text(e) -> str:
    from dslc.interp.compile import span_text
    return span_text(e.span)


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
    from dslc.emit.strategies import build, strategy
    from dslc.plan import lower
    from dslc.targets.printer import Printer

    walk = strategy("cpu traceback walk")
    try:
        lowered = lower(program, func, "table", scope, None,
                        emit=lambda task: build(walk, program, task, shape).module())
    except NotCompilable:
        return "", []
    return Printer().module(lowered.module), list(lowered.args)
