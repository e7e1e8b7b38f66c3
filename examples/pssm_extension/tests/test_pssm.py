"""Pass once the package is pip-installed next to dslc."""

import dslc
from dslc.errors import DslcError

import pytest

SRC = """
define pssm motif[dna] {
     A  C  G  T
  0  2 -1 -1  0
  1 -1  3 -1 -1
  2  0 -1  2 -1
}
int at(pssm p, seq[dna] s, int o) = sum(k in 0 ... p.length - 1 : p[k, s[o + k]])
int best(pssm p, seq[dna] s) = max(o in 0 ... len(s) - p.length : at(p, s, o))
print best(motif, "TTACGAACG")
"""


def brute(s):
    table = {"A": [2, -1, 0], "C": [-1, 3, -1], "G": [-1, -1, 2], "T": [0, -1, -1]}
    return max(sum(table[s[o + k]][k] for k in range(3)) for o in range(len(s) - 2))


@pytest.mark.parametrize("backend", ["interp", "cpu"])
def test_best_match(backend):
    out = dslc.compile(SRC, backend=backend).run()
    assert out['best(motif, "TTACGAACG")'] == brute("TTACGAACG")


def test_bad_row_is_reported_with_its_line():
    with pytest.raises(DslcError) as e:
        dslc.compile("define pssm m[dna] {\n A C G T\n 0 1 2 3 4\n 2 1 1 1 1\n}\n")
    assert e.value.span.line == 4
