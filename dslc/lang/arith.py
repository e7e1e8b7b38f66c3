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
