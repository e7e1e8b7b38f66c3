"""The traceback's compiled walk (dslc.trace.jit) as code: the builder of the
strategy ``cpu traceback walk`` (emit.strategies).

``walk`` follows a derivation from a cell of a table the CPU's sweep filled to its
end: per step it evaluates the cell's body over the filled tables with the plain CPU
task's own expressions (the same names, checks and table reads as the sweep: it is
the CPU task of the same plan, composed here, not derived), takes at each
choice point the first alternative in source order whose value equals the node's,
checks the body's value against the cell's, and records the cell and each choice
taken in its arrays: ``st`` (per step the function's number, the point, where its
choice records end), ``sv`` (the cell's number) and ``ch`` (per choice record: the
choice point, the index or element chosen, its kind). It returns ``(steps, choice
records, status)``: status 0 where the derivation ended, 1 where the arrays are
full (the caller grows them), 2 where this walk does not decide the step exactly
(the step plans walk it).

What it walks is a *shape* (dslc.trace.jit.Shape): ``names`` (the tables, numbered
by ``fid``), ``rank``, ``points`` (the choice point of each node, by ``id``),
``decode`` (their count) and ``contributing(e)`` (whether ``e`` reads a table).
"""

from __future__ import annotations

import math

from dslc.check import tir
from dslc.emit.built import Built
from dslc.emit.cpu import HEADER, Task, printed
from dslc.emit.pyexpr import Lines
from dslc.errors import NotCompilable
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.module import Function, Module
from dslc.lang import types as T

# column 2 of a choice record: an element chosen by a reduction / an empty reduction
ELEMENT, EMPTY = 1, 2
_BAD = 2  # status: not decided exactly here, the step plans walk it


def build_walk(strategy, program, plan, shape) -> Built:
    """The walk of ``shape`` over ``plan``'s tables (a ``table`` plan of the shape's
    first function), composing the CPU task of the same plan."""
    walk = WalkSource(shape, Task(program, plan, strategy))
    record, args = walk.module()
    return Built(record, tuple(args), walk.gen.pr)


class WalkSource:
    """The generated ``walk`` of a :class:`Shape` over one table plan (its groups)."""

    def __init__(self, shape, gen):
        self.shape, self.gen = shape, gen
        g = gen.group_of.get(shape.names[0])
        for n in shape.names:
            if gen.group_of.get(n) is not g or g.on_demand or g.windowed or g.runtime_order:
                raise NotCompilable(f"{n} is not filled whole by the sweep of {shape.names[0]}")

    def module(self) -> tuple[Module, list]:
        """The module (kernel.module) and the task's arguments the walk takes first
        (the tables, the function number, the point and the arrays follow)."""
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
        return Module((HEADER, gen.pr.library("core", "domain"), *gen.helpers.values(),
                       *_exact(), Function("walk", tuple(params), tuple(b.stmts), "SHORT"))), args

    def _function(self, name: str, outer):
        """The statements of one step of ``name``: its body followed, checked against
        the cell's stored value."""
        gen, shape = self.gen, self.shape
        f = gen.program.functions[name]  # (the nodes the shape numbered)
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
        if not shape.contributing(e):
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
                callee = self.gen.program.functions[e.func]
                rec = [a for a, p in zip(e.args, callee.params) if p.recursive]
                for k, a in enumerate(rec):
                    b.assign(f"n_{k}", em.as_int(a, b))
                b.assign("nf", _C(shape.fid[e.func]))
        for c in tir.children(e):
            self._follow(c, f, em, b, False)
        return self._value(e, em, b) if need else None

    def _chain(self, e, op, f, em, b) -> str:
        alts = tir.chain(e, op)
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
            self._record(hit, pid, var, ELEMENT)
            self._follow(e.body, f, em, hit, False)
            hit.assign(found, _C(True))
            hit.break_()
            x.if_(ir.bare("==", _N(v), _N(acc)), hit)
        over(chosen)
        empty = b.child()
        self._record(empty, pid, "0", EMPTY)
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


def _exact() -> tuple:
    """The walk's helpers ``_exact`` and ``_exact_int`` (see :func:`_is_exact`), as
    module parts (a blank line between them)."""
    v = _N("v")
    same = ir.bare("==", v, v)
    size = ir.Call("abs", (v,))
    below = ir.bare("or", ir.bare("<", size, _C(9007199254740992.0)),
                    ir.bare("==", size, _C(math.inf, "np.inf")))
    return (Function("_exact", ("v",), (kb.Return(same),)), "",
            Function("_exact_int", ("v",), (kb.Return(ir.bare("and", same, below)),)))
