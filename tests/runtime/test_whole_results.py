"""``sum(r)``, ``max(r)``, ``min(r)`` in script statements: a whole map result or
table folded into one value with the script's own arithmetic (docs/language.md,
"Script statements"), checked against numpy/Python on the same cells."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError

GRID = """\
int g(const a, const b, const n, const m, int i in 0 ... n, int j in 0 ... m)
  | i == 0 and j == 0 = a
  | i == 0 = g(i, j - 1) * b % 1000 - 500
  | otherwise = g(i - 1, j) * 7 % 997 - 300
"""


def _run(text: str) -> dict:
    return dslc.compile(text, backend="interp").run()


@settings(max_examples=15, deadline=None, derandomize=True)
@given(a=st.integers(-50, 50), b=st.integers(1, 40), n=st.integers(0, 4), m=st.integers(0, 4))
def test_folds_every_cell_of_a_table(a, b, n, m):
    out = _run(GRID + f"t = g({a}, {b}, {n}, {m})\n"
               "print t\nprint sum(t)\nprint max(t)\nprint min(t)\n")
    cells = np.asarray(out["t"].values)
    assert cells.shape == (n + 1, m + 1)
    assert out["sum(t)"] == int(cells.astype(object).sum())
    assert out["max(t)"] == cells.max() and out["min(t)"] == cells.min()


def test_map_results_floats_and_probabilities(tmp_path):
    (tmp_path / "xs.fa").write_text(">a\nACGT\n>b\nAC\n>c\nACGTACG\n")
    text = """\
float half(seq[dna] x) = len(x) / 2.0
prob p(seq[dna] x) = 0.5 * (if len(x) > 3 then 0.5 else 1.0)
xs = load(seq[dna], "xs.fa")
h = map(half, xs)
q = map(p, xs)
print sum(h)
print max(h)
print sum(q)
print min(q)
"""
    path = tmp_path / "m.bio"
    path.write_text(text)
    out = dslc.compile(path, backend="interp").run()
    assert out["sum(h)"] == 6.5 and out["max(h)"] == 3.5
    assert math.isclose(out["sum(q)"].log, math.log(0.25 + 0.5 + 0.25), abs_tol=1e-12)  # lse
    assert math.isclose(out["min(q)"].log, math.log(0.25))


def test_declared_ranges_fold_the_cells_they_hold():
    out = _run("int m(const n, int i in 1 ... n, int j in i ... n)\n"
               "  | i == j = 0\n  | otherwise = min(k in i ... j - 1 : m(i, k) + m(k + 1, j) + 1)\n"
               "print sum(m(4))\nprint max(m(4))\n")
    assert out["sum(m(4))"] == sum(j - i for i in range(1, 5) for j in range(i, 5))
    assert out["max(m(4))"] == 3


def test_an_int_total_past_64_bits_is_the_overflow_error():
    with pytest.raises(DslcError, match="integer overflow"):
        _run("int big(const n, int i in 0 ... n) | i == 0 = 9223372036854775807"
             " | otherwise = big(i - 1)\nprint sum(big(2))\n")


def test_infinities_absorb():
    out = _run("int w(const n, int i in 0 ... n) | i == 0 = inf | otherwise = w(i - 1) - 1\n"
               "print sum(w(3))\nprint min(w(3))\n")
    assert out["sum(w(3))"] == math.inf and out["min(w(3))"] == math.inf


@pytest.mark.parametrize("text,words", [
    ("int g(int a) = max(a)\n", "of one value fold a whole result"),
    ("const c = min(3)\n", "of one value fold a whole result"),
    ("print sum(3)\n", "not an int"),
    ("int f(int i) | i == 0 = true | otherwise = f(i - 1)\n", None),
    ("print sum(1, 2)\n", "sum needs the form"),
])
def test_refused_where_there_is_no_whole_result(text, words):
    if words is None:  # a table of bools has no numbers to fold
        text, words = "bool f(int i) | i == 0 = true | otherwise = f(i - 1)\n" \
            "print sum(f(3))\n", "not an int"
        with pytest.raises(DslcError, match="folds the numbers"):
            _run(text)
        return
    with pytest.raises(DslcError, match=words):
        _run(text)
