"""Alignments read off tracebacks of examples/smith_waterman.bio (Gotoh, BLOSUM62,
open 11 / extend 1 as parasail counts them): each is a valid alignment of the two
sequences' spans, and rescored here, independently, it gives parasail's score."""

from __future__ import annotations

import re

import parasail
import pytest

import dslc
from dslc.errors import DslcError
from tests.conftest import EXAMPLES

QUERIES = ["MKVLAAGIVGLLLAGCSSHKEE", "HKKLTIENCPVHELEDEIEKE"]


def _db(n: int) -> list[str]:
    text = (EXAMPLES / "data" / "db.fasta").read_text()
    return ["".join(r.split("\n")[1:])[:70] for r in text.split(">")[1:]][:n]


def _rescore(a, q: str, r: str, sm, gap: tuple[int, int] = (10, 1)) -> int:
    """The alignment's score from its CIGAR alone, checking that the CIGAR consumes
    exactly the sequences' spans and that =/X say what the residues are; a gap of
    length n costs ``open + n * extend`` (``gap``: docs/conventions.md)."""
    qi, ri, score = a.starts[0], a.starts[1], 0
    for n, op in re.findall(r"(\d+)([=XID])", a.cigar):
        n = int(n)
        if op in "=X":
            for _ in range(n):
                assert (q[qi] == r[ri]) == (op == "=")
                score += sm(q[qi], r[ri])
                qi, ri = qi + 1, ri + 1
        else:
            score -= gap[0] + n * gap[1]
            qi, ri = (qi + n, ri) if op == "I" else (qi, ri + n)
    assert (qi, ri) == a.ends
    return score


@pytest.fixture(scope="module")
def sw():
    return dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="interp")


@pytest.mark.parametrize("q", QUERIES)
def test_alignments_rescore_to_parasail(sw, q):
    m = sw.value("blosum62")
    code = m.alphabet.symbols.index

    def score(x, y):
        return int(m.values[code(x), code(y)])
    for r in _db(3):
        a = sw.align(sw.trace("sw", "blosum62", 10, 1, q, r))
        want = parasail.sw_trace_striped_16(q, r, 11, 1, parasail.blosum62).score
        assert _rescore(a, q, r, score) == a.score == want
        assert a.rows[0].replace("-", "") == q[a.starts[0]:a.ends[0]]
        assert a.rows[2].replace("-", "") == r[a.starts[1]:a.ends[1]]
        assert a.identities == sum(x == y for x, y in zip(a.rows[0], a.rows[2]))
        assert a.similar == sum(x == y or (x != "-" and y != "-" and score(x, y) > 0)
                                for x, y in zip(a.rows[0], a.rows[2]))
        assert a.gaps == a.rows[0].count("-") + a.rows[2].count("-")


def test_a_tree_or_one_sequence_is_no_alignment():
    prog = dslc.compile(str(EXAMPLES / "nussinov.bio"), backend="interp")
    with pytest.raises(DslcError, match="tree"):
        prog.align(prog.trace("n", "GGGAAAUCC", 0, 9))
    with pytest.raises(DslcError, match="two"):
        prog.align(prog.trace("n", "GGGAAAUCCC", 0, 4))


def test_compiled_tables_give_the_interpreter_s_derivation():
    """A compiled backend fills the tables the walk reads (one Numba compile here);
    the derivation is the interpreter's."""
    path = str(EXAMPLES / "edit_distance.bio")
    cpu, interp = dslc.compile(path, backend="cpu"), dslc.compile(path, backend="interp")
    args = ("intention", "execution")
    assert cpu.trace("d", *args).steps == interp.trace("d", *args).steps
    assert str(cpu.align(cpu.trace("d", *args))) == str(interp.align(interp.trace("d", *args)))
