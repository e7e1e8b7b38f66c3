"""``dslc run --align``: each printed row of a hit table gets its alignment (the
row's task traced again after shaping), as columns in TSV and in JSON lines (1-based,
inclusive coordinates); each alignment is valid and, rescored independently, gives
parasail's score and the row's; a map whose derivation is no alignment is one clear
error."""

from __future__ import annotations

import json

import parasail
import pytest

from dslc.cli import main
from dslc.runtime.hits import ALIGNED
from tests.conftest import EXAMPLES
from tests.trace.test_alignments import _rescore

SEARCH = str(EXAMPLES / "search.bio")


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main(["run", "--quiet", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _records(path: str) -> dict[str, str]:
    text = (EXAMPLES / "data" / path).read_text()
    return {r.split("\n")[0].split()[0]: "".join(r.split("\n")[1:]) for r in text.split(">")[1:]}


def _blosum62(x: str, y: str) -> int:
    m = parasail.blosum62
    return int(m.matrix[m.mapper[ord(x)], m.mapper[ord(y)]])


def test_tsv_rows_carry_their_alignments(capsys):
    code, out, err = _run(capsys, SEARCH, "--backend", "cpu", "--format", "tsv",
                          "--top-total", "6", "--align")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("# evalue: ")  # the statistics' note, then the table
    lines = lines[1:]
    head = lines[0].split("\t")
    assert head == ["query", "subject", "score", "bits", "evalue", *ALIGNED]
    queries, db = _records("queries.fasta"), _records("db.fasta")
    rows = [dict(zip(head, line.split("\t"))) for line in lines[1:]]
    assert len(rows) == 6
    for row in rows:
        q, t = queries[row["query"]], db[row["subject"]]
        a = _Aligned(row)
        # search.bio's 11/1 (a gap of length L costs 11 + L) is parasail's 12/1
        want = parasail.sw_trace_striped_16(q, t, 12, 1, parasail.blosum62).score
        assert _rescore(a, q, t, _blosum62, (11, 1)) == int(row["score"]) == want
        assert row["qseq"].replace("-", "") == q[a.starts[0]:a.ends[0]]
        assert row["sseq"].replace("-", "") == t[a.starts[1]:a.ends[1]]
        assert int(row["length"]) == len(row["qseq"]) == len(row["sseq"])
        assert int(row["nident"]) == sum(x == y for x, y in zip(row["qseq"], row["sseq"]))


class _Aligned:
    """A row's alignment as ``_rescore`` reads one (0-based starts, exclusive ends:
    the row's 1-based inclusive coordinates less one at the start)."""

    def __init__(self, row: dict):
        self.starts = (int(row["qstart"]) - 1, int(row["sstart"]) - 1)
        self.ends = (int(row["qend"]), int(row["send"]))
        self.cigar = "" if row["cigar"] == "-" else row["cigar"]


def test_jsonl_rows_carry_their_alignments(capsys):
    code, out, err = _run(capsys, SEARCH, "--backend", "cpu", "--format", "jsonl",
                          "--top-total", "2", "--align")
    assert code == 0, err
    objs = [json.loads(x) for x in out.splitlines()]
    assert len(objs) == 2
    queries, db = _records("queries.fasta"), _records("db.fasta")
    for obj in objs:
        q, t = queries[obj["query"]], db[obj["subject"]]
        a = _Aligned(obj)
        assert _rescore(a, q, t, _blosum62, (11, 1)) == obj["score"]
        assert obj["qseq"].replace("-", "") == q[a.starts[0]:a.ends[0]]
        assert obj["length"] == len(obj["qseq"]) == len(obj["sseq"])


def test_only_the_printed_rows_are_traced(capsys, monkeypatch):
    from dslc.runtime import trace_forms

    asked = []
    traced = trace_forms.map_alignments

    def counted(runner, func, batch, span, ks):
        asked.append(list(ks))
        return traced(runner, func, batch, span, ks)
    monkeypatch.setattr(trace_forms, "map_alignments", counted)
    code, _, err = _run(capsys, SEARCH, "--backend", "cpu", "--format", "tsv",
                        "--top-total", "3", "--align")
    assert code == 0, err
    assert [len(ks) for ks in asked] == [3]  # one call, for the three rows printed


def test_timings_show_the_rows_alignments(capsys):
    """``--timings`` has a row for the alignments made as the hit table is printed
    (after the run returned), on the CPU backend that filled their tables."""
    code, out, err = _run(capsys, SEARCH, "--backend", "cpu", "--format", "tsv",
                          "--top-total", "4", "--align", "--timings")
    assert code == 0, err
    rows = [ln.split() for ln in err.splitlines() if ln.startswith("  ")]
    whats = [" ".join(r[:4]) for r in rows[1:-1]]
    assert whats[-1] == "alignments of 4 tasks" and whats[0].startswith("map of ")
    aligned = rows[-2]
    assert aligned[4:6] == ["sw", "cpu"] and aligned[7] in ("compiled", "cache", "-")
    assert all(float(x) >= 0 for x in [aligned[6], *aligned[8:]])
    wall = float(rows[-1][1])
    assert wall >= float(aligned[-1]) + float(rows[1][-1]) - 1e-3  # the map's, and theirs
    assert len(out.splitlines()) == 6  # the statistics' note, the header and 4 rows
    code, _, err = _run(capsys, SEARCH, "--backend", "cpu", "--format", "tsv",
                        "--top-total", "4", "--timings")
    assert code == 0 and "alignments of" not in err  # nothing traced: no row


NO_PATH = """\
int f(seq[protein] s, seq[protein] t) = 10 * len(s) + len(t)
q = load(seq[protein], "q.fa")
d = load(seq[protein], "d.fa")
print map(f, q (*) d)
"""


@pytest.fixture
def no_path(write_bio):
    return str(write_bio(NO_PATH, q__fa=">a\nMKV\n", d__fa=">x\nAAAA\n>y\nCC\n"))


@pytest.mark.parametrize("args, words", [
    ([SEARCH, "--top", "2", "--align"], ["--format tsv"]),
    (["NO_PATH", "--format", "tsv", "--top", "1", "--align"],
     [".bio:4:7", "alignments (--align", "no alignment", "^"]),
    ([str(EXAMPLES / "edit_distance.bio"), "--format", "tsv", "--align"],
     ["prints none"]),
])
def test_align_errors(capsys, no_path, args, words):
    args = [no_path if a == "NO_PATH" else a for a in args]
    code, out, err = _run(capsys, "--backend", "interp", *args)
    assert code == 2 and "Traceback" not in err, err
    for w in words:
        assert w in err, err
