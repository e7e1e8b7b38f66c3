"""Ints past 2^53 on every backend. Compiled code holds ints as float64, exact
below 2^53: a product, a large literal, or a sum that passes 2^53 and is brought
back into range (``% m``, a cancelling ``-``) must not leave a rounded number in
a result. Every backend gives the exact value the generator's own Python
arithmetic gives, or the interpreter's overflow error."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from tests.generators import Overflow, big_int_recurrences, dna


def _check(rec, s, t, backend):
    try:
        want = rec.table(len(s), len(t))
    except Overflow:
        want = None
    prog = dslc.compile(rec.source(), backend=backend)
    if want is None:
        with pytest.raises(DslcError, match="integer overflow"):
            prog.call("f0", s, t)
        return
    table = prog.call("f0", s, t)
    got = {p: table[p] for p in itertools.product(range(len(s) + 1), range(len(t) + 1))}
    assert got == want, rec.source()


@settings(max_examples=25, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rec=big_int_recurrences(), s=dna(4, 1), t=dna(4, 1))
def test_ints_past_2_53_are_exact_or_the_overflow_error(rec, s, t, backend):
    _check(rec, s, t, backend)


MODMUL = """\
int f(seq[dna] s, index[s] i)
  | i == 0 = 999999937
  | otherwise = f(i - 1) * 999999937 % 1000000007
"""


def test_a_modular_product_is_exact(backend):
    """999999937^2 passes 2^53 (float64 rounds it); ``% 1000000007`` would hide it."""
    prog = dslc.compile(MODMUL, backend=backend)
    assert prog.call("f", "A", 1) == 999999937 ** 2 % 1000000007


def test_a_range_variable_as_a_value_is_not_bounded_by_the_extents(backend):
    """The float32 tables' static bound took a reduction variable for a coordinate;
    ``k in big ... big`` is 2^24 + 1, beyond float32's exact ints."""
    src = """\
const big = 16777217
int l(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = 0
  | s[i - 1] == t[j - 1] = l(i - 1, j - 1) + 1
  | otherwise = l(i - 1, j) max max(k in big ... big : l(i, j - 1) + k)
"""
    prog = dslc.compile(src, backend=backend)
    got = prog.map("l", ["ACGTACGTAC", "CCGTA"], ["AGTTCA", "GGA"])
    want = dslc.compile(src, backend="interp").map("l", ["ACGTACGTAC", "CCGTA"],
                                                   ["AGTTCA", "GGA"])
    assert [[int(x) for x in row] for row in got] == [[int(x) for x in row] for row in want]
