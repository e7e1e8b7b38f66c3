"""The loop nest's expressions (poly.loopir) as kernel IR expressions.

isl's loop nest gives a task its loop bounds, its guards and a point's coordinates
as loop-IR expressions; the generators place them in the task's body as kernel IR
records (``ir.Bin`` marked ``bare``: printed with only the parentheses Python's
precedence needs, exactly as ``loopir``'s ``to_python`` spells them), so that a pass
reads a bound or a condition as data.
"""

from __future__ import annotations

from dslc.kernel import ir
from dslc.poly import loopir as L

_SYMBOL = {L.Add: "+", L.Sub: "-", L.Mul: "*", L.FloorDiv: "//", L.Mod: "%"}


def loop_expr(e: L.Expr, need: int = 0) -> ir.Expr:
    """Loop-IR expression ``e`` as a kernel IR record (its variables: the loop
    nest's loop variables, extents and requested coordinates, all ``Name``s);
    ``need``: the precedence of where it stands (for what stays text)."""
    match e:
        case L.Var(name=n):
            return ir.Name(n)
        case L.Const(value=v):
            return ir.Const(v)
        case L.Neg(operand=x):
            return ir.Unary("-", loop_expr(x, L._NEG), paren=False)
        case L.Min(args=args) | L.Max(args=args):
            return ir.Call("min" if isinstance(e, L.Min) else "max",
                           tuple(loop_expr(a) for a in args))
        case L.Cmp(op=op, left=a, right=b):
            return ir.Bin(op, loop_expr(a, L._CMP + 1), loop_expr(b, L._CMP + 1), bare=True)
        case L.And(args=args) | L.Or(args=args) if all(
                a.prec > e.prec for a in args):  # n-ary: folded left to right
            return ir.bare("and" if isinstance(e, L.And) else "or",
                           *(loop_expr(a, e.prec + 1) for a in args))
    if type(e) in _SYMBOL:
        return ir.Bin(_SYMBOL[type(e)], loop_expr(e.left, e.prec),
                      loop_expr(e.right, e.prec + 1), bare=True)
    # a selection (or an and/or of and/ors): text, opaque to passes
    return ir.Text(e.wrap(need))
