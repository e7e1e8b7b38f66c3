"""Facts about a group's domain that let generated code drop run-time checks.

Both are decided exactly with isl, for every extent:

* :func:`target_always_inside` - a call's target lies in the callee's box at
  every point where the call is made, so it needs no domain check;
* :func:`index_always_inside` - a sequence index ``s[e]`` stays within ``s``.
"""

from __future__ import annotations

from typing import Sequence

import islpy as isl

from dslc.deps.ir import Affine, Constraint, Dependence
from dslc.deps.polyhedra import DependenceSet, affine_text, constraint_text


def target_always_inside(dep: Dependence, caller_params: Sequence[str],
                         caller_ext: Sequence[str], callee_ext: Sequence[str],
                         caller_domain: Sequence[Constraint] = (),
                         callee_domain: Sequence[Constraint] = (),
                         callee_params: Sequence[str] = (),
                         context: Sequence[Constraint] = ()) -> bool:
    """Is the call's target inside the callee's domain (its box, cut by its
    declared ranges) wherever the call is made?"""
    free = DependenceSet(dep, caller_params, caller_ext, callee_ext, target_bounds=False,
                         caller_domain=caller_domain, context=context)
    at_y = {p: f"y{k}" for k, p in enumerate(callee_params)}
    outside = " or ".join([f"y{k} < 0 or y{k} > {e}" for k, e in enumerate(callee_ext)]
                          + [f"{affine_text(c.expr, at_y)} < 0" for c in callee_domain])
    if not outside:
        return True
    bad = isl.Set(f"[{', '.join(free.params)}] -> {{ [{', '.join(free.dims)}] : {outside} }}")
    return free.set.intersect(bad).is_empty()


def index_always_inside(params: tuple[str, ...], extents: tuple[str, ...], index: Affine,
                        length: str, when) -> bool:
    """Is ``index`` within ``0 .. length - 1`` at every point of the box where
    ``when`` (a DNF of constraints) holds, for every extent?"""
    xs = [f"x{k}" for k in range(len(params))]
    env = dict(zip(params, xs))
    # reduction variables (deps.extract.sequence_indexes) are further dimensions,
    # bounded by the constraints in ``when``
    free = sorted({v for v, _ in index.coeffs} | {v for conj in when for c in conj
                                                  for v, _ in c.expr.coeffs})
    for k, v in enumerate(n for n in free if n not in env):
        env[v] = f"r{k}"
        xs.append(f"r{k}")
    names = sorted(set(extents) | {length})
    box = [f"0 <= {x} <= {e}" for x, e in zip(xs, extents)] + [f"{n} >= 0" for n in names]
    ix = affine_text(index, env)
    bad = f"({ix} < 0 or {ix} > {length} - 1)"
    pieces = [" and ".join(box + [bad] + [constraint_text(c, env) for c in conj])
              for conj in when]
    if not pieces:
        return True
    s = isl.Set(f"[{', '.join(names)}] -> {{ "
                + "; ".join(f"[{', '.join(xs)}] : {p}" for p in pieces) + " }")
    return s.is_empty()
