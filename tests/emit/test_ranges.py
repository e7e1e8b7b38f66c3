"""Guards decided over a box (dslc.kernel.boxes), checked by brute force: a
verdict of True or False must hold at every point of the box; None is always
allowed (the guard stays a run-time test)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.check import tir
from dslc.lang import types as T
from dslc.kernel.boxes import constants, decide, live_guards

NAMES = ("i", "j")


def var(n):
    return tir.Var(n, "param", T.INT, None)


def lit(v):
    return tir.Lit(v, T.INT if not isinstance(v, bool) else T.BOOL, None)


@st.composite
def terms(draw, depth=2):
    if depth == 0 or draw(st.booleans()):
        return var(draw(st.sampled_from(NAMES))) if draw(st.booleans()) else \
            lit(draw(st.integers(-3, 3)))
    op = draw(st.sampled_from(["+", "-", "*"]))
    left = draw(terms(depth - 1))
    right = lit(draw(st.integers(-2, 2))) if op == "*" else draw(terms(depth - 1))
    return tir.Arith(op, left, right, T.INT, None)


@st.composite
def conditions(draw, depth=2):
    if depth == 0 or draw(st.booleans()):
        op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
        return tir.Compare(op, draw(terms()), draw(terms()), None)
    kind = draw(st.sampled_from(["and", "or", "not"]))
    if kind == "not":
        return tir.Not(draw(conditions(depth - 1)), None)
    return tir.Logic(kind, draw(conditions(depth - 1)), draw(conditions(depth - 1)), None)


def evaluate(e, point):
    match e:
        case tir.Lit(value=v):
            return v
        case tir.Var(name=n):
            return point[n]
        case tir.Arith(op=op, left=a, right=b):
            x, y = evaluate(a, point), evaluate(b, point)
            return x + y if op == "+" else x - y if op == "-" else x * y
        case tir.Not(operand=x):
            return not evaluate(x, point)
        case tir.Logic(op=op, left=a, right=b):
            x, y = evaluate(a, point), evaluate(b, point)
            return (x and y) if op == "and" else (x or y)
        case tir.Compare(op=op, left=a, right=b):
            x, y = evaluate(a, point), evaluate(b, point)
            return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y,
                    ">=": x >= y}[op]
    raise AssertionError(e)


@st.composite
def boxes(draw):
    """Each dimension a closed range, or one unbounded above (checked up to 12)."""
    box = {}
    for n in NAMES:
        lo = draw(st.integers(0, 5))
        box[n] = (lo, draw(st.sampled_from([lo, lo + 1, lo + 3, float("inf")])))
    return box


@settings(max_examples=400, deadline=None)
@given(cond=conditions(), box=boxes())
def test_a_decided_guard_holds_at_every_point_of_the_box(cond, box):
    verdict = decide(cond, box)
    if verdict is None:
        return
    ranges = [range(lo, (hi if hi != float("inf") else lo + 12) + 1) for lo, hi in box.values()]
    for point in itertools.product(*ranges):
        assert evaluate(cond, dict(zip(NAMES, point))) == verdict, (cond, box, point)


def test_the_boundary_guards_of_an_alignment():
    edge = tir.Logic("or", tir.Compare("==", var("i"), lit(0), None),
                     tir.Compare("==", var("j"), lit(0), None), None)
    assert decide(edge, {"i": (1, float("inf")), "j": (1, float("inf"))}) is False
    assert decide(edge, {"i": (0, 0), "j": (3, float("inf"))}) is True
    assert decide(edge, {"i": (0, float("inf")), "j": (1, float("inf"))}) is None
    assert constants(edge) == [0, 0]
    guards = (tir.TGuard(edge, lit(0), None), tir.TGuard(None, lit(1), None))
    interior = live_guards(guards, {"i": (1, float("inf")), "j": (1, float("inf"))})
    assert [g.cond for g in interior] == [None] and interior[0].body.value == 1
    corner = live_guards(guards, {"i": (0, 0), "j": (0, 4)})
    assert [g.cond for g in corner] == [None] and corner[0].body.value == 0
