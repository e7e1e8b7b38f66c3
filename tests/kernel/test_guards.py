"""The guard pass (dslc.kernel.guards): inside a cell's recorded box, an ``if``
testing a function's guard is replaced by the branch the box decides; an
undecided one, or one outside any box, stays. The verifier runs before and
after it (Lines.apply)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

import dslc
from dslc.emit.pyexpr import Lines
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.guards import specialise
from tests.emit.test_ranges import NAMES, conditions, evaluate

GUARDS = """
int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = 0
  | j == 0 = 1
  | i >= 1 = 2
  | otherwise = 3
"""


def _chain(guards, k: int = 0) -> tuple:
    """``val = k`` under the first guard that holds, as the CPU generator's
    guard chain nests them (each ``if`` with its typed-IR guard)."""
    if k == len(guards):
        return (ir.Assign("val", ir.Const(k)),)
    return (kb.If((ir.Assign("val", ir.Const(k)),), ir.Name(f"c{k}"),
                  _chain(guards, k + 1), guard=guards[k]),)


def test_decided_guards_become_their_branch_and_undecided_ones_stay():
    f = dslc.compile(GUARDS, backend="interp").checked.functions["f"]
    conds = [g.cond for g in f.guards if g.cond is not None]
    box = (("i", (1, 5)), ("j", (0, 5)))  # i == 0 false, j == 0 open, i >= 1 true
    b = Lines([ir.Assign(f"c{k}", ir.Const(True)) for k in range(3)])
    b.nest(kb.Cell(_chain(conds), box))
    b.nest(kb.Cell(_chain(conds)))  # no box: nothing decided
    b.apply(specialise, "cpu", known=[])
    assert b.render() == "\n".join([
        "c0 = True", "c1 = True", "c2 = True",
        # i == 0 dropped with its branch, j == 0 kept, i >= 1 made unconditional
        "if c1:", "    val = 1", "else:", "    val = 2",
        "if c0:", "    val = 0", "else:", "    if c1:", "        val = 1", "    else:",
        "        if c2:", "            val = 2", "        else:", "            val = 3"])


def test_an_elif_whose_if_is_decided_false_stands_alone():
    f = dslc.compile(GUARDS, backend="interp").checked.functions["f"]
    i0, j0 = f.guards[0].cond, f.guards[1].cond
    inner = kb.If((ir.Assign("val", ir.Const(1)),), ir.Name("c1"), chained=True, guard=j0)
    chain = kb.If((ir.Assign("val", ir.Const(0)),), ir.Name("c0"), (inner,), guard=i0)
    out = specialise((kb.Cell((chain,), (("i", (2, 3)), ("j", (0, 9)))),))
    assert out[0].body == (kb.If((ir.Assign("val", ir.Const(1)),), ir.Name("c1"), guard=j0),)


def _run(stmts, point) -> int | None:
    """The value ``val`` the statements leave, each ``if`` taken as its guard
    evaluates at ``point``."""
    val = None
    for s in stmts:
        match s:
            case ir.Assign(value=ir.Const(value=v)):
                val = v
            case kb.If(guard=g):
                branch = s.body if evaluate(g, point) else (s.orelse or ())
                val = _run(branch, point) if branch else val
            case kb.Cell(body=b):
                val = _run(b, point)
    return val


@st.composite
def boxes(draw):
    return {n: (lo, lo + draw(st.integers(0, 3)))
            for n in NAMES for lo in [draw(st.integers(-3, 3))]}


@settings(max_examples=150, deadline=None)
@given(st.lists(conditions(), min_size=1, max_size=4), boxes())
def test_the_pass_keeps_every_points_value(guards, box):
    """At every point of the box the specialised chain gives the full chain's value."""
    full = _chain(guards)
    cell = specialise((kb.Cell(full, tuple(box.items())),))
    for xs in itertools.product(*(range(lo, hi + 1) for lo, hi in box.values())):
        point = dict(zip(box, xs))
        assert _run(cell, point) == _run(full, point)
