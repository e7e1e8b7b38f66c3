"""Dependence polyhedra: every instance of one recursive call site as an isl set.

Why isl: a schedule is only worth having if it is *proved* legal, for every
input size at once. A call site ``caller(x) -> callee(y)`` is a polyhedron of
tuples ``(x, r, y)`` - the caller's point ``x`` in its box, the values ``r`` of
the ranged variables the call is made under, and the target ``y`` inside the
callee's box - parametric in the extents (``E >= 0``). A candidate schedule
``a`` is broken by the call exactly when some tuple has ``a.x - a.y < slack``;
adding that one constraint and asking isl for a sample point answers the
question exactly and, when it is broken, hands back a concrete witness.

The polyhedron is built once per call site (text parsed once) and each
candidate costs one added constraint, so the schedule search can afford to ask
for hundreds of candidates. Set dimensions are named ``x<k>`` (caller point),
``r<k>`` (ranged variables, in the order of ``Dependence.ranged``) and ``y<k>``
(target); parameters keep the extent names they were given.

The polyhedra are the dependence stage's own result, so they live here, below
the schedule search that asks them and the loop nests (dslc.poly) that reuse
their text. Only this module and ``dslc.poly`` import islpy; callers get plain
Python values (:class:`Witness`, ints, booleans) back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import islpy as isl

from dslc.deps.ir import Affine, Constraint, Dependence
from dslc.errors import InternalError


@dataclass(frozen=True)
class Witness:
    """One concrete instance of a call: caller point, ranged values, target,
    and the extents it was found for (``(name, value)`` pairs, sorted)."""

    caller: tuple[int, ...]
    ranged: tuple[int, ...]
    target: tuple[int, ...]
    extents: tuple[tuple[str, int], ...]

    def distance(self, caller_coeffs: Sequence[int], callee_coeffs: Sequence[int]) -> int:
        """``S(caller) - S(target)`` for a schedule (one coefficient vector per side)."""
        return (sum(c * v for c, v in zip(caller_coeffs, self.caller))
                - sum(c * v for c, v in zip(callee_coeffs, self.target)))


def affine_text(a: Affine, rename: Mapping[str, str]) -> str:
    """isl syntax for an affine expression, with variables renamed to set dims."""
    parts = []
    for v, c in a.coeffs:
        if v.startswith("E_") and v not in rename:
            parts.append(f"{c}*{v}")  # an extent (isl parameter): a declared range's bound
            continue
        if v not in rename:
            raise InternalError(f"affine expression {a} uses '{v}', which is not in scope")
        parts.append(f"{c}*{rename[v]}")
    parts.append(str(a.const))
    return " + ".join(parts)


def constraint_text(c: Constraint, rename: Mapping[str, str]) -> str:
    return f"{affine_text(c.expr, rename)} {'>=' if c.kind == 'ge' else '='} 0"


def _set_text(params: Sequence[str], dims: Sequence[str], pieces: Sequence[Sequence[str]]) -> str:
    """``[params] -> { [dims] : p1 ; [dims] : p2 ... }``; no pieces = empty set."""
    head = f"[{', '.join(params)}] -> "
    tup = f"[{', '.join(dims)}]"
    if not pieces:
        return head + "{ " + tup + " : 1 = 0 }"
    body = "; ".join(f"{tup} : {' and '.join(p) if p else '1 = 1'}" for p in pieces)
    return head + "{ " + body + " }"


def _point(p: isl.Point, n_set: int, n_param: int) -> tuple[list[int], list[int]]:
    coords = [p.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n_set)]
    params = [p.get_coordinate_val(isl.dim_type.param, k).to_python() for k in range(n_param)]
    return coords, params


class DependenceSet:
    """All instances ``(x, r, y)`` of one call site, parametric in the extents.

    ``caller_params`` are the caller's recursive parameter names (the names
    ``dep``'s affine expressions use); ``caller_ext`` / ``callee_ext`` the
    extent parameter names of each position of the caller's / callee's box.
    Without ``target_bounds`` the target may lie anywhere (used to ask whether
    it can ever leave the callee's domain). ``caller_domain`` / ``callee_domain``:
    declared ranges cutting the boxes (constraints over the caller's parameters /
    over ``callee_params``, the callee's), the callee's applied with the box;
    ``context``: constraints over the extents alone (``RecFunction.context``).
    """

    def __init__(self, dep: Dependence, caller_params: Sequence[str],
                 caller_ext: Sequence[str], callee_ext: Sequence[str],
                 target_bounds: bool = True, caller_domain: Sequence[Constraint] = (),
                 callee_domain: Sequence[Constraint] = (), callee_params: Sequence[str] = (),
                 context: Sequence[Constraint] = ()):
        if len(caller_params) != len(caller_ext) or len(dep.args) != len(callee_ext):
            raise InternalError(f"call {dep.caller} -> {dep.callee}: arity does not match "
                                "the extents")
        self.dep = dep
        self.n_x, self.n_r, self.n_y = len(caller_params), len(dep.ranged), len(dep.args)
        xs = [f"x{k}" for k in range(self.n_x)]
        rs = [f"r{k}" for k in range(self.n_r)]
        ys = [f"y{k}" for k in range(self.n_y)]
        self.params = tuple(sorted(set(caller_ext) | set(callee_ext)))
        env = dict(zip(caller_params, xs))
        base = [f"0 <= {x} <= {e}" for x, e in zip(xs, caller_ext)]
        base += [constraint_text(c, env) for c in caller_domain]
        base += [constraint_text(c, {}) for c in context]
        for rv, r in zip(dep.ranged, rs):
            # a bound may use the caller's parameters and earlier ranged variables
            if rv.lo is not None:
                base.append(f"{r} >= {affine_text(rv.lo, env)}")
            if rv.hi is not None:
                base.append(f"{r} <= {affine_text(rv.hi, env)}")
            env[rv.name] = r
        for y, arg, e in zip(ys, dep.args, callee_ext):
            if arg is not None:
                base.append(f"{y} = {affine_text(arg, env)}")
            if target_bounds:
                base.append(f"0 <= {y} <= {e}")
        if target_bounds:
            at_y = dict(zip(callee_params, ys))
            base += [constraint_text(c, at_y) for c in callee_domain]
        base.extend(f"{p} >= 0" for p in self.params)
        pieces = [base + [constraint_text(c, env) for c in conj] for conj in dep.when]
        self.dims = tuple(xs + rs + ys)
        self.set = isl.Set(_set_text(self.params, self.dims, pieces)).coalesce()
        self._space = self.set.get_space()
        self._fixed: dict[tuple, isl.Set] = {}

    # ------------------------------------------------------------------ queries
    def restricted(self, fixed: Mapping[str, int] | None) -> isl.Set:
        """The set with the extents named in ``fixed`` pinned to their values."""
        if not fixed:
            return self.set
        key = tuple(sorted((p, int(v)) for p, v in fixed.items() if p in self.params))
        if key not in self._fixed:
            s = self.set
            for p, v in key:
                s = s.fix_val(isl.dim_type.param, self.params.index(p), isl.Val(str(v)))
            self._fixed[key] = s
        return self._fixed[key]

    def is_empty(self, fixed: Mapping[str, int] | None = None) -> bool:
        return self.restricted(fixed).is_empty()

    def violation(self, caller_coeffs: Sequence[int], callee_coeffs: Sequence[int], slack: int,
                  fixed: Mapping[str, int] | None = None, least: bool = False) -> Witness | None:
        """An instance with ``S(x) - S(y) < slack``, or None when there is none
        (for every extent, or for the ``fixed`` ones). ``least`` asks for the
        lexicographically smallest one (slower; for messages)."""
        coef: dict = {1: slack - 1}  # slack - 1 - a.x + b.y >= 0
        for k, c in enumerate(caller_coeffs):
            if c:
                coef[f"x{k}"] = coef.get(f"x{k}", 0) - c
        for k, c in enumerate(callee_coeffs):
            if c:
                coef[f"y{k}"] = coef.get(f"y{k}", 0) + c
        s = self.restricted(fixed)
        bad = s.add_constraint(isl.Constraint.ineq_from_names(s.get_space(), coef))
        if least:
            if bad.is_empty():
                return None
            bad = bad.lexmin()
        return self._witness(bad.sample_point())

    def sample(self, fixed: Mapping[str, int] | None = None) -> Witness | None:
        return self._witness(self.restricted(fixed).sample_point())

    def max_distance(self, caller_coeffs: Sequence[int], callee_coeffs: Sequence[int],
                     fixed: Mapping[str, int]) -> int | None:
        """``max S(x) - S(y)`` over the instances for the given extents; None
        when the call is never made there. Unbounded maxima (possible only with
        extents left free) are an internal error: callers fix every extent."""
        s = self.restricted(fixed)
        if s.is_empty():
            return None
        terms = [f"{c}*x{k}" for k, c in enumerate(caller_coeffs) if c]
        terms += [f"{-c}*y{k}" for k, c in enumerate(callee_coeffs) if c]
        aff = isl.Aff(f"[{', '.join(self.params)}] -> {{ [{', '.join(self.dims)}] -> "
                      f"[({' + '.join(terms) or '0'})] }}")
        v = s.max_val(aff)
        if not v.is_int():
            raise InternalError(f"unbounded schedule distance for {self.dep.caller} -> "
                                f"{self.dep.callee}")
        return v.to_python()

    def _witness(self, p: isl.Point) -> Witness | None:
        if p.is_void():
            return None
        coords, params = _point(p, len(self.dims), len(self.params))
        nx, nr = self.n_x, self.n_r
        return Witness(tuple(coords[:nx]), tuple(coords[nx:nx + nr]), tuple(coords[nx + nr:]),
                       tuple(zip(self.params, params)))
