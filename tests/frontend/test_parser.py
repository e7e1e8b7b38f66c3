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
