"""Embedding the functions of a group in one space (thesis §5.3, padding).

One schedule ``S(x) = a . x`` serves a whole group only if every function's
points live in the same space. A group whose functions differ in their number
of recursive parameters (Fitch's ``set(u, a)``, ``count(u, a)`` and
``best(u)``; a ``g(i)`` taking a maximum over ``j`` of an ``f(i, j)`` that
reads ``g(i - 1)``) is placed in the space of its largest functions: each
smaller function's parameters take some of the positions, in order, and the
remaining positions are fixed at 0. Calls to a padded function target 0 there
and a padded function's own point is 0 there, so its ``S`` is ``a`` restricted
to its own positions.

Which positions a smaller function takes matters (``g(j)`` read along ``j``
by ``f(i, j)`` needs ``j`` at ``f``'s second position), so the search is
offered every order-preserving placement, most natural first: parameters at a
position whose extent is the same (``index[t]`` beside ``index[t]``) before
others, then the leftmost (padding at the end, as in the thesis).
"""

from __future__ import annotations

import heapq
import itertools

from dslc.deps.ir import DependenceGraph
from dslc.schedule.model import Embedding, Extents

MAX_EMBEDDINGS = 8  # placements offered to the search, most natural first


def embeddings(graph: DependenceGraph, ext: Extents,
               limit: int = MAX_EMBEDDINGS) -> list[Embedding]:
    """The embeddings to try for ``graph``, most natural first; only the
    identity when every function has as many parameters as the largest."""
    n = max((len(f.params) for f in graph.functions), default=0)
    if all(len(f.params) == n for f in graph.functions):
        return [Embedding.identity(graph)]
    widest = [ext.names[f.name] for f in graph.functions if len(f.params) == n]
    choices = [_placements(ext.names[f.name], n, widest, limit) for f in graph.functions]
    ranked = heapq.nsmallest(limit, itertools.product(*choices),
                             key=lambda combo: (sum(s for s, _ in combo), [p for _, p in combo]))
    return [Embedding(n, tuple((f.name, p) for f, (_, p) in zip(graph.functions, combo)))
            for combo in ranked]


def _placements(names: tuple[str, ...], n: int, widest: list[tuple[str, ...]],
                limit: int) -> list[tuple[int, tuple[int, ...]]]:
    """``(cost, positions)`` for one function: every increasing choice of
    positions; the cost counts parameters whose extent differs from every
    largest function's at that position."""
    out = []
    for pos in itertools.combinations(range(n), len(names)):
        cost = sum(all(w[p] != e for w in widest) for e, p in zip(names, pos))
        out.append((cost, pos))
    return sorted(out)[:limit]
