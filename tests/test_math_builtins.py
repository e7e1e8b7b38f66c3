"""The functions of one number (lang.builtins: log, exp, sqrt, log2) compiled as the
interpreter runs them: at the edges of their domains a compiled backend once printed
numpy's value (log(0) = -inf, exp(710) = inf) where the interpreter reports that the
function is not defined."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings

from dslc.lang.builtins import MATH
from tests.generators import MathCall, math_calls, outcome


@settings(max_examples=25, deadline=None)
@given(math_calls())
def test_every_math_builtin_as_the_interpreter_on_the_cpu(call):
    src = call.source()
    assert outcome(src, "cpu") == outcome(src, "interp"), src


@pytest.mark.parametrize("fn", [b.name for b in MATH])
def test_undefined_and_defined_calls_on_every_backend(fn, backend):
    """One argument outside each domain (below its end, or an overflowing exp) and
    one inside: the error, or the value, of the interpreter."""
    outside = MathCall(fn, 710.0 if fn == "exp" else -1.0)
    inside = MathCall(fn, 2.0)
    for call in (outside, inside):
        assert outcome(call.source(), backend) == outcome(call.source(), "interp")
    assert outcome(outside.source(), backend)[0] == "error"


def test_log2_a_built_in_added_through_the_table(backend):
    src = "float bits(float p, int n) | n == 0 = log2(p) | otherwise = bits(p, n - 1)\n" \
          "print bits(0.125, 2)\nconst b = log2(1024.0)\nprint b\n"
    assert outcome(src, backend) == [-3.0, 10.0]
    assert math.isclose(MATH[-1].value(8.0), 3.0)
