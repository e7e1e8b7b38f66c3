"""``dslc run``'s output when something goes wrong: what was printed before a
failing statement is still written (docs/robustness.md), and a failed write to
standard output is one line, not a traceback."""

from __future__ import annotations

import json
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
