"""Extension parsers on grammars (dslc.sdk.grammar): the hook itself (located errors
from a grammar and from its transformer, text inside a larger file), random Newick
trees written and read back, and damaged Newick texts and ``define hmm`` bodies, each
either read or refused by one DslcError inside the text, never anything else."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lark import Transformer

from dslc import sdk
from dslc.cli import main
from dslc.errors import DslcError, Span, register_source
from dslc_extensions.hmm.define_parser import parse_hmm_block
from dslc_extensions.hmm.model import HMM
from dslc_extensions.tree.newick import parse_newick
from dslc.lang.values import Alphabet

# --------------------------------------------------------------------------- the hook

PAIRS = r"""
start: pair*
pair: NAME "=" NUMBER ";"
NAME: /[a-z]+/
NUMBER: /[0-9]+/
%import common.WS
%ignore WS
"""


class Pairs(Transformer):
    def start(self, children):
        return dict(children)

    def pair(self, children):
        name, number = children
        if int(number) > 10:
            raise sdk.GrammarError(f"{name} = {number}: at most 10", number, hint="a small one")
        return str(name), int(number)


GRAMMAR = sdk.Grammar(PAIRS, transformer=Pairs(), names={"NUMBER": "a number"})


def test_a_grammar_parses_with_its_transformer():
    assert GRAMMAR.parse("a = 1; b = 2;", "p.txt") == {"a": 1, "b": 2}


def test_syntax_errors_name_what_was_expected_at_the_token():
    with pytest.raises(DslcError) as info:
        GRAMMAR.parse("a = 1;\nb = ;", "p.txt")
    e = info.value
    assert (e.span.file, e.span.line, e.span.col) == ("p.txt", 2, 5)
    assert e.message == "syntax error: unexpected ';'; expected a number"
    with pytest.raises(DslcError) as info:
        GRAMMAR.parse("a = 1;\n  b ? 2;", "p.txt")
    assert (info.value.span.line, info.value.span.col) == (2, 5)
    assert "unexpected character '?'" in info.value.message
    with pytest.raises(DslcError) as info:
        GRAMMAR.parse("a = 1;\nb = 2\n\n", "p.txt")
    assert "unexpected end of text" in info.value.message
    assert (info.value.span.line, info.value.span.col) == (2, 6)


def test_a_transformers_error_is_located_at_its_token():
    with pytest.raises(DslcError) as info:
        GRAMMAR.parse("a = 1;\n b =  12;", "p.txt")
    e = info.value
    assert (e.span.line, e.span.col, e.span.end_col) == (2, 7, 9)
    assert e.message == "b = 12: at most 10" and e.hint == "a small one"


def test_text_inside_a_larger_file_keeps_the_files_positions():
    source = "line one\nblock { a = 1;\n  b = x; }\n"
    register_source("s.bio", source)
    start = source.index("{") + 1
    body = source[start:source.index("}")]
    with pytest.raises(DslcError) as info:
        GRAMMAR.parse(body, "s.bio", Span("s.bio", 2, start - source.index("\n") ))
    e = info.value
    assert (e.span.line, e.span.col) == (3, 7)
    rendered = e.render()
    assert rendered.startswith("s.bio:3:7: error:") and "b = x;" in rendered and "^" in rendered


def test_describe_words_an_error_in_the_extensions_terms():
    def describe(p: sdk.SyntaxProblem):
        if p.kind == "end":
            return DslcError(f"the list stops after {len(p.stack)} tokens", p.span)
        return None

    with pytest.raises(DslcError) as info:
        GRAMMAR.parse("a = 1; b", "p.txt", describe=describe)
    assert info.value.message == "the list stops after 2 tokens"


def test_a_shipped_grammar_is_read_from_its_package():
    g = sdk.grammar("dslc_extensions.tree", "newick.lark")
    assert g.parse("(a,b);", "t.nwk").data == "start"


def test_a_define_hmm_syntax_error_is_one_located_message_from_the_cli(write_bio, capsys):
    p = write_bio("""\
        define alphabet dice "123456"
        define hmm m {
          alphabet dice;
          startstate s; endstate e
          s -> e 1;
        }
        """)
    assert main(["check", str(p)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert re.match(r".*prog\.bio:4:27: error: missing ';' at the end of this statement", first), err
    assert "^" in err


# --------------------------------------------------------------------------- Newick

NAMES = st.one_of(
    st.from_regex(r"[A-Za-z0-9_.|+-]{1,8}", fullmatch=True),
    st.text(st.sampled_from("ab c'(),:;[]_"), min_size=1, max_size=6),  # quoted when written
)
LENGTHS = st.one_of(st.none(), st.floats(0, 1e6, allow_nan=False, allow_infinity=False))
GAPS = st.sampled_from(["", "", " ", "\n", " [a comment] ", "[&&NHX:S=x]", "\t"])


@st.composite
def shapes(draw, depth=0):
    """A tree: a leaf (None) or a list of 1-4 subtrees, with an internal label
    (maybe empty) and a branch length (maybe none) for every node."""
    if depth >= 4 or draw(st.integers(0, 2)) == 0:
        kids = None
    else:
        kids = [draw(shapes(depth + 1)) for _ in range(draw(st.integers(1, 4)))]
    label = draw(NAMES) if kids is None else draw(st.one_of(st.just(""), NAMES))
    return kids, label, draw(LENGTHS)


def quoted(name: str) -> str:
    if re.fullmatch(r"[^\s()\[\]':;,]+", name):
        return name
    return "'" + name.replace("'", "''") + "'"


def write(shape, draw_gap) -> str:
    kids, label, length = shape
    text = ""
    if kids is not None:
        text = "(" + ",".join(draw_gap() + write(k, draw_gap) + draw_gap() for k in kids) + ")"
    text += draw_gap() + (quoted(label) if label else "")
    if length is not None:
        text += draw_gap() + ":" + draw_gap() + repr(length)
    return text


def post_order(shape, out):
    kids, label, length = shape
    for k in kids or ():
        post_order(k, out)
    out.append((label, kids is None, len(kids or ()), length or 0.0, length is not None))
    return out


def unique_leaves(shape, seen) -> bool:
    kids, label, _ = shape
    if kids is None:
        if label in seen:
            return False
        seen.add(label)
        return True
    return all(unique_leaves(k, seen) for k in kids)


@settings(max_examples=60, deadline=None)
@given(shapes(), st.data())
def test_random_trees_round_trip(shape, data):
    text = write(shape, lambda: data.draw(GAPS)) + data.draw(GAPS) + ";" + data.draw(GAPS)
    if not unique_leaves(shape, set()):
        with pytest.raises(DslcError, match="two leaves named"):
            parse_newick(text, "r.nwk")
        return
    t = parse_newick(text, "r.nwk")
    got = [(n.name, n.is_leaf, len(n.children), n.length, n.has_length) for n in t.nodes]
    assert got == post_order(shape, [])
    assert parse_newick(t.to_newick()).to_newick() == t.to_newick()


DAMAGE = st.sampled_from(list("()[]',:;") + ["", " ", "x", "-1", "''", "\n"])


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["((human:0.1,chimp:0.2)hominini:0.3,'gorilla g':0.4,[c]orang);",
                        "(a,(b,(c,d)95:1e-3)x:2);", "((A)B,C:0)root:0;"]),
       st.integers(0, 60), st.integers(0, 3), DAMAGE)
def test_a_damaged_newick_text_is_read_or_one_located_error(text, at, cut, insert):
    at = min(at, len(text))
    bad = text[:at] + insert + text[at + cut:]
    lines = bad.split("\n")
    try:
        parse_newick(bad, "d.nwk")
    except DslcError as e:
        assert e.span.file == "d.nwk"
        assert 1 <= e.span.line <= len(lines), (bad, e.render())
        assert 1 <= e.span.col <= len(lines[e.span.line - 1]) + 1, (bad, e.render())


@pytest.mark.parametrize("text, words, col", [
    ("(A:1:2,B);", "a second branch length", 5),
    ("(A:1 [c] :2,B);", "a second branch length", 10),
    ("(A,B):1:2;", "a second branch length", 8),
    ("(A: [c]\n x,B);", "bad branch length 'x'", 2),
])
def test_one_branch_length_per_node(text, words, col):
    with pytest.raises(DslcError) as info:
        parse_newick(text, "l.nwk")
    assert words in info.value.message and info.value.span.col == col, info.value.render()


def test_comments_nest_one_level_inside():
    assert parse_newick("(a[x [y] z],b);").n == 3
    with pytest.raises(DslcError) as info:
        parse_newick("(a,\n b[x [y [z]]]);", "c.nwk")
    e = info.value
    assert "nested too deep" in e.message and (e.span.line, e.span.col) == (2, 3)


def test_a_large_tree_parses_without_recursion():
    n = 3000
    text = "(" * n + "L0" + "".join(f",L{i + 1}:{i / 7!r})" for i in range(n)) + ";"
    t = parse_newick(text)
    assert t.n == 2 * n + 1 and math.isclose(t.nodes[-2].length, (n - 1) / 7)


# --------------------------------------------------------------------------- define hmm

DICE = Alphabet("dice", tuple("123456"))
BODY = """
  alphabet dice;  // a comment
  startstate start;
  state fair emits fe; state loaded emits le;
  endstate end;
  const stay = 0.9;
  start -> fair 1;
  fair -> fair stay; fair -> loaded (1 - stay) / 2; fair -> end (1 - stay) / 2;
  loaded -> loaded 1/2; loaded -> end 0.5;
  emission fe = [1/6, 1/6, 1/6, 1/6, 1/6, 1/6];
  emission le = 6 : 0.5, * : 0.1;   /* a block
  comment */
"""
HMM_DAMAGE = st.sampled_from(list(";,:[]()=*'/") + ["->", "", " ", "x", "state", "emits", "/*",
                                                      "//", "\n", "1e9", "-"])


@settings(max_examples=150, deadline=None)
@given(st.integers(0, len(BODY)), st.integers(0, 4), HMM_DAMAGE)
def test_a_damaged_define_hmm_body_is_read_or_one_located_error(at, cut, insert):
    body = BODY[:at] + insert + BODY[at + cut:]
    source = "define hmm m {" + body + "}\n"
    lines = source.split("\n")
    try:
        got = parse_hmm_block("m", body, Span("h.bio", 1, 15), {"dice": DICE})
    except DslcError as e:
        assert e.span.file == "h.bio", e.render()
        assert 1 <= e.span.line <= len(lines), (source, e.render())
        assert 1 <= e.span.col <= len(lines[e.span.line - 1]) + 1, (source, e.render())
    else:
        assert isinstance(got, HMM)


def test_a_state_may_have_a_keywords_name():
    body = """alphabet dice; startstate state; state emission emits e; endstate end;
              state -> emission 1; emission -> end 1; emission e = * : 1/6;"""
    h = parse_hmm_block("k", body, Span("k.bio", 1, 1), {"dice": DICE})
    assert [s.name for s in h.states] == ["state", "emission", "end"]


def test_statement_forms_are_named_where_one_is_broken():
    for bad, words in [("state a b;", "expected 'state NAME;'"),
                       ("alphabet;", "expected 'alphabet NAME;'"),
                       ("const = 1;", "expected 'const NAME = EXPRESSION;'"),
                       ("42;", "unexpected statement"),
                       ("emission e = A : 0.5 : 0.5;", "expected 'emission NAME = "),
                       ("emission e = [0.5, , 0.5];", "value 2 of emission 'e' is missing"),
                       ("emission e = : 1;", "missing key before ':'"),
                       ("emission e = 'A;", "unterminated quote")]:
        with pytest.raises(DslcError) as info:
            parse_hmm_block("m", "alphabet dice;\n  " + bad, Span("b.bio", 3, 1), {"dice": DICE})
        e = info.value
        assert words in e.message, (bad, e.render())
        assert (e.span.file, e.span.line) == ("b.bio", 4), (bad, e.render())
    # a statement's form is named at what breaks it, the hint saying what was found there
    with pytest.raises(DslcError) as info:
        parse_hmm_block("m", "alphabet dice; emission e = A : 0.5 : 0.5;", Span("b.bio", 1, 1),
                        {"dice": DICE})
    e = info.value
    assert e.span.col == len("alphabet dice; emission e = A : 0.5 ") + 1, e.render()
    assert "unexpected ':'" in e.hint and "a number or name" in e.hint
