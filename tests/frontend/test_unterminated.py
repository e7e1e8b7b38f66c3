"""A comment, string, symbol literal or block that is never closed is reported
as such, at its opening, not as an unexpected character or token further on."""

from __future__ import annotations

import pytest

from dslc.errors import DslcError
from dslc.frontend.parser import parse


def error_of(text: str) -> DslcError:
    with pytest.raises(DslcError) as info:
        parse(text, "t.bio")
    return info.value


@pytest.mark.parametrize("text, what, line, col", [
    ("x = 1\n/* never closed\nprint x\n", "comment", 2, 1),
    ("x = 1 /* never closed\nprint x\n", "comment", 1, 7),
    ("/* never closed\nx = 1\n", "comment", 1, 1),
    ("x = 1\nprint x /* */ /* again\n", "comment", 2, 15),
    ('x = "abc\nprint x\n', "string", 1, 5),
    ('x = "a\\"bc\n', "string", 1, 5),
    ("int f(symbol[dna] a) = if a == 'A then 1 else 0\n", "symbol literal", 1, 32),
    ("define matrix m[dna] {\n  A C G T\nA 1 0 0 0\n", "block", 1, 22),
    ("define matrix m[dna] { { }\n", "block", 1, 22),
])
def test_an_unclosed_construct_is_reported_at_its_opening(text, what, line, col):
    e = error_of(text)
    assert e.message.startswith(f"unterminated {what} (opened here)"), e.message
    assert (e.span.line, e.span.col) == (line, col), e.render()
    assert "^" in e.render()


def test_a_closed_comment_and_division_still_parse():
    parse("x = 6 /* a\ncomment */ / 2 // and / * this\nprint x\n", "t.bio")


def test_other_syntax_errors_keep_their_message():
    assert error_of("x = 1 / * 2\n").message.startswith("syntax error: unexpected '*'")
    assert error_of("x = 1 $ 2\n").message.startswith("syntax error: unexpected character '$'")
    # a block nested three deep closes, but is not a block the grammar reads
    e = error_of("define matrix m[dna] { { { } } }\n")
    assert e.message.startswith("syntax error: unexpected character '{'")


def test_the_cli_reports_the_opening(tmp_path, capsys):
    from dslc.cli import main

    p = tmp_path / "c.bio"
    p.write_text("x = 1\n/* never closed\nprint x\n")
    assert main(["run", str(p)]) == 2
    err = capsys.readouterr().err
    assert f"{p}:2:1: error: unterminated comment (opened here)" in err
    assert "  /* never closed\n  ^~" in err
    assert "Traceback" not in err
