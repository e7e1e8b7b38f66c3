"""``dslc.compile(..., defines=...)`` takes its values as ``-D`` takes its own:
numbers, or number text read as -D reads it; everything else one DslcError."""

import numpy as np
import pytest

import dslc
from dslc.errors import DslcError

SRC = "const gap = 1\nint g(int i) = if i == 0 then gap else g(i - 1) + gap\n"
FSRC = "const fl = 0.5\nfloat h(int i) = if i == 0 then fl else h(i - 1) + fl\n"


@pytest.mark.parametrize("value, expected", [
    (7, 21), ("7", 21), (" -2 ", -6), (np.int64(7), 21), (-2**63 // 4, 3 * (-2**63 // 4))])
def test_defines_numbers_and_their_text(value, expected):
    # a string is read as -D reads its text: never joined ("7" + "7" + "7")
    assert dslc.compile(SRC, defines={"gap": value}, backend="interp").call("g", 2) == expected


@pytest.mark.parametrize("value", [float("inf"), "inf", "-inf", 2.5, "1e-3"])
def test_defines_floats_and_infinities(value):
    prog = dslc.compile(FSRC, defines={"fl": value}, backend="interp")
    assert prog.value("fl") == float(value)


@pytest.mark.parametrize("backend", ["interp", "cpu"])
@pytest.mark.parametrize("value, words", [
    ("abc", "defines['gap'] 'abc' is not a number"),
    ("nan", "is not a number"),
    ("1_000", "is not a number"),
    ("1e999", "too large for a float"),
    (None, "defines['gap'] is None, not a number"),
    (b"7", "is a bytes, not a number"),
    ([7], "is a list, not a number"),
    (True, "is a bool"),
    (np.True_, "is a bool"),
    (float("nan"), "is NaN"),
    (np.float64("nan"), "is NaN"),
    (10**30, "does not fit in a 64-bit integer"),
    ("99999999999999999999999", "does not fit in a 64-bit integer"),
    (2**63, "does not fit in a 64-bit integer"),
])
def test_defines_refused_as_d_refuses(backend, value, words):
    with pytest.raises(DslcError) as e:
        dslc.compile(SRC, defines={"gap": value}, backend=backend)
    assert words in e.value.message


def test_defines_not_a_dict_or_bad_name():
    with pytest.raises(DslcError, match="defines takes a dict"):
        dslc.compile(SRC, defines=[("gap", 1)])
    with pytest.raises(DslcError, match="not a const name"):
        dslc.compile(SRC, defines={1: 2})
