"""The int16 choice (dslc.emit.narrow): which plans have a proved floor, what the
host checks, and how results come back. Pure Python (plans, no compiled code): the
lanes themselves are run against the interpreter in tests/cpu/test_packs.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dslc
from dslc.emit import narrow
from dslc.lang.stdlib import stdlib_source
from tests.cpu.test_precision import LINEAR, SUMMED, TWO_READS, _plan

GOTOH = stdlib_source("align")

GLOBAL = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = g(i - 1) - 1
int best(seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""

NEGATED = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = 0 max (5 - g(i - 1))
int best(seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""

COMPARED = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = 0 max (if g(i - 1) > 3 then g(i - 1) - 1 else g(i - 1) + 2)
int best(seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""

UP_FROM_MINUS_INF = """
int g(const step, seq[dna] s, index[s] i)
  | i == 0 = -inf
  | otherwise = g(i - 1) + step
int best(const step, seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""


def _gotoh_facts():
    prog = dslc.compile(GOTOH, backend="interp")
    c, plan = _plan(GOTOH, "sw", [prog.checked.defined["blosum62"], 10, 1, "HEAGAW", "PAWHE"])
    return narrow.narrow_info(c, plan)


def test_local_alignment_has_a_floor_and_asks_the_gap_extension_not_to_be_negative():
    facts = _gotoh_facts()
    assert facts is not None
    # h >= 0 (its 0 max ...), e and f >= h - open - ext: two leaves below h
    assert facts.floor == -2 and facts.out_floor == 0 and facts.leaves == 2
    # e(i, j - 1) - ext with e(i, 0) = -inf: ext must not be negative
    assert facts.signs == (("ext", 1),)
    ceiling, low = facts.bounds(11)  # BLOSUM62's largest magnitude, open 10
    assert ceiling == 32767 - 2 * 2 * 11 and low == 0
    assert facts.bounds(11, "int8") == (127 - 2 * 2 * 11, 0)
    assert facts.bounds(30, "int8") is None  # (127 - 120 leaves no room)


def test_the_floor_is_a_fixed_point_of_a_linear_recurrence():
    c, plan = _plan(LINEAR, "best", ["ACGTA"])
    facts = narrow.narrow_info(c, plan)
    assert facts is not None and facts.floor == 0 and facts.signs == ()


@pytest.mark.parametrize("src", [GLOBAL, NEGATED, COMPARED, TWO_READS, SUMMED],
                         ids=["falls-without-end", "negated-read", "compared-values",
                              "two-reads", "fused-sum"])
def test_what_keeps_float(src):
    entry = "total" if src is SUMMED else "best"
    c, plan = _plan(src, entry, ["ACGT"])
    assert narrow.narrow_info(c, plan) is None


def test_a_parameter_added_to_minus_inf_must_not_be_positive():
    c, plan = _plan(UP_FROM_MINUS_INF, "best", [-1, "ACGT"])
    facts = narrow.narrow_info(c, plan)
    assert facts is not None and facts.signs == (("step", -1),)
    for step, holds in ((-1, True), (0, True), (2, False)):
        lims = narrow.limits(narrow.text(facts) and (facts.floor, facts.out_floor, facts.leaves,
                                                     facts.literal, facts.signs),
                             [np.array([float(step)])], abs(step), 10,
                             lambda name: np.array([float(step)]))
        assert (lims is not None) == holds, step


def test_the_host_refuses_numbers_that_leave_no_room():
    facts = _gotoh_facts()
    raw = (facts.floor, facts.out_floor, facts.leaves, facts.literal, facts.signs)
    ok = lambda name: np.array([1.0])  # noqa: E731
    assert narrow.limits(raw, [np.array([10.0])], 10, 400, ok) is not None
    assert narrow.limits(raw, [np.array([5000.0])], 5000, 400, ok) is None  # ceiling too low
    assert narrow.limits(raw, [np.array([np.inf])], 10, 400, ok) is None  # an infinite leaf
    assert narrow.limits(raw, [np.array([10.0])], 10, 40_000, ok) is None  # lengths as DT
    assert narrow.limits(None, [np.array([10.0])], 10, 40, ok) is None


def test_results_map_the_extremes_to_infinities_and_flag_what_is_not_trusted():
    out = np.array([narrow.LO, narrow.HI, 5, 32000, -40, narrow.LO + 3], dtype=np.float64)
    big = np.array([0, 0, 0, 0, 0, 0], dtype=np.int16)
    got = narrow.results(out)
    assert got[0] == -math.inf and got[1] == math.inf and got[2] == 5
    again = narrow.untrusted(out, big, (30000, -10))
    assert again.tolist() == [False, False, False, True, True, True]
    big[2] = 30000  # a stored value reached the ceiling
    assert narrow.untrusted(out, big, (30000, -10))[2]
