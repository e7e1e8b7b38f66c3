"""``brackets(trace(...))``: dot-bracket strings read off a derivation over
intervals of one sequence (dslc.trace.brackets), for two different folding
recurrences, against references that know nothing of derivations: balanced, as
many pairs as the score, every pair allowed with at least three unpaired bases
inside, and the structure tests/reference.py's own traceback takes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from tests import reference as ref

PAIRS = """\
define alphabet rna "ACGU"
bool pairs(symbol[rna] a, symbol[rna] b) =
    (a == 'A' and b == 'U') or (a == 'U' and b == 'A') or (a == 'G' and b == 'C')
 or (a == 'C' and b == 'G') or (a == 'G' and b == 'U') or (a == 'U' and b == 'G')
"""

# the example's recurrence: x[i] unpaired, or paired with some k inside
NUSSINOV = PAIRS + """\
int n(seq[rna] x, index[x] i, index[x] j)
  | j <= i + 4 = 0
  | otherwise = n(i + 1, j)
        max max(k in i + 4 ... j - 1 where pairs(x[i], x[k]) : 1 + n(i + 1, k) + n(k + 1, j))
"""

# the textbook's four cases: x[i] or x[j-1] unpaired, x[i] with x[j-1], a split
FOUR_CASES = PAIRS + """\
int m(seq[rna] x, index[x] i, index[x] j)
  | j <= i + 4 = 0
  | otherwise = m(i + 1, j) max m(i, j - 1)
        max (if pairs(x[i], x[j - 1]) then 1 + m(i + 1, j - 1) else 0)
        max max(k in i + 1 ... j - 1 : m(i, k) + m(k, j))
"""


def _fold(program: str, f: str, x: str, backend: str = "interp") -> dict:
    prog = dslc.compile(program + f'd = trace({f}("{x}", 0, {len(x)}))\n'
                        "print brackets(d)\n", backend=backend)
    return prog.run()["brackets(d)"].to_json()


def _well_formed(x: str, b: str, score: int) -> None:
    assert len(b) == len(x) and set(b) <= set("().")
    stack = []
    for k, c in enumerate(b):
        if c == "(":
            stack.append(k)
        elif c == ")":
            i = stack.pop()
            assert (x[i], x[k]) in ref.PAIRS and k - i > 3, (x, b, i, k)
    assert not stack and b.count("(") == score, (x, b, score)


RNA = st.text(alphabet="ACGU", min_size=0, max_size=16)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(x=RNA)
def test_nussinov_structures_are_the_reference_traceback(x):
    got = _fold(NUSSINOV, "n", x)
    assert got["sequence"] == x
    _well_formed(x, got["brackets"], ref.nussinov(x))
    assert got["brackets"] == ref.nussinov_brackets(x)
    assert got["pairs"] == sorted([i, k] for i, k in got["pairs"]) and all(
        got["brackets"][i] == "(" and got["brackets"][k] == ")" for i, k in got["pairs"])


@settings(max_examples=15, deadline=None, derandomize=True)
@given(x=RNA)
def test_another_recurrence_gives_its_own_optimal_structure(x):
    got = _fold(FOUR_CASES, "m", x)
    _well_formed(x, got["brackets"], ref.nussinov(x))


def test_compiled_tables_give_the_same_structure():
    x = "GCGGAUUUAGCUCAGUUGGGAGAGCGCCAGACUGAAGAUCUGGAGGUCCUGUGUUCGAUCCACAGAAUUCGCACCA"
    got = _fold(NUSSINOV, "n", x, backend="cpu")
    assert got["brackets"] == ref.nussinov_brackets(x)
    _well_formed(x, got["brackets"], 28)


def test_printed_as_the_sequence_over_its_structure():
    prog = dslc.compile(NUSSINOV + 'print brackets(trace(n("GGGAAAUCC", 0, 9)))\n',
                        backend="interp")
    (value,) = prog.run().values()
    assert str(value) == "GGGAAAUCC\n(((...)))   3 pairs"


@pytest.mark.parametrize("text,words", [
    # an alignment's derivation indexes two sequences, never one twice
    ("int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)\n"
     "  | i == 0 or j == 0 = 0\n  | otherwise = d(i - 1, j - 1) + 1 max d(i - 1, j)\n"
     'print brackets(trace(d("ACG", "AG")))\n', "no step indexing one sequence twice"),
    ('print brackets(3)\n', "brackets takes a derivation"),
    # children whose intervals overlap: [0, 4) pairs (0, 3), [1, 5) pairs (1, 4)
    ('define alphabet rna "ACGU"\nint f(seq[rna] x, index[x] i, index[x] j)\n'
     "  | j - i == 5 = f(i, j - 1) + f(i + 1, j)\n  | j - i == 4 = 1 + f(i + 1, j - 1)\n"
     '  | otherwise = 0\nprint brackets(trace(f("ACGUA", 0, 5)))\n', "crossing pairs"),
    # [0, 4) pairs (0, 3), [3, 7) pairs (3, 6)
    ('define alphabet rna "ACGU"\nint f(seq[rna] x, index[x] i, index[x] j)\n'
     "  | j - i == 7 = f(i, j - 3) + f(i + 3, j)\n  | j - i == 4 = 1 + f(i + 1, j - 1)\n"
     '  | otherwise = 0\nprint brackets(trace(f("ACGUACG", 0, 7)))\n', "pairs position 3 twice"),
    (NUSSINOV + 'print brackets(trace(n("GGGAAAUCC", 0, 9)), 2)\n', "brackets takes one"),
])
def test_refusals(text, words):
    with pytest.raises(DslcError, match=words):
        dslc.compile(text, backend="interp").run()


def test_arc_plot(tmp_path):
    prog = dslc.compile(NUSSINOV + 'print brackets(trace(n("GGGAAAUCCGGGAAAUCC", 0, 18)))\n',
                        backend="interp")
    (value,) = prog.run().values()
    fig = value.figure()
    arcs = fig.axes[0].patches
    assert len(arcs) == len(value.pairs) == ref.nussinov("GGGAAAUCCGGGAAAUCC")
    for arc, (i, k) in zip(arcs, value.pairs):  # each arc joins its pair's two positions
        assert arc.center[0] == (i + k) / 2 and arc.width == k - i
    value.plot(str(tmp_path / "arcs.png"))
    assert (tmp_path / "arcs.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(DslcError, match="cannot write"):
        value.plot(str(tmp_path / "missing" / "arcs.png"))
