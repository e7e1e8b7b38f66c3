"""A script's lines end at \\n (\\r\\n and a lone \\r too): a form feed, vertical tab,
U+0085 or U+2028 inside a line is white space, not a line break, so an error's
line number and its quoted line agree with the file as an editor shows it."""

from __future__ import annotations

import pytest

from dslc.api import Script
from dslc.cli import main
from dslc.errors import DslcError, source_lines
from dslc.frontend.parser import parse


@pytest.mark.parametrize("sep", ["\f", "\v", "\x85", "\u2028", "\u2029"])
def test_a_break_that_is_not_a_newline_keeps_the_line(tmp_path, capsys, sep):
    p = tmp_path / "ff.bio"
    p.write_text(f"x = 1\n{sep}print zz\n", encoding="utf-8")
    assert main(["run", str(p)]) == 2
    err = capsys.readouterr().err
    assert f"{p}:2:" in err, err
    assert "print zz" in err and "Traceback" not in err
    lines = err.split("\n")
    assert lines[1] == "   print zz", err  # the odd space quoted as a space
    assert lines[2].index("^") == lines[1].index("zz"), err


def test_the_formfeed_is_kept_in_the_script_text(tmp_path):
    p = tmp_path / "ff.bio"
    p.write_bytes(b"x = 1\n\fy = 2\r\nz = 3\rprint x\n")
    assert Script.file(p).text == "x = 1\n\fy = 2\nz = 3\nprint x"


@pytest.mark.parametrize("text, line", [
    ("x = 1\n\fprint zz\n", 2),
    ("x = 1\r\n\fprint zz\r\n", 2),
    ("x = 1 \f y = 2\nprint zz\n", 2),
])
def test_source_text_given_directly_counts_newlines(text, line):
    prog = parse(text, "<s>")
    from dslc.check.program import check_program

    with pytest.raises(DslcError) as info:
        check_program(prog)
    e = info.value
    assert e.span.line == line
    quoted = e.render().split("\n")[1]
    assert "print zz" in quoted and "\r" not in quoted


def test_source_lines():
    assert source_lines("a\n\fb\r\nc\n") == ["a", "\fb", "c"]
    assert source_lines("a") == ["a"]
    assert source_lines("") == []


def test_a_print_after_a_form_feed_is_labelled_by_its_expression(tmp_path, capsys):
    p = tmp_path / "ff.bio"
    p.write_text("x = 1\n\fprint x\n\vprint x + 1\n")
    assert main(["run", str(p)]) == 0
    assert capsys.readouterr().out.split("\n")[:2] == ["x = 1", "x + 1 = 2"]


def test_an_error_in_a_matrix_block_after_a_form_feed(tmp_path, capsys):
    p = tmp_path / "m.bio"
    p.write_text("define matrix m[dna] {\n A C G T\n\f\nA 1 0 0 0\nC 0 1 0 0\nG 0 0 1 0\n"
                 "T 0 0 0 x\n}\nprint 1\n")
    assert main(["run", str(p)]) == 2
    err = capsys.readouterr().err
    assert f"{p}:7:" in err and "T 0 0 0 x" in err, err
