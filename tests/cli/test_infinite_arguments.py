"""Infinite recursive arguments and schedule coefficients past what a schedule may
use: every backend, `explain` and `compile` give the interpreter's located error
(exit status 2), never a traceback."""

from __future__ import annotations

import pytest

from tests.cli.test_errors import expect_error

INT_ARG = "int g(int i) = if i == 0 then 0 else g(i - 1) + 1\nprint g({v})\n"
INDEX_ARG = "int g(seq[dna] s, index[s] i) = if i == 0 then 0 else g(i - 1) + 1\n" \
            "print g(\"ACGT\", {v})\n"


@pytest.mark.parametrize("v", ["inf", "-inf"])
def test_an_infinite_int_argument_is_the_interpreters_error(capsys, write_bio, backend, v):
    p = write_bio(INT_ARG.format(v=v))
    expect_error(capsys, p, line=2, col=7, contains=(f"which gave {v}",),
                 args=("run", "--backend", backend))


def test_an_infinite_index_argument_is_the_interpreters_error(capsys, write_bio, backend):
    p = write_bio(INDEX_ARG.format(v="inf"))
    expect_error(capsys, p, line=2, col=7, contains=("i = inf is outside its domain",),
                 args=("run", "--backend", backend))


@pytest.mark.parametrize("command", ["explain", "compile"])
@pytest.mark.parametrize("src", [INT_ARG, INDEX_ARG])
def test_explain_and_compile_report_an_infinite_argument(capsys, write_bio, command, src):
    expect_error(capsys, write_bio(src.format(v="inf")), line=2, col=7, args=(command,))


def test_a_schedule_coefficient_past_2_31_is_refused(capsys, write_bio, backend):
    src = ("int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =\n"
           "    if i == 0 or j == 0 then 0 else d(i - 1, j - 1) + 1\n"
           "schedule d(i, j) = 99999999999999999999 * i + j\n"
           "print d(\"ACG\", \"AC\", 3, 2)\n")
    expect_error(capsys, write_bio(src), line=3, col=20, contains=("coefficient of i",),
                 args=("run", "--backend", backend))
