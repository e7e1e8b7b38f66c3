"""Choosing float32 for integer tables, exactly.

Compiled ``int`` values are floats (the language's infinities come free). float64
is exact to 2^53; float32 only to 2^24, but it halves memory traffic and doubles
the SIMD width, which is what decides the speed of a sweep (on the GPU, a
hand-written local-alignment kernel ran twice as fast in float32 as in int64). The
compiler picks float32 for a task only where the result is provably the same.

The shape of the argument: a table qualifies when every cell's value is built
from *additions, subtractions, min and max* (and conditionals) over table
reads, integer literals, numeric arguments, coordinates and extension values
with a device layout (a substitution matrix). Each value is then an integer,
and float32 arithmetic on integers is exact while every intermediate stays
below 2^24. Two ways to know that it does:

* **A static bound** (no cost at run time). If no additive term reads more
  than one table cell (a term such as ``h(i-1, j-1) + sm[..]``, a cell plus a
  matrix entry, reads one), a cell exceeds the cell it reads by at
  most ``k * M``, where ``k`` counts the other additive leaves of a term and
  ``M`` bounds their magnitude (literals here; arguments, matrices and, if
  coordinates are used as values, extents on the host). Every chain of reads
  goes back through at most ``CHAIN`` cells (partitions times functions, summed
  over the groups; partitions from the schedule's coefficients and the largest
  extent), so every magnitude is below ``(CHAIN + 1) * k * M``, which the host
  checks against 2^23 before choosing float32.
* **A check in the generated code** otherwise (a term such as ``n(i, k) + n(k+1, j)``
  reads two cells, so values could double along a chain): every stored value's
  finite magnitude is recorded per task, every leaf is below ``LEAF = 2^20`` and a
  term has at most 16 leaves, so intermediates stay below 2^24; a task whose
  record reaches ``LEAF`` is recomputed in float64.

Infinities behave as in float64 and are no magnitude. Anything else
(multiplication of values, division, ``sum`` reductions, float or prob tables,
helper calls) keeps float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dslc.check import tir
from dslc.lang import types as T

if TYPE_CHECKING:  # (a run whose code is cached reads the bounds here, and plans nothing)
    from dslc.plan.task import TaskPlan

LEAF = 2.0**20  # the checked argument: bound on every leaf and stored value
STATIC = 2.0**23  # the static argument: bound on every magnitude
MAX_LEAVES = 16


@dataclass(frozen=True)
class Float32:
    """What the static argument needs from the program: at most ``leaves``
    non-table additive leaves per term, literals up to ``literal``, whether
    coordinates are values, and whether every term reads at most one cell."""

    linear: bool
    leaves: int
    literal: int
    coords: bool
    groups: tuple[tuple[int, int], ...]  # per group: functions, sum of |schedule coefficients|

    def chain(self, extent: int) -> int:
        """Cells a chain of reads can pass through when no extent exceeds
        ``extent``: partitions (at most ``sum |a_k| * extent + 1``) times
        functions, summed over the groups."""
        return sum(nf * (cs * extent + 1) for nf, cs in self.groups)

    def static_bound(self, values: float, extent: int) -> float:
        """The largest magnitude any value can reach (``values``: the largest
        finite argument or model value; ``extent``: the largest extent)."""
        m = max(self.literal, values, extent if self.coords else 0)
        return (self.chain(extent) + 1) * self.leaves * m


class _Wide(Exception):
    """Not provably exact in float32."""


@dataclass(frozen=True)
class _Ctx:
    program: object
    rec: frozenset  # the recursive parameters of the function being checked
    # an int product of coordinates and constants (``-gap * j``) as one leaf: for
    # linear_sums, which asks only whether values grow linearly, not how far
    index_products: bool = False


@dataclass(frozen=True)
class _Count:
    """Leaves of one additive term: table reads and everything else."""

    reads: int
    other: int
    literal: int = 0
    coords: bool = False

    def __add__(self, o: "_Count") -> "_Count":
        return _Count(self.reads + o.reads, self.other + o.other,
                      max(self.literal, o.literal), self.coords or o.coords)

    def join(self, o: "_Count") -> "_Count":
        return _Count(max(self.reads, o.reads), max(self.other, o.other),
                      max(self.literal, o.literal), self.coords or o.coords)


def linear_sums(program, plan: TaskPlan) -> bool:
    """Does every term of ``plan``'s tables read at most one cell, with additions,
    subtractions, min and max over bounded leaves (a product of coordinates and
    constants, ``-gap * j``, counting as one)? Then values grow by a bounded step
    along a chain of reads, and emit.pyexpr leaves int sums unchecked against 2^53."""
    info = float32_info(program, plan, index_products=True)
    return info is not None and info.linear


def float32_info(program, plan: TaskPlan, index_products: bool = False) -> Float32 | None:
    """The float32 facts of ``plan``'s tables, or None where float32 is out
    (a fused ``sum`` would accumulate in the table type: no bound covers it).
    ``index_products``: see :class:`_Ctx` (never for float32 itself)."""
    if any(fu.op == "sum" for fu in plan.fused):
        return None
    if any(g.on_demand for g in plan.groups):
        return None  # no schedule bounds the chain of cells (and no kernel takes it)
    total = _Count(0, 0)
    for g in plan.groups:
        for name in g.functions:
            f = program.functions[name]
            if f.ret != T.INT:
                return None
            ctx = _Ctx(program, frozenset(p.name for p in f.rec_params), index_products)
            try:
                for guard in f.guards:
                    if guard.cond is not None:
                        _condition(guard.cond, ctx)
                    c = _count(guard.body, ctx)
                    if c.reads + c.other > MAX_LEAVES:
                        return None
                    total = total.join(c)
            except _Wide:
                return None
    groups = tuple((len(g.functions), sum(abs(c) for c in g.schedule.coeffs)) for g in plan.groups)
    return Float32(total.reads <= 1, max(total.other, 1), total.literal, total.coords, groups)


def largest(arrays) -> float | None:
    """The largest finite magnitude among numeric arrays, None if any is NaN."""
    out = 0.0
    for a in arrays:
        v = np.asarray(a)
        if v.dtype.kind not in "fiub" or v.size == 0:
            continue
        if v.dtype.kind == "f":
            if np.isnan(v).any():
                return None
            v = v[np.isfinite(v)]
        if v.size:
            out = max(out, float(np.max(np.abs(v))))
    return out


def _count(e: tir.TExpr, ctx: _Ctx) -> _Count:
    """Additive leaves of a value expression (see the module docstring)."""
    program = ctx.program
    match e:
        case tir.Lit(value=v):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise _Wide()
            if math.isinf(v):
                return _Count(0, 1)
            if v != int(v) or abs(v) >= LEAF:
                raise _Wide()
            return _Count(0, 1, abs(int(v)))
        case tir.Var(scope=scope, type=t):
            if t != T.INT:
                raise _Wide()
            if scope == "global":
                c = program.consts.get(e.name)
                if not isinstance(c, (int, float)):
                    raise _Wide()
                if math.isinf(c):
                    return _Count(0, 1)
                if abs(c) >= LEAF:
                    raise _Wide()
                return _Count(0, 1, abs(int(c)))
            if scope == "local":
                # a reduction variable as a value: its range's bounds may be any
                # constant (``k in big ... big``), not the extents that bound coordinates
                raise _Wide()
            coords = scope == "param" and e.name in ctx.rec
            return _Count(0, 1, 0, coords)
        case tir.Coerce(expr=x, type=t):
            if t != T.INT:
                raise _Wide()
            return _count(x, ctx)
        case tir.Neg(operand=x):
            return _count(x, ctx)
        case tir.Arith(op="+" | "-", left=a, right=b, type=t) if t == T.INT:
            return _count(a, ctx) + _count(b, ctx)
        case tir.MinMax(left=a, right=b):
            return _count(a, ctx).join(_count(b, ctx))
        case tir.Cond(cond=c, then=a, orelse=b):
            _condition(c, ctx)
            return _count(a, ctx).join(_count(b, ctx))
        case tir.Call(func=name):
            f = program.functions[name]
            if not f.is_table or f.ret != T.INT:
                raise _Wide()
            return _Count(1, 0)
        case tir.ExtIndex(type=t):
            if t != T.INT:
                raise _Wide()
            return _Count(0, 1)
        case tir.Reduce(op="max" | "min", iterable=it, where=w, body=body):
            _condition(it, ctx)
            if w is not None:
                _condition(w, ctx)
            return _count(body, ctx)
        case tir.Arith(op="*") if ctx.index_products and _is_index(e, ctx):
            return _Count(0, 1, 0, True)
    raise _Wide()


def _condition(e: tir.TExpr, ctx: _Ctx) -> None:
    """Conditions and bounds. Index arithmetic (recursive parameters, reduction
    variables, ``len``, literals, constants) is int64 in generated code, never
    float32; any other int compared is a value like a cell's."""
    for x in tir.walk(e):
        if isinstance(x, tir.Compare):
            for side in (x.left, x.right):
                if side.type != T.INT or _is_index(side, ctx):
                    continue
                c = _count(side, ctx)
                if c.reads + c.other > MAX_LEAVES:
                    raise _Wide()


def _is_index(e: tir.TExpr, ctx: _Ctx) -> bool:
    """Built from recursive parameters, reduction variables, literals, integer
    constants and ``len`` only (numeric arguments are float32 lanes: not here)."""
    for x in tir.walk(e):
        if isinstance(x, tir.Var):
            if x.scope == "param" and x.name not in ctx.rec and x.type == T.INT:
                return False
            if x.scope == "global" and not isinstance(ctx.program.consts.get(x.name), int):
                return False
        elif isinstance(x, tir.Builtin):
            if x.name != "len":
                return False
        elif not isinstance(x, (tir.Lit, tir.Arith, tir.Neg)):
            return False
    return True
