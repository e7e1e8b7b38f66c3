"""Posteriors printed as a table: ``post = hmm_posteriors(h, x)`` in a script, a
function without a table called with its calling arguments only (every point of
its box of positions and states), against the reference forward-backward of
tests/hmm_reference.py, silent states included, and summing to 1 per symbol."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the reference helpers
import hmm_reference as ref  # noqa: E402
from hmm_models import CASINO, SILENT_MODEL  # noqa: E402


def _posteriors(model_text: str, name: str, x: str, backend: str = "interp"):
    prog = dslc.compile(f"import stdlib.hmm\n{model_text}post = hmm_posteriors({name}, "
                        f'"{x}")\nprint post\n', backend=backend)
    post = prog.run()["post"]
    return prog.checked.defined[name], post


def _reference(h, x: str) -> np.ndarray:
    """``P(state s at position i | x)``, positions by rows, from the reference tables."""
    codes = [h.alphabet.symbols.index(c) for c in x]
    lp, f = ref.forward(h, codes)
    _, b = ref.backward(h, codes)
    return np.exp(f + b - lp)


def _check(h, x: str, post) -> None:
    got = np.asarray(post.values, dtype=float)
    assert got.shape == (len(x) + 1, len(h.states))
    assert [a.name for a in post.axes] == ["i", "s"]
    assert post.axes[1].labels == tuple(s.name for s in h.states)  # columns by state name
    assert np.allclose(got, _reference(h, x), rtol=1e-9, atol=1e-12)
    emitting = [s.index for s in h.states if s.emission is not None]
    assert np.allclose(got[1:, emitting].sum(axis=1), 1.0, rtol=0, atol=1e-12)


@settings(max_examples=5, deadline=None, derandomize=True)
@given(x=st.text(alphabet="123456", min_size=1, max_size=12))
def test_casino(x):
    h, post = _posteriors(CASINO, "casino", x)
    _check(h, x, post)


@settings(max_examples=5, deadline=None, derandomize=True)
@given(x=st.text(alphabet="ACGT", min_size=1, max_size=8))
def test_silent_states(x):
    h, post = _posteriors(SILENT_MODEL, "sil", x)
    _check(h, x, post)


def test_compiled_backend_gives_the_same_table():
    x = "6514665623666146414632"
    h, want = _posteriors(CASINO, "casino", x)
    _, got = _posteriors(CASINO, "casino", x, backend="cpu")
    assert np.allclose(np.asarray(got.values, float), np.asarray(want.values, float),
                       rtol=1e-12, atol=1e-15)


def test_any_function_without_a_table_over_positions_and_symbols():
    prog = dslc.compile('int f(seq[dna] s, index[s] i, symbol[dna] a) =\n'
                        '    if i > 0 and s[i - 1] == a then 10 * i else 0\n'
                        't = f("GATC")\nprint t\nprint sum(t)\n', backend="interp")
    out = prog.run()
    want = [[10 * i if i and "GATC"[i - 1] == a else 0 for a in "ACGT"] for i in range(5)]
    assert np.asarray(out["t"].values).tolist() == want
    assert out["sum(t)"] == 10 * (1 + 2 + 3 + 4)


def test_an_int_parameter_has_no_box():
    with pytest.raises(DslcError, match="f takes 2 arguments, got 1"):
        dslc.compile('int f(seq[dna] s, int k) = k\nprint f("AC")\n', backend="interp")


def test_from_python_too():
    prog = dslc.compile(f"import stdlib.hmm\n{CASINO}", backend="interp")
    h = prog.checked.defined["casino"]
    post = prog.hmm_posteriors(h, "65166")
    _check(h, "65166", post)
