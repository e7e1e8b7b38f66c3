"""Dependence graphs of classic recurrences, written directly in the IR (no
front end involved), shared by the schedule and loop-nest tests."""

from __future__ import annotations

import itertools

from dslc.deps.ir import Affine, Constraint, Dependence, DependenceGraph, RangedVar, RecFunction
from dslc.errors import Span

A = Affine.of


def shift(params, delta) -> tuple[Affine, ...]:
    """The arguments ``p - d`` for each parameter."""
    return tuple(A(-d, **{p: 1}) for p, d in zip(params, delta))


def call(caller, callee, params, delta, line=None, **kw) -> Dependence:
    span = Span("t.bio", line, 5) if line is not None else None
    return Dependence(caller, callee, shift(params, delta), span=span, **kw)


def uniform(deltas, params=("i", "j", "k")) -> DependenceGraph:
    """One function calling itself at ``x - d`` for each ``d``."""
    ps = params[:len(deltas[0])]
    return DependenceGraph((RecFunction("f", ps),),
                           tuple(call("f", "f", ps, d, line=n + 1) for n, d in enumerate(deltas)))


def edit_distance() -> DependenceGraph:
    ps = ("i", "j")
    base = (Constraint(A(-1, i=1)), Constraint(A(-1, j=1)))  # i >= 1 and j >= 1
    return DependenceGraph((RecFunction("d", ps),), tuple(
        call("d", "d", ps, d, line=3, when=(base,)) for d in ((1, 0), (0, 1), (1, 1))))


def skewed() -> DependenceGraph:
    """``f(i - 1, j + 1)`` and ``f(i - 1, j)``: the best schedule is ``S = i``."""
    return uniform([(1, -1), (1, 0)])


def nussinov() -> DependenceGraph:
    ps = ("i", "j")
    k = RangedVar("k", A(4, i=1), A(-1, j=1))  # k in i + 4 ... j - 1
    far = (Constraint(A(-5, j=1, i=-1)),)  # j > i + 4
    deps = (
        Dependence("n", "n", (A(1, i=1), A(0, j=1)), when=(far,)),
        Dependence("n", "n", (A(1, i=1), A(0, k=1)), (k,), when=(far,)),
        Dependence("n", "n", (A(1, k=1), A(0, j=1)), (k,), when=(far,)),
    )
    return DependenceGraph((RecFunction("n", ps),), deps)


def gotoh() -> DependenceGraph:
    """h(i, j) = max(e(i, j), f(i, j), h(i-1, j-1) + s); e(i, j) from e/h(i, j-1);
    f(i, j) from f/h(i-1, j). Different parameter names per function on purpose."""
    h, e, f = ("i", "j"), ("a", "b"), ("p", "q")
    deps = (
        call("e", "e", e, (0, 1), 2), call("e", "h", e, (0, 1), 2),
        call("f", "f", f, (1, 0), 3), call("f", "h", f, (1, 0), 3),
        call("h", "e", h, (0, 0), 4), call("h", "f", h, (0, 0), 4),
        call("h", "h", h, (1, 1), 4),
    )
    return DependenceGraph((RecFunction("h", h), RecFunction("e", e), RecFunction("f", f)),
                           deps)


def three_way() -> DependenceGraph:
    """Three-sequence alignment: the 7 predecessors of (i, j, k)."""
    return uniform([d for d in itertools.product((0, 1), repeat=3) if any(d)])


def staggered() -> DependenceGraph:
    """f -> g in the same partition at a *different* point (S = i): the
    functions must run one after the other, not point by point."""
    ps = ("i", "j")
    deps = (call("f", "f", ps, (1, 0), 1), call("g", "g", ps, (1, 0), 2),
            call("f", "g", ps, (0, -1), 1), call("g", "f", ps, (1, 0), 2))
    return DependenceGraph((RecFunction("f", ps), RecFunction("g", ps)), deps)


def row_best() -> DependenceGraph:
    """Functions of different arity: ``g(i) = max_j f(i, j)`` and ``f(i, j)``
    reading ``g(i - 1)`` and ``f(i - 1, j + 1)``. ``g`` is padded to ``(i, 0)``
    and ``S = i``: ``g`` runs after the row of ``f`` it reads."""
    j_any = RangedVar("r", A(0), None)
    deps = (
        Dependence("g", "f", (A(0, i=1), A(0, r=1)), (j_any,), span=Span("t.bio", 2, 5)),
        Dependence("f", "g", (A(-1, i=1),), when=((Constraint(A(-1, i=1)),),),
                   span=Span("t.bio", 4, 5)),
        Dependence("f", "f", (A(-1, i=1), A(1, j=1)), when=((Constraint(A(-1, i=1)),),),
                   span=Span("t.bio", 4, 9)),
    )
    return DependenceGraph((RecFunction("f", ("i", "j")), RecFunction("g", ("i",))), deps)


def column_best() -> DependenceGraph:
    """``h(j) = max_i f(i, j - 1)`` read by ``f(i, j)`` beside ``f(i, j - 1)``:
    ``h`` must take ``f``'s *second* position, ``(0, j)``, for ``S = j``."""
    i_any = RangedVar("r", A(0), None)
    step = (Constraint(A(-1, j=1)),)  # j >= 1
    deps = (
        Dependence("h", "f", (A(0, r=1), A(-1, j=1)), (i_any,), when=(step,),
                   span=Span("t.bio", 2, 5)),
        Dependence("f", "h", (A(0, j=1),), span=Span("t.bio", 4, 5)),
        Dependence("f", "f", (A(0, i=1), A(-1, j=1)), when=(step,), span=Span("t.bio", 4, 9)),
    )
    return DependenceGraph((RecFunction("f", ("i", "j")), RecFunction("h", ("j",))), deps)


def fitch() -> DependenceGraph:
    """Fitch's sets in Hartigan's form over post-order nodes: ``set(u, a)``
    reads ``count(u, a)`` and ``best(u)``; ``count(u, a)`` reads ``set(v, a)``
    of children ``v < u``; ``best(u)`` reads ``count(u, b)`` for every ``b``."""
    child = RangedVar("v", None, A(-1, u=1))
    any_b = RangedVar("b", A(0), None)
    deps = (
        Dependence("count", "set", (A(0, v=1), A(0, a=1)), (child,), span=Span("t.bio", 1, 5)),
        Dependence("best", "count", (A(0, u=1), A(0, b=1)), (any_b,), span=Span("t.bio", 2, 5)),
        Dependence("set", "count", (A(0, u=1), A(0, a=1)), span=Span("t.bio", 3, 5)),
        Dependence("set", "best", (A(0, u=1),), span=Span("t.bio", 3, 9)),
    )
    return DependenceGraph((RecFunction("best", ("u",)), RecFunction("count", ("u", "a")),
                            RecFunction("set", ("u", "a"))), deps)
