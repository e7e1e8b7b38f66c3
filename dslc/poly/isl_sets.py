"""Dependences as isl sets: exact legality, witnesses and window depths.

All islpy use of the schedule search lives here. A dependence becomes, for a
candidate schedule ``a``, the set of (caller point, ranged values, target)
tuples that would break it: ``a.x - a.y < required``. The dependence is
respected exactly when that set is empty, for every value of the extent
parameters (``E >= 0``) - so a schedule found once holds for every input size.
"""

from __future__ import annotations

import functools

import islpy as isl

from dslc.deps.ir import Affine, Dependence


def _aff(a: Affine, rename: dict[str, str] | None = None) -> str:
    rename = rename or {}
    parts = [f"{c}*{rename.get(v, v)}" for v, c in a.coeffs]
    parts.append(str(a.const))
    return " + ".join(parts)


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> isl.Set:
    return isl.Set(text)


def dependence_set(dep: Dependence, caller_params: tuple[str, ...], caller_ext: tuple[str, ...],
                   callee_ext: tuple[str, ...], coeffs: tuple[int, ...] | None,
                   required: int | None, fixed: dict[str, int] | None = None,
                   target_bounds: bool = True) -> isl.Set:
    """The points of ``dep`` (caller point ``x``, ranged values, target ``y``),
    restricted to those violating ``a.x - a.y >= required`` when coeffs is given.
    ``fixed`` pins extent parameters to concrete values; without
    ``target_bounds`` the target may lie anywhere (to ask whether it can leave
    the callee's domain)."""
    xs = [f"x_{p}" for p in caller_params]
    ren = {p: f"x_{p}" for p in caller_params}
    rs = [r.name for r in dep.ranged]
    ys = [f"y{k}" for k in range(len(dep.args))]
    params = sorted(set(caller_ext) | set(callee_ext))
    cons = []
    for x, e in zip(xs, caller_ext):
        cons.append(f"0 <= {x} <= {e}")
    for r in dep.ranged:
        if r.lo is not None:
            cons.append(f"{r.name} >= {_aff(r.lo, ren)}")
        if r.hi is not None:
            cons.append(f"{r.name} <= {_aff(r.hi, ren)}")
    for y, arg, e in zip(ys, dep.args, callee_ext):
        if arg is not None:
            cons.append(f"{y} = {_aff(arg, ren)}")
        if target_bounds:
            cons.append(f"0 <= {y} <= {e}")
    if coeffs is not None:
        sx = " + ".join(f"{c}*{x}" for c, x in zip(coeffs, xs)) or "0"
        sy = " + ".join(f"{c}*{y}" for c, y in zip(coeffs, ys)) or "0"
        cons.append(f"({sx}) - ({sy}) <= {required - 1}")
    if fixed:
        cons.extend(f"{p} = {fixed[p]}" for p in params if p in fixed)
    cons.extend(f"{p} >= 0" for p in params)
    space = ", ".join(xs + rs + ys)
    base = " and ".join(cons)
    pieces = []
    for conj in dep.when:
        extra = [f"{_aff(c.expr, ren)} {'>=' if c.kind == 'ge' else '='} 0" for c in conj]
        pieces.append(" and ".join([base] + extra))
    if not pieces:
        return _parse(f"[{', '.join(params)}] -> {{ [{space}] : 1 = 0 }}")
    body = "; ".join(f"[{space}] : {p}" for p in pieces)
    return _parse(f"[{', '.join(params)}] -> {{ {body} }}")


def witness(s: isl.Set, caller_params: tuple[str, ...], nargs: int) -> tuple[dict, tuple]:
    """A concrete violating point: (caller point by name, target) plus extents."""
    point = s.sample_point()
    space = s.get_space()
    names = [space.get_dim_name(isl.dim_type.set, k) for k in range(space.dim(isl.dim_type.set))]
    vals = {n: point.get_coordinate_val(isl.dim_type.set, k).to_python()
            for k, n in enumerate(names)}
    params = {space.get_dim_name(isl.dim_type.param, k):
              point.get_coordinate_val(isl.dim_type.param, k).to_python()
              for k in range(space.dim(isl.dim_type.param))}
    x = {p: vals[f"x_{p}"] for p in caller_params}
    y = tuple(vals[f"y{k}"] for k in range(nargs))
    return {"caller": x, "target": y, "extents": params}, y


def max_distance(dep: Dependence, caller_params, caller_ext, callee_ext, coeffs,
                 fixed: dict[str, int]) -> int | None:
    """``max(a.x - a.y)`` over the dependence for concrete extents; None if the
    set is empty, a large sentinel if unbounded."""
    s = dependence_set(dep, caller_params, caller_ext, callee_ext, None, None, fixed)
    if s.is_empty():
        return None
    space = s.get_space()
    n = space.dim(isl.dim_type.set)
    names = [space.get_dim_name(isl.dim_type.set, k) for k in range(n)]
    xs = [f"x_{p}" for p in caller_params]
    ys = [f"y{k}" for k in range(len(dep.args))]
    terms = [f"{c}*{x}" for c, x in zip(coeffs, xs)] + [f"{-c}*{y}" for c, y in zip(coeffs, ys)]
    params = [space.get_dim_name(isl.dim_type.param, k) for k in range(space.dim(isl.dim_type.param))]
    aff = isl.Aff(f"[{', '.join(params)}] -> {{ [{', '.join(names)}] -> [({' + '.join(terms) or '0'})] }}")
    v = s.max_val(aff)
    if v.is_infty():
        return 1 << 40
    return v.to_python()


def target_always_inside(dep: Dependence, caller_params, caller_ext, callee_ext) -> bool:
    """Is the call's target inside the callee's domain at every point where the
    call is made (for every extent)? Then generated code needs no domain check."""
    free = dependence_set(dep, caller_params, caller_ext, callee_ext, None, None,
                          target_bounds=False)
    space = free.get_space()
    names = [space.get_dim_name(isl.dim_type.set, k) for k in range(space.dim(isl.dim_type.set))]
    params = [space.get_dim_name(isl.dim_type.param, k)
              for k in range(space.dim(isl.dim_type.param))]
    outside = " or ".join(f"y{k} < 0 or y{k} > {e}" for k, e in enumerate(callee_ext))
    bad = isl.Set(f"[{', '.join(params)}] -> {{ [{', '.join(names)}] : {outside} }}")
    return free.intersect(bad).is_empty()


def index_always_inside(params: tuple[str, ...], extents: tuple[str, ...], index: Affine,
                        length: str, when) -> bool:
    """Is ``index`` within ``0 .. length - 1`` at every point of the box where
    ``when`` (a DNF of constraints) holds, for every extent?"""
    xs = [f"x_{p}" for p in params]
    ren = {p: f"x_{p}" for p in params}
    names = sorted(set(extents) | {length})
    box = " and ".join([f"0 <= {x} <= {e}" for x, e in zip(xs, extents)]
                       + [f"{n} >= 0" for n in names])
    ix = _aff(index, ren)
    bad = f"({ix} < 0 or {ix} > {length} - 1)"
    pieces = []
    for conj in when:
        extra = [f"{_aff(c.expr, ren)} {'>=' if c.kind == 'ge' else '='} 0" for c in conj]
        pieces.append(" and ".join([box, bad] + extra))
    if not pieces:
        return True
    s = isl.Set(f"[{', '.join(names)}] -> {{ " + "; ".join(f"[{', '.join(xs)}] : {p}"
                                                            for p in pieces) + " }")
    return s.is_empty()
