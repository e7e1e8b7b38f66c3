"""Bit scores and E-values: the published Karlin-Altschul parameters, BLAST's
formulas on hand examples, and the script built-ins over map results."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dslc
from dslc.errors import DslcError
from dslc.lang import stats

# BLAST's default gap costs per matrix, with lambda and K as NCBI's blast_stat.c
# lists them (typed in again here, independently of the module's table)
DEFAULTS = {
    ("blosum62", 11, 1): (0.267, 0.041),
    ("blosum45", 14, 2): (0.195, 0.032),
    ("blosum80", 10, 1): (0.299, 0.071),
    ("pam30", 9, 1): (0.294, 0.11),
    ("pam70", 10, 1): (0.291, 0.091),
}


@pytest.mark.parametrize("key", sorted(DEFAULTS))
def test_published_parameters(key):
    p = stats.karlin(*key)
    assert (p.lam, p.k) == DEFAULTS[key]


def test_bit_score_as_blast_reports_it():
    """BLOSUM62 11/1: a raw score of 100 is reported as 43.1 bits; the bit score
    is (lambda S - ln K) / ln 2."""
    p = stats.karlin("BLOSUM62", 11, 1)
    assert round(stats.bit_score(100, p), 1) == 43.1
    assert stats.bit_score(40, p) == pytest.approx((0.267 * 40 - math.log(0.041)) / math.log(2))


def test_evalue_is_k_m_n_exp_minus_lambda_s():
    p = stats.karlin("blosum62", 11, 1)
    # by hand: 0.041 * 100 * 1000 * exp(-0.267 * 40) = 0.0943...
    assert stats.evalue(40, 100, 1000, p) == pytest.approx(0.09430154, rel=1e-6)
    # the E-value of a bit score S' is m n 2^-S'
    s = np.array([30, 60, 90])
    assert np.allclose(stats.evalue(s, 300, 5e6, p), 300 * 5e6 * 2.0 ** -stats.bit_score(s, p))


@pytest.mark.parametrize("args, words", [
    (("blosum62", 11, 3), ["blosum62", "open 11, extend 3", "11/1"]),
    (("blosum99", 11, 1), ["blosum99", "blosum62"]),
    (("pam250", 11, 1), ["pam250"]),
])
def test_unsupported_combinations(args, words):
    with pytest.raises(DslcError) as e:
        stats.karlin(*args)
    for w in words:
        assert w in e.value.render()


SCRIPT = """\
int f(seq[protein] s, seq[protein] t) = 10 * len(s) + len(t)
q = load(seq[protein], "q.fa")
d = load(seq[protein], "d.fa")
s = map(f, q (*) d)
print bits(s, blosum62, 11, 1)
print evalue(s, q, d, blosum62, 11, 1, "published")
print evalue(s, 100, d[0], "BLOSUM62", 11, 1)
"""


def _files(tmp_path):
    (tmp_path / "q.fa").write_text(">a\nMKV\n>b\nMKVLA\n")
    (tmp_path / "d.fa").write_text(">x\nAAAA\n>y\nCC\n>z\nW\n")
    (tmp_path / "o.fa").write_text(">o\nMM\n")


def test_script_builtins_over_a_map(tmp_path):
    """Each task's E-value uses its own query's length and the database's total
    length; the result keeps the map's axes (record names). The ``published``
    method: BLAST's formula with its effective lengths, which at these lengths
    adjust nothing but floor the query's length at 1 / K (tests/runtime/
    test_search_stats.py checks the adjustment itself)."""
    _files(tmp_path)
    path = tmp_path / "s.bio"
    path.write_text(SCRIPT)
    out = dslc.compile(str(path), backend="interp").run()
    p = stats.karlin("blosum62", 11, 1)
    score = np.array([[34, 32, 31], [54, 52, 51]], dtype=float)
    ev = out['evalue(s, q, d, blosum62, 11, 1, "published")']
    assert [a.labels for a in ev.axes] == [("a", "b"), ("x", "y", "z")]
    want = p.k * (1 / p.k) * 7 * np.exp(-p.lam * score)
    assert np.allclose(ev.values, want)
    assert np.allclose(out["bits(s, blosum62, 11, 1)"].values,
                       (p.lam * score - math.log(p.k)) / math.log(2))
    assert np.allclose(out['evalue(s, 100, d[0], "BLOSUM62", 11, 1)'].values,
                       p.k * 100 * 4 * np.exp(-p.lam * score))
    assert "published BLOSUM62 11/1" in ev.note


@pytest.mark.parametrize("call, words", [
    ("bits(s, blosum62, 11, 3)", ["open 11, extend 3", "11/1"]),
    ('evalue(s, load(seq[protein], "o.fa"), d, blosum62, 11, 1)', ["not mapped over"]),
    ("bits(s, blosum62, 11)", ["takes 4 arguments"]),
    ("evalue(s, q, d, blosum62)", ["takes 6 or 7 arguments"]),
    ("evalue(q, 1, 1, blosum62, 11, 1)", ["a score must be"]),
])
def test_builtin_errors(tmp_path, call, words):
    _files(tmp_path)
    path = tmp_path / "s.bio"
    path.write_text(SCRIPT.replace("bits(s, blosum62, 11, 1)", call))
    with pytest.raises(DslcError) as e:
        dslc.compile(str(path), backend="interp").run()
    text = e.value.render()
    assert text.startswith(f"{path}:5:"), text
    for w in words:
        assert w in text, text


def test_a_function_of_the_same_name_wins(tmp_path):
    """A script written before the built-ins existed keeps its own ``bits``."""
    out = dslc.compile("int bits(int x) = x + 1\nprint bits(2)", backend="interp").run()
    assert out["bits(2)"] == 3
