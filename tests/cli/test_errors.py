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


# --------------------------------------------------------------------------- hostile input

def chain(n: int, term: str = "n") -> str:
    return " + ".join([term] * n)


def test_a_long_chain_of_operators_runs_on_every_stage(capsys, write_bio):
    """400 chained operators is an honest program: checked, interpreted and
    compiled (Python refuses more than 200 nested parentheses in generated code)."""
    p = write_bio(f"int f(int n)\n  | n == 0 = 0\n  | otherwise = f(n - 1) + {chain(400)}\n"
                  "print f(3)\n")
    for args in (("check",), ("run", "--backend", "interp"), ("run", "--backend", "cpu")):
        code, out, err = run_cli(capsys, *args, str(p))
        assert code == 0, err
        if args[0] == "run":
            assert "f(3) = 2400" in out
    code, out, err = run_cli(capsys, "compile", str(p))
    assert code == 0 and "not compiled" not in out, out[-500:]


def test_the_python_api_takes_deep_programs_too():
    import threading

    import dslc
    from dslc import deep

    prog = dslc.compile(f"int f(int n) = {chain(400)}\n", backend="interp")
    assert prog.checked.ast.depth > deep.SHALLOW
    assert prog.f(2) == 800
    # only deep programs leave the caller's thread
    assert deep.run(deep.SHALLOW, threading.current_thread) is threading.current_thread()
    assert deep.run(deep.SHALLOW + 1, threading.current_thread) is not threading.current_thread()


def test_deeply_nested_reductions_run_on_the_interpreter(capsys, write_bio):
    """Python compiles no more than 20 nested loops: 16 nested sums in a cell
    run on the interpreter (and say so) rather than fail to compile."""
    body = "sum(k in 0...1 : " * 16 + "k" + ")" * 16
    p = write_bio(f"int f(int n)\n  | n == 0 = 0\n  | otherwise = f(n - 1) + {body}\n"
                  "print f(2)\n")
    code, out, err = run_cli(capsys, "compile", str(p))
    assert code == 0 and "not compiled" in out and "loops nested more than" in out, err
    code, out, err = run_cli(capsys, "run", "--backend", "cpu", str(p))
    assert code == 0 and "f(2) = 65536" in out, err


@pytest.mark.parametrize("text, col", [
    ("print " + "-" * 5000 + "1\n", 1005),
    ("print " + "if true then " * 3000 + "1" + " else 2" * 3000 + "\n", None),
], ids=["minus", "if"])
def test_too_deep_nesting_is_one_clear_error(capsys, write_bio, text, col):
    p = write_bio(text)
    err = expect_error(capsys, p, line=1, col=col, contains=("nested too deeply", "1000 levels"),
                       args=("check",))
    assert len(err) < 1000, err


def test_a_binary_file_is_not_a_script(capsys, tmp_path):
    p = tmp_path / "prog.bio"
    p.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe" * 20)
    # scripts and data files share one reader (runtime.fasta.text_lines): it names the
    # first byte no text file holds, a control byte here, before any UTF-8 decoding
    for data, why in ((b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe" * 20, "holds the byte 0x02"),
                      (b"print 1\x00\x00", "NUL")):
        p.write_bytes(data)
        code, out, err = run_cli(capsys, "check", str(p))
        assert code == 2 and "Traceback" not in err, err
        assert "prog.bio" in err and "not a text file" in err and why in err, err


def test_a_byte_order_mark_is_skipped(capsys, tmp_path):
    p = tmp_path / "prog.bio"
    p.write_bytes("\ufeffconst k = 4\nprint k + 1\n".encode())
    code, out, err = run_cli(capsys, "run", str(p))
    assert code == 0 and "k + 1 = 5" in out, err


@pytest.mark.parametrize("command", ["run", "check", "explain", "compile"])
def test_a_missing_file_is_never_run_as_source(capsys, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, command, "myscript.txt")
    assert code == 2 and "Traceback" not in err
    assert "cannot open script 'myscript.txt': no such file" in err, err


@pytest.mark.parametrize("command", ["run", "check", "explain", "compile"])
def test_source_text_takes_the_explicit_flag(capsys, command):
    code, out, err = run_cli(capsys, command, "-c", "int f(int n) = n + 1\nprint f(2)\n")
    assert code == 0, err
    if command == "run":
        assert "f(2) = 3" in out


def test_a_script_is_a_file_or_source_text(capsys, write_bio):
    p = write_bio("print 1\n")
    code, out, err = run_cli(capsys, "run")
    assert code == 2 and "takes a script file or -c TEXT" in err
    code, out, err = run_cli(capsys, "run", str(p), "-c", "print 2")
    assert code == 2 and "not both" in err


def test_syntax_error_in_source_text_points_into_it(capsys):
    code, out, err = run_cli(capsys, "check", "-c", "int f(int i) = i $ 2")
    assert code == 2 and LOC.search(err)["file"] == "<string>" and "^" in err


def test_a_keyword_cannot_name_a_function(capsys, write_bio):
    p = write_bio("int if(int then) = then\nprint 1\n")
    expect_error(capsys, p, line=1, col=5, contains=("'if' is a keyword",), args=("check",))


def test_a_duplicate_const_names_the_first(capsys, write_bio):
    p = write_bio("const gap = 4\nconst k = 1\nconst gap = 6\nprint gap\n")
    expect_error(capsys, p, line=3, col=1,
                 contains=("constant 'gap' is defined twice", "first at line 1",
                           f"{p}:1:1"), args=("run",))


EXPLAINED = """\
int d(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = d(i - 1) + 1
int g(int n) = n + 1
print d("ACGT", 4)
"""


def test_an_unknown_function_to_plot_lists_the_functions(capsys, write_bio, tmp_path):
    p = write_bio(EXPLAINED)
    png = str(tmp_path / "w.png")
    code, out, err = run_cli(capsys, "explain", str(p), "--plot", png, "--function", "nosuch")
    assert code == 2 and "Traceback" not in err
    assert "no function 'nosuch'" in err and "d, g" in err, err
    code, out, err = run_cli(capsys, "explain", str(p), "--plot", png, "--function", "g")
    assert code == 2 and "'g' has no domain to draw" in err and "recursive functions: d" in err
    code, out, err = run_cli(capsys, "explain", str(p), "--function", "d")
    assert code == 2 and "--plot" in err, err
    code, out, err = run_cli(capsys, "explain", str(p), "--plot", png, "--function", "d")
    assert code == 0 and "domain of d" in err, err


def test_plotting_a_script_without_recursion_is_an_error(capsys, write_bio, tmp_path):
    p = write_bio("int g(int n) = n + 1\nprint g(1)\n")
    code, out, err = run_cli(capsys, "explain", str(p), "--plot", str(tmp_path / "w.png"))
    assert code == 2 and "Traceback" not in err and "no recursive function" in err, err


@pytest.mark.parametrize("name, value, accepted", [
    ("DSLC_LANES", "xyz", ("1", "0")),
    ("DSLC_CUDA_STRATEGY", "bogus", ("auto", "block", "thread")),
    ("DSLC_CUDA_COOP", "yes", ("1", "0")),
    ("DSLC_CUDA_LANES", "16", ("1", "32")),
    ("DSLC_CUDA_TILE", "many", ("whole number",)),
])
def test_a_bad_setting_is_one_clear_error(capsys, write_bio, monkeypatch, name, value, accepted):
    """Checked before anything runs, even where the run would never read it."""
    p = write_bio("print 1\n")
    monkeypatch.setenv(name, value)
    code, out, err = run_cli(capsys, "check", str(p))
    assert code == 2 and "Traceback" not in err
    assert err.startswith(f"error: {name}: '{value}' is not "), err
    assert all(a in err for a in accepted) and len(err.splitlines()) == 1, err


def test_a_huge_line_is_quoted_around_the_caret(capsys, write_bio):
    p = write_bio("x = " + chain(5_000, "1") + " $ " + chain(5_000, "2") + "\n")
    err = expect_error(capsys, p, line=1, contains=("unexpected character '$'",),
                       args=("check",))
    assert len(err) < 1000, err[:2000]
    quoted, caret = err.splitlines()[1:3]
    assert quoted.startswith("  ...") and quoted.endswith("...")
    assert quoted[caret.index("^")] == "$", err
