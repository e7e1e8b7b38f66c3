"""The oracles of tests/reference.py checked against brute force, against a
literal transcription of LANGUAGE.md's recurrences, and against Biopython and
parasail, so that the expected values of the examples can be trusted."""

from __future__ import annotations

import functools
import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import reference as ref

BLOSUM62 = ref.blosum62_dict()
AMINO = "ARNDCQEGHILKMFPSTWYV"

dna_seq = lambda lo=0, hi=8: st.text(alphabet="ACGT", min_size=lo, max_size=hi)  # noqa: E731
rna_seq = lambda lo=0, hi=12: st.text(alphabet="ACGU", min_size=lo, max_size=hi)  # noqa: E731
prot_seq = lambda lo=0, hi=30: st.text(alphabet=AMINO, min_size=lo, max_size=hi)  # noqa: E731


# --------------------------------------------------------------------------- brute force helpers


def alignments(n: int, m: int):
    """Every global alignment of lengths n and m, as a string of moves:
    'M' (pair), 'D' (s symbol against a gap), 'I' (t symbol against a gap)."""
    # Iterative enumeration of lattice paths from (0, 0) to (n, m).
    stack = [(0, 0, "")]
    while stack:
        i, j, path = stack.pop()
        if i == n and j == m:
            yield path
            continue
        if i < n and j < m:
            stack.append((i + 1, j + 1, path + "M"))
        if i < n:
            stack.append((i + 1, j, path + "D"))
        if j < m:
            stack.append((i, j + 1, path + "I"))


def score_alignment(s, t, path, matrix, open_, ext):
    """Score of one alignment: substitutions minus open_ + L * ext per maximal gap run
    (a run is a maximal stretch of the same gap move)."""
    i = j = 0
    total = 0
    prev = None
    for mv in path:
        if mv == "M":
            total += matrix[(s[i], t[j])]
            i += 1
            j += 1
        else:
            total -= ext
            if mv != prev:
                total -= open_
            if mv == "D":
                i += 1
            else:
                j += 1
        prev = mv
    return total


def unit_cost(s, t, path) -> int:
    """Edit operations of one alignment: mismatched pairs and gaps."""
    i = j = cost = 0
    for mv in path:
        cost += mv != "M" or s[i] != t[j]
        i, j = i + (mv != "I"), j + (mv != "D")
    return cost


@settings(max_examples=40, deadline=None)
@given(dna_seq(0, 5), dna_seq(0, 5))
def test_co_optimal_edit_table_counts_every_optimal_alignment(s, t):
    # every cell: the least cost over all alignments of the prefixes, and how many reach it
    table = ref.co_optimal_edit_table(s, t)
    for i in range(len(s) + 1):
        for j in range(len(t) + 1):
            costs = [unit_cost(s[:i], t[:j], p) for p in alignments(i, j)]
            assert table[i][j] == [min(costs), costs.count(min(costs))]


def brute_global(s, t, matrix, open_, ext):
    return max(score_alignment(s, t, p, matrix, open_, ext) for p in alignments(len(s), len(t)))


def brute_local(s, t, matrix, open_, ext):
    best = 0
    for a in range(len(s) + 1):
        for b in range(a, len(s) + 1):
            for c in range(len(t) + 1):
                for d in range(c, len(t) + 1):
                    best = max(best, brute_global(s[a:b], t[c:d], matrix, open_, ext))
    return best


def brute_nussinov(x: str, min_loop: int = 3) -> int:
    """Largest set of allowed pairs that share no position and do not cross."""
    cand = [
        (i, k)
        for i in range(len(x))
        for k in range(i + min_loop + 1, len(x))
        if (x[i], x[k]) in ref.RNA_PAIRS
    ]
    best = 0
    # depth-first over candidate indices: each state is (next candidate, chosen pairs)
    stack = [(0, ())]
    while stack:
        nxt, chosen = stack.pop()
        best = max(best, len(chosen))
        if len(chosen) + (len(cand) - nxt) <= best:
            continue
        for c in range(nxt, len(cand)):
            p, q = cand[c]
            ok = True
            for (u, v) in chosen:
                if len({p, q, u, v}) < 4 or (u < p < v < q) or (p < u < q < v):
                    ok = False
                    break
            if ok:
                stack.append((c + 1, chosen + ((p, q),)))
    return best


def contract_nussinov(x: str) -> int:
    """LANGUAGE.md's n(i, j), transcribed literally (top-down, memoised)."""

    @functools.lru_cache(maxsize=None)
    def n(i, j):
        if j <= i + 4:
            return 0
        inner = [
            1 + n(i + 1, k) + n(k + 1, j)
            for k in range(i + 4, j)
            if (x[i], x[k]) in ref.RNA_PAIRS
        ]
        return max([n(i + 1, j)] + inner)

    return n(0, len(x))


def contract_gotoh(s, t, sm, open_, ext):
    """LANGUAGE.md's h/e/f/sw, transcribed literally (top-down, memoised)."""
    import sys

    sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))

    @functools.lru_cache(maxsize=None)
    def h(i, j):
        if i == 0 or j == 0:
            return 0
        return max(0, e(i, j), f(i, j), h(i - 1, j - 1) + sm[(s[i - 1], t[j - 1])])

    @functools.lru_cache(maxsize=None)
    def e(i, j):
        if j == 0:
            return -math.inf
        return max(e(i, j - 1) - ext, h(i, j - 1) - open_ - ext)

    @functools.lru_cache(maxsize=None)
    def f(i, j):
        if i == 0:
            return -math.inf
        return max(f(i - 1, j) - ext, h(i - 1, j) - open_ - ext)

    return max(h(i, j) for i in range(len(s) + 1) for j in range(len(t) + 1))


def brute_three_way(a, b, c, match, mismatch, gap):
    """Every 3-sequence alignment enumerated explicitly and scored column by column."""
    moves = [m for m in itertools.product((0, 1), repeat=3) if any(m)]

    def pair(x, y):
        if x is None and y is None:
            return 0
        if x is None or y is None:
            return -gap
        return match if x == y else mismatch

    best = -math.inf
    stack = [(0, 0, 0, 0)]
    while stack:
        i, j, k, sc = stack.pop()
        if (i, j, k) == (len(a), len(b), len(c)):
            best = max(best, sc)
            continue
        for di, dj, dk in moves:
            if i + di > len(a) or j + dj > len(b) or k + dk > len(c):
                continue
            x = a[i] if di else None
            y = b[j] if dj else None
            z = c[k] if dk else None
            col = pair(x, y) + pair(x, z) + pair(y, z)
            stack.append((i + di, j + dj, k + dk, sc + col))
    return best


def aligner(mode, matrix, open_score, extend_score):
    from Bio import Align
    from Bio.Align import substitution_matrices

    al = Align.PairwiseAligner()
    al.mode = mode
    al.substitution_matrix = matrix if matrix is not None else substitution_matrices.load("BLOSUM62")
    al.open_gap_score = open_score
    al.extend_gap_score = extend_score
    return al


def unit_matrix(alphabet, match, mismatch):
    return {(x, y): match if x == y else mismatch for x in alphabet for y in alphabet}


# --------------------------------------------------------------------------- edit distance


def test_edit_distance_known_values():
    assert ref.edit_distance("kitten", "sitting") == 3
    assert ref.edit_distance("", "abc") == 3
    assert ref.edit_distance("flaw", "lawn") == 2
    assert ref.edit_distance("intention", "execution") == 5
    table = ref.edit_distance_table("kitten", "sitting")
    assert len(table) == 7 and all(len(row) == 8 for row in table)
    assert table[6][7] == 3


@settings(max_examples=150, deadline=None)
@given(st.text("abc", max_size=6), st.text("abc", max_size=6))
def test_edit_distance_brute_force(s, t):
    # The distance is the fewest edits: -(best global score) with 0 / -1 / -1.
    m = unit_matrix("abc", 0, -1)
    assert ref.edit_distance(s, t) == -brute_global(s, t, m, 0, 1)
    assert ref.edit_distance(s, t) == ref.edit_distance(t, s)


@settings(max_examples=100, deadline=None)
@given(st.text("ACGT", max_size=25), st.text("ACGT", max_size=25), st.text("ACGT", max_size=25))
def test_edit_distance_metric(s, t, u):
    d = ref.edit_distance
    assert d(s, s) == 0
    assert d(s, u) <= d(s, t) + d(t, u)
    assert abs(len(s) - len(t)) <= d(s, t) <= max(len(s), len(t))


# --------------------------------------------------------------------------- Needleman-Wunsch


@settings(max_examples=150, deadline=None)
@given(prot_seq(0, 5), prot_seq(0, 5), st.integers(0, 12))
def test_nw_brute_force(s, t, gap):
    assert ref.needleman_wunsch(s, t, BLOSUM62, gap) == brute_global(s, t, BLOSUM62, 0, gap)


@settings(max_examples=150, deadline=None)
@given(prot_seq(1, 40), prot_seq(1, 40), st.integers(1, 12))
def test_nw_biopython(s, t, gap):
    al = aligner("global", None, -gap, -gap)
    assert ref.needleman_wunsch(s, t, BLOSUM62, gap) == int(al.score(s, t))


def test_nw_empty():
    assert ref.needleman_wunsch("", "", BLOSUM62, 8) == 0
    assert ref.needleman_wunsch("HEA", "", BLOSUM62, 8) == -24


# --------------------------------------------------------------------------- Smith-Waterman / Gotoh


@settings(max_examples=80, deadline=None)
@given(prot_seq(0, 4), prot_seq(0, 4), st.integers(0, 12), st.integers(0, 4))
def test_gotoh_brute_force(s, t, open_, ext):
    assert ref.gotoh_local(s, t, BLOSUM62, open_, ext) == brute_local(s, t, BLOSUM62, open_, ext)


@settings(max_examples=150, deadline=None)
@given(prot_seq(0, 40), prot_seq(0, 40), st.integers(0, 14), st.integers(0, 4))
def test_gotoh_contract_recurrence(s, t, open_, ext):
    assert ref.gotoh_local(s, t, BLOSUM62, open_, ext) == contract_gotoh(s, t, BLOSUM62, open_, ext)


@settings(max_examples=200, deadline=None)
@given(prot_seq(1, 80), prot_seq(1, 80), st.integers(1, 14), st.integers(1, 4))
def test_gotoh_parasail(s, t, open_, ext):
    import parasail

    expected = parasail.sw(s, t, open_ + ext, ext, parasail.blosum62).score
    assert ref.gotoh_local(s, t, BLOSUM62, open_, ext) == expected


@settings(max_examples=100, deadline=None)
@given(prot_seq(1, 60), prot_seq(1, 60), st.integers(0, 14), st.integers(1, 4))
def test_gotoh_biopython(s, t, open_, ext):
    al = aligner("local", None, -(open_ + ext), -ext)
    assert ref.gotoh_local(s, t, BLOSUM62, open_, ext) == int(al.score(s, t))


def test_gotoh_durbin_example():
    # Durbin et al.'s HEAGAWGHEE / PAWHEAE pair; parasail's open=11 is our open=10.
    import parasail

    got = ref.gotoh_local("HEAGAWGHEE", "PAWHEAE", BLOSUM62, 10, 1)
    assert got == parasail.sw("HEAGAWGHEE", "PAWHEAE", 11, 1, parasail.blosum62).score


# --------------------------------------------------------------------------- Nussinov


def test_nussinov_known():
    assert ref.nussinov("GGGAAAUCC") == 3
    assert ref.nussinov("") == 0
    assert ref.nussinov("GAAAC") == 1
    assert ref.nussinov("GAAC") == 0  # only two bases between: hairpin too small


@settings(max_examples=300, deadline=None)
@given(rna_seq(0, 13))
def test_nussinov_brute_force(x):
    assert ref.nussinov(x) == brute_nussinov(x) == ref.nussinov_brute(x)


@settings(max_examples=200, deadline=None)
@given(rna_seq(0, 60))
def test_nussinov_contract_recurrence(x):
    assert ref.nussinov(x) == contract_nussinov(x)


@settings(max_examples=100, deadline=None)
@given(rna_seq(0, 10), st.integers(0, 4))
def test_nussinov_min_loop_brute_force(x, loop):
    assert ref.nussinov(x, loop) == brute_nussinov(x, loop)


def test_nussinov_table_subintervals():
    x = "GGGAAAUCCGCAUAGCUAGUCAAGGCUUAGC"
    table = ref.nussinov_table(x)
    for i in range(len(x) + 1):
        for j in range(i, len(x) + 1):
            assert table[i][j] == ref.nussinov(x[i:j])


# --------------------------------------------------------------------------- three-way alignment


@settings(max_examples=120, deadline=None)
@given(dna_seq(0, 3), dna_seq(0, 3), dna_seq(0, 3), st.integers(0, 3), st.integers(-3, 0),
       st.integers(0, 4))
def test_three_way_brute_force(a, b, c, match, mismatch, gap):
    assert ref.three_way_alignment(a, b, c, match, mismatch, gap) == brute_three_way(
        a, b, c, match, mismatch, gap
    )


@settings(max_examples=100, deadline=None)
@given(dna_seq(0, 12), dna_seq(0, 12), st.integers(0, 3), st.integers(-3, 0), st.integers(0, 4))
def test_three_way_with_empty_third_is_pairwise(a, b, match, mismatch, gap):
    # With c empty, every symbol of a and b also faces a gap in c.
    pairwise = ref.needleman_wunsch(a, b, unit_matrix("ACGT", match, mismatch), gap)
    got = ref.three_way_alignment(a, b, "", match, mismatch, gap)
    assert got == pairwise - gap * (len(a) + len(b))


@settings(max_examples=60, deadline=None)
@given(dna_seq(0, 6), dna_seq(0, 6), dna_seq(0, 6))
def test_three_way_symmetric(a, b, c):
    v = ref.three_way_alignment(a, b, c, 2, -1, 2)
    for p in itertools.permutations((a, b, c)):
        assert ref.three_way_alignment(*p, 2, -1, 2) == v


def test_nw_table_last_cell():
    table = ref.needleman_wunsch_table("HEAGAWGHEE", "PAWHEAE", BLOSUM62, 8)
    assert len(table) == 11 and all(len(row) == 8 for row in table)
    assert table[-1][-1] == ref.needleman_wunsch("HEAGAWGHEE", "PAWHEAE", BLOSUM62, 8)
    assert table[0] == [-8 * j for j in range(8)]


def test_three_way_identical():
    # Three copies of one sequence: every column is a triple match.
    assert ref.three_way_alignment("ACGTAC", "ACGTAC", "ACGTAC", 2, -1, 2) == 6 * 3 * 2


# --------------------------------------------------------------------------- HMM forward


def brute_forward(x, start, trans, emit, end):
    states = list(emit)
    total = 0.0
    for path in itertools.product(states, repeat=len(x)):
        p = start.get(path[0], 0.0) * emit[path[0]][x[0]]
        for q, r, sym in zip(path, path[1:], x[1:]):
            p *= trans.get((q, r), 0.0) * emit[r][sym]
        total += p * end.get(path[-1], 0.0)
    return total


@settings(max_examples=60, deadline=None)
@given(st.text("123456", min_size=1, max_size=8))
def test_casino_forward_brute_force(x):
    got = ref.casino_forward_log(x)
    want = math.log(brute_forward(x, **ref.CASINO))
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def brute_paths(x, start, trans, emit, end):
    """``{path: probability}`` for every state path of ``x``."""
    out = {}
    for path in itertools.product(list(emit), repeat=len(x)):
        p = start.get(path[0], 0.0) * emit[path[0]][x[0]]
        for q, r, sym in zip(path, path[1:], x[1:]):
            p *= trans.get((q, r), 0.0) * emit[r][sym]
        out[path] = p * end.get(path[-1], 0.0)
    return out


@settings(max_examples=60, deadline=None)
@given(st.text("123456", min_size=1, max_size=8))
def test_casino_viterbi_and_posterior_brute_force(x):
    paths = brute_paths(x, **ref.CASINO)
    best = max(paths.values())
    got = tuple(ref.casino_viterbi_states(x))
    assert paths[got] == pytest.approx(best, rel=1e-12)
    total = sum(paths.values())
    decoded = ref.casino_posterior_states(x)
    for k, q in enumerate(decoded):
        post = {r: sum(p for path, p in paths.items() if path[k] == r) / total
                for r in ("fair", "loaded")}
        assert post[q] >= max(post.values()) * (1 - 1e-9)


# --------------------------------------------------------------------------- matrices and files


def test_blosum62_dict():
    m = ref.blosum62_dict()
    assert len(m) == 24 * 24
    assert m[("W", "W")] == 11 and m[("A", "A")] == 4 and m[("C", "C")] == 9
    assert all(m[(a, b)] == m[(b, a)] for (a, b) in m)


def test_read_fasta(tmp_path):
    p = tmp_path / "x.fasta"
    p.write_text(">one first record\nACGT\nacgt\n\n>two\nHEAG\n")
    assert ref.read_fasta(p) == [("one", "ACGTACGT"), ("two", "HEAG")]
