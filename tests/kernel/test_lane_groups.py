"""The CPU packs' lane loops as a pass (dslc.kernel.lane_groups): one lane's body
in, every cell and the pack's initial values and result in lane loops out, the
consecutive cells of one point joined in one loop; the lane index free before the
pass (a parameter to the verifier), bound by the loops after it."""

from __future__ import annotations

import pytest

from dslc.emit.pyexpr import Lines
from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.emit import strategies as es
from dslc.kernel import strategies as ks
from dslc.kernel.lane_groups import Lanes, PerLane, lane_groups
from dslc.kernel.value_type import ValueType
from dslc.kernel.verify import verify_body

L = ir.Name("l")
PARAMS = ["n", "T_f", "T_g", "acc", "out"]


def _point(i) -> kb.Point:
    return kb.Point((ir.Assign("x_i", i),))


def _cell(table: str) -> kb.Cell:
    """``v = T[x_i - 1, l]`` then ``T[x_i, l] = v``."""
    at = ir.Load(table, (ir.Name("x_i"), L))
    prev = ir.Load(table, (ir.Bin("-", ir.Name("x_i"), ir.Const(1), True), L))
    return kb.Cell((ir.Assign("v", prev), ir.Store(at, ir.Name("v"))))


def _one_lane() -> tuple:
    """A pack's body for one lane: the accumulator's start, a loop whose points
    each hold the cells of ``f`` and ``g`` (the point assigned again before
    ``g``'s), a lone point of ``f`` after it, then the result."""
    init = PerLane((ir.Store(ir.Load("acc", (L,)), ir.Const(0.0)),))
    x = ir.Name("c")
    loop = kb.Loop((_point(x), _cell("T_f"), _point(x), _cell("T_g")), "sequential", "c",
                   (ir.Const(1), ir.Name("n")))
    tail = PerLane((ir.Store(ir.Load("out", (L,)), ir.Load("acc", (L,))),))
    return (init, loop, _point(ir.Const(0)), _cell("T_f"), tail)


def test_cells_of_one_point_share_a_lane_loop_and_init_and_tail_get_their_own():
    body = Lines(list(_one_lane()))
    body.apply(lambda s: lane_groups(s, Lanes()), "cpu", PARAMS + ["l"], after=PARAMS)
    assert body.render() == "\n".join([
        "for l in range(LANES):",
        "    acc[l] = 0.0",
        "for c in range(1, n):",
        "    x_i = c",
        "    for l in range(LANES):",
        "        v = T_f[(x_i - 1), l]",
        "        T_f[x_i, l] = v",
        "        v = T_g[(x_i - 1), l]",
        "        T_g[x_i, l] = v",
        "x_i = 0",
        "for l in range(LANES):",
        "    v = T_f[(x_i - 1), l]",
        "    T_f[x_i, l] = v",
        "for l in range(LANES):",
        "    out[l] = acc[l]"])
    joined = body.stmts[1].body[1]
    assert joined.kind == "lanes" and joined.point == (ir.Assign("x_i", ir.Name("c")),)
    assert body.stmts[0].point is None and body.stmts[-1].point is None


def test_a_cell_of_another_point_starts_its_own_lane_loop():
    """Cells join only across their own point's coordinates: the next point's, or
    anything else between, starts a new loop."""
    stmts = (_point(ir.Const(1)), _cell("T_f"), _point(ir.Const(2)), _cell("T_g"),
             _point(ir.Const(2)), ir.Assign("w", ir.Const(0)), _cell("T_f"))
    out = lane_groups(stmts, Lanes())
    assert [type(s).__name__ for s in out] == ["Point", "Loop", "Point", "Loop", "Point",
                                               "Assign", "Loop"]
    # (the lone cell after an assignment still records its point)
    assert out[-1].point == (ir.Assign("x_i", ir.Const(2)),)


def test_the_lane_index_is_free_before_the_pass_and_bound_after_it():
    one = _one_lane()
    with pytest.raises(InternalError, match="l read before it is defined"):
        verify_body(one, "cpu", PARAMS)
    verify_body(lane_groups(verify_body(one, "cpu", PARAMS + ["l"]), Lanes()), "cpu", PARAMS)
    # a read of the lane index the pass leaves outside a lane loop fails after it
    stray = one + (ir.Store(ir.Load("out", (L,)), ir.Const(1.0)),)
    with pytest.raises(InternalError, match="l read before it is defined"):
        Lines(list(stray)).apply(lambda s: lane_groups(s, Lanes()), "cpu",
                                 PARAMS + ["l"], after=PARAMS)
    with pytest.raises(InternalError, match="per lane of a CPU pack"):
        verify_body(one, "cuda", PARAMS + ["l"])


def test_the_task_groups_strategy_lowers_one_lane_through_its_passes():
    """strategies.lower() runs the lane groups with the lane index known before it
    (the pass binds it), then the score profiles (none here) and the value type."""
    from dslc.kernel.profiles import Profiles

    s = es.strategy("cpu task groups")
    assert s.body[0] is ks.LANE_GROUPS and ks.LANE_GROUPS.binds
    body = Lines(list(_one_lane()))
    ks.lower(s, body, "cpu", PARAMS, lanes=Lanes(),
             profiles=Profiles(frozenset(), frozenset(), frozenset()),
             value=(ValueType("float64"), "np.inf", frozenset()))
    assert tuple(body.stmts) == lane_groups(_one_lane(), Lanes())
