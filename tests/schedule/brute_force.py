"""Dependences and schedule legality by enumeration, independent of isl.

Every instance of every call of a :class:`DependenceGraph` is enumerated on a
concrete (small) domain straight from the IR's definition: caller point in its
box, ranged values within their bounds, the ``when`` DNF, target inside the
callee's box, ``None`` arguments ranging over the whole callee box.

A group whose functions differ in their number of recursive parameters shares
one schedule over the positions of its largest functions: ``positions`` maps a
smaller function to the positions its parameters take (the others are 0), the
placement the schedule under test chose (``Schedule.positions``); by default
each function's parameters take the first positions.
"""

from __future__ import annotations

import itertools
from typing import Iterator, Mapping, Sequence

from dslc.deps.ir import Affine, DependenceGraph

Sizes = Mapping[str, Sequence[int]]  # function -> extent per position


def box(sizes: Sequence[int]) -> Iterator[tuple[int, ...]]:
    return itertools.product(*(range(e + 1) for e in sizes))


def _val(a: Affine, env) -> int:
    return a.evaluate(env)


def instances(graph: DependenceGraph, sizes: Sizes
              ) -> Iterator[tuple[int, str, tuple[int, ...], str, tuple[int, ...]]]:
    """``(call index, caller, x, callee, y)`` for every call really made."""
    params = {f.name: f.params for f in graph.functions}
    wide = 2 * max((e for s in sizes.values() for e in s), default=0) + 4
    for k, d in enumerate(graph.deps):
        for x in box(sizes[d.caller]):
            env0 = dict(zip(params[d.caller], x))
            for env in _ranged(d.ranged, env0, wide):
                if not any(all(_holds(c, env) for c in conj) for conj in d.when):
                    continue
                choices = [range(e + 1) if a is None else (_val(a, env),)
                           for a, e in zip(d.args, sizes[d.callee])]
                for y in itertools.product(*choices):
                    if all(0 <= v <= e for v, e in zip(y, sizes[d.callee])):
                        yield k, d.caller, x, d.callee, y


def _ranged(ranged, env, wide):
    if not ranged:
        yield dict(env)
        return
    r, rest = ranged[0], ranged[1:]
    lo = -wide if r.lo is None else _val(r.lo, env)
    hi = wide if r.hi is None else _val(r.hi, env)
    for v in range(lo, hi + 1):
        yield from _ranged(rest, {**env, r.name: v}, wide)


def _holds(c, env) -> bool:
    v = _val(c.expr, env)
    return v >= 0 if c.kind == "ge" else v == 0


def S(coeffs, p) -> int:
    return sum(c * v for c, v in zip(coeffs, p))


Positions = Mapping[str, Sequence[int]] | Sequence[tuple[str, Sequence[int]]] | None


def padded(coeffs: Sequence[int], positions: Positions = None):
    """``pad(f, point)``: a function's point among the group's positions,
    every position it has no parameter at being 0."""
    where = dict(positions or ())

    def pad(f: str, point: Sequence[int]) -> tuple[int, ...]:
        out = [0] * len(coeffs)
        for k, v in zip(where.get(f, range(len(point))), point):
            out[k] = v
        return tuple(out)

    return pad


def legal(graph: DependenceGraph, sizes: Sizes, coeffs: Sequence[int],
          positions: Positions = None) -> bool:
    """Strictly backwards within a function, not forwards across functions,
    and the same-partition calls between functions order them without a cycle."""
    pad = padded(coeffs, positions)
    same = set()
    for _, f, x, g, y in instances(graph, sizes):
        d = S(coeffs, pad(f, x)) - S(coeffs, pad(g, y))
        if d >= 1:
            continue
        if d == 0 and f != g:
            same.add((g, f))
            continue
        return False
    return _acyclic({f.name for f in graph.functions}, same)


def _acyclic(nodes, edges) -> bool:
    nodes, edges = set(nodes), set(edges)
    while nodes:
        free = [n for n in nodes if not any(b == n and a in nodes for a, b in edges)]
        if not free:
            return False
        nodes -= set(free)
    return True


def partitions(sizes: Sizes, coeffs: Sequence[int], positions: Positions = None) -> int:
    pad = padded(coeffs, positions)
    values = [S(coeffs, pad(f, p)) for f, s in sizes.items() for p in box(s)]
    return max(values) - min(values) + 1


def window(graph: DependenceGraph, sizes: Sizes, coeffs: Sequence[int],
           positions: Positions = None) -> int:
    pad = padded(coeffs, positions)
    return 1 + max([0] + [S(coeffs, pad(f, x)) - S(coeffs, pad(g, y))
                          for _, f, x, g, y in instances(graph, sizes)])
