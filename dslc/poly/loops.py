"""The loop-nest view the CPU/CUDA code generators walk (``dslc.emit.cpu``).

The generators predate :mod:`dslc.poly.loopir` and expect flat statement
tuples, ``LIf`` with both branches, and statement names ``f__k`` for guard
pieces. This module presents a :class:`dslc.poly.loopir.LoopNest` that way;
the loops themselves come from :func:`dslc.poly.nest.build_loop_nest`, and
expressions are the loop IR's own (``to_python()``).
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.poly import loopir as L
from dslc.poly.pretty import render as _render_ir

PIECE = "__"  # statement name of guard piece k of f: f__k


@dataclass(frozen=True)
class LFor:
    """``for var in lower .. upper`` (inclusive) step ``step``; ``kind`` is
    ``partition`` for the outermost loop, ``parallel`` inside it."""

    var: str
    lower: L.Expr
    upper: L.Expr
    step: int
    body: tuple
    kind: str


@dataclass(frozen=True)
class LIf:
    cond: L.Expr
    then: tuple
    orelse: tuple


@dataclass(frozen=True)
class LCompute:
    """Compute ``func`` (``f`` or piece ``f__k``) at the point ``args``."""

    func: str
    args: tuple[L.Expr, ...]


@dataclass(frozen=True)
class LoopNest:
    body: tuple
    partition_var: str
    ir: L.LoopNest | None = None


def loop_nest(schedule, ext, pieces: dict | None = None) -> LoopNest:
    from dslc.poly.nest import build_loop_nest  # isl, only where there is a nest to build

    ir = build_loop_nest(schedule, ext, pieces or None)
    return LoopNest(_flat(ir.body), ir.partition_var, ir)


def _flat(s: L.Stmt) -> tuple:
    if isinstance(s, L.Block):
        return tuple(x for st in s.stmts for x in _flat(st))
    if isinstance(s, L.For):
        return (LFor(s.var, s.lower, s.upper, s.step, _flat(s.body), s.kind),)
    if isinstance(s, L.Guard):
        return (LIf(s.cond, _flat(s.body), () if s.orelse is None else _flat(s.orelse)),)
    if isinstance(s, L.Call):
        name = s.function if s.piece is None else f"{s.function}{PIECE}{s.piece}"
        return (LCompute(name, s.args),)
    raise TypeError(f"not a loop IR statement: {s!r}")


def render(nest, indent: int = 0) -> str:
    """Readable text of a nest (for ``dslc explain``)."""
    if isinstance(nest, LoopNest) and nest.ir is not None:
        return _render_ir(nest.ir, indent)
    return _render_ir(nest, indent)
