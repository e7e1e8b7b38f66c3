"""Choosing a schedule automatically (thesis §5.3.7).

The thesis poses a constraint problem: legal coefficients minimising the
number of partitions ``max S - min S + 1`` over the table. Here the same
problem is solved by ranked enumeration, which needs no solver beyond isl and
is exact: candidates in ``[-B, B]^n`` (never all zero) are sorted by

1. partitions for the actual extents (fewest first: most parallel work per step),
2. ``sum |a|`` (simplest), then
3. lexicographically largest (so ``i + j`` is preferred to ``-i - j``),

and the first one that isl proves legal, and whose same-partition calls
order the functions without a cycle, wins. Legality is decided for every extent
(the generated loops are parametric), the ranking for the extents at hand.

The box starts at ``B = 3`` and doubles while a schedule outside it could still
have fewer partitions (or none was found), up to ``max_bound``. A group whose
functions differ in their number of recursive parameters is searched once per
embedding (:mod:`dslc.schedule.embed`) and the best schedule of any wins, ties
going to the more natural embedding. The all-zero
schedule is never chosen: it is legal only for a group without calls, whose
cells are independent anyway, and a nonzero ``S`` keeps every group's loops the
same shape (a partition loop outermost).
"""

from __future__ import annotations

import itertools
from typing import Mapping, Sequence

from dslc.deps.ir import Dependence, DependenceGraph
from dslc.errors import DslcError
from dslc.schedule.embed import embeddings
from dslc.schedule.legality import Checker, call_text, dependence_sets, located, same_point
from dslc.schedule.model import (Embedding, Extents, ExtentsLike, Schedule, extents_for,
                                 partition_range, schedule_text)
from dslc.schedule.order import partition_order
from dslc.schedule.problems import NoScheduleError, PartitionCycleError

MAX_CANDIDATES = 5000  # the box stops growing before it holds more than this


def find_schedule(graph: DependenceGraph, extents: ExtentsLike, *, bound: int = 3,
                  max_bound: int = 6, window_limit: int | None = None,
                  names: Mapping[str, Sequence[str]] | None = None) -> Schedule:
    """The legal schedule with the fewest partitions for ``extents``.

    ``extents``: see :func:`dslc.schedule.model.extents_for`. ``window_limit``:
    report windows deeper than this as None. Raises :class:`DslcError` naming
    the calls involved when no schedule exists within ``[-max_bound,
    max_bound]`` or when every legal one leaves a cycle inside a partition.
    """
    ext = extents_for(graph, extents, names)
    sets = dependence_sets(graph, ext)
    best, why_not = None, []
    for embedding in embeddings(graph, ext):
        checker = Checker(graph, ext, embedding, sets)
        if checker.n == 0:
            raise DslcError(f"{graph.functions[0].name} has no recursive parameter to schedule")
        found, why = _search(checker, bound, max_bound)
        why_not.append(why)
        if found is not None and (best is None or found[0] < best[0][0]):
            best = (found, checker)
    if best is None:
        raise why_not[0]()  # the most natural embedding's reason
    (_, coeffs, order, same), checker = best
    return make_schedule(graph, ext, checker, coeffs, order, same, window_limit)


def _search(checker: Checker, bound: int, max_bound: int) -> tuple:
    """The best schedule for one embedding, ``(key, coeffs, order,
    same-partition calls)`` or None, and a function building the error that
    says why there is none (naming the calls takes more isl questions, asked
    only when no embedding has a schedule)."""
    graph, ext, emb = checker.graph, checker.ext, checker.embedding
    funcs = tuple(f.name for f in graph.functions)
    best = best_key = None
    cyclic = None  # (coeffs, calls) of the best legal schedule with a same-partition cycle
    tried: set = set()
    b = bound
    while b > 1 and (2 * b + 1) ** checker.n > 4 * MAX_CANDIDATES:  # many dimensions
        b -= 1
    while True:
        shell = sorted((_key(c, ext, emb), c) for c in _box(checker.n, b) if c not in tried)
        tried.update(c for _, c in shell)
        for key, c in shell:
            if best_key is not None and key >= best_key:
                break
            v = checker.check(c)
            if not v.legal:
                continue
            order, cycle = partition_order(funcs, [checker.calls[k].dep for k in v.same_partition])
            if order is None:
                if cyclic is None or key < _key(cyclic[0], ext, emb):
                    cyclic = (c, cycle)
                continue
            best, best_key = (c, order, v.same_partition), key
            break
        nb = 2 * b
        if best_key is not None and best_key[0] <= _floor_outside(b, ext, emb):
            break
        if nb > max_bound or (2 * nb + 1) ** checker.n > MAX_CANDIDATES:
            break
        b = nb

    def why() -> DslcError:
        if cyclic is not None:
            return cycle_error(cyclic[0], cyclic[1], graph, emb)
        return _no_schedule(checker, sorted(tried, key=lambda c: _key(c, ext, emb)), b)

    return (None if best is None else (best_key, *best)), why


def make_schedule(graph: DependenceGraph, ext: Extents, checker: Checker,
                  coeffs: Sequence[int], order: tuple[str, ...], same: Sequence[int],
                  window_limit: int | None) -> Schedule:
    """The :class:`Schedule` record of a legal, ordered candidate."""
    params = tuple((f.name, f.params) for f in graph.functions)
    by_name = dict(params)
    emb = checker.embedding
    lo, hi = partition_range(coeffs, ext, emb)
    window = checker.window(coeffs)
    if window_limit is not None and window > window_limit:
        window = None
    pointwise = all(same_point(checker.calls[k].dep, by_name[checker.calls[k].dep.caller], emb)
                    for k in same)
    return Schedule(tuple(coeffs), params, order, hi - lo + 1, window, pointwise, lo,
                    emb.positions if emb.padded else ())


def widest_function(graph: DependenceGraph):
    """The first function with the most recursive parameters: the one a
    schedule is written for (every position is one of its parameters)."""
    return max(graph.functions, key=lambda f: len(f.params))


def cycle_error(coeffs: Sequence[int], cycle: Sequence[Dependence],
                graph: DependenceGraph, embedding: Embedding | None = None
                ) -> PartitionCycleError:
    funcs = " -> ".join([d.callee for d in cycle] + [cycle[-1].caller])
    calls = "; ".join(located(d) for d in cycle)
    first = widest_function(graph)
    own = coeffs if embedding is None else embedding.project(coeffs, first.name)
    s = schedule_text(own, first.params)
    return PartitionCycleError(
        f"the calls {calls} stay inside one partition and form a cycle "
        f"({funcs}): no order of the functions computes them (best schedule: "
        f"{first.name}({', '.join(first.params)}) = {s})", cycle[0].span, tuple(cycle),
        tuple(coeffs), hint="make at least one call of the cycle step back in some parameter")


def _key(c: Sequence[int], ext: Extents, embedding: Embedding | None = None) -> tuple:
    lo, hi = partition_range(c, ext, embedding)
    return (hi - lo + 1, sum(map(abs, c)), tuple(-x for x in c))


def _box(n: int, b: int):
    return (c for c in itertools.product(range(-b, b + 1), repeat=n) if any(c))


def _floor_outside(b: int, ext: Extents, embedding: Embedding | None = None) -> int:
    """A lower bound on the partitions of any candidate outside ``[-b, b]^n``:
    some ``|a_k| > b``, so the span is at least ``(b + 1) * E_k`` on a box
    where position ``k`` is widest. Positions with extent 0 cost nothing and
    are left out (a larger coefficient there never adds partitions), padding
    included."""
    if embedding is None:
        sizes = [ext.of(f) for f in ext.names]
    else:
        sizes = [embedding.pad(ext.of(f), f) for f in ext.names]
    widths = [max(s[k] for s in sizes) for k in range(len(sizes[0]))]
    positive = [w for w in widths if w > 0]
    if not positive:
        return 1
    return (b + 1) * min(positive) + 1


def _no_schedule(checker: Checker, candidates: list, bound: int) -> NoScheduleError:
    """Name a smallest set of calls that no candidate satisfies together
    (deletion: drop each call whose absence still leaves no schedule)."""
    core = list(range(len(checker.calls)))
    for k in list(core):
        rest = [j for j in core if j != k]
        if not any(checker.check(c, rest).legal for c in candidates):
            core = rest
    deps = [checker.calls[k].dep for k in core] or [c.dep for c in checker.calls]
    calls = "; ".join(located(d) for d in deps)
    span = next((d.span for d in deps if d.span is not None), None)
    one = len(deps) == 1
    return NoScheduleError(
        f"no affine schedule computes {'this call' if one else 'these calls'} in order "
        f"(coefficients up to ±{bound} tried): {calls}", span, tuple(deps), bound,
        hint="every recursive call must move towards a base case along a direction "
             "shared by all calls" + ("" if one else f" ({', '.join(call_text(d) for d in deps)})"))
