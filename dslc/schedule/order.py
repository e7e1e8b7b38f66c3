"""The order of functions inside one partition (thesis §5.3.6).

A call from ``h`` to another function ``e`` may stay in its own partition; then
``e``'s cells of that partition must be computed before ``h``'s. Those
same-partition calls are edges ``e -> h``; any topological order of them is a
valid order within a partition, and a cycle means that no order exists for
this schedule (the search then tries the next one, or reports the calls).
"""

from __future__ import annotations

from typing import Sequence

from dslc.deps.ir import Dependence


def partition_order(functions: Sequence[str], edges: Sequence[Dependence]
                    ) -> tuple[tuple[str, ...] | None, tuple[Dependence, ...]]:
    """``(order, ())`` with callees first, ties in the group's own order; or
    ``(None, calls)`` where ``calls`` form a cycle."""
    preds: dict[str, set[str]] = {f: set() for f in functions}
    for d in edges:
        if d.callee != d.caller:
            preds[d.caller].add(d.callee)
    done: list[str] = []
    remaining = list(functions)
    while remaining:
        ready = next((f for f in remaining if not preds[f] - set(done)), None)
        if ready is None:
            return None, _cycle(remaining, edges)
        done.append(ready)
        remaining.remove(ready)
    return tuple(done), ()


def _cycle(remaining: Sequence[str], edges: Sequence[Dependence]) -> tuple[Dependence, ...]:
    """One cycle among the functions left over, as the calls that make it."""
    left = set(remaining)
    into = {}  # caller -> one same-partition call it makes to a function still left
    for d in edges:
        if d.caller in left and d.callee in left and d.caller != d.callee:
            into.setdefault(d.caller, d)
    path, at = [], remaining[0]
    while at not in path:  # every function left has a predecessor left: walk back
        path.append(at)
        at = into[at].callee
    loop = path[path.index(at):]
    return tuple(into[f] for f in reversed(loop))
