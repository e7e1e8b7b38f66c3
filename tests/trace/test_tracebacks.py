"""Tracebacks checked against small independent numpy tracebacks written here: an
alignment recurrence (Needleman-Wunsch), an HMM's Viterbi path (the dishonest casino)
and a range recurrence (matrix chain), each with the same tie rule (the first
alternative in source order)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dslc
from dslc.errors import DslcError
from tests.conftest import EXAMPLES


def _nw_reference(s: str, t: str, sm, code, gap: int) -> list[tuple[int, int]]:
    n, m = len(s), len(t)
    h = np.zeros((n + 1, m + 1), dtype=np.int64)
    h[0, :] = -gap * np.arange(m + 1)
    h[:, 0] = -gap * np.arange(n + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            h[i, j] = max(h[i - 1, j - 1] + sm[code(s[i - 1]), code(t[j - 1])],
                          h[i - 1, j] - gap, h[i, j - 1] - gap)
    path, (i, j) = [(n, m)], (n, m)
    while i > 0 and j > 0:
        diag = h[i - 1, j - 1] + sm[code(s[i - 1]), code(t[j - 1])]
        i, j = ((i - 1, j - 1) if diag == h[i, j] else
                (i - 1, j) if h[i - 1, j] - gap == h[i, j] else (i, j - 1))
        path.append((i, j))
    return path


@pytest.mark.parametrize("s, t", [("HEAGAWGHEE", "PAWHEAE"), ("MKVLAAGW", "MKAAW"),
                                  ("W", "WWW")])
def test_needleman_wunsch_traceback_is_the_reference(s, t):
    prog = dslc.compile(str(EXAMPLES / "needleman_wunsch.bio"), backend="interp")
    d = prog.trace("score", "blosum62", s, t)
    assert d.is_path
    cells = [x.point for x in d.path() if x.func == "nw"]
    m = prog.value("blosum62")
    code = m.alphabet.symbols.index
    assert cells == _nw_reference(s, t, m.values, code, 8)
    assert d.value == prog.score("blosum62", s, t)


def _viterbi_reference(rolls: str) -> list[int]:
    """States 1 (fair) and 2 (loaded) per roll, by the first best predecessor."""
    fair, loaded = np.full(6, 1 / 6), np.array([0.1] * 5 + [0.5])
    emit = {1: fair, 2: loaded}
    move = {(1, 1): 0.94999, (1, 2): 0.05, (2, 2): 0.97999, (2, 1): 0.02}
    v = [{1: math.log(1.0) + math.log(fair[int(rolls[0]) - 1]), 2: -math.inf}]
    back = []
    for c in rolls[1:]:
        row, ptr = {}, {}
        for s in (1, 2):
            cands = [(v[-1][r] + math.log(move[r, s]), r) for r in (1, 2)]
            best = max(x for x, _ in cands)
            ptr[s] = next(r for x, r in cands if x == best)
            row[s] = best + math.log(emit[s][int(c) - 1])
        v.append(row)
        back.append(ptr)
    end = max((v[-1][s] + math.log(0.00001), s) for s in (2, 1))[1]
    states = [end]
    for ptr in reversed(back):
        states.append(ptr[states[-1]])
    return states[::-1]


@pytest.mark.parametrize("rolls", ["651466562366614641463214342565655341153444654632522241664261",
                                   "6666666666666666661234"])
def test_casino_viterbi_path_is_the_reference(rolls):
    prog = dslc.compile(str(EXAMPLES / "casino_decode.bio"), backend="interp")
    d = prog.trace("hmm_vit", "casino", rolls)  # the final cell: the end state at len(x)
    emitting = {}
    for step in d.path():
        state, i = step.point
        if state in (1, 2) and i > 0:
            emitting.setdefault(i, state)
    assert [emitting[i] for i in range(1, len(rolls) + 1)] == _viterbi_reference(rolls)
    assert d.root.point == (3, len(rolls))


DIMS = [30, 35, 15, 5, 10, 20, 25]


def _chain_reference(i: int, j: int):
    """The optimal parenthesisation as nested (i, j) pairs, first best k on ties."""
    n = len(DIMS) - 1
    m = np.zeros((n + 2, n + 2), dtype=np.int64)
    split = {}
    for length in range(1, n):
        for a in range(1, n - length + 1):
            b = a + length
            costs = [m[a, k] + m[k + 1, b] + DIMS[a - 1] * DIMS[k] * DIMS[b] for k in range(a, b)]
            m[a, b] = min(costs)
            split[a, b] = a + costs.index(min(costs))

    def tree(a, b):
        return (a, b) if a == b else ((a, b), tree(a, split[a, b]), tree(split[a, b] + 1, b))
    return tree(i, j), int(m[i, j])


def test_matrix_chain_derivation_is_the_reference_tree():
    prog = dslc.compile(str(EXAMPLES / "matrix_chain.bio"), backend="interp")
    d = prog.trace("m", 6, 1, 6)
    assert not d.is_path

    def tree(k):
        s = d.steps[k]
        return s.point if not s.children else (s.point, *(tree(c) for c in s.children))
    want, cost = _chain_reference(1, 6)
    assert tree(0) == want and d.value == cost == 15125


def test_nussinov_tree_pairs_bases():
    prog = dslc.compile(str(EXAMPLES / "nussinov.bio"), backend="interp")
    d = prog.trace("n", "GGGAAAUCC", 0, 9)
    pairs = [(s.point[0], c.value) for s in d.steps for c in s.choices if c.var == "k"]
    assert len(pairs) == d.value == 3
    assert all({"GGGAAAUCC"[i], "GGGAAAUCC"[k]} in ({"G", "C"}, {"A", "U"}, {"G", "U"})
               for i, k in pairs)
    assert d.recompute()[0] == 3


def test_a_sum_over_calls_has_no_single_derivation():
    prog = dslc.compile(str(EXAMPLES / "casino_decode.bio"), backend="interp")
    with pytest.raises(DslcError, match="no single derivation") as err:
        prog.trace("hmm_fwd", "casino", "6612")
    assert err.value.span is not None


def test_script_forms_and_a_script_own_trace_function():
    src = """
define alphabet en "abcdefghijklmnopqrstuvwxyz"
int d(seq[en] s, index[s] i, seq[en] t, index[t] j) =
    if i == 0 then j
    else if j == 0 then i
    else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
    else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
tr = trace(d("kitten", "sitting"))
print align(tr)
"""
    a = dslc.compile(src, backend="interp").run()["align(tr)"]
    assert (a.cigar, a.starts, a.ends, a.identities, a.gaps) == ("1X3=1X1=1D", (0, 0), (6, 7),
                                                                 4, 1)
    own = "int trace(int x) = x + 1\nprint trace(4)\n"
    assert dslc.compile(own, backend="interp").run()["trace(4)"] == 5
    with pytest.raises(DslcError, match="trace takes one call"):
        dslc.compile("print trace(4)\n", backend="interp")
