"""Arguments outside their domain and tables too large for the machine: one
clear error on every backend, before anything is allocated."""

from __future__ import annotations

import pytest

from tests.cli.test_errors import expect_error

BACKENDS = ("interp", "cpu", "cuda")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("arg, shown", [("9", "9"), ("-1", "-1"), ("inf", "inf")])
def test_index_argument_of_a_function_without_table(capsys, write_bio, backend, arg, shown):
    p = write_bio(f"""\
        int f(seq[dna] s, index[s] i) = i + 1
        print f("ACGT", 2)
        print f("ACGT", {arg})
        """)
    err = expect_error(capsys, p, line=3, args=("run", "--backend", backend),
                       contains=(f"index argument i = {shown} is outside its domain 0..4",
                                 'f("ACGT"', "print f(\"ACGT\""))
    assert "Traceback" not in err


@pytest.mark.parametrize("backend", ("interp", "cpu"))
def test_index_argument_in_a_map(capsys, write_bio, backend):
    p = write_bio("""\
        int f(seq[dna] s, index[s] i) = i + 1
        xs = load(seq[dna], "xs.fa")
        print map(f, xs (*) 3)
        """, xs__fa=">long\nACGTACGT\n>short\nAC\n")
    expect_error(capsys, p, line=3, args=("run", "--backend", backend),
                 contains=("index argument i = 3 is outside its domain 0..2", "short"))
