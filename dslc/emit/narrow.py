"""Narrow integer lanes: 16-bit saturating integers for integer tables, exactly.

A pack (emit.packs) in float32 holds 16 tasks per 512-bit vector; in int16 it holds
32, and a vector instruction on 16-bit words costs what one on 32-bit floats does.
float32's own argument (emit.precision) bounds every value by the chain of cells
that can pass a value on, far beyond 2^15 for sequences of a few hundred residues,
so int16 needs another argument, made of a proof and a check:

* **A floor, proved here.** Where every table's value is a ``max`` against a floor
  (``0 max ...``, as local alignment's), a fixed point over the tables' guards
  bounds every finite value from below by ``-floor * M`` (``M``: the largest
  magnitude of the run's literals, arguments and model values, known on the host).
  A recurrence whose values can fall without end (a global alignment) has no fixed
  point and stays float32.
* **A ceiling, checked.** Every stored value is recorded per lane (its largest,
  kernel.value_type); a task whose record reaches ``ceiling = 32767 - 2 * k * M``
  (``k``: the non-table leaves of a term) is recomputed wider, never trusted.

In between, each sum is computed saturating (clamped to the type, then narrowed:
one ``vpaddsw``/``vpsubsw``), and ``-inf`` and ``+inf`` are the type's extremes
(``NINF = -32768``, ``PINF = 32767``). Exactness, by induction over the cells in
the order they are computed: a finite read lies in ``[-floor * M, ceiling)``, so a
term (one read and at most ``k`` leaves: emit.precision's linear argument) never
saturates; a ``-inf`` read stays ``NINF`` because every leaf added to it is proved
(or checked on the host: ``signs``) not positive, so the saturating sum clamps back
to ``NINF``; a ``+inf`` read with leaves subtracted lands at or above
``32767 - k * M > ceiling``, above every finite value (so ``min`` and ``max`` choose
as with ``+inf``) and, once stored, in the record: the task is recomputed. Conditions
must not compare values (two such near-infinities could compare the wrong way); a
table read must not be negated or subtracted (``-NINF`` is not ``PINF``).

The result of a task (its fused reductions and the entry's expression over them) is
checked on the host the same way: ``NINF`` and ``PINF`` are the infinities, a value
below the entry's proved floor or at the ceiling is recomputed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dslc.check import tir
from dslc.emit.precision import float32_info
from dslc.lang import types as T
from dslc.targets.printer import saturating

LO, HI = -32768, 32767  # int16
RANGES = {"int16": (LO, HI), "int8": (-128, 127)}
MIN_CEILING = {"int16": 256, "int8": 32}  # below these, most tasks would be recomputed
ROUNDS = 64  # fixed-point rounds before a floor is taken not to exist


@dataclass(frozen=True)
class Narrow:
    """What the host needs to choose int16 for a run (module docstring): every
    finite table value is at least ``floor * M`` and every result at least
    ``out_floor * M`` (``floor`` <= 0, in units of ``M``); a term adds at most
    ``leaves`` non-table leaves, literals up to ``literal``; ``signs``: the
    parameters added to a possible ``-inf`` and the sign each must have (``-1``:
    at most 0, ``1``: at least 0)."""

    floor: float
    out_floor: float
    leaves: int
    literal: int
    signs: tuple[tuple[str, int], ...]

    def bounds(self, values: float, dtype: str = "int16") -> tuple[int, int] | None:
        """(ceiling, lowest finite result) for a run whose leaves are at most
        ``values`` in magnitude, or None where ``dtype`` leaves no room."""
        lo, hi = RANGES[dtype]
        m = max(self.literal, values, 1)
        reach = 2 * self.leaves * m
        ceiling = hi - reach
        low = math.floor(min(self.floor, self.out_floor) * m) - self.leaves * m
        if ceiling < MIN_CEILING[dtype] or low - reach <= lo:
            return None
        return int(ceiling), int(math.floor(self.out_floor * m))

    def signs_hold(self, value_of) -> bool:
        """Do the run's arguments have the signs ``signs`` asks (``value_of(name)``:
        an array of the parameter's values in every task)?"""
        for name, sign in self.signs:
            v = value_of(name)
            if v is None or (sign < 0 and v.max(initial=0) > 0) or \
                    (sign > 0 and v.min(initial=0) < 0):
                return False
        return True


class _Wide(Exception):
    """Not provably exact in int16."""


@dataclass(frozen=True)
class _Val:
    """What a value may be: finite values at least ``lo * M`` (``math.inf``: none),
    and whether ``-inf`` or ``+inf``."""

    lo: float
    ninf: bool = False
    pinf: bool = False


EMPTY = _Val(math.inf)
LEAF = _Val(-1.0)


def narrow_info(program, plan) -> Narrow | None:
    """The int16 facts of ``plan``'s tables (module docstring), or None."""
    info = float32_info(program, plan)
    if info is None or not info.linear or info.coords or plan.kind != "value":
        return None
    funcs = [f for g in plan.groups for f in g.functions]
    state = {f: EMPTY for f in funcs}
    try:
        for _ in range(ROUNDS):
            signs: set = set()
            new = {f: _function(program, f, state, signs) for f in funcs}
            if new == state:
                break
            state = new
        else:
            return None
        entry = program.functions[plan.entry]
        out = EMPTY
        for g in entry.guards:
            if g.cond is not None:
                _condition(g.cond)
            out = _either(out, _value(program, g.body, state, signs))
    except _Wide:
        return None
    floor = min([v.lo for v in state.values() if v.lo != math.inf] + [0.0])
    out_floor = out.lo if out.lo != math.inf else 0.0
    return Narrow(floor, min(out_floor, 0.0), max(info.leaves, 1), info.literal,
                  tuple(sorted(signs)))


def text(facts: Narrow | None) -> str:
    """The facts as the module constant the host reads (``NARROW``)."""
    if facts is None:
        return "None"
    return repr((facts.floor, facts.out_floor, facts.leaves, facts.literal, facts.signs))


def from_module(value) -> Narrow | None:
    return None if value is None else Narrow(*value)


def _function(program, name, state, signs) -> _Val:
    f = program.functions[name]
    out = EMPTY
    for g in f.guards:
        if g.cond is not None:
            _condition(g.cond)
        out = _either(out, _value(program, g.body, state, signs))
    return out


def _either(a: _Val, b: _Val) -> _Val:
    return _Val(min(a.lo, b.lo), a.ninf or b.ninf, a.pinf or b.pinf)


def _max(a: _Val, b: _Val) -> _Val:
    cases = [max(a.lo, b.lo)]
    if a.ninf:
        cases.append(b.lo)
    if b.ninf:
        cases.append(a.lo)
    return _Val(min(cases), a.ninf and b.ninf, a.pinf or b.pinf)


def _min(a: _Val, b: _Val) -> _Val:
    return _Val(min(a.lo, b.lo), a.ninf or b.ninf, a.pinf and b.pinf)


def _value(program, e, state, signs) -> _Val:
    match e:
        case tir.Lit(value=v):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise _Wide()
            if math.isinf(v):
                return _Val(math.inf, ninf=v < 0, pinf=v > 0)
            return _Val(0.0) if v >= 0 else LEAF
        case tir.Coerce(expr=x, type=t) if t == T.INT:
            return _value(program, x, state, signs)
        case tir.Neg(operand=tir.Lit(value=v)) if isinstance(v, float) and math.isinf(v):
            return _Val(math.inf, ninf=v > 0, pinf=v < 0)
        case tir.Call(func=name) if name in state:
            return state[name]
        case tir.MinMax(op=op, left=a, right=b):
            x, y = _value(program, a, state, signs), _value(program, b, state, signs)
            return _max(x, y) if op == "max" else _min(x, y)
        case tir.Cond(cond=c, then=a, orelse=b):
            _condition(c)
            return _either(_value(program, a, state, signs), _value(program, b, state, signs))
        case tir.Reduce(op="max" | "min", iterable=it, where=w, body=body):
            _condition(it)
            if w is not None:
                _condition(w)
            v = _value(program, body, state, signs)
            # an empty range gives the reduction's identity
            return _Val(v.lo, v.ninf or e.op == "max", v.pinf or e.op == "min")
        case tir.Arith(op="+" | "-", type=t) | tir.Neg(type=t) if t == T.INT:
            return _sum(program, e, state, signs)
    if _leaf_sign(e) is not None:
        return _leaf(e)
    raise _Wide()


def _sum(program, e, state, signs) -> _Val:
    """A term: at most one operand reading the tables (possibly infinite), the others
    finite leaves. Where the read may be ``-inf``, each leaf must not be positive."""
    parts = list(_terms(e, 1))
    inner = [(s, x) for s, x in parts if _reads(x, state)]
    if len(inner) > 1 or any(s < 0 for s, _ in inner):
        raise _Wide()
    leaves = [(s, x) for s, x in parts if not _reads(x, state)]
    read = _value(program, inner[0][1], state, signs) if inner else _Val(0.0)
    lo = read.lo + sum(_operand(program, x, s, state, signs) for s, x in leaves)
    if read.ninf:
        for s, x in leaves:
            signs.update(_not_positive(x, s))
    return _Val(lo, read.ninf, read.pinf)


def _reads(e, state) -> bool:
    """Does ``e`` read a table or hold an infinity (the one operand of a term that
    may)?"""
    for x in tir.walk(e):
        if isinstance(x, tir.Call) and x.func in state:
            return True
        if isinstance(x, tir.Lit) and isinstance(x.value, float) and math.isinf(x.value):
            return True
    return False


def _operand(program, e, sign, state, signs) -> float:
    """The floor (in units of M) of a finite operand of a term, with its sign: a
    leaf's own, or for a finite expression of leaves (``if ... then 3 else -2``) its
    floor where added and minus its count of leaves where subtracted."""
    if _leaf_sign(e) is not None:
        return _leaf(e, sign).lo
    if sign > 0:
        return _value(program, e, state, signs).lo
    return -float(sum(1 for x in tir.walk(e) if _leaf_sign(x) is not None))


def _terms(e, sign):
    """``e``'s additive operands with their signs."""
    match e:
        case tir.Arith(op="+", left=a, right=b, type=t) if t == T.INT:
            yield from _terms(a, sign)
            yield from _terms(b, sign)
        case tir.Arith(op="-", left=a, right=b, type=t) if t == T.INT:
            yield from _terms(a, sign)
            yield from _terms(b, -sign)
        case tir.Neg(operand=x):
            yield from _terms(x, -sign)
        case tir.Coerce(expr=x, type=t) if t == T.INT:
            yield from _terms(x, sign)
        case _:
            yield sign, e


def _leaf_sign(e):
    """A finite non-table leaf: ``"lit"`` (a literal or constant: its value known
    here), ``"param"`` (a numeric argument) or ``"model"`` (a model value); None
    otherwise."""
    match e:
        case tir.Lit(value=v) if isinstance(v, (int, float)) and not isinstance(v, bool) \
                and not math.isinf(v):
            return "lit"
        case tir.Var(scope="global", type=t) if t == T.INT:
            return "lit"
        case tir.Var(scope="param", type=t) if t == T.INT:
            return "param"
        case tir.ExtIndex(type=t) if t == T.INT:
            return "model"
        case tir.Coerce(expr=x, type=t) if t == T.INT:
            return _leaf_sign(x)
    return None


def _leaf(e, sign: int = 1) -> _Val:
    if isinstance(e, tir.Lit) and sign * e.value >= 0:
        return _Val(0.0)
    return LEAF


def _not_positive(e, sign: int) -> set:
    """The requirement that ``sign * e`` is never positive: checked here for a
    literal, left to the host (a parameter and the sign it must have) otherwise."""
    while isinstance(e, tir.Coerce):
        e = e.expr
    match e:
        case tir.Lit(value=v):
            if sign * v > 0:
                raise _Wide()
            return set()
        case tir.Var(scope="param", name=n):
            return {(n, -sign)}
    raise _Wide()  # a constant or a model value added to -inf: not tracked


def _condition(e) -> None:
    """Conditions and bounds read no table value (module docstring)."""
    for x in tir.walk(e):
        if isinstance(x, (tir.Call, tir.ExtIndex)):
            raise _Wide()


# ------------------------------------------------------------------ the generators' mark
def _marked(em, default, e, b):
    """A sum, difference or negation of int values marked for the value-type pass
    (kernel.value_type ``NARROW``: saturated and narrowed in int16, dropped
    otherwise); index arithmetic and a helper's float64 code are left as they are."""
    from dslc.kernel import ir
    from dslc.kernel.value_type import NARROW
    from dslc.targets.printer import VALUE

    out = default(e, b)
    if em.pr.value != VALUE or e.type != T.INT or em.index(e) or \
            getattr(e, "op", "-") not in ("+", "-") or _infinite_literal(e):
        return out
    return ir.Helper(NARROW, (out,))


def _infinite_literal(e) -> bool:
    """``-inf`` (the value-type pass spells it, kernel.value_type)."""
    return isinstance(e, tir.Neg) and isinstance(e.operand, tir.Lit) and \
        isinstance(e.operand.value, float) and math.isinf(e.operand.value)


def rules() -> tuple:
    """The pack generator's rules (emit.pyexpr.Rule) that mark sums of values."""
    from dslc.emit.pyexpr import Rule

    return (Rule("arith", _marked), Rule("neg", _marked))


def consts(value) -> str:
    """The module constants of the value type ``value``: ``BT``, the type the lanes'
    own bounds are compared in (lengths: int16 beside int8 values, else the value
    type), and for a narrow type its infinities and ``SAT``."""
    if not value.narrow:
        return "BT = DT\n"
    lo, hi = RANGES[value.dtype]
    bt = "np.int16" if value.dtype == "int8" else "DT"
    return (f"BT = {bt}\nPINF = DT({hi})\nNINF = DT({lo})\n"
            + saturating(lo, hi))


# ------------------------------------------------------------------ the host's side
MAX_EXTENT = 32000  # lengths and coordinates compared as DT in the lanes


def limits(facts, arrays, values: float, extent: int, value_of,
           dtype: str = "int16") -> tuple[int, int] | None:
    """(ceiling, lowest result) where ``dtype`` holds for a run (module docstring):
    the module's ``NARROW`` facts, the run's numeric ``arrays`` (all finite), their
    largest magnitude ``values``, its largest ``extent``; ``value_of(name)``: a
    parameter's values, for the signs. None where it does not."""
    facts = from_module(facts)
    if facts is None or extent > MAX_EXTENT or not _finite(arrays):
        return None
    if not facts.signs_hold(value_of):
        return None
    return facts.bounds(values, dtype)


def _finite(arrays) -> bool:
    for a in arrays:
        v = np.asarray(a)
        if v.dtype.kind == "f" and not np.isfinite(v).all():
            return False
        if v.dtype.kind in "iu" and v.size and (v.max() > HI or v.min() < -HI):
            return False
    return True


def untrusted(out: np.ndarray, big: np.ndarray, lims: tuple[int, int],
              dtype: str = "int16") -> np.ndarray:
    """Which tasks' narrow results are not trusted: a stored value reached the
    ceiling, or the result lies beyond the proved range and is no infinity."""
    ceiling, low = lims
    lo, hi = RANGES[dtype]
    inf = (out == lo) | (out == hi)
    return (big >= ceiling) | (~inf & ((out >= ceiling) | (out < low)))


def results(out: np.ndarray, dtype: str = "int16") -> np.ndarray:
    """Narrow results as the language's numbers (the extremes are the infinities)."""
    lo, hi = RANGES[dtype]
    res = out.astype(np.float64)
    res[out == lo] = -np.inf
    res[out == hi] = np.inf
    return res


def shared_value(v, dtype: np.dtype):
    """A shared number or model array in the narrow type (the host checked that
    every one is finite and small: :func:`limits`)."""
    if isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
        return dtype.type(v)
    if isinstance(v, np.ndarray) and v.dtype.kind in "fiu" and v.dtype != np.uint8:
        return v.astype(dtype)
    return v


def lanes(value, pack: int) -> int:
    """Tasks per pack: the float32 pack times 4 / the value type's bytes (the same
    vectors hold twice the lanes in int16, four times in int8)."""
    return {"int16": 2, "int8": 4}.get(value.dtype, 1) * pack
