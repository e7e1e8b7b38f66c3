"""The language's arithmetic, exactly: the reference every backend must match.

* ``int`` values are Python ints, or ``float('inf')``/``-inf`` for the int
  infinities; infinities absorb addition, and a finite result outside 64 bits
  is an error (never a silent wrap).
* ``float`` is IEEE double.
* ``prob`` values are held as natural logarithms: ``*`` adds logs, ``/``
  subtracts them, ``+`` is log-sum-exp.
"""

from __future__ import annotations

import math

from dslc.errors import DslcError

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
NEG_INF = -math.inf


def check_int(v, span):
    if type(v) is int:
        if INT_MIN <= v <= INT_MAX:
            return v
        raise DslcError(f"integer overflow: {v} does not fit in 64 bits", span)
    if v != v:
        raise DslcError("undefined arithmetic: inf - inf (or 0 * inf)", span)
    return v


def check_literal(v, span):
    """An integer literal must fit in 64 bits (``-9223372036854775808`` is the
    parser's folded negation of ``9223372036854775808``, which alone does not)."""
    if type(v) is int and not INT_MIN <= v <= INT_MAX:
        raise DslcError(f"the integer {v} does not fit in 64 bits", span,
                        hint=f"integers lie in {INT_MIN} .. {INT_MAX}")
    return v


def int_op(op: str, span):
    """A binary int operator with the language's overflow and infinity rules."""
    if op == "+":
        return lambda a, b: check_int(a + b, span)
    if op == "-":
        return lambda a, b: check_int(a - b, span)
    if op == "*":
        def mul(a, b):
            if (a == 0 or b == 0) and (math.isinf(a) or math.isinf(b)):
                raise DslcError("undefined arithmetic: 0 * inf", span)
            return check_int(a * b, span)
        return mul
    if op == "%":
        def mod(a, b):
            if b == 0:
                raise DslcError("remainder by zero", span)
            if math.isinf(a) or math.isinf(b):
                raise DslcError("remainder with an infinite operand", span)
            return a % b
        return mod
    if op == "div":  # floored, like %: a == div(a, b) * b + a % b
        def div(a, b):
            if b == 0:
                raise DslcError("integer division by zero", span)
            if math.isinf(a) or math.isinf(b):
                raise DslcError("integer division with an infinite operand", span)
            return a // b
        return div
    raise AssertionError(op)


def float_op(op: str, span):
    if op == "+":
        return lambda a, b: _nan_check(a + b, span)
    if op == "-":
        return lambda a, b: _nan_check(a - b, span)
    if op == "*":
        return lambda a, b: _nan_check(a * b, span)
    if op == "/":
        def div(a, b):
            if b == 0:
                raise DslcError("division by zero", span)
            return _nan_check(a / b, span)
        return div
    if op == "%":
        def mod(a, b):
            if b == 0:
                raise DslcError("remainder by zero", span)
            return _nan_check(a % b, span)
        return mod
    raise AssertionError(op)


def _nan_check(v, span):
    if v != v:
        raise DslcError("undefined arithmetic (inf - inf, 0 * inf or inf / inf)", span)
    return v


def logaddexp(a: float, b: float) -> float:
    if a == NEG_INF:
        return b
    if b == NEG_INF:
        return a
    if a < b:
        a, b = b, a
    return a + math.log1p(math.exp(b - a))


def prob_op(op: str, span):
    if op == "*":
        return lambda a, b: a + b if a != NEG_INF and b != NEG_INF else NEG_INF
    if op == "/":
        def div(a, b):
            if b == NEG_INF:
                raise DslcError("division by a probability of zero", span)
            return a - b if a != NEG_INF else NEG_INF
        return div
    if op == "+":
        return logaddexp
    raise AssertionError(op)


def to_log(v, span):
    """A probability written as an ordinary number, moved into log space."""
    if v < 0:
        raise DslcError(f"a probability cannot be negative ({v})", span)
    if v != v or v == math.inf:
        raise DslcError(f"a probability cannot be {v} (it must be a finite number)", span)
    if v == 0:
        return NEG_INF
    return math.log(v)


def power(kind: str, span):
    """``a ** b`` (and ``pow(a, b)``) of type ``kind``. An ``int`` power keeps ints
    exact: its exponent must be a finite non-negative int (a negative one would leave
    the ints), ``inf ** 0 == 1`` and an infinite base keeps its sign by the parity of
    the exponent. A ``float`` power is IEEE's, except where that would be no number or
    an overflow: a negative base to a non-integer exponent, ``0.0`` to a negative one
    and a finite power too large for a float are errors, as ``inf - inf`` is."""
    if kind == "int":
        def ipow(a, b):
            if math.isinf(b) or b < 0:
                raise DslcError(f"an int power needs a finite exponent of at least 0, not "
                                f"{_shown(b)}", span, hint="float(a) ** b is a float power")
            if math.isinf(a):
                return 1 if b == 0 else a if a > 0 or b % 2 else -a
            return check_int(a ** b if abs(a) <= 1 or b < 64 else _big_power(a, b), span)
        return ipow

    def fpow(a, b):
        a, b = float(a), float(b)
        if a < 0 and not math.isinf(a) and not math.isinf(b) and b != math.floor(b):
            raise DslcError(f"{_shown(a)} ** {_shown(b)}: a negative base to a non-integer "
                            "power is no real number", span)
        if a == 0 and b < 0:
            raise DslcError(f"0.0 to the negative power {_shown(b)}", span)
        try:
            v = a ** b
        except OverflowError:
            v = math.inf
        if math.isinf(v) and not math.isinf(a) and not math.isinf(b):
            raise DslcError(f"{_shown(a)} ** {_shown(b)} is too large for a float", span)
        return v
    return fpow


def _big_power(a: int, b: int) -> int:
    """``a ** b`` for ``|a| >= 2`` and ``b >= 64``: beyond 64 bits whatever it is, so
    only its sign and size matter to the overflow error (never built digit by digit)."""
    return (INT_MAX + 1) * (-1 if a < 0 and b % 2 else 1) * 2


def _shown(v) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v)
