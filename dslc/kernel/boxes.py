"""Deciding guards over a box of the iteration space (index-set splitting).

A generated sweep that knows every point of a loop lies in a box, say
``i >= 1 and j >= 1``, need not test the guards that box decides: ``i == 0 or
j == 0`` is false there, so the boundary case disappears from the interior
code and only the ``otherwise`` body is left. This module answers that
question with interval arithmetic on the typed IR: ``decide`` returns True,
False or None (undecided, keep the run-time test). It knows nothing about any
particular recurrence; a guard it cannot read is simply left undecided, which
is always correct. The guard pass (kernel.guards) decides with it over the boxes
a generator records on its cells' code.
"""

from __future__ import annotations

import math
from typing import Mapping

from dslc.check import tir

Box = Mapping[str, tuple[float, float]]  # recursive parameter -> (lowest, highest)


def interval(e: tir.TExpr, box: Box) -> tuple[float, float] | None:
    """The values of integer expression ``e`` over ``box``, or None when ``e``
    is not an affine combination of the box's parameters and literals."""
    match e:
        case tir.Lit(value=v) if isinstance(v, int) and not isinstance(v, bool):
            return (v, v)
        case tir.Var(name=n, scope="param") if n in box:
            return box[n]
        case tir.Neg(operand=x):
            r = interval(x, box)
            return None if r is None else (-r[1], -r[0])
        case tir.Arith(op="+" | "-" | "*", left=a, right=b):
            ra, rb = interval(a, box), interval(b, box)
            if ra is None or rb is None:
                return None
            if e.op == "+":
                return (ra[0] + rb[0], ra[1] + rb[1])
            if e.op == "-":
                return (ra[0] - rb[1], ra[1] - rb[0])
            if ra[0] == ra[1] or rb[0] == rb[1]:  # a product with a constant
                ends = [_mul(x, y) for x in ra for y in rb]
                return (min(ends), max(ends))
    return None


def _mul(x: float, y: float) -> float:
    return 0 if x == 0 or y == 0 else x * y  # 0 * inf is 0 for the interval's ends


def decide(e: tir.TExpr, box: Box) -> bool | None:
    """Is condition ``e`` true (True), false (False) at every point of ``box``,
    or neither / unknown (None)?"""
    match e:
        case tir.Lit(value=v) if isinstance(v, bool):
            return v
        case tir.Not(operand=x):
            d = decide(x, box)
            return None if d is None else not d
        case tir.Logic(op=op, left=a, right=b):
            da, db = decide(a, box), decide(b, box)
            if op == "and":
                return False if False in (da, db) else True if da and db else None
            return True if True in (da, db) else False if da is False and db is False else None
        case tir.Compare(op=op, left=a, right=b):
            ra, rb = interval(a, box), interval(b, box)
            if ra is None or rb is None:
                return None
            return _compare(op, ra[0] - rb[1], ra[1] - rb[0])
    return None


def _compare(op: str, lo: float, hi: float) -> bool | None:
    """``d op 0`` for every ``d`` in ``[lo, hi]``."""
    if op in ("==", "!="):
        eq = True if lo == hi == 0 else False if lo > 0 or hi < 0 else None
        return eq if op == "==" or eq is None else not eq
    if op in (">", ">="):
        lo, hi, op = -hi, -lo, "<" if op == ">" else "<="
    if op == "<":
        return True if hi < 0 else False if lo >= 0 else None
    return True if hi <= 0 else False if lo > 0 else None


def constants(e: tir.TExpr) -> list[int]:
    """Integer literals compared against in condition ``e`` (where a box's
    corner is worth placing: one past the largest decides ``i == 0``)."""
    match e:
        case tir.Lit(value=v) if isinstance(v, int) and not isinstance(v, bool):
            return [abs(v)]
        case tir.Not(operand=x) | tir.Neg(operand=x):
            return constants(x)
        case tir.Logic(left=a, right=b) | tir.Compare(left=a, right=b) | tir.Arith(left=a, right=b):
            return constants(a) + constants(b)
    return []


def live_guards(guards, box: Box) -> list:
    """The guards still to test inside ``box``, in order: those decided false
    dropped, and the first decided true made unconditional (the rest can never
    be reached)."""
    out = []
    for g in guards:
        d = True if g.cond is None else decide(g.cond, box)
        if d is False:
            continue
        out.append(g if d is None else tir.TGuard(None, g.body, g.span))
        if d is True:
            break
    return out


INF = math.inf
