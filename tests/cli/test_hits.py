"""Hit tables: --format tsv and jsonl (a row per task, record names first, by
query then E-value), --sort, --top (per query), --top-total, --min-score,
--max-evalue, --columns, --header; --format json unchanged."""

from __future__ import annotations

import json

import pytest

from dslc.cli import main

SCRIPT = """\
int f(seq[protein] s, seq[protein] t) = 10 * len(s) + len(t)
q = load(seq[protein], "q.fa")
d = load(seq[protein], "d.fa")
score = map(f, q (*) d)
ev = evalue(score, q, d, blosum62, 11, 1)
print 2 * 3
print score
print ev
"""
FILES = {"q__fa": ">a\nMKV\n>b\nMKVLA\n", "d__fa": ">x\nAAAA\n>y\nCC\n>z\nW\n"}


@pytest.fixture
def script(write_bio):
    return str(write_bio(SCRIPT, **FILES))


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main(["run", "--backend", "interp", "--quiet", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _tsv(out: str) -> tuple[list[str], list[list[str]]]:
    lines = [x for x in out.splitlines() if x and not x.startswith("#")]
    return lines[0].split("\t"), [x.split("\t") for x in lines[1:]]


def test_tsv_one_row_per_task_with_names(capsys, script):
    code, out, err = _run(capsys, script, "--format", "tsv")
    assert code == 0, err
    assert out.splitlines()[0] == "# 2 * 3 = 6"  # not a hit: its text form, as a comment
    head, rows = _tsv(out)
    assert head == ["q", "d", "score", "ev"]
    assert [r[:3] for r in rows] == [["a", "x", "34"], ["a", "y", "32"], ["a", "z", "31"],
                                     ["b", "x", "54"], ["b", "y", "52"], ["b", "z", "51"]]


def test_top_keeps_the_best_of_each_query(capsys, script):
    code, out, err = _run(capsys, script, "--format", "tsv", "--top", "2")
    assert code == 0, err
    _, rows = _tsv(out)
    assert [r[:2] for r in rows] == [["a", "x"], ["a", "y"], ["b", "x"], ["b", "y"]]
    _, out, _ = _run(capsys, script, "--format", "tsv", "--top-total", "2")
    assert [r[:2] for r in _tsv(out)[1]] == [["b", "x"], ["b", "y"]]
    _, out, _ = _run(capsys, script, "--format", "tsv", "--top-total", "4", "--top", "1")
    assert [r[:2] for r in _tsv(out)[1]] == [["a", "x"], ["b", "x"]]
    _, out, _ = _run(capsys, script, "--format", "tsv", "--sort", "score", "--min-score", "33",
                     "--max-evalue", "1e9")
    assert [r[2] for r in _tsv(out)[1]] == ["54", "52", "51", "34"]
    _, out, _ = _run(capsys, script, "--format", "tsv", "--sort", "d", "--top-total", "3")
    assert [r[:2] for r in _tsv(out)[1]] == [["a", "x"], ["b", "x"], ["a", "y"]]
    _, out, _ = _run(capsys, script, "--format", "tsv", "--sort", "d", "--top", "1")
    assert [r[:2] for r in _tsv(out)[1]] == [["a", "x"], ["b", "x"]]  # (x: each query's best)


def test_jsonl_one_object_per_task(capsys, script):
    code, out, err = _run(capsys, script, "--format", "jsonl", "--max-evalue", "1e-5")
    assert code == 0, err
    objs = [json.loads(x) for x in out.splitlines()]
    assert objs[0] == {"print": "2 * 3", "value": 6}
    assert [(o["q"], o["d"], o["score"]) for o in objs[1:]] == [("b", "x", 54), ("b", "y", 52),
                                                                ("b", "z", 51)]
    assert all(o["ev"] <= 1e-5 for o in objs[1:])


def test_json_is_unchanged(capsys, script):
    code, out, err = _run(capsys, script, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert list(got) == ["2 * 3", "score", "ev", "#notes"]  # the E-values' statistics
    assert list(got["#notes"]) == ["ev"]
    assert got["score"] == [[34, 32, 31], [54, 52, 51]]


@pytest.mark.parametrize("args, words", [
    (["--top", "2"], ["--format tsv"]),
    (["--format", "tsv", "--sort", "nope"], ["no column 'nope'", "score, ev"]),
    (["--format", "tsv", "--top", "0"], ["--top"]),
    (["--format", "tsv", "--top-total", "-1"], ["--top-total"]),
    (["--format", "tsv", "--columns", "q,nope"], ["no column 'nope'", "qseqid", "blast"]),
    (["--format", "tsv", "--columns", "q,,d"], ["--columns", "commas"]),
    (["--format", "tsv", "--columns", "bitscore"], ["bit-score", "bits("]),
    (["--format", "tsv", "--columns", "q,pident"], ["no alignment"]),
    (["--format", "jsonl", "--no-header"], ["--format tsv"]),
    (["--columns", "blast"], ["--format tsv"]),
])
def test_shaping_errors(capsys, script, args, words):
    code, out, err = _run(capsys, script, *args)
    assert code == 2 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def test_max_evalue_needs_an_evalue_column(capsys, write_bio):
    path = write_bio(SCRIPT.replace("print 2 * 3\n", "").replace("print ev\n", ""),
                     **FILES)
    code, _, err = _run(capsys, str(path), "--format", "jsonl", "--max-evalue", "1")
    assert code == 2 and "no E-value column" in err, err


def test_records_in_python(write_bio):
    import dslc
    from dslc.runtime.hits import records

    path = write_bio(SCRIPT.replace("print 2 * 3\n", ""), **FILES)
    score = dslc.compile(str(path), backend="interp").run()["score"]
    assert records(score)[:2] == [{"q": "a", "d": "x", "f": 34}, {"q": "a", "d": "y", "f": 32}]
    assert score.records()[-1] == {"q": "b", "d": "z", "f": 51}
