"""Declared ranges (dslc.check.ranges) as affine constraints: the polyhedron a
function's box is cut to, and what is known of the extents, for the dependence
polyhedra and the schedule's legality (isl)."""

from __future__ import annotations

from dslc.check import tir
from dslc.check.ranges import calling_extents, calling_only, extent_name, same_expr
from dslc.deps.ir import Affine, Constraint


def domain_constraints(f: tir.TFunction, consts: dict) -> tuple[Constraint, ...] | None:
    """The declared ranges as ``>= 0`` constraints over ``f``'s recursive
    parameters and its calling extents (``E_n`` for a calling ``n`` that is some
    parameter's upper bound): the polyhedron the box ``0 .. E`` is cut to. An
    upper bound free of recursive parameters is the table's extent, which the box
    states already. None where a bound is not affine in them: the compiler then
    leaves the function to the interpreter."""
    atoms = calling_extents(f)
    rec = {p.name for p in f.rec_params}
    out = []
    for p in f.rec_params:
        if p.range is None:
            continue
        lo, hi = (_affine(b, rec, consts, atoms) for b in p.range)
        if lo is None:
            return None
        out.append(Constraint(_sub(Affine.of(0, **{p.name: 1}), lo)))
        if calling_only(f, p.range[1]):
            continue  # the extent
        if hi is None:
            return None
        out.append(Constraint(_sub(hi, Affine.of(0, **{p.name: 1}))))
    return tuple(out)


def extent_context(f: tir.TFunction, consts: dict) -> tuple[Constraint, ...]:
    """What the extents of ``f``'s declared parameters are known to be, as
    constraints over extents only (isl parameters): the extent of a parameter
    whose upper bound is affine in earlier recursive parameters is at least that
    bound's maximum over their boxes (``E_c >= E_n`` for ``c in 0 ... r``, ``r in 0
    ... n``). The run-time extent is the interval maximum (:func:`box_extent`),
    never below the affine maximum, so the constraint holds on every run; with it
    isl proves a call such as ``best(r + 1, c + 1)`` inside ``c``'s box."""
    atoms = calling_extents(f)
    rec = {p.name for p in f.rec_params}
    ext = {p.name: extent_name(f, p) for p in f.rec_params}
    out = []
    for p in f.rec_params:
        if p.range is None or calling_only(f, p.range[1]):
            continue
        hi = _affine(p.range[1], rec, consts, atoms)
        if hi is None:
            continue
        top: dict[str, int] = {}
        for v, c in hi.coeffs:  # a recursive parameter at the top of its box, or at 0
            if v not in rec or c > 0:
                top[ext.get(v, v)] = top.get(ext.get(v, v), 0) + c
        top = Affine.of(hi.const, **top)
        out.append(Constraint(_sub(Affine.of(0, **{ext[p.name]: 1}), top)))
    return tuple(out)


def _sub(a: Affine, b: Affine) -> Affine:
    c = dict(a.coeffs)
    for v, k in b.coeffs:
        c[v] = c.get(v, 0) - k
    return Affine.of(a.const - b.const, **c)


def _affine(e: tir.TExpr, rec: set, consts: dict, atoms=()) -> Affine | None:
    """``e`` as an affine expression of recursive parameters and the calling
    extents ``atoms`` (``(hi, name)``, :func:`calling_extents`); None when it uses
    another calling value or is not affine."""
    for hi, name in atoms:
        if same_expr(e, hi):
            return Affine.of(0, **{name: 1})
    match e:
        case tir.Lit(value=v):
            return Affine.of(v)
        case tir.Var(scope="global", name=n) if isinstance(consts.get(n), int):
            return Affine.of(consts[n])
        case tir.Var(scope="param", name=n) if n in rec:
            return Affine.of(0, **{n: 1})
        case tir.Neg(operand=a):
            x = _affine(a, rec, consts, atoms)
            return None if x is None else _sub(Affine.of(0), x)
        case tir.Arith(op="+" | "-" as op, left=a, right=b):
            x, y = _affine(a, rec, consts, atoms), _affine(b, rec, consts, atoms)
            if x is None or y is None:
                return None
            return _sub(x, y) if op == "-" else _sub(x, _sub(Affine.of(0), y))
        case tir.Arith(op="*", left=a, right=b):
            x, y = _affine(a, rec, consts, atoms), _affine(b, rec, consts, atoms)
            if x is None or y is None or (x.coeffs and y.coeffs):
                return None
            k, other = (x.const, y) if not x.coeffs else (y.const, x)
            return Affine.of(k * other.const, **{v: k * c for v, c in other.coeffs})
    return None


def bound_relations(functions, consts: dict) -> tuple[Constraint, ...]:
    """What the extents named after calling expressions (:func:`extent_name`) are
    to each other: the extent of such a declared range is its upper bound's value,
    so ``E_n`` of ``0 ... n`` (``n`` a script constant) is 5 when ``n`` is, and
    ``E_m_minus_1`` of ``0 ... m - 1`` is ``E_m - 1`` (bounds affine in the same
    calling values). Without it isl would take ``E_n`` and ``E_n_minus_1`` as
    unrelated and could not prove ``d(k - 1, i, k - 1)`` inside ``j in 0 ... n - 1``
    for ``k in 0 ... n``, ``k >= 1``."""
    bounds: dict[str, Affine] = {}
    for f in functions:
        calling = {p.name for p in f.calling_params}
        for p in f.rec_params:
            if p.range is None or not calling_only(f, p.range[1]):
                continue
            hi = _affine(p.range[1], calling, consts)
            if hi is not None:
                bounds[extent_name(f, p)] = hi
    out, seen = [], {}
    for name, hi in sorted(bounds.items()):
        e = Affine.of(0, **{name: 1})
        if not hi.coeffs:
            out.append(Constraint(_sub(e, Affine.of(hi.const)), "eq"))
            continue
        first = seen.setdefault(hi.coeffs, (name, hi.const))
        if first[0] != name:  # E_name - E_first == the constants' difference
            out.append(Constraint(_sub(_sub(e, Affine.of(0, **{first[0]: 1})),
                                       Affine.of(hi.const - first[1])), "eq"))
    return tuple(out)
