"""String escapes: \\" and \\\\ (the contract's), \\n and \\t; any other backslash
is a located error, not a character silently dropped."""

from __future__ import annotations

import pytest

from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.frontend.parser import parse


def string_of(text: str) -> str:
    prog = parse(f"x = {text}\n", "t.bio")
    assert isinstance(prog.stmts[0].expr, ast.Str)
    return prog.stmts[0].expr.value


@pytest.mark.parametrize("text, value", [
    (r'"a\"b"', 'a"b'), (r'"a\\b"', "a\\b"), (r'"a\nb"', "a\nb"), (r'"a\tb"', "a\tb"),
    (r'"\\q"', "\\q"), ('"plain"', "plain"),
])
def test_the_known_escapes(text, value):
    assert string_of(text) == value


@pytest.mark.parametrize("text, line, col", [
    ('x = "a\\qb"\nprint x\n', 1, 7),
    ('x = 1\ny = "ok\\\\ \\d"\n', 2, 11),
    ('x = "two\nlines \\q"\n', 2, 7),
    ('define alphabet a "AC\\G"\n', 1, 22),
    ("int f(symbol[dna] a) = if a == '\\A' then 1 else 0\n", 1, 33),
])
def test_an_unknown_escape_is_an_error_at_the_backslash(text, line, col):
    with pytest.raises(DslcError) as info:
        parse(text, "t.bio")
    e = info.value
    assert e.message.startswith("unknown escape '\\"), e.message
    assert (e.span.line, e.span.col) == (line, col), e.render()
    assert "^~" in e.render()
