"""Dependences of every recursive call (thesis §5.3.4-5.3.9).

For each call from a table function to a function of its own recursive group,
the callee's recursive arguments are written as affine functions of the
caller's recursive parameters and of *ranged* variables (those bound by
reductions over ``a ... b``). Anything that is not affine is kept as ``None``
("any value of its domain"), which is always safe: the schedule must then work
for every value. Guards and ``if`` conditions that are affine restrict where a
call happens; others are dropped, which again only widens the set of points.
"""

from __future__ import annotations

import itertools

from dslc.check import tir
from dslc.lang import types as T
from dslc.check.ranges import calling_extents, same_expr
from dslc.deps.ranges import domain_constraints, extent_context
from dslc.deps.ir import (ELEMENT, Affine, Constraint, Dependence, DependenceGraph, RangedVar,
                          RecFunction)
from dslc.sdk import Bounds

_MAX_TERMS = 32  # a condition whose DNF grows past this is treated as "always"
ALWAYS: tuple = ((),)


def directed_args(call: tir.Call, caller: tir.TFunction, callee: tir.TFunction, in_group: bool):
    """The recursive arguments of ``call`` a declared direction constrains, as
    (position among the callee's recursive arguments, parameter, direction), checked
    at run time on every backend: calls from the callee's own group (``in_group``;
    dslc.check makes sure the caller has the parameter), except an argument that
    passes the caller's parameter on unchanged (``ways(i - 1, m)`` beside
    ``ways(i, m - coin(i - 1))``), which the declaration allows."""
    if not in_group:
        return
    rec_args = [a for a, p in zip(call.args, callee.params) if p.recursive]
    for k, (a, p) in enumerate(zip(rec_args, callee.rec_params)):
        if p.direction is not None and not (isinstance(a, tir.Var) and a.scope == "param"
                                            and a.name == p.name):
            yield k, p.name, p.direction


def _offset(b: Bounds) -> bool:
    """Bounds that name one element: the receiver plus a constant."""
    return b.lo is not None and b.lo == b.hi


def dependence_graph(functions: dict[str, tir.TFunction], group: tuple[str, ...],
                     consts: dict[str, int | float]) -> DependenceGraph:
    rec_fns = tuple(RecFunction(n, tuple(p.name for p in functions[n].rec_params),
                                domain_constraints(functions[n], consts),
                                extent_context(functions[n], consts)) for n in group)
    deps: list[Dependence] = []
    for name in group:
        f = functions[name]
        walker = _Walker(f, set(group), functions, consts)
        before: tuple = ALWAYS
        for g in f.guards:
            here = before if g.cond is None else _and(before, walker.condition(g.cond))
            if g.cond is not None:
                walker.visit(g.cond, before, ())
            walker.visit(g.body, here, ())
            if g.cond is not None:
                before = _and(before, walker.condition(g.cond, negate=True))
        deps.extend(walker.found)
    return DependenceGraph(rec_fns, tuple(deps))


def guard_pieces(f: tir.TFunction, consts) -> list[tuple[int, tuple]] | None:
    """Split a function's domain by its guards: for guard ``k`` the exact DNF of
    "guard k holds and no earlier guard does". Generated loops then run each
    piece without testing guards per cell (the boundary rows and columns become
    their own loops). None when some guard is not exactly affine."""
    walker = _Walker(f, set(), {}, consts)
    walker.exact = True
    if not all(g.cond is None or _exact(g.cond, walker) for g in f.guards):
        return None
    out, before = [], ALWAYS
    try:
        for k, g in enumerate(f.guards):
            here = before if g.cond is None else _and(before, walker.condition(g.cond), True)
            out.append((k, here))
            if g.cond is not None:
                before = _and(before, walker.condition(g.cond, negate=True), True)
    except _TooBig:
        return None
    return out


def sequence_indexes(f: tir.TFunction, consts) -> list[tuple[tir.SeqIndex, Affine, tuple]]:
    """Every ``s[e]`` in ``f`` whose index is affine, with the DNF of conditions
    under which it is evaluated (guards, enclosing ``if``s, and the ranges of
    enclosing reductions, whose variables then appear in the constraints), so a
    backend can prove it inside the sequence and drop the run-time check."""
    walker = _Walker(f, set(), {}, consts)
    out = []

    def visit(e, when, ranged):
        match e:
            case tir.Cond(cond=c, then=a, orelse=b):
                visit(c, when, ranged)
                visit(a, _and(when, walker.condition(c, ranged=ranged)), ranged)
                visit(b, _and(when, walker.condition(c, negate=True, ranged=ranged)), ranged)
                return
            case tir.Logic(op=op, left=a, right=b):
                visit(a, when, ranged)
                visit(b, _and(when, walker.condition(a, negate=(op == "or"), ranged=ranged)),
                      ranged)
                return
            case tir.SeqIndex(index=ix):
                aff = walker.affine(ix, ranged)
                if aff is not None:
                    out.append((e, aff, when))
            case tir.Reduce(var=v, iterable=tir.RangeIter(lo=lo, hi=hi), where=w, body=body):
                visit(lo, when, ranged)
                visit(hi, when, ranged)
                a, b = walker.affine(lo, ranged), walker.affine(hi, ranged)
                if a is None or b is None:
                    return  # indexes by this variable: left to the run-time check
                rv = RangedVar(f"_r{next(walker.fresh)}", a, b)
                inner = ranged + ((v, rv.name, rv),)
                x = Affine.of(0, **{rv.name: 1})
                inside = _and(when, ((Constraint(_add(x, _scale(a, -1))),
                                      Constraint(_add(b, _scale(x, -1)))),))
                if w is not None:
                    visit(w, inside, inner)
                    inside = _and(inside, walker.condition(w, ranged=inner))
                visit(body, inside, inner)
                return
            case tir.Reduce():
                return  # indexes by reduction variables: left to the run-time check
        for c in tir.children(e):
            visit(c, when, ranged)

    before = ALWAYS
    for g in f.guards:
        here = before if g.cond is None else _and(before, walker.condition(g.cond))
        if g.cond is not None:
            visit(g.cond, before, ())
        visit(g.body, here, ())
        if g.cond is not None:
            before = _and(before, walker.condition(g.cond, negate=True))
    return out


def _exact(e: tir.TExpr, walker: "_Walker") -> bool:
    """Is ``condition(e)`` exact (not an over-approximation)?"""
    match e:
        case tir.Not(operand=x):
            return _exact(x, walker)
        case tir.Logic(left=a, right=b):
            return _exact(a, walker) and _exact(b, walker)
        case tir.Lit(value=v) if isinstance(v, bool):
            return True
        case tir.Compare(left=l, right=r) if l.type == T.INT or isinstance(l.type, T.IndexT):
            return walker.affine(l) is not None and walker.affine(r) is not None
    return False


class _Walker:
    def __init__(self, f: tir.TFunction, group: set[str], functions, consts):
        self.f, self.group, self.functions, self.consts = f, group, functions, consts
        self.rec = {p.name for p in f.rec_params}
        self.extents = calling_extents(f)
        self.found: list[Dependence] = []
        self.fresh = itertools.count()
        self.exact = False  # conditions must not be widened (domain splitting)
        # condition() by node identity: each level of an and/or chain asks again for
        # the condition of everything to its left, which without this is quadratic
        self._conditions: dict[tuple, tuple] = {}

    # ---------------------------------------------------------------- walking
    def visit(self, e: tir.TExpr, when, ranged: tuple[tuple[str, str, RangedVar], ...]):
        """``ranged``: (source name, unique name, RangedVar) for reduction variables in scope."""
        match e:
            case tir.Cond(cond=c, then=a, orelse=b):
                self.visit(c, when, ranged)
                self.visit(a, _and(when, self.condition(c, ranged=ranged)), ranged)
                self.visit(b, _and(when, self.condition(c, negate=True, ranged=ranged)), ranged)
                return
            case tir.Reduce(var=v, iterable=it, where=w, body=body):
                self.visit(it, when, ranged)
                rv = self._range_of(it, ranged)
                inner = ranged + ((v, rv.name, rv),)
                if w is not None:
                    self.visit(w, when, inner)
                self.visit(body, when, inner)
                return
            case tir.Call(func=fn) if fn in self.group:
                self.found.append(self._dependence(e, when, ranged))
        for c in tir.children(e):
            self.visit(c, when, ranged)

    def _range_of(self, it: tir.TExpr, ranged) -> RangedVar:
        name = f"_r{next(self.fresh)}"
        if isinstance(it, tir.RangeIter):
            return RangedVar(name, self.affine(it.lo, ranged), self.affine(it.hi, ranged))
        if isinstance(it, tir.AlphabetIter):
            return RangedVar(name, Affine.of(0), None)
        if isinstance(it, tir.ExtAttr):
            # the elements an accessor iterates lie where its bounds say, relative
            # to the receiver (a post-order node's children are below it)
            recv = self.affine(it.base, ranged)
            b = it.accessor.bounds
            if recv is not None:
                return RangedVar(name, None if b.lo is None else _add(recv, Affine.of(b.lo)),
                                 None if b.hi is None else _add(recv, Affine.of(b.hi)))
        return RangedVar(name, None, None)

    def _dependence(self, call: tir.Call, when, ranged) -> Dependence:
        callee = self.functions[call.func]
        extra: list[RangedVar] = []
        args, declared = [], []
        for p, a in zip(callee.params, call.args):
            if not p.recursive:
                continue
            aff = self.affine(a, ranged, extra)
            if aff is None and p.direction is not None and p.name in self.rec:
                aff = self._directed(p, extra)
                declared.append((aff.coeffs[0][0], p.name, p.direction))
            args.append(aff)
        used = tuple(r for _, _, r in ranged) + tuple(extra)
        return Dependence(self.f.name, call.func, tuple(args), used, when, call.span,
                          tuple(declared))

    def _directed(self, p, extra) -> Affine:
        """An argument the compiler cannot see, bounded by its declared direction: a
        fresh ranged variable below (or above) the caller's parameter of the same
        name, its other bound unknown (any value inside the callee's domain), the
        same machinery as an accessor's element or a const array's element."""
        name = f"_d{next(self.fresh)}"
        mine = Affine.of(0, **{p.name: 1})
        if p.direction == "decreasing":
            extra.append(RangedVar(name, None, _add(mine, Affine.of(-1))))
        else:
            extra.append(RangedVar(name, _add(mine, Affine.of(1)), None))
        return Affine.of(0, **{name: 1})

    # ---------------------------------------------------------------- affine
    def affine(self, e: tir.TExpr, ranged=(), extra: list | None = None) -> Affine | None:
        for hi, name in self.extents:  # a declared range's calling upper bound: its extent
            if same_expr(e, hi):
                return Affine.of(0, **{name: 1})
        match e:
            case tir.Lit(value=v) if type(v) is int:
                return Affine.of(v)
            case tir.Var(name=n, scope="param") if n in self.rec:
                return Affine.of(0, **{n: 1})
            case tir.Var(name=n, scope="local"):
                for src, _, rv in reversed(ranged):
                    if src == n:
                        return Affine.of(0, **{rv.name: 1})
                return None
            case tir.Var(name=n, scope="global") if type(self.consts.get(n)) is int:
                return Affine.of(self.consts[n])
            case tir.Neg(operand=x):
                a = self.affine(x, ranged, extra)
                return None if a is None else _scale(a, -1)
            case tir.Arith(op="+" | "-" as op, left=l, right=r):
                a, b = self.affine(l, ranged, extra), self.affine(r, ranged, extra)
                if a is None or b is None:
                    return None
                return _add(a, b if op == "+" else _scale(b, -1))
            case tir.Arith(op="*", left=l, right=r):
                a, b = self.affine(l, ranged, extra), self.affine(r, ranged, extra)
                if a is not None and b is not None:
                    if not b.coeffs:
                        return _scale(a, b.const)
                    if not a.coeffs:
                        return _scale(b, a.const)
                return None
            case tir.ExtAttr(accessor=acc, base=base) if _offset(acc.bounds):
                # an exact offset from the receiver (a profile node's ``k.prev``,
                # an element's ``number``): affine wherever the receiver is
                recv = self.affine(base, ranged, extra)
                return None if recv is None else _add(recv, Affine.of(acc.bounds.lo))
            case tir.ExtAttr(accessor=acc, base=base) if extra is not None:
                return self._accessor(acc.bounds, base, ranged, extra)
            case tir.ExtIndex(base=tir.Var(scope="global", name=n)) if extra is not None:
                return self._element(self.consts.get(n), extra)
        return None

    def _element(self, array, extra) -> Affine | None:
        """An element of a constant int array (``n - w[k]``): a fresh ranged
        variable between the array's least and greatest value, known when the
        script is checked. An infinite or empty array says nothing."""
        values = getattr(array, "values", None)
        if getattr(array, "kind", None) != "ints" or not values \
                or any(type(v) is not int for v in values):
            return None
        name = f"{ELEMENT}{next(self.fresh)}"
        extra.append(RangedVar(name, Affine.of(min(values)), Affine.of(max(values))))
        return Affine.of(0, **{name: 1})

    def _accessor(self, bounds: Bounds, base, ranged, extra) -> Affine | None:
        """An element-valued accessor: a fresh ranged variable within the
        bounds it declares relative to its receiver."""
        recv = self.affine(base, ranged)
        if recv is None or (bounds.lo is None and bounds.hi is None):
            return None
        name = f"_a{next(self.fresh)}"
        lo = None if bounds.lo is None else _add(recv, Affine.of(bounds.lo))
        hi = None if bounds.hi is None else _add(recv, Affine.of(bounds.hi))
        extra.append(RangedVar(name, lo, hi))
        return Affine.of(0, **{name: 1})

    # ---------------------------------------------------------------- conditions
    def condition(self, e: tir.TExpr, negate: bool = False, ranged=()) -> tuple:
        """DNF of affine constraints implied by ``e`` (or by ``not e``)."""
        key = (id(e), negate, id(ranged), self.exact)
        hit = self._conditions.get(key)
        if hit is None or hit[0] is not e or hit[1] is not ranged:
            hit = self._conditions[key] = (e, ranged, self._condition(e, negate, ranged))
        return hit[2]

    def _condition(self, e: tir.TExpr, negate: bool, ranged) -> tuple:
        match e:
            case tir.Not(operand=x):
                return self.condition(x, not negate, ranged)
            case tir.Logic(op=op, left=a, right=b):
                ca = self.condition(a, negate, ranged)
                cb = self.condition(b, negate, ranged)
                conj = (op == "and") != negate
                return _and(ca, cb, self.exact) if conj else _or(ca, cb, self.exact)
            case tir.Lit(value=v) if isinstance(v, bool):
                return ALWAYS if v != negate else ()
            case tir.Compare(op=op, left=l, right=r) if l.type in (T.INT,) or \
                    isinstance(l.type, T.IndexT):
                a, b = self.affine(l, ranged), self.affine(r, ranged)
                if a is None or b is None:
                    return ALWAYS
                return _compare(op, _add(a, _scale(b, -1)), negate)
        return ALWAYS


def _compare(op: str, d: Affine, negate: bool) -> tuple:
    """DNF of ``d op 0`` (negated if asked)."""
    if negate:
        op = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
    ge = lambda a: Constraint(a, "ge")  # noqa: E731
    match op:
        case "==":
            return ((Constraint(d, "eq"),),)
        case "!=":
            return ((ge(_add(d, Affine.of(-1))),), (ge(_add(_scale(d, -1), Affine.of(-1))),))
        case ">=":
            return ((ge(d),),)
        case ">":
            return ((ge(_add(d, Affine.of(-1))),),)
        case "<=":
            return ((ge(_scale(d, -1)),),)
        case "<":
            return ((ge(_add(_scale(d, -1), Affine.of(-1))),),)
    return ALWAYS


class _TooBig(Exception):
    """A condition's DNF outgrew the limit where only an exact one will do."""


def _and(a: tuple, b: tuple, exact: bool = False) -> tuple:
    out = tuple(x + y for x in a for y in b)
    if len(out) <= _MAX_TERMS:
        return out
    if exact:
        raise _TooBig()
    return ALWAYS


def _or(a: tuple, b: tuple, exact: bool = False) -> tuple:
    if not exact and (a == ALWAYS or b == ALWAYS):
        return ALWAYS
    out = a + b
    if len(out) <= _MAX_TERMS:
        return out
    if exact:
        raise _TooBig()
    return ALWAYS


def _scale(a: Affine, k: int) -> Affine:
    return Affine(tuple((v, c * k) for v, c in a.coeffs if c * k), a.const * k)


def _add(a: Affine, b: Affine) -> Affine:
    d = dict(a.coeffs)
    for v, c in b.coeffs:
        d[v] = d.get(v, 0) + c
    return Affine(tuple(sorted((v, c) for v, c in d.items() if c)), a.const + b.const)
