"""Exact legality of one candidate schedule against every call of a group.

A call ``caller(x) -> callee(y)`` must go strictly backwards: ``S(x) > S(y)``
for every instance (thesis 5.3). Between *different* functions ``S(x) = S(y)``
is allowed too; such a call is then a *same-partition edge* (the callee must
run first inside the partition) and the search checks later that those edges
order the functions without a cycle.

Every answer comes from isl (``dslc.deps.polyhedra``), so it holds for every
extent. Because each refutation comes with a concrete witness instance, the
checker remembers the witness's displacement ``x - y`` and tries it first on
later candidates: most candidates of a search are refuted by an instance some
earlier candidate already tripped over, in pure Python. A cached witness is a
real instance, so this shortcut never rejects a legal schedule.

Functions with fewer recursive parameters than the group has positions are
padded (:class:`dslc.schedule.model.Embedding`): each side of a call is
checked with the coefficients of its own positions, which is ``S`` of the
padded points, and displacements are remembered between padded points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from dslc.deps.ir import Dependence, DependenceGraph
from dslc.deps.polyhedra import DependenceSet, Witness
from dslc.schedule.embed import embeddings
from dslc.schedule.model import Embedding, Extents


def call_text(dep: Dependence) -> str:
    """``e(i, j - 1)``: the call as written, up to affine normalisation."""
    return f"{dep.callee}({', '.join('?' if a is None else str(a) for a in dep.args)})"


def located(dep: Dependence) -> str:
    where = f"{dep.span}: " if dep.span is not None else ""
    return f"{where}{dep.caller} calls {call_text(dep)}"


@dataclass
class Verdict:
    """The outcome for one candidate: legal or the index of a broken call,
    and the indexes of calls that may stay inside one partition."""

    legal: bool
    broken: int | None = None
    same_partition: tuple[int, ...] = ()


@dataclass
class _Call:
    dep: Dependence
    self_call: bool
    poly: DependenceSet
    src: tuple[int, ...]  # the group positions of the caller's parameters
    dst: tuple[int, ...]  # ... and of the callee's
    seen: list = field(default_factory=list)  # displacements x - y of known instances
    never: bool = False  # no instance for any extent: the call constrains nothing

    def sides(self, coeffs: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The coefficients of the caller's and of the callee's own parameters."""
        return tuple(coeffs[p] for p in self.src), tuple(coeffs[p] for p in self.dst)


def dependence_sets(graph: DependenceGraph, ext: Extents) -> list[DependenceSet]:
    """Every call's instances as an isl set (built once, shared by the checkers
    of several embeddings: the sets do not depend on it)."""
    params = {f.name: f.params for f in graph.functions}
    dom = {f.name: f.domain or () for f in graph.functions}
    ctx = {f.name: f.context for f in graph.functions}
    return [DependenceSet(d, params[d.caller], ext.names[d.caller], ext.names[d.callee],
                          caller_domain=dom[d.caller], callee_domain=dom[d.callee],
                          callee_params=params[d.callee],
                          context=ctx[d.caller] + ctx[d.callee])
            for d in graph.deps]


class Checker:
    """Legality of candidate coefficient vectors for one group, its functions
    placed by ``embedding`` (by default the most natural one)."""

    def __init__(self, graph: DependenceGraph, ext: Extents, embedding: Embedding | None = None,
                 sets: Sequence[DependenceSet] | None = None):
        if embedding is None:
            embedding = embeddings(graph, ext)[0]
        self.graph, self.ext, self.embedding = graph, ext, embedding
        self.n = embedding.n
        sets = dependence_sets(graph, ext) if sets is None else sets
        self.calls = []
        for d, poly in zip(graph.deps, sets):
            self.calls.append(_Call(d, d.caller == d.callee, poly, embedding.of(d.caller),
                                    embedding.of(d.callee), never=poly.is_empty()))

    # ------------------------------------------------------------------ legality
    def check(self, coeffs: Sequence[int], only: Sequence[int] | None = None) -> Verdict:
        """Is ``coeffs`` legal for every call (or for the calls in ``only``)?"""
        idx = range(len(self.calls)) if only is None else only
        live = [k for k in idx if not self.calls[k].never]
        for k in live:  # cheap refutations first: instances seen before
            c = self.calls[k]
            floor = 1 if c.self_call else 0
            if any(_dot(coeffs, d) < floor for d in c.seen):
                return Verdict(False, k)
        same = []
        for k in live:
            c = self.calls[k]
            floor = 1 if c.self_call else 0
            w = c.poly.violation(*c.sides(coeffs), floor)
            if w is not None:
                self._remember(c, w)
                return Verdict(False, k)
            if not c.self_call and self.touches_same_partition(k, coeffs):
                same.append(k)
        return Verdict(True, None, tuple(same))

    def touches_same_partition(self, k: int, coeffs: Sequence[int]) -> bool:
        """Does call ``k`` (to another function) have an instance with ``S(x) = S(y)``?"""
        c = self.calls[k]
        if any(_dot(coeffs, d) == 0 for d in c.seen):
            return True
        w = c.poly.violation(*c.sides(coeffs), 1)
        if w is None:
            return False
        self._remember(c, w)
        return True

    def witness(self, k: int, coeffs: Sequence[int]) -> Witness:
        """The least instance breaking call ``k``, preferably within the extents
        the schedule is chosen for (a point the user can recognise)."""
        c = self.calls[k]
        floor = 1 if c.self_call else 0
        w = c.poly.violation(*c.sides(coeffs), floor, fixed=self.ext.values, least=True)
        if w is None:
            w = c.poly.violation(*c.sides(coeffs), floor, least=True)
        if w is None:
            raise ValueError("the call is not broken by this schedule")
        return w

    # ------------------------------------------------------------------ window
    def window(self, coeffs: Sequence[int]) -> int:
        """Partitions to keep live: ``max (S(x) - S(y)) + 1`` over every
        instance for the current extents, exactly (thesis §5.5.4.1)."""
        depth = 0
        for c in self.calls:
            if c.never:
                continue
            m = c.poly.max_distance(*c.sides(coeffs), self.ext.values)
            if m is not None:
                depth = max(depth, m)
        return depth + 1

    def _remember(self, c: _Call, w: Witness) -> None:
        """Keep the instance as the displacement between the padded points."""
        x = self.embedding.pad(w.caller, c.dep.caller)
        y = self.embedding.pad(w.target, c.dep.callee)
        d = tuple(a - b for a, b in zip(x, y))
        if d not in c.seen:
            c.seen.append(d)


def _dot(a: Sequence[int], b: Sequence[int]) -> int:
    return sum(x * y for x, y in zip(a, b))


def same_point(dep: Dependence, params: Sequence[str], embedding: Embedding | None = None) -> bool:
    """Is the call to the very same point (``e(i, j)`` from ``h(i, j)``)? Two
    padded functions share points only where they take the same positions."""
    if embedding is not None and embedding.of(dep.caller) != embedding.of(dep.callee):
        return False
    return len(dep.args) == len(params) and all(
        a is not None and a.coeffs == ((p, 1),) and a.const == 0
        for a, p in zip(dep.args, params))
