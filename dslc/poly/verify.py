"""The loop IR's verifier: what the planner and every code generator take for granted
about a loop nest (dslc.poly.loopir), checked once after the nest is built from isl's
AST (``DSLC_VERIFY_IR=1``, which the tests set), so a change to the conversion that
breaks one fails there, not as a cell computed out of order in generated code.

The extent parameters are named once and the partition variable is a name. A loop
binds a variable that neither an enclosing loop nor a parameter has, steps forward
(``step >= 1``), is of a known kind (``partition``, ``parallel``, ``serial``), and is a
``partition`` loop exactly when it binds the nest's partition variable. Every
expression (a loop's bounds, a guard's condition, a statement's point) reads only the
variables of the loops around it and the nest's parameters; it is built of the IR's
own nodes: integer constants, a division or remainder by a positive constant (isl's
``floord``, ``%``), ``min``/``max``/``and``/``or`` of at least one operand, known
comparisons. A guard's condition is a comparison, ``and``/``or`` of them, or a
constant. A statement (``Call``) computes a function with one coordinate per
recursive parameter where the arities are given.

One walk over the nest: cheap next to isl's scheduling that built it.
"""

from __future__ import annotations

from typing import Mapping

from dslc.errors import InternalError
from dslc.poly import loopir as L

KINDS = ("partition", "parallel", "serial")
_CONDITIONS = (L.Cmp, L.And, L.Or, L.Const)


def verify_nest(nest: L.LoopNest, arity: Mapping[str, int] | None = None) -> L.LoopNest:
    """``nest`` itself, or InternalError naming the broken rule. ``arity``: the number
    of recursive parameters of each function (its statements' coordinates), where
    known."""
    params = tuple(nest.params)
    if len(set(params)) != len(params):
        _fail("an extent parameter named twice")
    if not isinstance(nest.partition_var, str) or not nest.partition_var:
        _fail(f"partition variable {nest.partition_var!r}")
    _stmt(nest.body, frozenset(params), (), nest.partition_var, arity)
    return nest


def _stmt(s, params: frozenset, loops: tuple, partition: str, arity) -> None:
    """``loops``: the variables of the loops around ``s``, outermost first. Iterative
    over a block's statements; recursive only per loop or guard level (as deep as
    the nest's dimensions)."""
    known = params | set(loops)
    match s:
        case L.Body(stmts=stmts):
            for x in stmts:
                _stmt(x, params, loops, partition, arity)
        case L.For(var=v, lower=lo, upper=hi, body=body, kind=kind, step=step):
            if v in known:
                _fail(f"loop over {v} inside a loop or parameter of that name")
            if kind not in KINDS:
                _fail(f"loop over {v} of unknown kind {kind!r}")
            if (kind == "partition") != (v == partition):
                _fail(f"loop over {v} is {kind}, the partition variable is {partition}")
            if not isinstance(step, int) or step < 1:
                _fail(f"loop over {v} steps by {step!r}")
            _expr(lo, known, f"the lower bound of the loop over {v}")
            _expr(hi, known, f"the upper bound of the loop over {v}")
            _stmt(body, params, loops + (v,), partition, arity)
        case L.Guard(cond=c, body=body, orelse=orelse):
            if not isinstance(c, _CONDITIONS):
                _fail(f"a guard's condition {c} is no comparison")
            _expr(c, known, "a guard's condition")
            _stmt(body, params, loops, partition, arity)
            if orelse is not None:
                _stmt(orelse, params, loops, partition, arity)
        case L.Call(function=f, args=args, piece=piece):
            if arity is not None and f in arity and len(args) != arity[f]:
                _fail(f"a statement of {f} at {len(args)} coordinates, it has {arity[f]}")
            if piece is not None and (not isinstance(piece, int) or piece < 0):
                _fail(f"a statement of {f} in piece {piece!r}")
            for a in args:
                _expr(a, known, f"a coordinate of a statement of {f}")
        case _:
            _fail(f"{s!r} is no loop IR statement")


def _expr(e, known, where: str) -> None:
    """Without recursion: bounds of deep tilings nest min/max a few levels only, but
    a verifier should not be the one place that limits them."""
    stack = [e]
    while stack:
        x = stack.pop()
        match x:
            case L.Var(name=n):
                if n not in known:
                    _fail(f"{where} reads {n}, bound by no loop around it nor a parameter")
            case L.Const(value=v):
                if not isinstance(v, int) or isinstance(v, bool):
                    _fail(f"{where}: constant {v!r} is no integer")
            case L.FloorDiv(left=a, right=b) | L.Mod(left=a, right=b):
                if not (isinstance(b, L.Const) and isinstance(b.value, int) and b.value > 0):
                    _fail(f"{where}: a division by {b}, not a positive constant")
                stack.append(a)
            case L.Add(left=a, right=b) | L.Sub(left=a, right=b) | L.Mul(left=a, right=b):
                stack += [a, b]
            case L.Cmp(op=op, left=a, right=b):
                if op not in ("==", "<=", "<", ">=", ">"):
                    _fail(f"{where}: unknown comparison {op!r}")
                stack += [a, b]
            case L.Neg(operand=a):
                stack.append(a)
            case L.Min(args=args) | L.Max(args=args) | L.And(args=args) | L.Or(args=args):
                if not args:
                    _fail(f"{where}: {type(x).__name__.lower()} of nothing")
                stack += list(args)
            case L.Select(cond=c, then=a, orelse=b):
                stack += [c, a, b]
            case _:
                _fail(f"{where}: {x!r} is no loop IR expression")


def _fail(what: str) -> None:
    raise InternalError(f"loop IR: {what}")
