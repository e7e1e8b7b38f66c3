"""The entry points the task planner (``dslc.emit.plan``) and ``dslc explain``
were written against, kept stable while the schedule package grew.

They differ from :mod:`dslc.schedule` only in two conventions of the planner:
``verify_schedule`` takes ``(graph, extents, coeffs)`` and returns the
:class:`Schedule`, and windows deeper than :data:`WINDOW_LIMIT` are reported as
None - past that depth rotating buffers cost more than they save, so the
planner keeps the whole table.
"""

from __future__ import annotations

from typing import Sequence

from dslc.deps.ir import DependenceGraph
from dslc.schedule.model import Extents, ExtentsLike, Schedule
from dslc.schedule import solve, verify

WINDOW_LIMIT = 64

__all__ = ["Extents", "Schedule", "WINDOW_LIMIT", "find_schedule", "verify_schedule"]


def find_schedule(graph: DependenceGraph, ext: ExtentsLike, bound: int = 3) -> Schedule:
    return solve.find_schedule(graph, ext, bound=bound, window_limit=WINDOW_LIMIT)


def verify_schedule(graph: DependenceGraph, ext: ExtentsLike, coeffs: Sequence[int]) -> Schedule:
    return verify.checked_schedule(graph, coeffs, ext, window_limit=WINDOW_LIMIT)
