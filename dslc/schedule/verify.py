"""User-given schedules: checked exactly, never trusted (thesis §5.3.5).

A user writes ``schedule d(i, j) = 2*i + j``; the same criteria as the search
decide whether it is legal for every extent. An illegal schedule is reported
at the call it breaks, with a concrete instance - the caller's point, the
target and both partitions - preferably within the extents at hand, so the
mistake can be checked by hand.
"""

from __future__ import annotations

from typing import Sequence

from dslc.deps.ir import DependenceGraph
from dslc.errors import DslcError
from dslc.poly.isl_util import Witness
from dslc.schedule.legality import Checker, call_text
from dslc.schedule.model import ExtentsLike, Schedule, extents_for, schedule_text
from dslc.schedule.order import partition_order
from dslc.schedule.problems import InvalidScheduleError
from dslc.schedule.solve import cycle_error, make_schedule


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
    checker = Checker(graph, ext)
    coeffs = tuple(int(c) for c in coeffs)
    if len(coeffs) != checker.n:
        f = graph.functions[0]
        raise DslcError(f"the schedule has {len(coeffs)} coefficients but {f.name} has "
                        f"{checker.n} recursive parameters",
                        next((d.span for d in graph.deps if d.span is not None), None))
    verdict = checker.check(coeffs)
    if not verdict.legal:
        k = verdict.broken
        raise violation_error(graph, coeffs, k, checker.witness(k, coeffs), ext.values)
    order, cycle = partition_order(tuple(f.name for f in graph.functions),
                                   [checker.calls[k].dep for k in verdict.same_partition])
    if order is None:
        raise cycle_error(coeffs, cycle, graph)
    return make_schedule(graph, ext, checker, coeffs, order, verdict.same_partition,
                         window_limit)


def violation_error(graph: DependenceGraph, coeffs: Sequence[int], k: int, w: Witness,
                    values) -> InvalidScheduleError:
    dep = graph.deps[k]
    params = {f.name: f.params for f in graph.functions}
    s_x = sum(c * v for c, v in zip(coeffs, w.caller))
    s_y = sum(c * v for c, v in zip(coeffs, w.target))
    at = ", ".join(f"{p}={v}" for p, v in zip(params[dep.caller], w.caller))
    to = ", ".join(map(str, w.target))
    expr = schedule_text(coeffs, params[dep.caller])
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
