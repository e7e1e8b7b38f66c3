"""Text forms of a loop nest: a readable one for ``dslc explain`` and Python
source for backends that want to run the sweep as plain Python.

The readable form shows inclusive ranges and each loop's kind::

    for c0 in 0 .. E_i + E_j:  # partition
      for c1 in max(0, c0 - E_j) .. min(E_i, c0):  # parallel
        d(c1, c0 - c1)
"""

from __future__ import annotations

from typing import Callable

from dslc.poly import loopir as L


def render(nest: L.LoopNest | L.Stmt, indent: int = 0) -> str:
    """The loop nest as indented pseudo-code with inclusive ranges."""
    body = nest.body if isinstance(nest, L.LoopNest) else nest
    return "\n".join(_lines(body, indent))


def _lines(s: L.Stmt, depth: int) -> list[str]:
    pad = "  " * depth
    if isinstance(s, L.Body):
        return [ln for x in s.stmts for ln in _lines(x, depth)]
    if isinstance(s, L.For):
        step = f" step {s.step}" if s.step != 1 else ""
        head = f"{pad}for {s.var} in {s.lower.to_python()} .. {s.upper.to_python()}{step}:" \
               f"  # {s.kind}"
        return [head] + _lines(s.body, depth + 1)
    if isinstance(s, L.Guard):
        out = [f"{pad}if {s.cond.to_python()}:"] + _lines(s.body, depth + 1)
        if s.orelse is not None:
            out += [f"{pad}else:"] + _lines(s.orelse, depth + 1)
        return out
    if isinstance(s, L.Call):
        piece = f"  # guard {s.piece}" if s.piece is not None else ""
        return [f"{pad}{s.function}({', '.join(a.to_python() for a in s.args)}){piece}"]
    raise TypeError(f"not a loop IR statement: {s!r}")


def python_source(nest: L.LoopNest | L.Stmt, call: Callable[[L.Call], list[str]],
                  indent: int = 0) -> str:
    """Python statements running the nest; ``call`` gives the lines of one
    statement instance (its arguments are available as ``to_python()`` text)."""
    body = nest.body if isinstance(nest, L.LoopNest) else nest
    return "\n".join(_python(body, call, indent))


def _python(s: L.Stmt, call, depth: int) -> list[str]:
    pad = "    " * depth
    if isinstance(s, L.Body):
        out = [ln for x in s.stmts for ln in _python(x, call, depth)]
        return out or [f"{pad}pass"]
    if isinstance(s, L.For):
        return [f"{pad}for {s.var} in range({s.lower.to_python()}, "
                f"{L.Add(s.upper, L.Const(1)).to_python()}, {s.step}):"] \
            + _python(s.body, call, depth + 1)
    if isinstance(s, L.Guard):
        out = [f"{pad}if {s.cond.to_python()}:"] + _python(s.body, call, depth + 1)
        if s.orelse is not None:
            out += [f"{pad}else:"] + _python(s.orelse, call, depth + 1)
        return out
    if isinstance(s, L.Call):
        return [pad + ln for ln in call(s)] or [f"{pad}pass"]
    raise TypeError(f"not a loop IR statement: {s!r}")
