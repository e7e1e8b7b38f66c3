"""Every kind of bad input gets one file:line:col message with the source line
and a caret, exit status 2, and no traceback."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from dslc.cli import main

LOC = re.compile(r"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)


def run_cli(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def expect_error(capsys, path, *, line, col=None, contains=(), args=("run",)):
    code, out, err = run_cli(capsys, *args, str(path))
    assert code == 2, (out, err)
    assert "Traceback" not in err
    m = LOC.search(err)
    assert m, err
    assert m["file"].endswith(path.name)
    assert int(m["line"]) == line, err
    if col is not None:
        assert int(m["col"]) == col, err
    lines = err.splitlines()
    caret = [k for k, s in enumerate(lines) if s.strip().startswith("^")]
    assert caret, f"no caret in:\n{err}"
    for text in contains:
        assert text in err, err
    return err


def test_syntax_error_says_what_was_expected(capsys, write_bio):
    p = write_bio("""\
        int f(int i) =
          if i == 0 then 1 else
        r = f(3)
        """)
    err = expect_error(capsys, p, line=3, contains=("syntax error", "expected"))
    assert "r = f(3)" in err


def test_unexpected_character(capsys, write_bio):
    p = write_bio("int f(int i) = i $ 2\n")
    expect_error(capsys, p, line=1, col=18, contains=("unexpected character '$'",))


def test_undefined_name(capsys, write_bio):
    p = write_bio("""\
        int f(seq[dna] s, index[s] i)
          | i == 0 = 0
          | otherwise = f(i - 1) + gapp
        """)
    expect_error(capsys, p, line=3, col=28, contains=("undefined name 'gapp'",),
                 args=("check",))


def test_wrong_number_of_arguments_in_recursive_call(capsys, write_bio):
    p = write_bio("""\
        int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
          | i == 0 or j == 0 = 0
          | otherwise = d(i - 1, j, 3) + 1
        """)
    expect_error(capsys, p, line=3, contains=("d takes 4 arguments, got 3", "recursive"),
                 args=("check",))


def test_adding_a_symbol_to_an_int(capsys, write_bio):
    p = write_bio("""\
        int f(seq[dna] s, index[s] i)
          | i == 0 = 0
          | otherwise = f(i - 1) + s[i - 1]
        """)
    expect_error(capsys, p, line=3, contains=("cannot add a int and a symbol[dna]",),
                 args=("check",))


def test_unknown_alphabet(capsys, write_bio):
    p = write_bio("int f(seq[dan] s) = len(s)\n")
    expect_error(capsys, p, line=1, col=7, contains=("unknown alphabet 'dan'",), args=("check",))


def test_symbol_outside_alphabet_names_record_and_position(capsys, write_bio):
    p = write_bio("""\
        int l(seq[dna] s) = len(s)
        db = load(seq[dna], "reads.fasta")
        print map(l, db)
        """, reads__fasta=">r1\nACGT\n>r2 second\nACGTAC\nGGXA\n")
    expect_error(capsys, p, line=2, contains=("r2", "position 9", "'X'"))


def test_symbol_outside_alphabet_in_a_literal(capsys, write_bio):
    p = write_bio("""\
        int l(seq[dna] s) = len(s)
        print l("ACGU")
        """)
    expect_error(capsys, p, line=2, contains=("'U'", "position 4"))


def test_missing_file(capsys, write_bio):
    p = write_bio("""\
        x = load(seq[dna], "nowhere.fasta")
        """)
    expect_error(capsys, p, line=1, contains=("nowhere.fasta",))


def test_missing_script(capsys, tmp_path):
    code, out, err = run_cli(capsys, "run", str(tmp_path / "absent.bio"))
    assert code == 2 and "absent.bio" in err and "Traceback" not in err


def test_recursive_argument_outside_domain(capsys, write_bio):
    p = write_bio("""\
        int f(seq[dna] s, index[s] i)
          | otherwise = if i > 10 then 0 else f(i - 1) + 1
        print f("ACGT", 3)
        """)
    expect_error(capsys, p, line=2, contains=("outside its domain 0..4", "f(i - 1)", "-1"))


def test_integer_overflow(capsys, write_bio):
    p = write_bio("""\
        int p(int n)
          | n == 0 = 1
          | otherwise = p(n - 1) * 1000
        print p(10)
        print p(7)
        """)
    err = expect_error(capsys, p, line=3, contains=("integer overflow",))


def test_guards_without_otherwise(capsys, write_bio):
    p = write_bio("""\
        int f(int n)
          | n == 0 = 1
          | n > 0 = f(n - 1)
        """)
    expect_error(capsys, p, line=3, contains=("otherwise",), args=("check",))


def test_cycle_is_reported(capsys, write_bio):
    p = write_bio("""\
        int f(int n)
          | n == 0 = 0
          | otherwise = f(n)
        print f(3)
        """)
    expect_error(capsys, p, line=1, contains=("never ends",), args=("run", "--backend", "interp"))


def test_no_affine_schedule_names_the_calls(capsys, write_bio):
    p = write_bio("""\
        int f(int n)
          | n == 0 = 0
          | otherwise = f(n)
        print f(3)
        """)
    expect_error(capsys, p, line=3, contains=("no affine schedule", "f(n)"),
                 args=("run", "--backend", "cpu"))


def test_bad_define_value(capsys, write_bio):
    p = write_bio("const gap = 4\nprint gap\n")
    code, out, err = run_cli(capsys, "run", "-D", "gap=six", str(p))
    assert code == 2 and "six" in err and "Traceback" not in err
    code, out, err = run_cli(capsys, "run", "-D", "gapp=6", str(p))
    assert code == 2 and "gapp" in err


def test_real_exit_status_and_no_traceback(write_bio):
    p = write_bio("int f(int i) = i +\n")
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", str(p)], capture_output=True,
                       text=True)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert LOC.search(r.stderr)


@pytest.mark.parametrize("flag", ["--version"])
def test_version(capsys, flag):
    with pytest.raises(SystemExit) as e:
        main([flag])
    assert e.value.code == 0
    assert "dslc" in capsys.readouterr().out
