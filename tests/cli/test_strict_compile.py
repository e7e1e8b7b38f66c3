"""Fall-backs to the interpreter are said loudly, and ``DSLC_STRICT_COMPILE=1``
refuses them: one located error naming the function and the reason, exit 2, on
every backend that compiles; the interpreter and compiled programs are unaffected."""

from __future__ import annotations

import pytest

from dslc import settings as dslc_settings
from dslc.cli import main
from tests.cli.test_errors import expect_error, run_cli

# a helper reading a table: the CPU backend leaves its caller to the interpreter
FALLS_BACK = """\
int g(int i)
  | i == 0 = 1
  | otherwise = g(i - 1) * 2

int h(int n) = g(n) + 1

int top(int n) = h(n) * 3

print top(5)
"""
WHY = "helper reading the table of g"


@pytest.fixture(autouse=True)
def _lenient():
    """``--setting`` holds for the rest of the process: each test starts without it."""
    dslc_settings._OPTIONS.pop("DSLC_STRICT_COMPILE", None)
    yield
    dslc_settings._OPTIONS.pop("DSLC_STRICT_COMPILE", None)


def test_explain_says_first_what_runs_on_the_interpreter(capsys, write_bio):
    code, out, _ = run_cli(capsys, "explain", str(write_bio(FALLS_BACK)))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("NOT COMPILED: 1 function of this script runs on the interpreter")
    assert lines[1] == f"  top: {WHY}"


def test_verbose_says_not_compiled(capsys, write_bio):
    code, out, err = run_cli(capsys, "run", "-v", "--backend", "cpu", str(write_bio(FALLS_BACK)))
    assert code == 0 and out.strip() == "top(5) = 99"
    assert f"ran on interp, NOT COMPILED (cpu cannot compile it: {WHY})" in err


@pytest.mark.parametrize("backend", ["cpu", "cuda", "auto"])
def test_strict_compile_refuses_a_fall_back(capsys, write_bio, backend):
    p = write_bio(FALLS_BACK)
    err = expect_error(capsys, p, line=7, col=1,
                       args=("run", "--backend", backend, "--setting", "DSLC_STRICT_COMPILE=1"),
                       contains=(f"top cannot be compiled ({WHY})", "DSLC_STRICT_COMPILE=1"))
    assert err.count("error:") == 1


def test_strict_compile_from_the_environment(capsys, write_bio, monkeypatch):
    monkeypatch.setenv("DSLC_STRICT_COMPILE", "1")
    expect_error(capsys, write_bio(FALLS_BACK), line=7, args=("run", "--backend", "cpu"),
                 contains=("top cannot be compiled",))
    # the interpreter is no fall-back: it runs, and explain still reports, not refuses
    code, out, _ = run_cli(capsys, "run", "--backend", "interp", str(write_bio(FALLS_BACK)))
    assert code == 0 and out.strip() == "top(5) = 99"
    code, out, _ = run_cli(capsys, "explain", str(write_bio(FALLS_BACK)))
    assert code == 0 and out.startswith("NOT COMPILED")


def test_strict_compile_runs_what_compiles(capsys, write_bio):
    p = write_bio("""\
        int ways(int n)
          | n <= 1 = 1
          | otherwise = ways(n - 1) + ways(n - 2)
        print ways(30)
        """)
    code, out, err = run_cli(capsys, "run", "--backend", "cpu",
                             "--setting", "DSLC_STRICT_COMPILE=1", str(p))
    assert (code, out.strip()) == (0, "ways(30) = 1346269"), err


def test_a_bad_value_is_refused(capsys, write_bio):
    code, _, err = run_cli(capsys, "run", "--setting", "DSLC_STRICT_COMPILE=yes",
                           str(write_bio(FALLS_BACK)))
    assert code == 2 and "DSLC_STRICT_COMPILE" in err and "Traceback" not in err
