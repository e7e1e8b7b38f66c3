"""The schedule search and verification on classic recurrences, written
directly in the dependence IR; every answer is also checked by enumeration."""

from __future__ import annotations

import time

import pytest

from dslc.deps.ir import Affine, Dependence, DependenceGraph, RangedVar, RecFunction
from dslc.errors import DslcError
from dslc.schedule import Extents, checked_schedule, extents_for, find_schedule, verify_schedule
from dslc.schedule.problems import InvalidScheduleError, NoScheduleError, PartitionCycleError
from tests.schedule import brute_force as bf
from tests.schedule import graphs as G


def sizes_of(graph, *ext):
    return {f.name: tuple(ext) for f in graph.functions}


def check_by_enumeration(graph, sizes, sched):
    assert bf.legal(graph, sizes, sched.coeffs)
    assert sched.partitions == bf.partitions(sizes, sched.coeffs)
    assert sched.window == bf.window(graph, sizes, sched.coeffs)


def test_edit_distance_is_the_antidiagonal():
    g = G.edit_distance()
    s = find_schedule(g, {"d": {"i": 5, "j": 7}})
    assert s.coeffs == (1, 1) and s.of("d") == {"i": 1, "j": 1}
    assert s.partitions == 13 and s.first == 0 and s.window == 3 and s.order == ("d",)
    assert s.expr("d") == "i + j"
    check_by_enumeration(g, sizes_of(g, 5, 7), s)


def test_best_schedule_need_not_be_a_diagonal():
    g = G.skewed()
    s = find_schedule(g, {"f": {"i": 9, "j": 4}})
    assert s.coeffs == (1, 0) and s.partitions == 10 and s.window == 2
    check_by_enumeration(g, sizes_of(g, 9, 4), s)


def test_nussinov_with_a_ranged_split_point():
    g = G.nussinov()
    s = find_schedule(g, {"n": (12, 12)})
    assert s.coeffs == (-1, 0) and s.partitions == 13 and s.first == -12
    # n(k + 1, j) with i = 0, k = j - 1 reaches back over the whole table
    assert s.window == 13
    check_by_enumeration(g, sizes_of(g, 12, 12), s)


def test_gotoh_mutual_recursion_orders_the_functions_in_a_partition():
    g = G.gotoh()
    ext = {"h": {"i": 6, "j": 5}, "e": {"a": 6, "b": 5}, "f": {"p": 6, "q": 5}}
    s = find_schedule(g, ext)
    assert s.coeffs == (1, 1)
    assert s.order.index("e") < s.order.index("h") and s.order.index("f") < s.order.index("h")
    assert s.order == ("e", "f", "h")  # ties keep the group's order
    assert s.same_point_order
    assert s.of("e") == {"a": 1, "b": 1} and s.of("f") == {"p": 1, "q": 1}
    check_by_enumeration(g, sizes_of(g, 6, 5), s)


def test_same_partition_call_to_another_point():
    g = G.staggered()
    s = find_schedule(g, (5, 5))
    assert s.coeffs == (1, 0) and s.order == ("g", "f") and not s.same_point_order
    check_by_enumeration(g, sizes_of(g, 5, 5), s)


def test_three_sequence_alignment():
    g = G.three_way()
    t0 = time.perf_counter()
    s = find_schedule(g, (100, 100, 100))
    assert time.perf_counter() - t0 < 1.0
    assert s.coeffs == (1, 1, 1) and s.partitions == 301 and s.window == 4
    check_by_enumeration(g, sizes_of(g, 3, 2, 3), find_schedule(g, (3, 2, 3)))


def test_fewest_partitions_depend_on_the_extents():
    # only the diagonal move: both S = i and S = j are legal; the shorter side wins
    g = G.uniform([(1, 1)])
    wide = find_schedule(g, (2, 50))
    assert wide.coeffs == (1, 0) and wide.partitions == 3
    tall = find_schedule(g, (50, 2))
    assert tall.coeffs == (0, 1) and tall.partitions == 3
    assert find_schedule(g, (7, 7)).coeffs == (1, 0)  # a tie: lexicographically largest
    g1 = G.uniform([(1, -1), (0, 1)])  # a0 - a1 >= 1 and a1 >= 1
    assert find_schedule(g1, (50, 2)).coeffs == (2, 1)
    g2 = G.uniform([(1, 0), (0, 1), (1, -1), (-1, 1)])
    with pytest.raises(NoScheduleError):
        find_schedule(g2, (3, 3))


def test_coefficients_beyond_three_are_found():
    g = G.uniform([(1, -4), (0, 1)])  # a0 - 4 a1 >= 1, a1 >= 1: S = 5i + j
    s = find_schedule(g, (6, 6))
    assert s.coeffs == (5, 1)
    check_by_enumeration(g, sizes_of(g, 6, 6), s)


def test_extents_forms_agree():
    g = G.gotoh()
    by_name = {"h": {"i": 3, "j": 4}, "e": {"a": 3, "b": 4}, "f": {"p": 3, "q": 4}}
    by_pos = {"h": (3, 4), "e": (3, 4), "f": (3, 4)}
    shared = extents_for(g, (3, 4))
    assert shared.names["h"] == shared.names["e"] == ("E_0", "E_1")
    assert extents_for(g, by_name).names["e"] == ("E_e_a", "E_e_b")
    results = {find_schedule(g, x) for x in (by_name, by_pos, (3, 4), shared)}
    assert len(results) == 1
    with pytest.raises(ValueError):
        extents_for(g, {"h": (3, 4), "e": (3, 4)})


def test_different_extents_per_function_count_the_union_of_boxes():
    g = G.gotoh()
    s = find_schedule(g, {"h": (2, 2), "e": (5, 1), "f": (1, 7)})
    assert s.partitions == 9 and s.first == 0  # f reaches 1 + 7


def test_call_with_unknown_argument_pins_a_coefficient():
    # f(i, j) calls f(i - 1, anything): only S = i orders it
    g = DependenceGraph((RecFunction("f", ("i", "j")),), (
        Dependence("f", "f", (Affine.of(-1, i=1), None)),
        Dependence("f", "f", (Affine.of(0, i=1), Affine.of(-1, j=1))),
    ))
    with pytest.raises(NoScheduleError):
        find_schedule(g, (4, 4))
    g1 = DependenceGraph(g.functions, g.deps[:1])
    s = find_schedule(g1, (4, 4))
    assert s.coeffs == (1, 0)
    check_by_enumeration(g1, sizes_of(g1, 4, 4), s)


def test_ranged_variable_with_an_open_bound():
    # sum(t in 0 ... : f(t)) where only t <= i - 1 is known
    t = RangedVar("t", None, Affine.of(-1, i=1))
    g = DependenceGraph((RecFunction("f", ("i",)),),
                        (Dependence("f", "f", (Affine.of(0, t=1),), (t,)),))
    s = find_schedule(g, (6,))
    assert s.coeffs == (1,) and s.window == 7
    check_by_enumeration(g, {"f": (6,)}, s)


def test_user_schedule_verified_with_a_witness():
    g = G.edit_distance()
    verify_schedule(g, (2, 1), {"d": (5, 5)})
    assert checked_schedule(g, (2, 1), {"d": (5, 5)}).partitions == 16
    with pytest.raises(InvalidScheduleError) as info:
        verify_schedule(g, (1, -1), {"d": (5, 5)})
    err = info.value
    x, y = err.caller_point, err.target_point
    assert err.call.callee == "d" and err.span is not None and err.span.line == 3
    assert (x[0] - y[0]) - (x[1] - y[1]) <= 0 and min(x) >= 1  # a real, broken instance
    assert "not valid" in err.message and f"d({y[0]}, {y[1]})" in err.message
    assert "t.bio:3:5" in str(err)


def test_user_schedule_for_mutual_recursion():
    g = G.gotoh()
    verify_schedule(g, (1, 1), (4, 4))
    verify_schedule(g, (1, 2), (4, 4))
    with pytest.raises(InvalidScheduleError, match="e\\(a, b - 1\\)") as info:
        verify_schedule(g, (1, 0), (4, 4))  # e(i, j - 1) stays in e's partition
    assert info.value.call.callee == "e"
    with pytest.raises(DslcError, match="3 coefficients"):
        verify_schedule(g, (1, 1, 1), (4, 4))


def test_no_schedule_names_the_calls():
    g = G.uniform([(1, 0), (0, 1), (-1, 0), (0, 0)][:3])
    with pytest.raises(NoScheduleError) as info:
        find_schedule(g, (4, 4))
    # f(i, j - 1) is not part of the conflict between f(i - 1, j) and f(i + 1, j)
    assert {d.span.line for d in info.value.calls} == {1, 3}
    assert "f(i - 1, j)" in info.value.message and "f(i + 1, j)" in info.value.message
    with pytest.raises(NoScheduleError, match="f\\(i, j\\)"):
        find_schedule(G.uniform([(0, 0)]), (4, 4))


def test_same_partition_cycle_is_an_error():
    ps = ("i",)
    g = DependenceGraph((RecFunction("f", ps), RecFunction("g", ps)), (
        G.call("f", "g", ps, (0,), 1), G.call("g", "f", ps, (0,), 2)))
    with pytest.raises(PartitionCycleError) as info:
        find_schedule(g, (5,))
    assert {d.span.line for d in info.value.calls} == {1, 2}
    assert "cycle" in info.value.message
    # a user schedule hits the same wall
    with pytest.raises(PartitionCycleError):
        verify_schedule(g, (1,), (5,))


def test_window_limit_reports_deep_windows_as_none():
    g = G.nussinov()
    assert find_schedule(g, (80, 80), window_limit=64).window is None
    assert find_schedule(g, (80, 80)).window == 81


def test_the_planners_window_limit():
    from dslc.plan.task import WINDOW_LIMIT

    g = G.edit_distance()
    ext = Extents({"d": ("N", "M")}, {"N": 4, "M": 6})
    assert find_schedule(g, ext, window_limit=WINDOW_LIMIT).coeffs == (1, 1)
    assert checked_schedule(g, (1, 2), ext, window_limit=WINDOW_LIMIT).partitions == 4 + 12 + 1
    assert find_schedule(G.nussinov(), (80, 80), window_limit=WINDOW_LIMIT).window is None


def test_search_time_for_typical_groups():
    for g, ext in ((G.edit_distance(), (2000, 2000)), (G.nussinov(), (500, 500)),
                   (G.gotoh(), (300, 300)), (G.three_way(), (50, 60, 70))):
        t0 = time.perf_counter()
        find_schedule(g, ext)
        assert time.perf_counter() - t0 < 0.5, g
