"""The schedule search (thesis §5.3.5-5.3.7).

A schedule is ``S(x) = a . x`` with one integer coefficient per recursive
parameter position, shared by a group of mutually recursive functions. It is
legal when every dependence goes strictly backwards in ``S`` for every extent
(a call between *different* functions may stay in the same partition, provided
those same-partition calls order the functions without a cycle). Among legal
schedules with coefficients in ``[-K, K]`` the one with the fewest partitions for
the actual extents wins; ties go to the smallest ``sum |a|``, then to the
lexicographically largest coefficients (so ``i + j`` beats ``-i - j``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from dslc.deps.ir import Dependence, DependenceGraph
from dslc.errors import DslcError
from dslc.poly import isl_sets

WINDOW_LIMIT = 64  # deeper windows are not worth rotating buffers: keep the table


@dataclass(frozen=True)
class Schedule:
    """The chosen schedule of one group and what follows from it."""

    coeffs: tuple[int, ...]
    params: dict  # function -> parameter names by position
    order: tuple[str, ...]  # functions within a partition, callees first
    partitions: int
    window: int | None  # partitions to keep live; None: unbounded (keep the whole table)
    same_point_order: bool  # all same-partition calls are to the same point

    def of(self, func: str) -> dict[str, int]:
        return dict(zip(self.params[func], self.coeffs))

    def expr(self, func: str) -> str:
        terms = []
        for p, c in zip(self.params[func], self.coeffs):
            if c:
                terms.append(p if c == 1 else f"-{p}" if c == -1 else f"{c}*{p}")
        return " + ".join(terms).replace("+ -", "- ") or "0"


@dataclass(frozen=True)
class Extents:
    """Extent parameter names per function position, and their values now."""

    names: dict  # function -> tuple of parameter names (isl identifiers)
    values: dict  # parameter name -> int


def _deps_info(graph: DependenceGraph, ext: Extents):
    params = {f.name: f.params for f in graph.functions}
    for d in graph.deps:
        yield d, params[d.caller], ext.names[d.caller], ext.names[d.callee]


def _legal(graph: DependenceGraph, ext: Extents, coeffs) -> tuple[bool, list[tuple[str, str]]]:
    """(legal?, same-partition edges callee -> caller)."""
    edges = []
    for d, cp, ce, te in _deps_info(graph, ext):
        strict = isl_sets.dependence_set(d, cp, ce, te, coeffs, 1)
        if strict.is_empty():
            continue
        if d.caller == d.callee:
            return False, []
        weak = isl_sets.dependence_set(d, cp, ce, te, coeffs, 0)
        if not weak.is_empty():
            return False, []
        edges.append((d.callee, d.caller))
    return True, edges


def _order(functions: tuple[str, ...], edges) -> tuple[str, ...] | None:
    """Topological order (callees first), deterministic; None on a cycle."""
    remaining = set(functions)
    out = []
    while remaining:
        ready = sorted(f for f in remaining
                       if not any(a in remaining and b == f and a != f for a, b in edges))
        if not ready:
            return None
        out.append(ready[0])
        remaining.discard(ready[0])
    return tuple(out)


def partitions(coeffs, graph: DependenceGraph, ext: Extents) -> int:
    span = 0
    for k, c in enumerate(coeffs):
        span += abs(c) * max(ext.values[ext.names[f.name][k]] for f in graph.functions)
    return span + 1


def _candidates(n: int, bound: int):
    cands = [c for c in itertools.product(range(-bound, bound + 1), repeat=n) if any(c)]
    return cands


def find_schedule(graph: DependenceGraph, ext: Extents, bound: int = 3) -> Schedule:
    n = len(graph.functions[0].params)
    funcs = tuple(f.name for f in graph.functions)
    ranked = sorted(_candidates(n, bound),
                    key=lambda c: (partitions(c, graph, ext), sum(map(abs, c)),
                                   tuple(-x for x in c)))
    saw_cycle = None
    for coeffs in ranked:
        ok, edges = _legal(graph, ext, coeffs)
        if not ok:
            continue
        order = _order(funcs, edges)
        if order is None:
            saw_cycle = (coeffs, edges)
            continue
        return _finish(graph, ext, coeffs, order, edges)
    if saw_cycle is not None:
        calls = ", ".join(f"{b} -> {a}" for a, b in saw_cycle[1])
        raise DslcError(f"the calls {calls} form a cycle inside one partition: no order of "
                        f"{', '.join(funcs)} computes them", _first_span(graph))
    raise DslcError(_no_schedule_message(graph), _first_span(graph),
                    hint="every recursive call must move towards a base case along a "
                         "direction shared by all calls")


def verify_schedule(graph: DependenceGraph, ext: Extents, coeffs: tuple[int, ...]) -> Schedule:
    """A user schedule, checked exactly; an illegal one is reported with a
    violated dependence and a concrete witness."""
    funcs = tuple(f.name for f in graph.functions)
    edges = []
    for d, cp, ce, te in _deps_info(graph, ext):
        required = 1 if d.caller == d.callee else 0
        bad = isl_sets.dependence_set(d, cp, ce, te, coeffs, required)
        if not bad.is_empty():
            w, y = isl_sets.witness(bad, cp, len(d.args))
            x = ", ".join(f"{p}={v}" for p, v in w["caller"].items())
            sx = sum(c * v for c, v in zip(coeffs, w["caller"].values()))
            sy = sum(c * v for c, v in zip(coeffs, y))
            raise DslcError(
                f"the schedule is not valid: at {d.caller}({x}) the call "
                f"{d.callee}({', '.join(map(str, y))}) is in partition {sy}, not before "
                f"partition {sx}", d.span,
                hint="a schedule must put every call in an earlier partition")
        if d.caller != d.callee and not isl_sets.dependence_set(d, cp, ce, te, coeffs, 1).is_empty():
            edges.append((d.callee, d.caller))
    order = _order(funcs, edges)
    if order is None:
        raise DslcError("the schedule leaves a cycle of calls inside one partition",
                        _first_span(graph))
    return _finish(graph, ext, coeffs, order, edges)


def _finish(graph, ext, coeffs, order, edges) -> Schedule:
    window = 1
    for d, cp, ce, te in _deps_info(graph, ext):
        m = isl_sets.max_distance(d, cp, ce, te, coeffs, ext.values)
        if m is not None:
            window = max(window, m + 1)
    params = {f.name: f.params for f in graph.functions}
    same_point = all(_same_point(d, params) for d in graph.deps if d.caller != d.callee and
                     (d.callee, d.caller) in edges)
    return Schedule(tuple(coeffs), params, order,
                    partitions(coeffs, graph, ext),
                    window if window <= WINDOW_LIMIT else None, same_point)


def _same_point(d: Dependence, params: dict) -> bool:
    """Is the call to the very same point (``e(i, j)`` from ``h(i, j)``)?"""
    mine = params[d.caller]
    return all(a is not None and a.coeffs == ((mine[k], 1),) and a.const == 0
               for k, a in enumerate(d.args))


def _first_span(graph):
    return next((d.span for d in graph.deps if d.span is not None), None)


def _no_schedule_message(graph: DependenceGraph) -> str:
    calls = sorted({f"{d.caller} -> {d.callee}({', '.join(str(a) if a else '?' for a in d.args)})"
                    for d in graph.deps})
    return "no affine schedule computes these calls in order: " + "; ".join(calls)
