"""User-given schedules: checked exactly, never trusted (thesis §5.3.5).

A user writes ``schedule d(i, j) = 2*i + j``; the same criteria as the search
decide whether it is legal for every extent. An illegal schedule is reported
at the call it breaks, with a concrete instance - the caller's point, the
target and both partitions - preferably within the extents at hand, so the
mistake can be checked by hand.

In a group whose functions differ in their number of recursive parameters,
the schedule is written for one of the largest (it names every position); the
smaller functions take its coefficients at the positions they are embedded at
(:mod:`dslc.schedule.embed`), the first embedding under which it is legal.
"""

from __future__ import annotations

from typing import Sequence

from dslc.deps.ir import DependenceGraph
from dslc.errors import DslcError
from dslc.deps.polyhedra import Witness
from dslc.schedule.embed import embeddings
from dslc.schedule.legality import Checker, call_text, dependence_sets
from dslc.schedule.model import Embedding, ExtentsLike, Schedule, extents_for, schedule_text
from dslc.schedule.order import partition_order
from dslc.schedule.problems import InvalidScheduleError
from dslc.schedule.solve import cycle_error, make_schedule, widest_function


def verify_schedule(graph: DependenceGraph, coeffs: Sequence[int],
                    extents: ExtentsLike | None = None) -> None:
    """Raise :class:`DslcError` unless ``coeffs`` is a legal schedule of the
    group. ``extents`` (any form :func:`extents_for` takes) only chooses where
    a witness is looked for first; legality is decided for every extent."""
    checked_schedule(graph, coeffs, extents)


def checked_schedule(graph: DependenceGraph, coeffs: Sequence[int],
                     extents: ExtentsLike | None = None, *,
                     window_limit: int | None = None) -> Schedule:
    """:func:`verify_schedule`, then the :class:`Schedule` record for ``extents``
    (all extents 0 when none are given)."""
    if extents is None:
        extents = {f.name: [0] * len(f.params) for f in graph.functions}
    ext = extents_for(graph, extents)
    sets = dependence_sets(graph, ext)
    coeffs = tuple(int(c) for c in coeffs)
    _check_length(graph, coeffs)
    first = None
    for embedding in embeddings(graph, ext):
        checker = Checker(graph, ext, embedding, sets)
        verdict = checker.check(coeffs)
        if not verdict.legal:
            first = first or (checker, verdict)
            continue
        order, cycle = partition_order(tuple(f.name for f in graph.functions),
                                       [checker.calls[k].dep for k in verdict.same_partition])
        if order is None:
            first = first or (checker, verdict, cycle)
            continue
        return make_schedule(graph, ext, checker, coeffs, order, verdict.same_partition,
                             window_limit)
    checker, verdict, *cycle = first  # reported for the most natural embedding
    if cycle:
        raise cycle_error(coeffs, cycle[0], graph, checker.embedding)
    k = verdict.broken
    raise violation_error(graph, coeffs, k, checker.witness(k, coeffs), ext.values,
                          checker.embedding)


def _check_length(graph: DependenceGraph, coeffs: Sequence[int]) -> None:
    """One coefficient per position: the parameters of the group's largest functions."""
    f = widest_function(graph)
    if len(coeffs) == len(f.params):
        return
    span = next((d.span for d in graph.deps if d.span is not None), None)
    if all(len(g.params) == len(f.params) for g in graph.functions):
        raise DslcError(f"the schedule has {len(coeffs)} coefficients but {f.name} has "
                        f"{len(f.params)} recursive parameters", span)
    raise DslcError(f"the schedule has {len(coeffs)} coefficients but the group of "
                    f"{f.name} has {len(f.params)} dimensions (its functions with fewer "
                    f"recursive parameters are padded with 0)", span,
                    hint=f"write the schedule for {f.name}({', '.join(f.params)})")


def violation_error(graph: DependenceGraph, coeffs: Sequence[int], k: int, w: Witness,
                    values, embedding: Embedding | None = None) -> InvalidScheduleError:
    dep = graph.deps[k]
    params = {f.name: f.params for f in graph.functions}

    def own(f: str) -> Sequence[int]:
        return coeffs if embedding is None else embedding.project(coeffs, f)

    s_x = sum(c * v for c, v in zip(own(dep.caller), w.caller))
    s_y = sum(c * v for c, v in zip(own(dep.callee), w.target))
    at = ", ".join(f"{p}={v}" for p, v in zip(params[dep.caller], w.caller))
    to = ", ".join(map(str, w.target))
    expr = schedule_text(own(dep.caller), params[dep.caller])
    sizes = ""
    if any(values.get(n) != v for n, v in w.extents):
        sizes = " (with extents " + ", ".join(f"{n}={v}" for n, v in w.extents) + ")"
    where = "not before" if dep.caller == dep.callee else "after"
    return InvalidScheduleError(
        f"the schedule {expr} is not valid for the call {call_text(dep)}: at "
        f"{dep.caller}({at}){sizes} it calls {dep.callee}({to}), which is in partition "
        f"{s_y}, {where} partition {s_x}", dep.span, dep, w.caller, w.target, dict(w.extents),
        hint="a schedule must put every call in an earlier partition"
             + ("" if dep.caller == dep.callee else " (or the same one, for a call to "
                                                    "another function)"))
