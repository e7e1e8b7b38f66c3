"""The issue's acceptance: every backend equals simple independent Python
implementations on random inputs (edit distance, Needleman-Wunsch, Gotoh
Smith-Waterman, Nussinov, three-sequence alignment)."""

from __future__ import annotations

import functools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.lang.stdlib import stdlib_source
from tests import reference as ref

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

EDIT = """
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
    if i == 0 then j
    else if j == 0 then i
    else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
    else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
"""

NW = """
int nw(matrix sm, const gap, seq[protein] s, index[s] i, seq[protein] t, index[t] j)
  | i == 0 = -gap * j
  | j == 0 = -gap * i
  | otherwise = nw(i - 1, j - 1) + sm[s[i - 1], t[j - 1]] max nw(i - 1, j) - gap
                max nw(i, j - 1) - gap
"""

GOTOH = stdlib_source("align")  # the standard library's Gotoh h, e, f and sw

NUSSINOV = """
bool pairs(symbol[rna] a, symbol[rna] b) =
    (a == 'A' and b == 'U') or (a == 'U' and b == 'A') or (a == 'G' and b == 'C')
 or (a == 'C' and b == 'G') or (a == 'G' and b == 'U') or (a == 'U' and b == 'G')
int n(seq[rna] x, index[x] i, index[x] j)
  | j <= i + 4 = 0
  | otherwise = n(i + 1, j)
        max max(k in i + 4 ... j - 1 where pairs(x[i], x[k]) : 1 + n(i + 1, k) + n(k + 1, j))
"""

THREE = """
const match = 2
const mismatch = -1
const gap = 2
int p(symbol[dna] x, symbol[dna] y) = if x == y then match else mismatch
int a3(seq[dna] a, index[a] i, seq[dna] b, index[b] j, seq[dna] c, index[c] k)
  | i == 0 and j == 0 and k == 0 = 0
  | otherwise =
      (if i > 0 and j > 0 and k > 0
       then a3(i - 1, j - 1, k - 1) + p(a[i - 1], b[j - 1]) + p(a[i - 1], c[k - 1])
            + p(b[j - 1], c[k - 1]) else -inf)
  max (if i > 0 and j > 0 then a3(i - 1, j - 1, k) + p(a[i - 1], b[j - 1]) - 2 * gap else -inf)
  max (if i > 0 and k > 0 then a3(i - 1, j, k - 1) + p(a[i - 1], c[k - 1]) - 2 * gap else -inf)
  max (if j > 0 and k > 0 then a3(i, j - 1, k - 1) + p(b[j - 1], c[k - 1]) - 2 * gap else -inf)
  max (if i > 0 then a3(i - 1, j, k) - 2 * gap else -inf)
  max (if j > 0 then a3(i, j - 1, k) - 2 * gap else -inf)
  max (if k > 0 then a3(i, j, k - 1) - 2 * gap else -inf)
"""


@functools.cache
def program(src: str, backend: str):
    return dslc.compile(src, backend=backend)


dna = st.text(alphabet="ACGT", max_size=12)
rna = st.text(alphabet="ACGU", max_size=30)
protein = st.text(alphabet="ARNDCQEGHILKMFPSTWYV", max_size=20)


@SETTINGS
@given(s=dna, t=dna)
def test_edit_distance(backend, s, t):
    assert program(EDIT, backend).call("d", s, len(s), t, len(t)) == ref.edit_distance(s, t)


@SETTINGS
@given(s=protein, t=protein, gap=st.integers(1, 12))
def test_needleman_wunsch(backend, s, t, gap):
    prog = program(NW, backend)
    blosum = prog.checked.defined["blosum62"]
    got = prog.call("nw", blosum, gap, s, len(s), t, len(t))
    assert got == ref.needleman_wunsch(s, t, ref.blosum62_dict(), gap)


@SETTINGS
@given(s=protein, t=protein, open_=st.integers(0, 12), ext=st.integers(0, 3))
def test_gotoh_smith_waterman(backend, s, t, open_, ext):
    prog = program(GOTOH, backend)
    blosum = prog.checked.defined["blosum62"]
    got = prog.call("sw", blosum, open_, ext, s, t)
    assert got == ref.gotoh_local(s, t, ref.blosum62_dict(), open_, ext)


@SETTINGS
@given(x=rna)
def test_nussinov(backend, x):
    assert program(NUSSINOV, backend).call("n", x, 0, len(x)) == ref.nussinov(x)


@SETTINGS
@given(a=st.text(alphabet="ACGT", max_size=5), b=st.text(alphabet="ACGT", max_size=5),
       c=st.text(alphabet="ACGT", max_size=5))
def test_three_sequence_alignment(backend, a, b, c):
    got = program(THREE, backend).call("a3", a, len(a), b, len(b), c, len(c))
    assert got == ref.three_way(a, b, c, 2, -1, 2)


@settings(max_examples=15, deadline=None)
@given(x=st.text(alphabet="ACGU", max_size=12))
def test_nussinov_reference_is_exhaustively_right(x):
    assert ref.nussinov(x) == ref.nussinov_brute(x)


def test_contract_examples_results():
    assert program(EDIT, "interp").call("d", "ACGT", 4, "AGT", 3) == 1
    assert program(NUSSINOV, "interp").call("n", "GGGAAAUCC", 0, 9) == 3
