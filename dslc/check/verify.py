"""The typed IR's verifier: what every later stage (the interpreter, the dependence
analysis, the planner, the code generators) takes for granted about a checked
program, checked once after the checker built it (``DSLC_VERIFY_IR=1``, which the
tests set), so a checker change that breaks one fails there, not as a wrong value
or a crash three stages later.

A function: its parameters named once; its guards in order, each condition a
``bool``, only the last one ``otherwise`` (and there is one), every guard's value of
the function's return type. A name: a ``param`` of this function with the
parameter's type, a ``local`` bound by a reduction around it (with the type of the
reduction's element), a ``global`` of the script (with its type), or an
``alphabet``. Every implicit thing explicit: ``+ - * / %``, ``max``/``min`` and
``-x`` computed in the type of their operands, a conditional's branches of its type
(a sequence position, ``index[s]``, counting as the ``int`` it is); a ``Coerce``
only widens (``int -> float -> prob``, a tuple's ``int`` components to ``float``)
or makes a position a plain ``int``; ``not``, ``and``/``or``, the conditions of
``if`` and of a reduction's ``where`` are ``bool``; a tuple's component exists. A
call: of a function of the program, with one argument per parameter, of the
callee's return type; a call within a recursive group (or one passing only the
recursive arguments, ``rec_only``) gives each calling parameter the caller's own
parameter of the same name (inherited by name, as the language says).

It walks each expression once (no types are inferred again): cheap next to the
checker that built the IR.
"""

from __future__ import annotations

from dslc.check import tir
from dslc.errors import InternalError
from dslc.lang import types as T

_SCOPES = ("param", "local", "global", "alphabet")
_BOOLEAN_OPS = ("and", "or")
_ARITH_OPS = ("+", "-", "*", "/", "%")
_COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")
_RANK = {"int": 0, "float": 1, "prob": 2}


def verify_functions(functions: dict[str, tir.TFunction], global_types: dict,
                     alphabets) -> dict[str, tir.TFunction]:
    """``functions`` themselves, or InternalError naming the function and the broken rule.
    ``global_types``: the script's names and their types; ``alphabets``: the names of
    its alphabets."""
    group_of = {name: grp for grp in tir.groups(functions) for name in grp}
    for f in functions.values():
        _Function(f, functions, global_types, alphabets, group_of).verify()
    return functions


class _Function:
    def __init__(self, f: tir.TFunction, functions: dict, global_types: dict, alphabets,
                 group_of: dict):
        self.f, self.functions = f, functions
        self.global_types, self.alphabets = global_types, alphabets
        self.group_of = group_of

    def fail(self, what: str, e=None) -> None:
        where = f" at {e.span}" if e is not None and getattr(e, "span", None) else ""
        raise InternalError(f"typed IR of {self.f.name}: {what}{where}")

    def verify(self) -> None:
        f = self.f
        names = [p.name for p in f.params]
        if len(set(names)) != len(names):
            self.fail("a parameter named twice")
        if not f.guards:
            self.fail("no guard")
        for k, g in enumerate(f.guards):
            last = k == len(f.guards) - 1
            if (g.cond is None) != last:
                self.fail("'otherwise' not last" if g.cond is None else "no 'otherwise' last")
            if g.cond is not None:
                self.expr(g.cond, {})
                self.boolean(g.cond, "a guard's condition")
            self.expr(g.body, {})
            if _value(g.body.type) != _value(f.ret):
                self.fail(f"a guard's value of type {g.body.type}, the function returns {f.ret}",
                          g.body)
        for p in f.params:
            if p.range is not None:
                for e in p.range:
                    self.expr(e, {})

    def boolean(self, e: tir.TExpr, what: str) -> None:
        if e.type != T.BOOL:
            self.fail(f"{what} of type {e.type}, not bool", e)

    def expr(self, e: tir.TExpr, local: dict) -> None:
        """``local``: the reduction variables around ``e`` and their types. Iterative
        over the tree's depth except for reductions (which open a scope)."""
        stack = [(e, local)]
        while stack:
            x, scope = stack.pop()
            if not isinstance(x, tir.TExpr) or not isinstance(getattr(x, "type", None), T.Type):
                self.fail(f"{x!r} is no typed expression")
            self.node(x, scope)
            if isinstance(x, tir.Reduce):
                stack.append((x.iterable, scope))
                inner = {**scope, x.var: _element(x.iterable.type)}
                stack.extend((c, inner) for c in (x.where, x.body) if c is not None)
            else:
                stack.extend((c, scope) for c in tir.children(x))

    def node(self, e: tir.TExpr, local: dict) -> None:
        match e:
            case tir.Var():
                self.var(e, local)
            case tir.Arith(op=op, left=a, right=b) | tir.MinMax(op=op, left=a, right=b):
                if op not in _ARITH_OPS + ("max", "min"):
                    self.fail(f"unknown operator {op!r}", e)
                if not (_value(a.type) == _value(b.type) == _value(e.type)):
                    self.fail(f"'{op}' of {a.type} and {b.type} typed {e.type}", e)
            case tir.Neg(operand=a):
                if _value(a.type) != _value(e.type):
                    self.fail(f"'-' of {a.type} typed {e.type}", e)
            case tir.Not(operand=a):
                self.boolean(a, "the operand of 'not'")
            case tir.Logic(op=op, left=a, right=b):
                if op not in _BOOLEAN_OPS:
                    self.fail(f"unknown operator {op!r}", e)
                self.boolean(a, f"an operand of '{op}'")
                self.boolean(b, f"an operand of '{op}'")
            case tir.Compare(op=op):
                if op not in _COMPARE_OPS:
                    self.fail(f"unknown comparison {op!r}", e)
            case tir.Cond(cond=c, then=a, orelse=b):
                self.boolean(c, "the condition of 'if'")
                if not (_value(a.type) == _value(b.type) == _value(e.type)):
                    self.fail(f"'if' with branches of {a.type} and {b.type} typed {e.type}", e)
            case tir.Coerce(expr=a):
                if not _widens(a.type, e.type):
                    self.fail(f"a coercion from {a.type} to {e.type}", e)
            case tir.Component(base=b, k=k):
                items = getattr(b.type, "items", None)
                if not isinstance(b.type, T.TupleT) or not 0 <= k < len(items):
                    self.fail(f"component {k} of a {b.type}", e)
            case tir.Reduce(where=w):
                if w is not None:
                    self.boolean(w, "a reduction's 'where'")
            case tir.Call():
                self.call(e)

    def var(self, e: tir.Var, local: dict) -> None:
        if e.scope not in _SCOPES:
            self.fail(f"name {e.name} of unknown scope {e.scope!r}", e)
        if e.scope == "param":
            p = self.f.param(e.name)
            if p is None:
                self.fail(f"{e.name} is no parameter", e)
            if p.type != e.type:
                self.fail(f"parameter {e.name} read as {e.type}, declared {p.type}", e)
        elif e.scope == "local":
            if e.name not in local:
                self.fail(f"{e.name} is bound by no reduction around it", e)
            if local[e.name] is not None and local[e.name] != e.type:
                self.fail(f"{e.name} read as {e.type}, its reduction gives {local[e.name]}", e)
        elif e.scope == "global":
            if e.name not in self.global_types:
                self.fail(f"{e.name} is no name of the script", e)
            if self.global_types[e.name] != e.type:
                self.fail(f"{e.name} read as {e.type}, the script's is "
                          f"{self.global_types[e.name]}", e)
        elif e.name not in self.alphabets:
            self.fail(f"{e.name} is no alphabet", e)

    def call(self, e: tir.Call) -> None:
        callee = self.functions.get(e.func)
        if callee is None:
            self.fail(f"a call of {e.func}, no function of the program", e)
        if len(e.args) != len(callee.params):
            self.fail(f"{e.func} called with {len(e.args)} arguments, it takes "
                      f"{len(callee.params)}", e)
        if e.type != callee.ret:
            self.fail(f"a call of {e.func} typed {e.type}, it returns {callee.ret}", e)
        same_group = self.group_of.get(e.func) is not None \
            and self.group_of.get(e.func) == self.group_of.get(self.f.name)
        if same_group or e.rec_only:
            for p, a in zip(callee.params, e.args):
                inner = a.expr if isinstance(a, tir.Coerce) else a
                if not p.recursive and not (isinstance(inner, tir.Var) and inner.name == p.name
                                            and inner.scope == "param"):
                    self.fail(f"{e.func}'s calling argument {p.name} not inherited by name", e)


def _value(t: T.Type) -> T.Type:
    """``t`` as a value: a position in a sequence (``index[s]``) is an ``int`` with a
    domain, the same value to every operator (and so in a tuple)."""
    if isinstance(t, T.IndexT):
        return T.INT
    if isinstance(t, T.TupleT):
        return T.TupleT(tuple(_value(x) for x in t.items))
    return t


def _widens(a: T.Type, b: T.Type) -> bool:
    """Whether a Coerce from ``a`` to ``b`` is one the checker inserts: a widening,
    or a position (``index[s]``) made a plain ``int``."""
    if a != b and _value(a) == _value(b):
        return True
    if isinstance(a, T.Scalar) and isinstance(b, T.Scalar):
        return _RANK.get(a.name, 9) < _RANK.get(b.name, -1)
    if isinstance(a, T.TupleT) and isinstance(b, T.TupleT):
        return len(a.items) == len(b.items) and a != b and all(
            x == y or _widens(x, y) for x, y in zip(a.items, b.items))
    return False


def _element(t: T.Type):
    """The type of a reduction variable over an iterable of ``t`` (None: not known
    here, so not compared)."""
    return getattr(t, "elem", None) if isinstance(t, T.IterT) else None
