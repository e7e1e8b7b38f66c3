"""Newick trees: parsing, post-order numbering, errors."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.errors import DslcError, Span, source_text
from dslc_extensions.tree.newick import NO_NODE, Tree, load_newick, parse_newick


def names(t: Tree) -> list[str]:
    return [n.name for n in t.nodes]


def test_simple_binary_tree_post_order():
    t = parse_newick("((A:0.1,B:0.2)AB:0.3,C:0.4);")
    assert names(t) == ["A", "B", "AB", "C", ""]
    assert t.root == 4 and t.n == len(t) == 5
    A, B, AB, C, R = t.nodes
    assert A.is_leaf and not AB.is_leaf and R.is_root
    assert AB.children == (0, 1) and R.children == (2, 3)
    assert (AB.left, AB.right) == (0, 1) and (R.left, R.right) == (2, 3)
    assert (A.left, A.right) == (NO_NODE, NO_NODE)
    assert [n.parent for n in t.nodes] == [2, 2, 4, 4, -1]
    assert [n.length for n in t.nodes] == [0.1, 0.2, 0.3, 0.4, 0.0]
    assert R.has_length is False and A.has_length is True
    assert t.leaves == (0, 1, 3)
    assert t.leaf_index == {"A": 0, "B": 1, "C": 3}
    assert t.is_binary


def test_children_before_parents_everywhere():
    t = parse_newick("(((a,b),(c,d)),((e,f),g));")
    for node in t.nodes:
        for c in node.children:
            assert c < node.index
            assert t.nodes[c].parent == node.index
    assert [t.nodes[i].name for i in t.leaves] == list("abcdefg")


def test_arrays():
    t = parse_newick("((A:1,B:2):3,(C:4,D:5,E:6):7);")
    assert t.child_offsets.tolist() == [0, 0, 0, 2, 2, 2, 2, 5, 7]
    assert t.child_index.tolist() == [0, 1, 3, 4, 5, 2, 6]
    np.testing.assert_array_equal(t.lengths, [1, 2, 3, 4, 5, 6, 7, 0])
    assert t.parents.tolist() == [2, 2, 7, 6, 6, 6, 7, -1]
    assert t.is_leaf.tolist() == [True, True, False, True, True, True, False, False]
    assert t.left.tolist() == [-1, -1, 0, -1, -1, -1, 3, 2]
    assert t.right.tolist() == [-1, -1, 1, -1, -1, -1, 4, 6]
    assert not t.is_binary


def test_trifurcating_root_and_lengths_optional():
    t = parse_newick("(human,chimp,(gorilla,orang));")
    root = t.nodes[t.root]
    assert len(root.children) == 3
    assert [t.nodes[c].name for c in root.children] == ["human", "chimp", ""]
    assert all(n.length == 0.0 and not n.has_length for n in t.nodes)


def test_quoted_names_comments_whitespace():
    text = """
    [a comment] ( 'Homo sapiens' [&&NHX:S=human] : 0.1 ,
      'it''s' :2.5e-1 ,
      Pan_troglodytes:1E-2
    ) 'the root' [end] ;
    [trailing comment]
    """
    t = parse_newick(text)
    assert names(t) == ["Homo sapiens", "it's", "Pan_troglodytes", "the root"]
    assert [n.length for n in t.nodes] == [0.1, 0.25, 0.01, 0.0]


def test_internal_labels_support_values_and_root_length():
    t = parse_newick("((A,B)95:0.5,(C,D)80:0.25)root:0.0;")
    assert names(t) == ["A", "B", "95", "C", "D", "80", "root"]
    assert t.nodes[t.root].has_length and t.nodes[t.root].length == 0.0


def test_single_leaf_and_unary_nodes():
    t = parse_newick("A;")
    assert t.n == 1 and t.root == 0 and t.nodes[0].is_leaf and t.nodes[0].parent == NO_NODE
    t = parse_newick("((A)x,B);")
    assert names(t) == ["A", "x", "B", ""]
    assert t.nodes[1].children == (0,) and t.nodes[1].right == NO_NODE


def test_deep_caterpillar_tree():
    depth = 5000
    text = "(" * depth + "L0" + "".join(f",L{i + 1})" for i in range(depth)) + ";"
    t = parse_newick(text)
    assert t.n == 2 * depth + 1
    assert t.nodes[0].name == "L0" and t.nodes[t.root].children[1] == t.root - 1


def test_round_trip_to_newick():
    text = "((A:0.1,'B c':0.2)AB:0.3,'d''e':0.4,F);"
    t = parse_newick(text)
    u = parse_newick(t.to_newick())
    assert names(u) == names(t)
    assert [n.length for n in u.nodes] == [n.length for n in t.nodes]
    assert [n.children for n in u.nodes] == [n.children for n in t.nodes]


@st.composite
def trees(draw, depth=0):
    if depth > 3 or draw(st.booleans()):
        return None  # a leaf, named later
    return [draw(trees(depth=depth + 1)) for _ in range(draw(st.integers(1, 4)))]


def to_text(shape, counter, lengths):
    if shape is None:
        counter[0] += 1
        name = f"n{counter[0]}"
    else:
        name = "(" + ",".join(to_text(s, counter, lengths) for s in shape) + ")"
    if lengths:
        counter[1] += 1
        name += f":{counter[1] / 8}"
    return name


def count(shape):
    return 1 if shape is None else 1 + sum(count(s) for s in shape)


@settings(max_examples=80, deadline=None)
@given(trees(), st.booleans())
def test_random_trees_are_post_ordered(shape, lengths):
    text = to_text(shape, [0, 0], lengths) + ";"
    t = parse_newick(text)
    assert t.n == count(shape)
    assert t.root == t.n - 1 and t.nodes[t.root].parent == NO_NODE
    for node in t.nodes:
        assert all(c < node.index for c in node.children)
        # post-order: a node's subtree is a contiguous block ending at it
        sub = subtree(t, node.index)
        assert sorted(sub) == list(range(node.index - len(sub) + 1, node.index + 1))
    assert [t.nodes[i].name for i in t.leaves] == [f"n{i + 1}" for i in range(len(t.leaves))]
    assert parse_newick(t.to_newick()).to_newick() == t.to_newick()


def subtree(t, u):
    out = [u]
    for c in t.nodes[u].children:
        out += subtree(t, c)
    return out


# --------------------------------------------------------------------------- errors

def err(text: str) -> DslcError:
    with pytest.raises(DslcError) as info:
        parse_newick(text, "t.nwk")
    return info.value


@pytest.mark.parametrize("text, words, line, col", [
    ("((A,B);", "unbalanced '('", 1, 1),
    ("(A,(B,C);", "unbalanced '('", 1, 1),
    ("(A,(B,(C);", "unbalanced '('", 1, 4),
    ("(A,B));", "unbalanced ')'", 1, 6),
    ("(A,B)", "missing ';'", 1, 6),
    ("(A,B)\n\n", "missing ';'", 1, 6),
    ("(A,\n (B,\n  C)", "never closed", 1, 1),
    ("(A,,B);", "leaf with no name", 1, 4),
    ("(A,B,);", "leaf with no name", 1, 6),
    ("(:0.1,B);", "leaf with no name", 1, 2),
    ("(A,\n  B,\n  A);", "two leaves named 'A'", 3, 3),
    ("(A:x,B);", "bad branch length 'x'", 1, 4),
    ("(A:,B);", "missing branch length", 1, 3),
    ("(A:-0.5,B);", "'-0.5': a branch length cannot be negative", 1, 4),
    ("(A:1,\n B:-1e-3)C:2;", "cannot be negative", 2, 4),
    ("(A,B):-1;", "cannot be negative", 1, 7),
    ("(A:nan,B);", "'nan': not a finite number", 1, 4),
    ("(A:1,B:-inf);", "'-inf': not a finite number", 1, 8),
    ("(A:1e999,B);", "not a finite number", 1, 4),
    ("(A,B);(C,D);", "text after the end", 1, 7),
    ("A,B;", "',' outside parentheses", 1, 2),
    ("", "empty", 1, 1),
    ("  [only a comment]  ", "empty", 1, 1),
    ("(A,B)C D;", "expected ',', ')' or ';'", 1, 8),
    ("(A,\n  B[open;", "unterminated comment", 2, 4),
    ("(A,'B);", "unterminated quoted name", 1, 4),
    ("(A,B]);", "']' without '['", 1, 5),
])
def test_errors(text, words, line, col):
    e = err(text)
    assert words in e.message, e.render()
    assert (e.span.file, e.span.line, e.span.col) == ("t.nwk", line, col), e.render()


def test_duplicate_hint_points_at_first():
    e = err("(A,(B,A));")
    assert "t.nwk:1:2" in e.hint


def test_internal_labels_may_repeat():
    t = parse_newick("((A,B)x,(C,D)x);")
    assert names(t).count("x") == 2


def test_span_offset_for_embedded_text():
    # text that sits inside a larger file at line 4, column 10
    with pytest.raises(DslcError) as info:
        parse_newick("(A,\nA);", "prog.bio", Span("prog.bio", 4, 10))
    assert (info.value.span.line, info.value.span.col) == (5, 1)
    with pytest.raises(DslcError) as info:
        parse_newick("(A,,B);", "prog.bio", Span("prog.bio", 4, 10))
    assert (info.value.span.line, info.value.span.col) == (4, 13)
    # a span in another file (the load statement) does not shift positions
    with pytest.raises(DslcError) as info:
        parse_newick("(A,,B);", "tree.nwk", Span("prog.bio", 4, 10))
    assert str(info.value.span) == "tree.nwk:1:4"


def test_load_newick(tmp_path):
    p = tmp_path / "species.nwk"
    p.write_text("((human:0.1,chimp:0.1):0.2,\n gorilla:0.3);\n")
    t = load_newick(p, Span("prog.bio", 2, 5))
    assert names(t) == ["human", "chimp", "", "gorilla", ""]
    assert t.source == str(p)
    g = tmp_path / "species.nwk.gz"
    g.write_bytes(gzip.compress(p.read_bytes()))
    assert names(load_newick(g)) == names(t)


def test_load_newick_refuses_a_negative_length_at_its_line_and_column(tmp_path):
    p = tmp_path / "neg.nwk"
    p.write_text("((human:0.1,chimp:0.2):0.3,\n gorilla:-0.4);\n")
    with pytest.raises(DslcError) as info:
        load_newick(p, Span("prog.bio", 2, 5))
    e = info.value
    assert (e.span.file, e.span.line, e.span.col) == (str(p), 2, 10)
    assert "cannot be negative" in e.message and "gorilla:-0.4" in e.render()


def test_load_newick_errors(tmp_path):
    with pytest.raises(DslcError) as info:
        load_newick(tmp_path / "missing.nwk", Span("prog.bio", 2, 5))
    assert "no such file" in info.value.message and str(info.value.span) == "prog.bio:2:5"
    p = tmp_path / "bad.nwk"
    p.write_text("((human,chimp),\n gorilla,human);\n")
    with pytest.raises(DslcError) as info:
        load_newick(p, Span("prog.bio", 2, 5))
    e = info.value
    assert (e.span.file, e.span.line, e.span.col) == (str(p), 2, 10)
    assert source_text(str(p)) is not None
    rendered = e.render()
    assert "gorilla,human);" in rendered and "^" in rendered
