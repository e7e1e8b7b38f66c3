"""What a derivation records at a choice point, and the value of an operator chain
from its operands: shared by the plain walk (dslc.trace.derive) and the step plans
(dslc.trace.plan), which import this module and not each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dslc.check import tir


@dataclass(frozen=True)
class Choice:
    """The alternative taken at one choice point of a body: ``kind`` is ``guard``,
    ``max``, ``min`` (an operator chain: ``index`` among its operands; a reduction:
    ``var`` bound to ``value``) or ``if`` (0: then, 1: else)."""

    kind: str
    index: int
    text: str
    var: str | None = None
    value: Any = None


def fold(e, op: str, values):
    """The value of the operator chain ``e`` from its operands' values (``values``,
    in ``tir.chain``'s order), combined in the tree's own shape as the interpreter's
    closure combines them (so equal values, NaN and ties included)."""
    if not (isinstance(e, tir.MinMax) and e.op == op):
        return next(values)
    a = fold(e.left, op, values)
    b = fold(e.right, op, values)
    return max(a, b) if op == "max" else min(a, b)


def same(a, b) -> bool:
    """Equal values, NaN counted equal to NaN (a NaN node took its NaN alternative)."""
    return a == b or (a != a and b != b)
