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


EDIT = """\
    int d(seq[dna] s, seq[dna] t, index[s] i, index[t] j)
      | i == 0 = j
      | j == 0 = i
      | otherwise = min(d(i - 1, j) + 1, d(i, j - 1) + 1,
                        d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1))
    s = "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTAC"
    t = "ACGTTCGTACGTACGAACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACCTACGTACGTAC"
    """


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_table_too_large_is_refused_before_allocating(capsys, write_bio, monkeypatch, backend):
    """A full table of two 5 Mb sequences once asked for 182 TiB; the limit is
    lowered here so that an 83 x 83 table stands for it."""
    monkeypatch.setenv("DSLC_MAX_TABLE_BYTES", "100000")
    p = write_bio(EDIT + "r = d(s, t)\nprint r[1, 1]\n")
    err = expect_error(capsys, p, line=8, args=("run", "--backend", backend),
                       contains=("the whole table of d (83 x 83 cells)", "DSLC_MAX_TABLE_BYTES",
                                 "d(s, t, 82, 82)", "d(s, t, len(s), len(t))", "r = d(s, t)"))
    assert "97.7 KiB allowed" in err


@pytest.mark.parametrize("backend", ("interp", "cpu"))
def test_the_final_cell_runs_where_the_table_would_not_fit(capsys, write_bio, monkeypatch,
                                                           backend):
    monkeypatch.setenv("DSLC_MAX_TABLE_BYTES", "100000")
    from dslc.cli import main
    p = write_bio(EDIT + "print d(s, t, 82, 82)\n")
    assert main(["run", "--backend", backend, str(p)]) == 0
    assert capsys.readouterr().out.strip().endswith("= 3")


def test_a_map_with_too_many_tasks_is_refused_before_building_them(capsys, write_bio,
                                                                  monkeypatch):
    monkeypatch.setenv("DSLC_MAX_TABLE_BYTES", "100000")
    p = write_bio(EDIT + 'xs = load(seq[dna], "xs.fa")\nprint map(d, xs (*) xs)\n',
                  xs__fa="".join(f">r{k}\nACGT\n" for k in range(20)))
    expect_error(capsys, p, line=9, contains=("map(d, ...) over 400 tasks",
                                              "DSLC_MAX_TABLE_BYTES"))


def test_compiled_storage_the_machine_cannot_hold_is_one_error(capsys, write_bio):
    """Reading two cells of ``d`` keeps its whole table (no window): 2 Mb x 2 Mb
    cannot be allocated, which is one error rather than a MemoryError's traceback."""
    p = write_bio(EDIT + """\
    int g(seq[dna] s, seq[dna] t) = d(s, t, len(s), len(t)) + d(s, t, 1, 1)
    xs = load(seq[dna], "big.fa")
    print g(xs[0], xs[0])
    """, big__fa=">chr\n" + "ACGT" * 500_000 + "\n")
    expect_error(capsys, p, line=10, args=("run", "--backend", "cpu"),
                 contains=("the compiled code of g could not allocate",))


def test_a_compiled_map_out_of_memory_is_one_error_not_an_interpreted_rerun(tmp_path,
                                                                           monkeypatch):
    """A MemoryError inside the CPU's parallel batch surfaces as a SystemError caused
    by it: that is out of memory, not a task to run again on the interpreter (which
    took minutes on these 2 Mb x 2 Mb tables before failing)."""
    import textwrap

    import dslc
    from dslc.cpu.backend import CpuBackend
    from dslc.errors import DslcError
    from dslc.lang.fasta import read_fasta
    from dslc.lang.stdlib import standard_alphabets

    def rerun(*args, **kwargs):
        raise AssertionError("the map was run again on the interpreter")

    monkeypatch.setattr(CpuBackend, "_rerun", rerun)
    (tmp_path / "big.fa").write_text("".join(f">c{k}\n{'ACGT' * 500_000}\n" for k in (1, 2)))
    xs = read_fasta(str(tmp_path / "big.fa"), standard_alphabets()["dna"])
    prog = dslc.compile(textwrap.dedent(EDIT) + "int g(seq[dna] s, seq[dna] t) = "
                        "d(s, t, len(s), len(t)) + d(s, t, 1, 1)\n", backend="cpu")
    with pytest.raises(DslcError, match="the compiled code of g could not allocate"):
        prog.map("g", xs, xs)
