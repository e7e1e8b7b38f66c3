"""Maps over earlier map results, and ``map(f, ... where keep)`` (dslc.runtime.filtered).

A map over a result runs over that result's tasks, each taking its own cell; a
map with ``where`` runs only the kept tasks, on every backend, and leaves the
others' cells absent. The skipped tasks here would fail (they read past the end of
their sequence), so a backend that ran them stops the script: the tests fail if
a task is run that should not be."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import dslc
from dslc.errors import DslcError
from dslc.runtime.hits import Shape, render_jsonl, render_tsv

XS = ">a\nACA\n>b\nT\n>c\nGGTC\n"
QS = ">q1\nAC\n>q2\nGGG\n"

SRC = """
define alphabet dna "ACGT"
bool long(seq[dna] s) = len(s) >= 3
// reads s[2]: past the end of a sequence shorter than 3
int third(seq[dna] s, int k) = if s[2] == 'A' then 10 * k else k
float scaled(int v, seq[dna] s, const z) = v * z + len(s)
prob odds(prob p, int v) = p * v
xs = load(seq[dna], "xs.fasta")
ok = map(long, xs)
t = map(third, xs (*) 2 where ok)
u = map(scaled, t (*) xs (*) 0.5)
p = map(odds, 0.5 (*) t)
q = map(odds, p (*) t)
print t
print u
print q
"""


def _run(write_bio, src, backend="interp", **params):
    path = write_bio(src, xs__fasta=XS, qs__fasta=QS)
    return dslc.compile(str(path), backend=backend).run(quiet=True, **params)


def test_where_skips_tasks_and_a_map_over_the_result_reads_each_cell(write_bio, backend, caplog):
    caplog.set_level(logging.INFO, logger="dslc")
    r = _run(write_bio, SRC, backend)
    assert r["t"].values.tolist() == [20, None, 2]
    assert r["u"].values.tolist() == [13.0, None, 5.0]
    assert r["t"][1] is None and r["u"][0] == 13.0
    q = r["q"].values.tolist()  # probabilities over probabilities, as logs
    assert q[1] is None and q[0] == pytest.approx(np.log(0.5 * 20 * 20))
    assert q[2] == pytest.approx(np.log(0.5 * 2 * 2))
    ran = [m for m in caplog.messages if m.startswith("map of")]
    assert any(m.startswith("map of 2 of 3 tasks third") for m in ran), ran
    assert any(m.startswith("map of 2 of 3 tasks scaled") for m in ran), ran


def test_without_where_the_skipped_task_fails(write_bio):
    """The check above can fail: the task it skips is an error when run."""
    with pytest.raises(DslcError, match="outside the sequence 'b'"):
        _run(write_bio, SRC.replace(" where ok", ""))


CROSS = """
define alphabet dna "ACGT"
int score(seq[dna] q, seq[dna] t) = len(q) * 10 + len(t)
bool keep(int v) = v % 2 == 0
float plus(seq[dna] t, int v, seq[dna] q) = v + len(q) / 10.0 + len(t) / 100.0
qs = load(seq[dna], "qs.fasta")
xs = load(seq[dna], "xs.fasta")
s = map(score, qs (*) xs)
k = map(keep, s)
w = map(score, qs (*) xs where k)
p = map(plus, xs (*) w (*) qs)
print w
print p
"""


def test_lists_are_aligned_with_the_axes_of_the_result_they_are_read_with(write_bio):
    r = _run(write_bio, CROSS)
    s = np.array([[23, 21, 24], [33, 31, 34]])  # len(q) * 10 + len(t)
    keep = s % 2 == 0
    assert r["w"].values.tolist() == np.where(keep, s, None).tolist()
    want = np.where(keep, s + np.array([[0.2], [0.3]]) + np.array([3, 1, 4]) / 100.0, None)
    assert r["p"].values.tolist() == want.tolist()
    assert [a.name for a in r["p"].axes] == ["qs", "xs"]


def test_hit_tables_leave_out_tasks_no_printed_result_ran(write_bio):
    path = write_bio(CROSS.replace("print w\n", "print s\nprint w\n"), xs__fasta=XS, qs__fasta=QS)
    from dslc.runtime.script import ScriptRunner
    from dslc import backends

    prog = dslc.compile(str(path), backend="interp")
    printed = ScriptRunner(prog.checked, backends.get("interp"), prog.base_dir, quiet=True).run()
    tsv = render_tsv(printed).splitlines()
    assert tsv[0].split("\t") == ["qs", "xs", "s", "w", "p"]
    assert tsv[2].split("\t") == ["q1", "b", "21", "", ""]  # s ran, w and p did not
    only = [(n, v) for n, v in printed if n != "s"]
    rows = render_tsv(only).splitlines()[1:]
    assert [r.split("\t")[:2] for r in rows] == [["q1", "c"], ["q2", "c"]]
    assert "null" not in render_jsonl(only)
    shaped = render_tsv(only, Shape(sort="w")).splitlines()[1:]
    assert [r.split("\t")[:3] for r in shaped] == [["q2", "c", "34"], ["q1", "c", "24"]]
    with_s = render_tsv(printed, Shape(min_score=20)).splitlines()[1:]  # s: every task
    assert len(with_s) == 6
    kept = render_tsv(printed[1:], Shape(min_score=30)).splitlines()[1:]  # w: absent fails
    assert [r.split("\t")[:3] for r in kept] == [["q2", "c", "34"]]


def test_a_where_with_nothing_kept_runs_nothing(write_bio):
    r = _run(write_bio, SRC.replace("len(s) >= 3", "len(s) >= 30"))
    assert r["t"].values.tolist() == [None] * 3 and r["u"].values.tolist() == [None] * 3


@settings(max_examples=10, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=6), st.data())
def test_filtered_maps_equal_the_whole_map_where_kept(tmp_path_factory, keep, data):
    """Any mask: the kept cells are the unfiltered map's, the others absent, and a
    map over the result is the whole-map computation at the kept cells."""
    seqs = [data.draw(st.text("ACGT", min_size=0, max_size=5)) for _ in keep]
    d = tmp_path_factory.mktemp("f")
    (d / "xs.fasta").write_text("".join(f">s{k}\n{s}\n" for k, s in enumerate(seqs)))
    (d / "p.bio").write_text(
        'define alphabet dna "ACGT"\n'
        "int gc(seq[dna] s) = sum(i in 0 ... len(s) - 1 : if s[i] == 'G' then 1 else 0)\n"
        'xs = load(seq[dna], "xs.fasta")\n'
        "whole = map(gc, xs)\nprint whole\n")
    whole = dslc.compile(str(d / "p.bio"), backend="interp").run(quiet=True)["whole"]
    whole = whole.values.tolist()
    mask = "".join("1" if k else "0" for k in keep)
    (d / "m.fasta").write_text("".join(f">s{k}\n{'G' * int(c)}\n" for k, c in enumerate(mask)))
    (d / "q.bio").write_text(
        'define alphabet dna "ACGT"\n'
        "int gc(seq[dna] s) = sum(i in 0 ... len(s) - 1 : if s[i] == 'G' then 1 else 0)\n"
        "bool on(int v) = v == 1\n"
        "int twice(int v, seq[dna] s) = 2 * v + len(s)\n"
        'xs = load(seq[dna], "xs.fasta")\nms = load(seq[dna], "m.fasta")\n'
        "ok = map(on, map(gc, ms))\n"
        "got = map(gc, xs where ok)\n"
        "next = map(twice, got (*) xs)\n"
        "print got\nprint next\n")
    r = dslc.compile(str(d / "q.bio"), backend="interp").run(quiet=True)
    assert r["got"].values.tolist() == [w if k else None for w, k in zip(whole, keep)]
    assert r["next"].values.tolist() == [2 * w + len(s) if k else None
                                         for w, s, k in zip(whole, seqs, keep)]


BAD_HEAD = """define alphabet dna "ACGT"
bool long(seq[dna] s) = len(s) >= 3
int size(seq[dna] s) = len(s)
int both(seq[dna] q, seq[dna] t) = len(q) + len(t)
float half(int v) = v / 2.0
int add(int a, int b) = a + b
float halfs(int v, seq[dna] s) = v / 2.0
xs = load(seq[dna], "xs.fasta")
qs = load(seq[dna], "qs.fasta")
ok = map(long, xs)
n = map(size, xs)
"""

BAD = [  # (last line, column of the error, words of its message)
    ("print map(size, xs where n)", 26, "where needs a map result of bools, got an array"),
    ("print map(size, xs where 3)", 26, "where needs a map result of bools, got an int"),
    ("print map(size, xs where ok[0])", 26, "where needs a map result of bools, got a bool"),
    ("print map(size, qs where ok)", 26, "this where is over xs (3), the map over qs (2)"),
    ("print map(both, qs (*) xs where ok)", 33, "this where is over"),
    ("print map(size, n)", 17, "gives each task an int, and 's' is a seq[dna]"),
    ("print map(half, qs)", 17, "expects a number"),
    ("print map(add, n (*) map(size, qs))", 22, "results read together need the same grid"),
    ("print map(halfs, n (*) qs)", 24, "no axis of the result"),
    ("print map(size, xs where ok)[3]", 7, "outside"),
    ("print map(size, xs where ok)[1]", 7, "where skipped"),
]


@pytest.mark.parametrize("line,col,words", BAD)
def test_bad_filters_and_operands_are_one_located_error(capsys, write_bio, line, col, words):
    from tests.cli.test_errors import expect_error

    path = write_bio(BAD_HEAD + line + "\n", xs__fasta=XS, qs__fasta=QS)
    err = expect_error(capsys, path, line=BAD_HEAD.count("\n") + 1, col=col,
                       args=("run", "--backend", "interp"))
    assert words in err, err


def test_bits_of_a_filtered_result_are_absent_where_it_is(write_bio):
    src = """
    int score(seq[protein] q, seq[protein] t) = len(q) * 10 + len(t)
    bool keep(int v) = v % 2 == 0
    qs = load(seq[protein], "qs.fasta")
    xs = load(seq[protein], "xs.fasta")
    w = map(score, qs (*) xs where map(keep, map(score, qs (*) xs)))
    print bits(w, blosum62, 11, 1)
    """
    cells = _run(write_bio, src)["bits(w, blosum62, 11, 1)"].values
    assert [[v is None for v in row] for row in cells] == [[True, True, False]] * 2
    assert all(isinstance(v, float) for v in cells[:, 2])
    with pytest.raises(DslcError, match="evalue takes the scores of a whole search"):
        _run(write_bio, src + "    print evalue(w, qs, xs, blosum62, 11, 1)\n")


def test_align_traces_the_rows_a_filtered_map_ran(capsys, write_bio):
    from dslc.cli import main

    path = write_bio("""
    define alphabet dna "ACGT"
    int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
      | i == 0 = j
      | j == 0 = i
      | otherwise = d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1)
            min d(i - 1, j) + 1 min d(i, j - 1) + 1
    bool near(int v) = v <= 2
    qs = load(seq[dna], "qs.fasta")
    xs = load(seq[dna], "xs.fasta")
    every = map(d, qs (*) xs)
    close = map(d, qs (*) xs where map(near, every))
    print close
    print every
    """, xs__fasta=XS, qs__fasta=QS)
    assert main(["run", str(path), "--backend", "interp", "--format", "tsv", "--align"]) == 0
    head, *rows = [r.split("\t") for r in capsys.readouterr().out.splitlines()]
    at = head.index(head[-1])  # the subject's gapped row, the alignment's last column
    assert [(r[2], r[3], r[at]) for r in rows] == [
        ("1", "1", "ACA"), ("2", "2", "T"), ("", "3", ""), ("", "3", ""), ("", "3", ""),
        ("2", "2", "GGTC")]


def test_a_map_over_a_result_gets_its_tasks_as_columns(write_bio):
    """The kept tasks only, each result's cells as one column, the records as the
    packed buffer read at each task's row, a shared operand once."""
    from dslc import backends
    from dslc.lang.batch import SeqColumn, Shared, ValueColumn
    from dslc.runtime.script import ScriptRunner

    path = write_bio(SRC, xs__fasta=XS)
    prog = dslc.compile(str(path), backend="interp")
    seen = {}

    def make(program, globals_):
        engine = backends.get("interp")(program, globals_)
        run_map = engine.map

        def recording(func, tasks, span, progress=None):
            seen[func] = tasks
            return run_map(func, tasks, span, progress)

        engine.map = recording
        return engine

    ScriptRunner(prog.checked, make, prog.base_dir, quiet=True).run()
    batch = seen["scaled"]
    assert len(batch) == 2
    assert isinstance(batch.columns["v"], ValueColumn) and batch.columns["v"].items == (20, 2)
    assert isinstance(batch.columns["s"], SeqColumn)
    assert batch.columns["s"].index.tolist() == [0, 2]  # records a and c
    assert isinstance(batch.columns["z"], Shared) and batch.columns["z"].value == 0.5


def test_the_python_map_takes_a_where(write_bio):
    path = write_bio(SRC, xs__fasta=XS)
    prog = dslc.compile(str(path), backend="interp")
    ok = prog.run(quiet=True) and prog._globals["ok"]
    xs = prog._globals["xs"]
    assert prog.map("third", xs, 2, where=ok).values.tolist() == [20, None, 2]
    texts = ["ACA", "T", "GGTC"]  # (strings: bound task by task)
    assert prog.map("third", texts, 2, where=np.array([True, False, True])).values.tolist() \
        == [20, None, 2]
    every = prog.map("long", xs, where=np.ones(3, bool)).values  # all kept: a plain array
    assert every.dtype == bool and every.tolist() == [True, False, True]
    with pytest.raises(DslcError, match="needs bools"):
        prog.map("third", xs, 2, where=prog._globals["t"])
    with pytest.raises(DslcError, match="has shape"):
        prog.map("third", xs, 2, where=np.array([True, False]))
