"""Property tests: random uniform recurrences (1-3 dimensions, one function or
two mutually recursive ones). The chosen schedule must be legal by
brute-force enumeration (no isl involved), and no schedule with coefficients
in ``[-3, 3]^n`` that is legal by enumeration may have fewer partitions.

Extents are at least 2 and displacements at most 2 in each coordinate, so
every call really occurs on the small domain and legality there is legality
for every extent (what the search decides).
"""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dslc.deps.ir import DependenceGraph, RecFunction
from dslc.errors import DslcError
from dslc.schedule import find_schedule, verify_schedule
from dslc.schedule.problems import InvalidScheduleError
from tests.schedule import brute_force as bf
from tests.schedule import graphs as G

PARAMS = ("i", "j", "k")
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def box(n: int):
    return [c for c in itertools.product(range(-3, 4), repeat=n) if any(c)]


@st.composite
def single(draw):
    n = draw(st.integers(1, 3))
    vec = st.tuples(*[st.integers(-2, 2)] * n).filter(any)
    deltas = draw(st.lists(vec, min_size=1, max_size=4, unique=True))
    sizes = draw(st.tuples(*[st.integers(2, 4 if n == 3 else 5)] * n))
    return G.uniform(deltas, PARAMS), {"f": sizes}


@st.composite
def mutual(draw):
    n = draw(st.integers(1, 2))
    ps = PARAMS[:n]
    vec = st.tuples(*[st.integers(-2, 2)] * n)
    pairs = [("f", "f"), ("g", "g"), ("f", "g"), ("g", "f")]
    deps = []
    for caller, callee in pairs:
        for d in draw(st.lists(vec, max_size=2, unique=True)):
            if caller == callee and not any(d):
                continue
            deps.append(G.call(caller, callee, ps, d, line=len(deps) + 1))
    assume(deps)
    sizes = {f: draw(st.tuples(*[st.integers(2, 4)] * n)) for f in ("f", "g")}
    return DependenceGraph((RecFunction("f", ps), RecFunction("g", ps)), tuple(deps)), sizes


def check_optimal(graph, sizes):
    legal = [c for c in box(len(graph.functions[0].params)) if bf.legal(graph, sizes, c)]
    assume(legal)
    sched = find_schedule(graph, sizes)
    assert bf.legal(graph, sizes, sched.coeffs), sched
    assert sched.partitions == bf.partitions(sizes, sched.coeffs)
    best = min(bf.partitions(sizes, c) for c in legal)
    assert sched.partitions <= best, (sched, best)
    if max(map(abs, sched.coeffs)) <= 3:
        assert sched.partitions == best
    assert sched.window == bf.window(graph, sizes, sched.coeffs)


@SETTINGS
@given(single())
def test_single_function_schedule_is_legal_and_has_fewest_partitions(case):
    check_optimal(*case)


@SETTINGS
@given(mutual())
def test_mutual_recursion_schedule_is_legal_and_has_fewest_partitions(case):
    check_optimal(*case)


@SETTINGS
@given(single(), st.data())
def test_verification_agrees_with_enumeration(case, data):
    graph, sizes = case
    n = len(graph.functions[0].params)
    coeffs = data.draw(st.tuples(*[st.integers(-3, 3)] * n))
    if bf.legal(graph, sizes, coeffs):
        verify_schedule(graph, coeffs, sizes)
        return
    try:
        verify_schedule(graph, coeffs, sizes)
    except InvalidScheduleError as e:
        x, y = e.caller_point, e.target_point
        assert bf.S(coeffs, x) - bf.S(coeffs, y) <= 0  # the witness really breaks the call
        assert any(d == e.call and xx == x and yy == y
                   for k, _, xx, _, yy in bf.instances(graph, sizes) for d in [graph.deps[k]])
    else:
        raise AssertionError(f"{coeffs} accepted but illegal by enumeration")


def test_no_schedule_agrees_with_enumeration():
    graph = G.uniform([(1, 0), (-1, 1), (0, -1)])
    sizes = {"f": (3, 3)}
    assert not any(bf.legal(graph, sizes, c) for c in box(2))
    try:
        find_schedule(graph, sizes)
    except DslcError as e:
        assert "no affine schedule" in e.message
    else:
        raise AssertionError("a schedule was found")
