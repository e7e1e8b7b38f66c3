"""Evaluation of constant expressions: ``const`` statements, ``-D`` values and
the probabilities written inside extension blocks (``1/6``, ``1 - p``)."""

from __future__ import annotations

import math
import re

from dslc.errors import DslcError, Span
from dslc.frontend import ast
from dslc.interp.arith import INT_MAX, INT_MIN, check_int, check_literal
from dslc.frontend.parser import parse_expression


def const_eval(e: ast.Expr, consts: dict[str, float | int]) -> float | int:
    """The value of a constant expression, with the language's arithmetic rules:
    an int outside 64 bits and ``inf - inf`` are errors, as at run time."""
    v = _const_eval(e, consts)
    if v != v:
        raise DslcError("undefined arithmetic (inf - inf, 0 * inf or inf / inf) in a constant",
                        e.span)
    return check_int(v, e.span) if type(v) is int else v


def _const_eval(e: ast.Expr, consts: dict[str, float | int]) -> float | int:
    match e:
        case ast.Num(value=v):
            return check_literal(v, e.span)
        case ast.Inf():
            return math.inf
        case ast.Name(id=n):
            if n not in consts:
                raise DslcError(f"'{n}' is not a constant defined above", e.span)
            return consts[n]
        case ast.Unary(op="-", operand=x):
            return -const_eval(x, consts)
        case ast.Binary(op=op, left=a, right=b) if op in ("+", "-", "*", "/", "%", "max", "min"):
            x, y = const_eval(a, consts), const_eval(b, consts)
            if op in ("/", "%") and y == 0:
                raise DslcError("division by zero in a constant", e.span)
            return {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
                    "/": lambda: x / y, "%": lambda: x % y, "max": lambda: max(x, y),
                    "min": lambda: min(x, y)}[op]()
        case ast.Extremum(op=op, args=args):
            vals = [const_eval(a, consts) for a in args]
            return max(vals) if op == "max" else min(vals)
        case ast.Call(func=f, args=(x,)) if f in ("log", "exp", "sqrt"):
            v = const_eval(x, consts)
            try:
                return getattr(math, f)(v)
            except (ValueError, OverflowError):
                raise DslcError(f"{f}({v}) is not defined", e.span) from None
    raise DslcError("a constant must be a number or arithmetic on numbers and constants", e.span)


def eval_number_text(text: str, at: Span, consts: dict) -> float | int:
    """For extensions: parse and evaluate a constant expression found at ``at``."""
    return const_eval(parse_expression(text, at), consts)


_DEFINE = re.compile(r"[+-]?(?:(?P<int>\d+)|\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+"
                     r"|\.\d+(?:[eE][+-]?\d+)?|inf)\Z")


def parse_define_value(text: str) -> int | float:
    """A ``-D name=value`` value from the command line: a plain number as a
    script writes one (``12``, ``-0.5``, ``1e-3``) or ``inf``/``-inf``; not
    Python's other spellings (``1_000``, ``nan``, ``infinity``)."""
    m = _DEFINE.match(text.strip())
    if m is None:
        raise DslcError(f"-D value '{text}' is not a number",
                        hint="write a plain number such as 12, -0.5, 1e-3, or inf")
    if m["int"] is not None:
        value = int(m.group(0))
        if not INT_MIN <= value <= INT_MAX:
            raise DslcError(f"-D value '{text}' does not fit in a 64-bit integer")
        return value
    value = float(m.group(0))
    if math.isinf(value) and "inf" not in text:
        raise DslcError(f"-D value '{text}' is too large for a float (write inf if meant)")
    return value
