"""Loop nests from isl, checked by running them: interpreting the loop IR over
small extents must visit every domain point exactly once, with every call's
target visited before its caller (checked by enumeration, not by isl), and
every point of a partition-loop iteration in that partition."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dslc.deps.ir import Constraint
from dslc.poly import loopir as L
from dslc.poly.nest import build_loop_nest
from dslc.poly.pretty import python_source, render
from dslc.schedule import checked_schedule, extents_for, find_schedule
from dslc.schedule.problems import NoScheduleError
from tests.schedule import brute_force as bf
from tests.schedule import graphs as G


def run(nest: L.LoopNest, sched, names: dict, sizes: dict) -> list:
    """Execute the nest; ``[(function, point, piece)]`` in visiting order."""
    env = {}
    for f, ns in names.items():
        env.update(zip(ns, sizes[f]))
    out = []

    def visit(call: L.Call, point):
        if "c0" in env:  # inside a partition loop: the point is in that partition
            assert sched.at(point, call.function) == env["c0"], (call, point, env["c0"])
        out.append((call.function, point, call.piece))

    L.execute(nest.body, env, visit)
    return out


def check_sweep(graph, sched, sizes, names=None, nest=None):
    ext = extents_for(graph, sizes, names)
    nest = nest or build_loop_nest(sched, ext)
    visited = run(nest, sched, ext.names, sizes)
    when = {}
    for n, (f, p, _) in enumerate(visited):
        assert (f, p) not in when, f"{f}{p} computed twice"
        when[(f, p)] = n
    expected = {(f, p) for f in sizes for p in bf.box(sizes[f])}
    assert set(when) == expected
    for _, f, x, g, y in bf.instances(graph, sizes):
        assert when[(g, y)] < when[(f, x)], f"{f}{x} runs before its call {g}{y}"
    return nest, visited


@pytest.mark.parametrize("sizes", [(0, 0), (0, 3), (3, 0), (1, 1), (4, 2), (2, 5), (6, 6)])
def test_edit_distance_nest_visits_every_cell_once_in_dependence_order(sizes):
    g = G.edit_distance()
    sched = find_schedule(g, {"d": sizes})
    check_sweep(g, sched, {"d": sizes})


def test_edit_distance_nest_is_parametric_and_readable():
    g = G.edit_distance()
    sched = find_schedule(g, {"d": (5, 5)})
    nest = build_loop_nest(sched, {"d": ("N", "M")})
    assert nest.params == ("M", "N") and nest.partition_var == "c0"
    outer = nest.body
    assert isinstance(outer, L.For) and outer.kind == "partition"
    assert outer.lower == L.Const(0) and outer.upper.eval({"N": 3, "M": 4}) == 7
    inner = outer.body
    assert isinstance(inner, L.For) and inner.kind == "parallel"
    assert isinstance(inner.body, L.Call) and inner.body.function == "d"
    text = render(nest)
    assert "for c0 in 0 .. " in text and "# partition" in text and "# parallel" in text
    assert "d(c1, c0 - c1)" in text
    # one nest, many sizes
    for sizes in [(2, 7), (7, 2), (3, 3)]:
        check_sweep(g, sched, {"d": sizes}, names={"d": ("N", "M")}, nest=nest)


@pytest.mark.parametrize("coeffs", [(2, 1), (1, 2), (3, 2), (1, 3)])
def test_user_schedules_with_strides(coeffs):
    g = G.edit_distance()
    sched = checked_schedule(g, coeffs, {"d": (4, 4)})
    for sizes in [(4, 4), (5, 2), (0, 3)]:
        check_sweep(g, sched, {"d": sizes})


@pytest.mark.parametrize("sizes", [(4, 3), (2, 6), (0, 2)])
def test_gotoh_runs_functions_point_by_point(sizes):
    g = G.gotoh()
    sched = find_schedule(g, (4, 4))
    assert sched.same_point_order
    shared = {f.name: ("N", "M") for f in g.functions}
    check_sweep(g, sched, {f.name: sizes for f in g.functions}, names=shared)


def test_gotoh_with_different_boxes_per_function():
    g = G.gotoh()
    sizes = {"h": (3, 2), "e": (4, 1), "f": (2, 4)}
    sched = find_schedule(g, sizes)
    check_sweep(g, sched, sizes)


def test_same_partition_calls_to_other_points_run_function_by_function():
    g = G.staggered()
    sched = find_schedule(g, (4, 4))
    assert sched.order == ("g", "f") and not sched.same_point_order
    for sizes in [(4, 4), (1, 5)]:
        check_sweep(g, sched, {"f": sizes, "g": sizes}, names={"f": ("N", "M"), "g": ("N", "M")})


@pytest.mark.parametrize("sizes", [(6, 6), (9, 9), (3, 3)])
def test_nussinov_rows_in_reverse(sizes):
    g = G.nussinov()
    sched = find_schedule(g, {"n": sizes})
    _, visited = check_sweep(g, sched, {"n": sizes})
    assert visited[0][1][0] == sizes[0]  # the last row first


def test_three_sequence_alignment_nest():
    g = G.three_way()
    sched = find_schedule(g, (3, 3, 3))
    for sizes in [(3, 2, 4), (1, 0, 2)]:
        check_sweep(g, sched, {"f": sizes})


def test_guard_pieces_are_loops_of_their_own():
    g = G.edit_distance()
    sched = find_schedule(g, (4, 4))
    border = ((Constraint(G.A(0, i=-1), "eq"),), (Constraint(G.A(0, j=-1), "eq"),))
    inner = ((Constraint(G.A(-1, i=1)), Constraint(G.A(-1, j=1))),)
    pieces = {"d": ((0, border), (1, inner))}
    nest = build_loop_nest(sched, {"d": ("N", "M")}, pieces)
    # the border is peeled into loops of its own: no test per cell of a parallel loop
    assert not any(isinstance(s, L.Guard) for f in L.walk(nest.body)
                   if isinstance(f, L.For) and f.kind == "parallel" for s in L.walk(f.body))
    for sizes in [(3, 4), (0, 2), (1, 1)]:
        _, visited = check_sweep(g, sched, {"d": sizes}, names={"d": ("N", "M")}, nest=nest)
        assert all((p == 0) == (0 in x) for _, x, p in visited)


def test_generators_view_partition_loops_outermost_and_one_call_per_piece():
    g = G.edit_distance()
    sched = find_schedule(g, (4, 4))
    border = ((Constraint(G.A(0, i=-1), "eq"),), (Constraint(G.A(0, j=-1), "eq"),))
    inner = ((Constraint(G.A(-1, i=1)), Constraint(G.A(-1, j=1))),)
    nest = build_loop_nest(sched, extents_for(g, (4, 4)), {"d": ((0, border), (1, inner))})
    fors = [n for n in L.statements(nest.body) if isinstance(n, L.For)]
    assert fors and all(f.kind == "partition" for f in fors)
    calls = set()

    def collect(body):
        for n in L.statements(body):
            if isinstance(n, L.For):
                collect(n.body)
            elif isinstance(n, L.Call):
                calls.add((n.function, n.piece))
            else:
                collect(n.body)
                collect(n.orelse)

    collect(nest.body)
    assert calls == {("d", 0), ("d", 1)}


def test_python_source_runs_like_the_interpreter():
    g = G.gotoh()
    sched = find_schedule(g, (4, 4))
    names = {f.name: ("N", "M") for f in g.functions}
    nest = build_loop_nest(sched, names)
    src = python_source(nest, lambda c: [f"out.append(({c.function!r}, "
                                         f"({', '.join(a.to_python() for a in c.args)},)))"],
                        indent=1)
    scope: dict = {}
    exec(f"def sweep(N, M, out):\n{src}\n", scope)
    for n, m in [(3, 2), (0, 4)]:
        out: list = []
        scope["sweep"](n, m, out)
        expected = [(f, p) for f, p, _ in run(nest, sched, names, {f: (n, m) for f in names})]
        assert out == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 3), data=st.data())
def test_random_uniform_recurrences_sweep_in_order(n, data):
    vec = st.tuples(*[st.integers(-2, 2)] * n).filter(any)
    deltas = data.draw(st.lists(vec, min_size=1, max_size=3, unique=True))
    g = G.uniform(deltas)
    try:
        sched = find_schedule(g, (3,) * n)
    except NoScheduleError:
        assume(False)
    hi = 4 if n < 3 else 3
    sizes = data.draw(st.tuples(*[st.integers(0, hi)] * n))
    check_sweep(g, sched, {"f": sizes})


# ----------------------------------------------------------------------------- expressions
def test_expressions_render_with_the_parentheses_python_needs():
    a, b, c = L.Var("a"), L.Var("b"), L.Var("c")
    cases = [
        L.Sub(a, L.Sub(b, c)), L.Sub(L.Sub(a, b), c), L.Mul(L.Add(a, b), c),
        L.FloorDiv(a, L.Mul(b, c)), L.FloorDiv(L.Add(a, L.Const(1)), L.Const(2)),
        L.Neg(L.Add(a, b)), L.Mod(L.Neg(a), L.Const(3)), L.Add(a, L.Const(-4)),
        L.Min((a, L.Max((b, c)), L.Const(0))),
        L.And((L.Cmp("<=", a, b), L.Or((L.Cmp("==", c, L.Const(0)), L.Cmp(">", a, c))))),
        L.Select(L.Cmp("<", a, b), L.Sub(b, a), L.Sub(a, b)),
    ]
    for e in cases:
        for env in itertools.product(range(-3, 4), repeat=3):
            env = dict(zip("abc", env))
            if isinstance(e, L.FloorDiv) and env["b"] * env["c"] == 0 and e.right != L.Const(2):
                continue
            assert eval(e.to_python(), {}, env) == e.eval(env), e.to_python()
    assert L.Sub(a, L.Sub(b, c)).to_python() == "a - (b - c)"
    assert L.Mul(L.Add(a, b), c).to_python() == "(a + b) * c"
    assert L.Sub(L.Sub(a, b), c).to_python() == "a - b - c"


_AFFINE_LEAVES = st.one_of(st.integers(-5, 5).map(L.Const),
                           st.sampled_from(["a", "b", "E_x"]).map(L.Var))


def _affine_exprs():
    """Affine loop-IR expressions (sums, differences, negations, constant multiples)."""
    return st.recursive(_AFFINE_LEAVES, lambda sub: st.one_of(
        st.tuples(sub, sub).map(lambda p: L.Add(*p)),
        st.tuples(sub, sub).map(lambda p: L.Sub(*p)),
        sub.map(L.Neg),
        st.tuples(st.integers(-3, 3).map(L.Const), sub).map(lambda p: L.Mul(*p))),
        max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(_affine_exprs(), _affine_exprs(), st.dictionaries(
    st.sampled_from(["a", "b", "E_x"]), st.integers(-20, 20), min_size=3))
def test_linear_forms_are_equal_exactly_when_the_expressions_are(e, f, env):
    """loopir.linear: a form that evaluates as its expression does, and equal forms
    for expressions equal everywhere (how lone statements are grouped by partition)."""
    form = L.linear(e)
    const, terms = form
    assert e.eval(env) == const + sum(c * env[v] for v, c in terms)
    if L.linear(f) == form:
        assert e.eval(env) == f.eval(env)
    assert L.linear(L.Add(e, L.Neg(f))) == L.linear(L.Sub(e, f))
    assert L.linear(L.FloorDiv(e, L.Const(2))) is None
