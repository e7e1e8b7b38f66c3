"""Typed IR: what the checker hands to the interpreter and to the compiler.

Every node carries its static type, and every implicit thing in the source has
been made explicit: coercions into float or log space are ``Coerce`` nodes, and
calling arguments inherited by name appear as ordinary ``Var`` arguments, so a
backend never has to re-derive the language's rules.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from dslc.lang.types import BOOL, INT, Type
from dslc.errors import Span


class TExpr:
    type: Type
    span: Span


@dataclass(frozen=True)
class Lit(TExpr):
    """A number, boolean or infinity (``value`` is float('inf') for ``inf``)."""

    value: Any
    type: Type
    span: Span


@dataclass(frozen=True)
class SymLit(TExpr):
    text: str
    type: Type  # SymT: the alphabet it is encoded in
    span: Span


@dataclass(frozen=True)
class StrLit(TExpr):
    value: str
    type: Type
    span: Span


@dataclass(frozen=True)
class Var(TExpr):
    """``scope`` is ``param`` (of the enclosing function), ``local`` (a
    reduction variable) or ``global`` (a script-level name)."""

    name: str
    scope: str
    type: Type
    span: Span


@dataclass(frozen=True)
class Coerce(TExpr):
    """Widen ``int -> float``, or move ``int/float -> prob`` (take the log)."""

    expr: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class Neg(TExpr):
    operand: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class Not(TExpr):
    operand: TExpr
    span: Span
    type: Type = BOOL


@dataclass(frozen=True)
class Arith(TExpr):
    """``+ - * / %`` computed in ``type`` (both operands already of that type)."""

    op: str
    left: TExpr
    right: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class MinMax(TExpr):
    op: str  # "max" | "min"
    left: TExpr
    right: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class Compare(TExpr):
    op: str
    left: TExpr
    right: TExpr
    span: Span
    type: Type = BOOL


@dataclass(frozen=True)
class Logic(TExpr):
    op: str  # "and" | "or"
    left: TExpr
    right: TExpr
    span: Span
    type: Type = BOOL


@dataclass(frozen=True)
class Cond(TExpr):
    cond: TExpr
    then: TExpr
    orelse: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class MakeTuple(TExpr):
    """``(a, b, ...)``; each item already of its component's type."""

    items: tuple[TExpr, ...]
    type: Type
    span: Span


@dataclass(frozen=True)
class Component(TExpr):
    """``t[k]``: component ``k`` (a literal) of a tuple."""

    base: TExpr
    k: int
    type: Type
    span: Span


@dataclass(frozen=True)
class Call(TExpr):
    """A call of a user function with all its arguments, in parameter order.

    ``rec_only`` records that the source passed only the recursive arguments
    (the calling ones were inherited by name)."""

    func: str
    args: tuple[TExpr, ...]
    rec_only: bool
    type: Type
    span: Span


@dataclass(frozen=True)
class Builtin(TExpr):
    name: str  # len, log, exp, abs, sqrt, float
    args: tuple[TExpr, ...]
    type: Type
    span: Span


@dataclass(frozen=True)
class SeqIndex(TExpr):
    seq: TExpr
    index: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class ExtAttr(TExpr):
    """``base.name`` answered by an extension accessor."""

    accessor: Any  # dslc.sdk.Accessor
    base: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class ExtIndex(TExpr):
    """``base[k1, k2, ...]`` on an extension value (matrix, emission row, column)."""

    indexer: Any  # dslc.sdk.Indexer
    base: TExpr
    keys: tuple[TExpr, ...]
    type: Type
    span: Span


@dataclass(frozen=True)
class RangeIter(TExpr):
    lo: TExpr
    hi: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class AlphabetIter(TExpr):
    """Iterating an alphabet yields its symbols' codes in order."""

    alpha: Any  # AlphaRef
    type: Type
    span: Span


@dataclass(frozen=True)
class Reduce(TExpr):
    op: str  # sum | min | max
    var: str
    iterable: TExpr
    where: TExpr | None
    body: TExpr
    type: Type
    span: Span


@dataclass(frozen=True)
class TParam:
    """``range``: the declared ``(lo, hi)`` of an ``int`` parameter (dslc.check.ranges).
    ``direction``: ``"decreasing"``/``"increasing"`` where declared: every call from the
    function's recursive group passes a value below/above the caller's parameter of the
    same name (checked at run time; the dependence stage assumes it, dslc.deps)."""

    name: str
    type: Type
    recursive: bool
    span: Span
    range: tuple[TExpr, TExpr] | None = None
    direction: str | None = None


@dataclass(frozen=True)
class TGuard:
    cond: TExpr | None  # None: otherwise
    body: TExpr
    span: Span


@dataclass(frozen=True)
class TFunction:
    """A checked function. ``is_table`` is true for functions on a recursive
    cycle: they have a table over their recursive parameters."""

    name: str
    params: tuple[TParam, ...]
    ret: Type
    guards: tuple[TGuard, ...]
    is_table: bool
    span: Span
    links: tuple = ()  # (parameter, AlphaRef): alphabets tied by indexing (check.links)

    # (cached: a traceback asks for them several times per table it opens)
    @functools.cached_property
    def rec_params(self) -> tuple[TParam, ...]:
        return tuple(p for p in self.params if p.recursive)

    @functools.cached_property
    def calling_params(self) -> tuple[TParam, ...]:
        return tuple(p for p in self.params if not p.recursive)

    @property
    def map_params(self) -> tuple[TParam, ...]:
        """What ``map`` passes: every parameter of a plain function; for a table, its
        calling parameters and then its ``int`` recursive ones without a declared range
        (their values are the domain, and the final cell is taken at them)."""
        if not self.is_table:
            return self.params
        return self.calling_params + self.first_call_params

    @functools.cached_property
    def first_call_params(self) -> tuple[TParam, ...]:
        """The ``int`` recursive parameters without a declared range: their domain
        starts at 0 and reaches what the calls ask for (the interpreter grows the
        table; a compiled reader bounds it from its own arguments, dslc.plan.reach)."""
        return tuple(p for p in self.rec_params if p.type == INT and p.range is None)

    def param(self, name: str) -> TParam | None:
        for p in self.params:
            if p.name == name:
                return p
        return None


def children(e: TExpr) -> tuple[TExpr, ...]:
    """Sub-expressions of a node, for generic walks (deps, verifiers)."""
    match e:
        case Coerce(expr=x) | Neg(operand=x) | Not(operand=x):
            return (x,)
        case Arith(left=a, right=b) | MinMax(left=a, right=b) | Compare(left=a, right=b) \
                | Logic(left=a, right=b):
            return (a, b)
        case Cond(cond=c, then=t, orelse=o):
            return (c, t, o)
        case Call(args=args) | Builtin(args=args) | MakeTuple(items=args):
            return tuple(args)
        case Component(base=b):
            return (b,)
        case SeqIndex(seq=s, index=i):
            return (s, i)
        case ExtAttr(base=b):
            return (b,)
        case ExtIndex(base=b, keys=k):
            return (b, *k)
        case RangeIter(lo=lo, hi=hi):
            return (lo, hi)
        case Reduce(iterable=it, where=w, body=b):
            return (it, b) if w is None else (it, w, b)
    return ()


def walk(e: TExpr):
    """Pre-order walk over an expression tree."""
    yield e
    for c in children(e):
        yield from walk(c)


def chain(e: TExpr, op: str) -> list[TExpr]:
    """The operands of a chain of one operator, in source order (``a max b max c``)."""
    out, todo = [], [e]
    while todo:
        x = todo.pop()
        if isinstance(x, MinMax) and x.op == op:
            todo.extend((x.right, x.left))
        else:
            out.append(x)
    return out


def reachable(functions: dict, entry: str) -> list[TFunction]:
    """``entry`` and every function its guards call, directly or not (each once)."""
    seen, todo, out = {entry}, [entry], []
    while todo:
        f = functions[todo.pop()]
        out.append(f)
        for g in f.guards:
            for part in (g.cond, g.body):
                for e in walk(part) if part is not None else ():
                    if isinstance(e, Call) and e.func not in seen:
                        seen.add(e.func)
                        todo.append(e.func)
    return out



def reads_undeclared_ints(functions: dict, entry: str) -> bool:
    """Does non-recursive ``entry`` reach a table with an int parameter of no
    declared range? Such a table's extent comes from the entry's own arguments
    (dslc.plan.reach), so a compiled backend plans the entry once per their values.
    Here, not in the planner: a backend asks it of every call, and a run that plans
    nothing must not import the planner."""
    if functions[entry].is_table:
        return False
    return any(g.first_call_params for g in reachable(functions, entry) if g.is_table)


def straight_line(functions: dict, entry: str) -> bool:
    """Does a call of ``entry`` cost no more than the size of its text: no table
    and no reduction reachable from it? Such a call is answered by the interpreter
    directly (the specification, so the same value or error), as fast as loading
    compiled code would be, without starting Numba at all."""
    return not any(f.is_table or any(isinstance(e, Reduce) for g in f.guards
                                     for part in (g.cond, g.body) if part is not None
                                     for e in walk(part))
                   for f in reachable(functions, entry))


def groups(functions: dict[str, TFunction]) -> list[tuple[str, ...]]:
    """Recursive groups: strongly connected components of the table functions'
    call graph, each sorted by name, in a deterministic order (a fact of the typed
    program: the checker's own rules and every later stage use it)."""
    tables = {n: f for n, f in functions.items() if f.is_table}
    edges = {n: {c for c in _callees(f) if c in tables} for n, f in tables.items()}
    reach = {n: _reachable(n, edges) for n in tables}
    out, seen = [], set()
    for n in sorted(tables):
        if n in seen:
            continue
        comp = tuple(sorted(m for m in tables if m in reach[n] and n in reach[m]) or (n,))
        seen.update(comp)
        out.append(comp)
    return out


def _callees(f: TFunction) -> set[str]:
    return {e.func for g in f.guards for part in (g.cond, g.body) if part is not None
            for e in walk(part) if isinstance(e, Call)}


def _reachable(start: str, edges: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        n = todo.pop()
        for m in edges.get(n, ()):
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return seen
