"""Evaluation of constant expressions: ``const`` statements, ``-D`` values and
the probabilities written inside extension blocks (``1/6``, ``1 - p``)."""

from __future__ import annotations

import math
import re

from dslc.errors import DslcError, Span
from dslc.frontend import ast
from dslc.lang import builtins
from dslc.lang.arith import INT_MAX, INT_MIN, check_int, check_literal
from dslc.check.arrays import NumArray, element, make_array


def const_eval(e: ast.Expr, consts: dict[str, float | int]) -> float | int:
    """The number ``e`` stands for, with the language's arithmetic rules (an int
    outside 64 bits and ``inf - inf`` are errors, as at run time); an array constant
    may only be read by ``w[k]`` and ``len(w)`` here (it is data, not a number)."""
    v = _value(e, consts)
    if isinstance(v, NumArray):
        raise DslcError("an array is not a number here; read an element with w[k]", e.span)
    if v != v:
        raise DslcError("undefined arithmetic (inf - inf, 0 * inf or inf / inf) in a constant",
                        e.span)
    return check_int(v, e.span) if type(v) is int else v


def const_value(e: ast.Expr, consts: dict, name: str = "", load=None) -> float | int | NumArray:
    """A ``const`` statement's value: a number, or an array (a literal, or what
    ``load(e, name)`` reads for ``load(ints, file)``)."""
    if isinstance(e, ast.ArrayLit):
        return make_array([const_eval(x, consts) for x in e.items], e.span, name)
    if isinstance(e, ast.Load) and load is not None:
        return load(e, name)
    return const_eval(e, consts)


def _value(e: ast.Expr, consts: dict):
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
        case ast.Index(base=ast.Name(id=n), indices=(k,)) if isinstance(consts.get(n), NumArray):
            try:
                return element(consts[n], const_eval(k, consts))
            except DslcError as err:
                raise DslcError(err.message, e.span) from None
        case ast.Call(func="len", args=(ast.Name(id=n),)) if isinstance(consts.get(n), NumArray):
            return len(consts[n])
        case ast.Call(func="div", args=(a, b)):
            x, y = const_eval(a, consts), const_eval(b, consts)
            if type(x) is not int or type(y) is not int:
                raise DslcError(f"div needs finite ints, found {x} and {y}", e.span)
            if y == 0:
                raise DslcError("integer division by zero in a constant", e.span)
            return x // y
        case ast.Call(func=f, args=(x,)) if f in builtins.BY_NAME:
            v = const_eval(x, consts)
            try:
                return builtins.BY_NAME[f].value(v)
            except (ValueError, OverflowError):
                raise DslcError(f"{f}({v}) is not defined", e.span) from None
    raise DslcError("a constant must be a number or arithmetic on numbers and constants", e.span)


def eval_number_text(text: str, at: Span, consts: dict) -> float | int:
    """For extensions: parse and evaluate a constant expression found at ``at`` (the
    parser imported here: a run of a script parsed before needs none, dslc.runtime.parsed)."""
    from dslc.frontend.parser import parse_expression

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
