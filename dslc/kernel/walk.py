"""One rewrite of a task body's expressions and statements, for every pass.

Passes over a body (kernel.register_tile, kernel.strip_mine, kernel.value_type...)
each replace some leaves of its expressions (a tile read by a register, a value-type
leaf by its concrete spelling) and leave the rest as it is. The walk is the same
for all of them, so it is written once here: :func:`expr` rebuilds an expression
record bottom up through its fields (every ``ir`` expression is a frozen
dataclass whose sub-expressions are fields or tuples of them), asking ``leaf``
first at every node; :func:`stmts` applies a rewrite of expressions to every
expression a statement holds (an assignment's value, a store's or atomic's target
and value, a returned or evaluated value, a loop's bounds, an ``if``'s condition),
down the statement tree.
Text (a bound or condition still spelled as a string, a ``Text`` leaf) is opaque.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from typing import Callable

from dslc.kernel import body as kb
from dslc.kernel import ir


def expr(e, leaf: Callable):
    """``e`` with each node for which ``leaf(node)`` is not None replaced by that
    (its own sub-expressions are then not visited); anything not an expression
    record (text) as it is."""
    if not isinstance(e, ir._Expr):
        return e
    done = leaf(e)
    if done is not None:
        return done
    if not is_dataclass(e):
        return e
    changed = {}
    for f in fields(e):
        v = getattr(e, f.name)
        new = tuple(expr(x, leaf) for x in v) if isinstance(v, tuple) else expr(v, leaf)
        if new != v:
            changed[f.name] = new
    return replace(e, **changed) if changed else e


def stmts(body, ex: Callable, stmt: Callable | None = None) -> tuple:
    """Statements ``body`` with ``ex`` applied to every expression they hold, at
    every depth. ``stmt(s, ex)``, where given, is asked first for each statement:
    it returns a replacement for ``s`` (a statement, or a tuple of statements put
    in its place), or None for the plain walk."""
    out = []
    for s in body:
        done = stmt(s, ex) if stmt is not None else None
        if done is None:
            done = _statement(s, ex, stmt)
        out.extend(done if isinstance(done, tuple) else (done,))
    return tuple(out)


def _statement(s, ex, stmt):
    def inner(b):
        return stmts(b, ex, stmt)
    match s:
        case ir.Assign(value=v) | kb.Return(value=v) | kb.Eval(value=v) | kb.Augment(value=v):
            return replace(s, value=ex(v))
        case ir.Store(target=t, value=v) | ir.Atomic(target=t, value=v):
            return replace(s, target=ex(t), value=ex(v))
        case kb.If():
            orelse = None if s.orelse is None else inner(s.orelse)
            return replace(s, cond=ex(s.cond), body=inner(s.body), orelse=orelse)
        case kb.Loop():
            return replace(s, over=tuple(ex(x) for x in s.over), body=inner(s.body))
        case kb._Block():
            return replace(s, body=inner(s.body))
    return s


def leaves(body, wanted: Callable) -> list:
    """Every expression node in ``body`` for which ``wanted(node)`` holds, in order
    (not looking inside those found)."""
    found: list = []

    def leaf(e):
        if wanted(e):
            found.append(e)
            return e
        return None
    stmts(body, lambda e: expr(e, leaf))
    return found
