"""The grammar: every contract example parses, precedence is as documented, and
spans point at the source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.frontend.parser import parse, parse_expression

# The language contract ships in the repository (docs/contract/), so every clone runs these
# tests; the design copy beside a development checkout must not drift from it.
CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "contract" / "LANGUAGE.md"
DESIGN_COPY = Path(__file__).resolve().parents[3] / "shared" / "design" / "LANGUAGE.md"


def contract_blocks() -> list[str]:
    blocks = re.findall(r"```\n(.*?)```", CONTRACT.read_text(), re.S)
    # the first two blocks are grammar sketches with placeholders, not programs
    return [b for b in blocks if "FUNCTION-DEFINITION" not in b and "TYPE NAME" not in b]


def test_contract_has_the_programs():
    assert len(contract_blocks()) == 8


@pytest.mark.parametrize("k", range(8))
def test_every_contract_program_parses(k):
    parse(contract_blocks()[k], f"block{k}.bio")


def test_contract_copy_matches_design():
    """Where the design copy is beside the checkout, the shipped contract is the same text."""
    if DESIGN_COPY.exists():
        assert CONTRACT.read_text() == DESIGN_COPY.read_text()


def expr(src: str) -> ast.Expr:
    prog = parse(f"x = {src}\n")
    return prog.stmts[0].expr


def shape(e) -> str:
    match e:
        case ast.Binary(op=op, left=a, right=b):
            return f"({shape(a)} {op} {shape(b)})"
        case ast.Unary(op=op, operand=x):
            return f"({op} {shape(x)})"
        case ast.Name(id=n):
            return n
        case ast.Num(value=v):
            return str(v)
        case ast.Call(func=f, args=args):
            return f"{f}({', '.join(shape(a) for a in args)})"
        case ast.If(cond=c, then=a, orelse=b):
            return f"(if {shape(c)} {shape(a)} {shape(b)})"
    return type(e).__name__


@pytest.mark.parametrize("src, want", [
    ("x + 1 max y - d", "((x + 1) max (y - d))"),
    ("a max b max c", "((a max b) max c)"),
    ("a + b * c", "(a + (b * c))"),
    ("-a * b", "((- a) * b)"),
    ("a - b - c", "((a - b) - c)"),
    ("a < b + 1", "(a < (b + 1))"),
    ("not a == b and c", "((not (a == b)) and c)"),
    ("a or b and c", "(a or (b and c))"),
    ("if a then b else c + 1", "(if a b (c + 1))"),
    ("0 max e(i, j) max h(i - 1, j - 1) + 2", "((0 max e(i, j)) max (h((i - 1), (j - 1)) + 2))"),
])
def test_precedence(src, want):
    assert shape(expr(src)) == want


def test_reductions_ranges_and_where():
    e = expr("max(k in i + 4 ... j - 1 where p(k) : 1 + n(k))")
    assert isinstance(e, ast.Reduce) and e.op == "max" and e.var == "k"
    assert isinstance(e.iterable, ast.Range) and e.where is not None
    e = expr("n(i + 1, j) max max(k in 0 ... 3 : k)")
    assert isinstance(e, ast.Binary) and isinstance(e.right, ast.Reduce)


def test_numbers_and_ranges_do_not_collide():
    e = expr("sum(k in 0...5 : 1.5e2)")
    assert e.iterable.lo.value == 0 and e.iterable.hi.value == 5
    assert e.body.value == 150.0 and e.body.is_float


def test_comparisons_are_non_associative():
    with pytest.raises(DslcError, match="syntax error"):
        parse("x = a < b < c\n")


def test_map_load_and_define_blocks():
    prog = parse('db = load(seq[protein], "db.fasta")\n'
                 's = map(sw, blosum62 (*) 11 (*) "HEA" (*) db)\n'
                 'define matrix m[dna] {\n  A C\nA 1 2\nC 2 1\n}\n')
    load, mp, block = (st for st in prog.stmts)
    assert isinstance(load.expr, ast.Load) and str(load.expr.type) == "seq[protein]"
    assert isinstance(mp.expr, ast.Map) and len(mp.expr.operands) == 4
    assert isinstance(block, ast.DefineBlock) and block.kind == "matrix" and block.args == ("dna",)
    assert "A 1 2" in block.body and block.body_span.line == 3


def test_alphabet_with_listed_symbols():
    prog = parse("define alphabet dice [1, 2, 3, 4, 5, 6]\ndefine alphabet x \"AB\"\n")
    assert prog.stmts[0].symbols == ("1", "2", "3", "4", "5", "6")
    assert prog.stmts[1].symbols == ("A", "B")


def test_spans_point_into_the_source():
    prog = parse("int f(int i) =\n    i + gap\n", "s.bio")
    body = prog.stmts[0].guards[0].body
    assert body.right.span.line == 2 and body.right.span.col == 9
    assert body.right.span.file == "s.bio"


def test_expressions_inside_blocks_keep_file_positions():
    from dslc.errors import Span

    e = parse_expression("1 / 6", Span("m.bio", 7, 12))
    assert e.span.line == 7 and e.span.col == 12
    with pytest.raises(DslcError) as info:
        parse_expression("1 / ", Span("m.bio", 7, 12))
    assert info.value.span.line == 7


def test_syntax_error_lists_expected_tokens():
    with pytest.raises(DslcError) as info:
        parse("int f(int i = 3\n", "e.bio")
    err = info.value
    assert err.span.line == 1 and "expected" in err.message


# --------------------------------------------------------------------------- hostile input
KEYWORDS = ("define alphabet const if then else otherwise and or not in where sum min max map "
            "load print schedule inf true false").split()


def test_the_keywords_are_the_contracts():
    from dslc.frontend.parser import KEYWORDS as ours

    listed = re.search(r"Keywords: `([^`]*)`", CONTRACT.read_text()).group(1).split()
    assert sorted(ours) == sorted(listed) == sorted(KEYWORDS)


@pytest.mark.parametrize("kw", KEYWORDS)
@pytest.mark.parametrize("template, what", [
    ("int {kw}(int x) = x\n", "a function"),
    ("int f(int {kw}) = 1\n", "a parameter"),
    ("int f(const {kw}) = 1\n", "a parameter"),
    ("const {kw} = 1\n", "a constant"),
], ids=["function", "parameter", "const-parameter", "constant"])
def test_a_keyword_names_nothing(kw, template, what):
    """The lexer reads a keyword as a name where only a name can stand; it is
    refused there, pointing at it (where it is not a syntax error already)."""
    text = template.format(kw=kw)
    with pytest.raises(DslcError) as info:
        parse(text, "k.bio")
    err = info.value
    assert err.span.col == template.index("{kw}") + 1, err
    if "syntax error" not in err.message:
        assert err.message == f"'{kw}' is a keyword and cannot name {what}"


def test_a_keyword_in_reading_order():
    with pytest.raises(DslcError) as info:
        parse("int if(int then) = 1\n")
    assert info.value.span.col == 5 and "'if'" in info.value.message


def test_errors_raised_while_building_the_tree_are_dslc_errors():
    with pytest.raises(DslcError, match="only a named function can be called"):
        parse("x = (3)(4)\n")


def test_a_long_chain_parses_left_to_right():
    """900 chained operators: within the nesting limit, however deep the tree."""
    e = expr(" + ".join(f"a{k}" for k in range(900)))
    depth = 0
    while isinstance(e, ast.Binary):
        assert e.right == ast.Name(f"a{899 - depth}", e.right.span)
        e, depth = e.left, depth + 1
    assert depth == 899 and e.id == "a0"


@pytest.mark.parametrize("text", [
    "x = " + "-" * 5000 + "1\n",
    "x = " + "not " * 2000 + "true\n",
    "x = " + "if true then " * 3000 + "1" + " else 2" * 3000 + "\n",
    "x = " + "(" * 3000 + "1 + " * 1500 + "1" + ")" * 3000 + "\n",
], ids=["minus", "not", "if", "chain"])
def test_nesting_beyond_the_limit_is_one_error(text):
    from dslc.deep import MAX_NESTING

    with pytest.raises(DslcError) as info:
        parse(text, "deep.bio")
    err = info.value
    assert f"nested too deeply: more than {MAX_NESTING} levels" in err.message
    assert err.span.file == "deep.bio" and err.span.line == 1


def test_parse_expression_has_the_same_limit():
    from dslc.errors import Span

    assert isinstance(parse_expression("-" * 900 + "1", Span("m.bio", 1, 1)), ast.Unary)
    with pytest.raises(DslcError, match="nested too deeply"):
        parse_expression("-" * 1200 + "1", Span("m.bio", 1, 1))


def test_two_programs_given_as_strings_each_quote_their_own_lines():
    """Every program given as a string is called ``<string>``: an error of the first
    must quote its own line after a second was parsed, not the second's (a span
    names its source by a name that carries the text)."""
    import dslc

    first = dslc.compile("int f(int n)\n  | n < 0 = div(n, 0)\n  | otherwise = n\n",
                         backend="interp")
    dslc.compile("// a second program, shorter\nprint 1\n", backend="interp")
    with pytest.raises(DslcError) as e:
        first.call("f", -1)
    shown = e.value.render()
    assert shown.startswith("<string>:2:"), shown
    assert "div(n, 0)" in shown, shown
