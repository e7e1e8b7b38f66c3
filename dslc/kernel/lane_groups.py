"""The CPU task groups' lane loops as a pass over a task's body (kernel.body): a
pack runs ``LANES`` tasks in lockstep, every cell's code inside ``for l in
range(LANES)`` (emit.packs says why).

The pack generator builds the body of one lane: the loop nest every CPU strategy
builds (a point's coordinates, a ``Point``, then its cells, each a ``Cell``), the
pack's initial values and its result as :class:`PerLane` groups, the lane's index
free in all of them. The pass puts each cell, and each ``PerLane`` group, in a
``lanes`` loop; the cells of one point (a group's functions, placed one after
another at the same point) share one loop: a point's coordinates are recorded
just before its cells, so a cell joins the lane loop before it when that loop was
made for the same point (the coordinates, assigned again in between, are left
out). One loop per point, not per cell, is what LLVM vectorises as one.

The lane variable is the pass's input (:class:`Lanes`), not a mark in the body:
the cells come from the loop-nest code every CPU strategy shares, which knows
nothing of lanes, and marking each of them for the pack would put back the
generator hook this pass replaces. Until the pass, the lane index is in the body
what a task's parameter is, a name defined outside it; so the verifier checks the
body before the pass with the lane variable among the parameters
(kernel.strategies ``lower``: the pass ``binds`` it), and after it without: the
lane loops bind it then, and a read of it the pass left outside one fails there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dslc.kernel import body as kb


@dataclass(frozen=True)
class Lanes:
    """The pass's input: the lane loop's variable and its count (an expression, or
    the module's constant's name)."""

    var: str = "l"
    count: object = "LANES"

    @property
    def binds(self) -> tuple:
        """The names the pass binds (free in its input)."""
        return (self.var,)


@dataclass(frozen=True)
class PerLane(kb._Group):
    """Statements run for each lane of a pack outside any cell (its initial values,
    its result), the lane variable free in them: the pass puts them in a lane loop
    of their own. Never printed (the pass leaves none)."""


def lane_groups(stmts: tuple, lanes: Lanes) -> tuple:
    """``stmts`` with every cell and every :class:`PerLane` group in a lane loop, a
    point's consecutive cells in one."""
    out: list = []
    for s in stmts:
        match s:
            case kb.Cell():
                _cell(out, s, lanes)
            case PerLane(body=b):
                out.append(_loop(b, lanes, None))
            case kb.Loop(kind="lanes"):
                out.append(s)
            case kb.If():
                orelse = None if s.orelse is None else lane_groups(s.orelse, lanes)
                out.append(replace(s, body=lane_groups(s.body, lanes), orelse=orelse))
            case kb._Block():
                out.append(replace(s, body=lane_groups(s.body, lanes)))
            case _:
                out.append(s)
    return tuple(out)


def _cell(out: list, cell: kb.Cell, lanes: Lanes) -> None:
    """``cell`` placed at the end of ``out``: into the lane loop of its point where
    that loop and the point's coordinates (assigned again) end ``out``."""
    point = out[-1] if out and isinstance(out[-1], kb.Point) else None
    before = out[-2] if len(out) > 1 else None
    if point is not None and isinstance(before, kb.Loop) and before.kind == "lanes" \
            and before.point == point.body:
        del out[-2:]
        out.append(replace(before, body=before.body + (cell,)))
        return
    out.append(_loop((cell,), lanes, _point_of(out)))


def _point_of(out: list) -> tuple | None:
    """The coordinate assignments of the nearest point before (a cell's own: the
    slots of a lone point may stand between), None where there is none."""
    for s in reversed(out):
        if isinstance(s, kb.Point):
            return s.body
    return None


def _loop(body: tuple, lanes: Lanes, point) -> kb.Loop:
    return kb.Loop(tuple(body), "lanes", lanes.var, (lanes.count,), point=point)
