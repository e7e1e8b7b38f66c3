"""``dslc run``'s output when something goes wrong: what was printed before a
failing statement is still written (docs/robustness.md), and a failed write to
standard output is one line, not a traceback."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys

import pytest

from dslc.cli import main

FAILS_AFTER_A_PRINT = """\
    x = 5
    print x
    int g(int i) = g(i - 1)
    print g(2)
    """


def run_cli(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("fmt, expected", [
    ("text", "x = 5\n"),
    ("json", '{"x": 5}\n'),
    ("jsonl", '{"print": "x", "value": 5}\n'),
    ("tsv", "# x = 5\n"),
])
def test_values_printed_before_a_failing_statement_are_written(capsys, write_bio, fmt,
                                                                expected):
    p = write_bio(FAILS_AFTER_A_PRINT)
    code, out, err = run_cli(capsys, "run", "--quiet", "--format", fmt, str(p))
    assert code == 2, (out, err)
    assert out == expected
    assert "recursive argument i = -1" in err and "Traceback" not in err
    if fmt == "json":
        assert json.loads(out) == {"x": 5}


def test_nothing_printed_yet_writes_nothing(capsys, write_bio):
    p = write_bio("int g(int i) = g(i - 1)\nprint g(2)\n")
    code, out, err = run_cli(capsys, "run", "--quiet", "--format", "json", str(p))
    assert (code, out) == (2, "")
    assert "recursive argument" in err


def test_printed_values_come_before_the_error(write_bio):
    p = write_bio(FAILS_AFTER_A_PRINT)
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", "--quiet", str(p)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120)
    assert r.returncode == 2, r.stdout
    assert r.stdout.startswith("x = 5\n"), r.stdout
    assert "error: recursive argument" in r.stdout and "Traceback" not in r.stdout


def _run_to(stdout_redirect: str, path, *args):
    """``python -m dslc.cli run ARGS PATH`` with standard output redirected by the shell."""
    cmd = " ".join([shlex.quote(sys.executable), "-m", "dslc.cli", "run", "--quiet", *args,
                    shlex.quote(str(path)), stdout_redirect])
    return subprocess.run(["bash", "-c", cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=120)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_full_disk_on_standard_output_is_one_line(write_bio, fmt):
    p = write_bio("const gap = 1\nprint gap\n")
    r = _run_to("> /dev/full", p, "--format", fmt)
    assert r.returncode == 2, r.stderr
    assert r.stderr == "error: cannot write standard output: No space left on device\n"


def test_a_closed_standard_output_is_one_line(write_bio):
    p = write_bio("const gap = 1\nprint gap\n")
    r = _run_to(">&-", p)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: cannot write standard output: "), r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_a_closed_pipe_stays_quiet(write_bio):
    p = write_bio("int f(seq[dna] s) = len(s)\nd = load(seq[dna], \"d.fa\")\n"
                  "print map(f, d)\n",
                  d__fa="".join(f">r{k}\nACGT\n" for k in range(20000)))  # (380 kB)
    r = _run_to("| head -1", p, "--backend", "interp")
    assert r.stdout == "map(f, d) = map of f, 20000\n"
    assert r.stderr == ""
