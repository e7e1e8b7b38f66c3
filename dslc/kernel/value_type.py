"""The value type as a pass over a task's body (kernel.body).

Compiled ``int`` tables are floats; emit.precision decides, per plan and per run's
numbers, whether they may be float32 (the static bound), float32 with each stored
magnitude recorded (the checked argument: a task whose record reaches the bound is
recomputed in float64), or float64. That decision is this pass's input, a
:class:`ValueType`. The generators build a task once, naming the value type
symbolically (kernel.ir's ``ValueInf``, ``ToValue``, ``ValueZero``; module text uses
the module constant ``DT``), and the pass makes it concrete:

* an infinity becomes the float32 module's ``INF`` or the target's own float64
  infinity (``np.inf``, ``math.inf``), so no float32 operation widens to float64;
* a conversion becomes ``DT(x)`` or ``float(x)``, a typed zero ``DT(0)`` or ``0.0``;
* in the checked case, every store of a table value (into one of ``tables``) is
  followed by recording its finite magnitude in the lane's element of ``record``
  (``_m = abs(v)``, then ``big[l] = max(big[l], _m if _m != INF else DT(0))``), so a
  checked store needs the lane loop around it.

So one generated body serves every value type, and the backends choose the type by
the pass they apply, not by asking a generator for a typed variant.

The narrow variants ``int16`` and ``int8`` (emit.narrow's argument) store 16- or
8-bit integers, so a vector holds two or four times the lanes of float32: an infinity
becomes the module's ``PINF`` or ``NINF`` (the type's extremes), each sum or difference
of values (marked by the generator as the helper ``_narrow``) becomes ``SAT(x)``, the
sum clamped to the type's range and narrowed (LLVM turns it into one saturating vector
instruction), and every stored table value is recorded in the lane's element of
``record`` as the largest value stored (``big[l] = max(big[l], v)``): a task whose
record reaches emit.narrow's ceiling is recomputed wider. The other variants drop
``_narrow``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir, walk

VARIANTS = ("float64", "float32", "float32c", "int16", "int8")
NARROW = "_narrow"  # the generators' mark on a sum of values (see the module docstring)


@dataclass(frozen=True)
class ValueType:
    """emit.precision's decision: ``float64``, ``float32`` (the static bound holds)
    or ``float32c`` (float32, each task's stored magnitudes checked on the host)."""

    variant: str = "float64"

    def __post_init__(self):
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown value type {self.variant!r}")

    @property
    def dtype(self) -> str:
        """The numpy type of the storage and the arithmetic."""
        if self.narrow:
            return self.variant
        return "float64" if self.variant == "float64" else "float32"

    @property
    def narrow(self) -> bool:
        """Saturating integers (emit.narrow), not floats."""
        return self.variant in ("int16", "int8")

    @property
    def checked(self) -> bool:
        """Each stored value recorded per lane, checked by the host."""
        return self.variant == "float32c" or self.narrow

    @property
    def dropped(self) -> frozenset:
        """The runtime checks this value type's pass removes (``_inexact``: float32
        values are exact by emit.precision's argument, never near 2^53)."""
        if self.narrow:
            return frozenset({"_inexact"})
        return frozenset({"_inexact", NARROW}) if self.dtype == "float32" else \
            frozenset({NARROW})


FLOAT64 = ValueType()


def typed(stmts, vt: ValueType, inf: str = "np.inf", tables=frozenset(),
          record: str = "big") -> tuple:
    """``stmts`` with the value type ``vt`` made concrete (``inf``: the target's
    float64 infinity), and in the checked case each store into ``tables`` followed by
    the record of its magnitude in ``record``."""
    if vt.checked:
        stmts = _checked(tuple(stmts), frozenset(tables), record, lane=None,
                         measure=largest if vt.narrow else magnitude)
    return walk.stmts(stmts, _Concrete(vt, inf).expr)


# ------------------------------------------------------------------ the check
def _checked(stmts: tuple, tables: frozenset, record: str, lane: str | None,
             measure=None) -> tuple:
    """``stmts`` with each store into ``tables`` followed by its record (``measure``:
    :func:`magnitude` or :func:`largest`) in the element of ``record`` of the lane
    loop around it (``lane``: its variable)."""
    def stmt(s, ex):
        match s:
            case ir.Store(target=ir.Load(array=a)) if a in tables:
                if lane is None:
                    raise InternalError(f"a checked store into {a} outside a lane loop")
                return (s, *measure(s.value, record, lane))
            case kb.Loop(kind="lanes", var=v):
                return replace(s, body=_checked(s.body, tables, record, v, measure))
        return None
    return walk.stmts(stmts, lambda e: e, stmt)


def magnitude(value, record: str, lane: str) -> tuple:
    """The statements recording stored ``value``'s finite magnitude in lane
    ``lane`` of ``record`` (emit.precision: infinities are no magnitude)."""
    at = ir.Load(record, (ir.Name(lane),), "global")
    m = ir.Name("_m")
    finite = ir.Cond(ir.Bin("!=", m, ir.ValueInf()), m, ir.ToValue(ir.Const(0)), paren=False)
    return (ir.Assign("_m", ir.Call("abs", (value,))),
            ir.Store(at, ir.Call("max", (at, finite))))


def largest(value, record: str, lane: str) -> tuple:
    """The statement recording stored ``value`` in lane ``lane`` of ``record`` as the
    largest value stored (the narrow variant: its floor is proved, emit.narrow)."""
    at = ir.Load(record, (ir.Name(lane),), "global")
    return (ir.Store(at, ir.Call("max", (at, value))),)


# ------------------------------------------------------------------ the leaves
@dataclass(frozen=True)
class _Concrete:
    vt: ValueType
    inf: str

    def leaf(self, e):
        f32 = self.vt.dtype == "float32"
        if self.vt.narrow:
            return self._narrow(e)
        match e:
            case ir.Helper(name=name, args=(x,)) if name == NARROW:
                return self.expr(x)
            case ir.ValueInf(negative=neg):
                s = "INF" if f32 else self.inf
                return ir.Const(float("-inf") if neg else float("inf"), f"-{s}" if neg else s)
            case ir.ToValue(x=x):
                return ir.Call("DT" if f32 else "float", (self.expr(x),))
            case ir.ValueZero():
                return ir.Call("DT", (ir.Const(0),)) if f32 else ir.Const(0.0)
            case ir.Helper(name=name, args=(x,)) if name in self.vt.dropped:
                # float64's check of an int past 2^53 (emit.pyexpr.exact): float32
                # tables are exact by their own argument (emit.precision)
                return self.expr(x)
        return None

    def _narrow(self, e):
        """The narrow variant's leaves: the type's extremes for the infinities, a
        saturating narrowing for each sum of values (module docstring)."""
        match e:
            case ir.ValueInf(negative=neg):
                return ir.Const(float("-inf") if neg else float("inf"), "NINF" if neg else "PINF")
            case ir.Unary(op="-", operand=ir.ValueInf(negative=neg)):
                # (the extremes are not each other's negation: -PINF is NINF + 1)
                return ir.Const(float("inf") if neg else float("-inf"), "PINF" if neg else "NINF")
            case ir.ToValue(x=x):
                return ir.Call("DT", (self.expr(x),))
            case ir.ValueZero():
                return ir.Call("DT", (ir.Const(0),))
            case ir.Helper(name=name, args=(x,)) if name == NARROW:
                return ir.Call("SAT", (self.expr(x),))
            case ir.Helper(name=name, args=(x,)) if name in self.vt.dropped:
                return self.expr(x)
        return None

    def expr(self, e):
        """``e`` (an expression record, or text) with its value-type leaves concrete."""
        return walk.expr(e, self.leaf)
