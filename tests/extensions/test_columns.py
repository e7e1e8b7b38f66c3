"""Alignment columns over a tree's leaves."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from dslc.errors import DslcError, Span
from dslc.lang.values import Alphabet
from dslc_extensions.tree.columns import NO_SYMBOL, Columns, load_columns, parse_columns_text
from dslc_extensions.tree.newick import parse_newick

DNA = Alphabet("dna", tuple("ACGT"))
DNAGAP = Alphabet("dnagap", tuple("ACGT-"))
SPAN = Span("prog.bio", 7, 8)
TREE = parse_newick("((human:0.1,chimp:0.1):0.2,(gorilla:0.3,orang:0.4):0.1);")
# post-order: human 0, chimp 1, (h,c) 2, gorilla 3, orang 4, (g,o) 5, root 6

ALN = """>orang some description
ACGTT
>human
ACG
TA
>gorilla
ACCTA

>chimp
AGGTA
"""


def write(tmp_path, text, name="aln.fasta"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_columns_layout(tmp_path):
    cols = load_columns(write(tmp_path, ALN), DNA, TREE, SPAN)
    assert isinstance(cols, Columns)
    assert len(cols) == cols.n_columns == 5
    assert cols.codes.shape == (5, 7) and cols.codes.dtype == np.uint8
    assert cols.tree is TREE and cols.alphabet is DNA
    rows = {"human": "ACGTA", "chimp": "AGGTA", "gorilla": "ACCTA", "orang": "ACGTT"}
    for name, row in rows.items():
        u = TREE.leaf_index[name]
        assert "".join(DNA.symbols[c] for c in cols.codes[:, u]) == row
    for u in (2, 5, 6):
        assert np.all(cols.codes[:, u] == NO_SYMBOL)
    c1 = cols[1]
    assert c1.index == 1 and len(c1) == 7
    assert c1[0] == DNA.code("C") and c1[1] == DNA.code("G") and c1[2] == NO_SYMBOL
    assert [c.index for c in cols] == [0, 1, 2, 3, 4]
    assert cols[-1].index == 4
    with pytest.raises(IndexError):
        cols[5]
    assert "human" not in repr(c1) and repr(c1).startswith("Column(1")


def test_lowercase_and_gzip(tmp_path):
    p = tmp_path / "aln.fasta.gz"
    p.write_bytes(gzip.compress(ALN.lower().encode()))  # the leaf names are lower case already
    cols = load_columns(p, DNA, TREE, SPAN)
    assert cols.codes[0, TREE.leaf_index["human"]] == DNA.code("A")


def test_case_kept_for_lowercase_alphabet():
    en = Alphabet("low", tuple("acgt"))
    cols = parse_columns_text(ALN.replace("ACGTT", "acgtt").replace("ACG\nTA", "acg\nta")
                              .replace("ACCTA", "accta").replace("AGGTA", "aggta"), "x", en, TREE)
    assert cols.codes[4, TREE.leaf_index["orang"]] == en.code("t")
    with pytest.raises(DslcError):
        parse_columns_text(ALN, "x", en, TREE)


def test_gap_is_error_unless_in_alphabet(tmp_path):
    p = write(tmp_path, ALN.replace("ACCTA", "AC-TA"))
    with pytest.raises(DslcError) as info:
        load_columns(p, DNA, TREE, SPAN)
    e = info.value
    assert "row 'gorilla'" in e.message and "'-' in column 3" in e.message and "line 6" in e.message
    assert "gap" in e.hint and e.span == SPAN
    cols = load_columns(p, DNAGAP, TREE, SPAN)
    assert cols.codes[2, TREE.leaf_index["gorilla"]] == DNAGAP.code("-")


def test_foreign_symbol(tmp_path):
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, ALN.replace("AGGTA", "AGNTA")), DNA, TREE, SPAN)
    assert "'N' in column 3" in info.value.message and "row 'chimp'" in info.value.message


def test_rows_of_different_lengths(tmp_path):
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, ALN.replace("ACCTA", "ACCTAA")), DNA, TREE, SPAN)
    m = info.value.message
    assert "row 'gorilla' has 6 columns" in m and "'orang' has 5" in m and "line 6" in m


def test_missing_and_extra_leaves(tmp_path):
    text = ALN.replace(">chimp\nAGGTA\n", ">bonobo\nAGGTA\n")
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, text), DNA, TREE, SPAN)
    m = info.value.message
    assert "no row for tree leaves 'chimp'" in m and "rows 'bonobo' are not leaves" in m
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, ALN.replace(">chimp\nAGGTA\n", "")), DNA, TREE, SPAN)
    assert "'chimp'" in info.value.message and "bonobo" not in info.value.message
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, ALN + ">extra\nAAAAA\n"), DNA, TREE, SPAN)
    assert "rows 'extra' are not leaves" in info.value.message


def test_duplicate_rows(tmp_path):
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, ALN + ">human\nAAAAA\n"), DNA, TREE, SPAN)
    assert "second row named 'human'" in info.value.message and "line 3" in info.value.hint


def test_malformed_fasta(tmp_path):
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, "ACGT\n" + ALN), DNA, TREE, SPAN)
    assert "line 1" in info.value.message and "before the first '>'" in info.value.message
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, ""), DNA, TREE, SPAN)
    assert "no FASTA records" in info.value.message
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, ">\nACGT\n"), DNA, TREE, SPAN)
    assert "no name" in info.value.message
    empty = "".join(f">{n}\n\n" for n in ("human", "chimp", "gorilla", "orang"))
    with pytest.raises(DslcError) as info:
        load_columns(write(tmp_path, empty), DNA, TREE, SPAN)
    assert "no columns" in info.value.message


def test_missing_file(tmp_path):
    with pytest.raises(DslcError) as info:
        load_columns(tmp_path / "nope.fasta", DNA, TREE, SPAN)
    assert "no such file" in info.value.message and info.value.span == SPAN


def test_multichar_alphabet_refused():
    dice = Alphabet("words", ("one", "two"))
    with pytest.raises(DslcError) as info:
        parse_columns_text(ALN, "x", dice, TREE, SPAN)
    assert "one-character symbols" in info.value.message


def test_sankoff_parsimony_over_columns():
    """Small Sankoff run straight over the arrays, as a backend would."""
    t = parse_newick("((A,B),(C,D));")
    cols = parse_columns_text(">A\nAC\n>B\nAC\n>C\nGC\n>D\nGT\n", "x", DNA, t)
    d = np.ones((4, 4), dtype=np.int64) - np.eye(4, dtype=np.int64)
    INF = 10 ** 9

    def cost(col):
        w = np.zeros((t.n, 4), dtype=np.int64)
        for u in range(t.n):  # post-order: children first
            if t.nodes[u].is_leaf:
                w[u] = [0 if col[u] == a else INF for a in range(4)]
            else:
                w[u] = sum(np.min(w[c][None, :] + d, axis=1) for c in t.nodes[u].children)
        return int(w[t.root].min())

    assert [cost(c) for c in cols] == [1, 1]
