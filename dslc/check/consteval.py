"""Evaluation of constant expressions: ``const`` statements, ``-D`` values and
the probabilities written inside extension blocks (``1/6``, ``1 - p``)."""

from __future__ import annotations

import math
import numbers
import re

from dslc import numtext
from dslc.errors import DslcError, Span
from dslc.frontend import ast
from dslc.lang import builtins
from dslc.lang.arith import INT_MAX, INT_MIN, check_int, check_literal, power
from dslc.check.arrays import NumArray, element, make_array
from dslc.check.grids import NumGrid, make_grid
from dslc.check.words import WordTexts
from dslc.check.grids import element as grid_element


def const_eval(e: ast.Expr, consts: dict[str, float | int]) -> float | int:
    """The number ``e`` stands for, with the language's arithmetic rules (an int
    outside 64 bits and ``inf - inf`` are errors, as at run time); an array constant
    may only be read by ``w[k]`` and ``len(w)`` here (it is data, not a number)."""
    v = _value(e, consts)
    if isinstance(v, (NumArray, NumGrid, WordTexts)):
        raise DslcError("an array is not a number here; read an element with w[k]", e.span)
    if v != v:
        raise DslcError("undefined arithmetic (inf - inf, 0 * inf or inf / inf) in a constant",
                        e.span)
    return check_int(v, e.span) if type(v) is int else v


def const_value(e: ast.Expr, consts: dict, name: str = "", load=None) -> float | int | NumArray:
    """A ``const`` statement's value: a number, or an array (a literal, or what
    ``load(e, name)`` reads for ``load(ints, file)``)."""
    if isinstance(e, ast.ArrayLit) and e.items and any(isinstance(x, ast.Str) for x in e.items):
        return _texts(e, name)
    if isinstance(e, ast.ArrayLit) and any(isinstance(x, ast.ArrayLit) for x in e.items):
        return _grid(e, consts, name)
    if isinstance(e, ast.ArrayLit):
        return make_array([const_eval(x, consts) for x in e.items], e.span, name)
    if isinstance(e, ast.Load) and load is not None:
        return load(e, name)
    return const_eval(e, consts)


def _texts(e: ast.ArrayLit, name: str) -> WordTexts:
    """``["leet", "code"]``: a list of words, encoded when passed to ``seqs[A]``."""
    for x in e.items:
        if not isinstance(x, ast.Str):
            raise DslcError("a list of words holds strings only", x.span,
                            hint='write ["ab", "ba"]; numbers go in arrays of their own')
    return WordTexts(tuple(x.value for x in e.items), name)


def _grid(e: ast.ArrayLit, consts: dict, name: str) -> NumGrid:
    """``[[1, 2], [3, 4]]``: rows of numbers, every item a row (a number beside a row,
    or a row holding rows, is an error at it)."""
    rows = []
    for row in e.items:
        if not isinstance(row, ast.ArrayLit):
            raise DslcError("a 2-D array's items are rows [ ... ]; this one is a number",
                            row.span, hint="write [[1, 2], [3, 4]]")
        for x in row.items:
            if isinstance(x, ast.ArrayLit):
                raise DslcError("arrays have one or two dimensions: this row holds a row",
                                x.span)
        rows.append(([const_eval(x, consts) for x in row.items], row.span))
    return make_grid(rows, e.span, name)


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
        case ast.Binary(op="**", left=a, right=b) | ast.Call(func="pow", args=(a, b)):
            x, y = const_eval(a, consts), const_eval(b, consts)
            ints = type(x) is int or math.isinf(x)
            ints = ints and (type(y) is int or math.isinf(y))
            return power("int" if ints else "float", e.span)(x, y)
        case ast.Extremum(op=op, args=args) if len(args) == 1:
            raise DslcError(ast.WHOLE_ONLY, e.span, hint="a constant takes max(a, b) or min(a, b)")
        case ast.Extremum(op=op, args=args):
            vals = [const_eval(a, consts) for a in args]
            return max(vals) if op == "max" else min(vals)
        case ast.Index(base=ast.Name(id=n), indices=(k,)) if isinstance(consts.get(n), NumArray):
            try:
                return element(consts[n], const_eval(k, consts))
            except DslcError as err:
                raise DslcError(err.message, e.span) from None
        case ast.Index(base=ast.Name(id=n), indices=(i, j)) if isinstance(consts.get(n), NumGrid):
            try:
                return grid_element(consts[n], const_eval(i, consts), const_eval(j, consts))
            except DslcError as err:
                raise DslcError(err.message, e.span) from None
        case ast.Call(func="len", args=(ast.Name(id=n),)) if isinstance(consts.get(n),
                                                                        (NumArray, NumGrid)):
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


_DEFINE = re.compile(r"[+-]?(?:(?P<int>[0-9]+)|[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?"
                     r"|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?|inf)\Z")


def parse_define_value(text: str, what: str = "-D value") -> int | float:
    """A ``-D name=value`` value from the command line: a plain number as a
    script writes one (``12``, ``-0.5``, ``1e-3``) or ``inf``/``-inf``; not
    Python's other spellings (``1_000``, ``nan``, ``infinity``, digits outside
    ASCII: dslc.numtext). ``what`` names the value in messages
    (``defines['gap']`` for the Python API)."""
    said = f"{what} '{numtext.shown(text)}'"
    foreign = numtext.foreign_digit(text)
    if foreign is not None:
        raise DslcError(f"{said}: " + numtext.foreign_digit_message(text, foreign))
    m = _DEFINE.match(text.strip())
    if m is None:
        raise DslcError(f"{said} is not a number",
                        hint="write a plain number such as 12, -0.5, 1e-3, or inf")
    if m["int"] is not None:
        value = numtext.int_of(m.group(0))
        if value is None:
            raise DslcError(f"{said} does not fit in a 64-bit integer")
        return value
    if "inf" in text:
        return float(m.group(0))
    value = numtext.finite_float(m.group(0))
    if value is None:
        raise DslcError(f"{said} is too large for a float (write inf if meant)")
    return value


def number_value(v, what: str) -> int | float:
    """A number given from Python (a ``defines`` entry, a ``param`` keyword) as
    ``-D`` and ``--set`` take one from text: an int within 64 bits or a float
    (``inf``/``-inf`` allowed, NaN not); bool and anything else refused. numpy
    scalars count as the Python numbers they hold. ``what`` names it in messages."""
    if type(v).__name__ in ("bool", "bool_"):  # numpy's too
        raise DslcError(f"{what} is a bool, not a number")
    if isinstance(v, numbers.Integral):
        v = int(v)
        if not INT_MIN <= v <= INT_MAX:
            raise DslcError(f"{what} does not fit in a 64-bit integer")
        return v
    if isinstance(v, numbers.Real):
        v = float(v)
        if v != v:
            raise DslcError(f"{what} is NaN, which is not a number a script can use",
                            hint="give a plain number, or inf / -inf")
        return v
    raise DslcError(f"{what} is not a number")


def define_value(name, v) -> int | float:
    """One entry of ``dslc.compile(..., defines={name: v})``, checked as ``-D``
    checks its value: a number (:func:`number_value`), or a string read as ``-D``
    reads its text (:func:`parse_define_value`)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise DslcError(f"defines: {name!r} is not a const name")
    what = f"defines['{name}']"
    if isinstance(v, str):
        return parse_define_value(v, what)
    if not isinstance(v, numbers.Real):
        raise DslcError(f"{what} is {kind_of(v)}, not a number",
                        hint="give an int, a float, or a number's text such as '12'")
    return number_value(v, f"{what} = {_short(v)}")


def kind_of(v) -> str:
    """``v``'s type for a message: "None", "an int", "a bytes"."""
    if v is None:
        return "None"
    kind = type(v).__name__
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."
