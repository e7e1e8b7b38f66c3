"""``--columns blast``: examples/search.bio's hit table as BLAST's tabular output,
read by Biopython's BLAST tabular parser (``Bio.SearchIO`` "blast-tab"), with the
hits and coordinates of the rows' alignments (``--align``); the alignment columns
(pident, mismatch, gapopen, lengths) counted again here from the aligned rows."""

from __future__ import annotations

import io

import pytest

from dslc.cli import main
from tests.conftest import EXAMPLES

SearchIO = pytest.importorskip("Bio.SearchIO")
SEARCH = str(EXAMPLES / "search.bio")


def _run(capsys, *args) -> str:
    code = main(["run", "--quiet", "--backend", "cpu", SEARCH, "--format", "tsv", *args])
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def _records(path: str) -> dict[str, str]:
    text = (EXAMPLES / "data" / path).read_text()
    return {r.split("\n")[0].split()[0]: "".join(r.split("\n")[1:]) for r in text.split(">")[1:]}


def _gap_runs(row: str) -> int:
    return sum(1 for k, c in enumerate(row) if c == "-" and (k == 0 or row[k - 1] != "-"))


def test_blast_columns_read_by_biopython_as_the_alignments_say(capsys):
    blast = _run(capsys, "--columns", "blast")  # every row: gapped alignments among them
    aligned = _run(capsys, "--align", "--columns",
                   "query,subject,evalue,qstart,qend,sstart,send,qseq,sseq,qlen,slen")
    note, head, *lines = aligned.splitlines()
    assert note.startswith("# evalue: ")  # the statistics' note comes with the header
    rows = [dict(zip(head.split("\t"), line.split("\t"))) for line in lines]
    parsed = list(SearchIO.parse(io.StringIO(blast), "blast-tab"))
    hsps = [(q.id, hit.id, hsp) for q in parsed for hit in q for hsp in hit]
    assert len(hsps) == len(rows) >= 3
    assert [q.id for q in parsed] == list(dict.fromkeys(r["query"] for r in rows))
    queries, db = _records("queries.fasta"), _records("db.fasta")
    for (qid, sid, hsp), row in zip(hsps, rows):
        assert (qid, sid) == (row["query"], row["subject"])
        # Biopython's starts are 0-based, its ends exclusive: BLAST's 1-based inclusive
        assert (hsp.query_start + 1, hsp.query_end) == (int(row["qstart"]), int(row["qend"]))
        assert (hsp.hit_start + 1, hsp.hit_end) == (int(row["sstart"]), int(row["send"]))
        q, s = row["qseq"], row["sseq"]
        assert q.replace("-", "") == queries[qid][hsp.query_start:hsp.query_end]
        assert s.replace("-", "") == db[sid][hsp.hit_start:hsp.hit_end]
        assert (int(row["qlen"]), int(row["slen"])) == (len(queries[qid]), len(db[sid]))
        same = sum(x == y for x, y in zip(q, s))
        pairs = sum(x != "-" and y != "-" for x, y in zip(q, s))
        assert hsp.aln_span == len(q)
        assert hsp.ident_pct == pytest.approx(100 * same / len(q), abs=5e-4)
        assert hsp.mismatch_num == pairs - same
        assert hsp.gapopen_num == _gap_runs(q) + _gap_runs(s)
        assert hsp.evalue == pytest.approx(float(row["evalue"]), rel=1e-9)
    assert any(hsp.gapopen_num for *_, hsp in hsps)
    evalues = [[hsp.evalue for hit in q for hsp in hit] for q in parsed]
    assert all(e == sorted(e) for e in evalues)  # each query's hits best first


def test_the_header_follows_the_columns(capsys):
    assert not _run(capsys, "--columns", "blast", "--top", "1").startswith("qseqid")
    out = _run(capsys, "--columns", "blast,qlen", "--top", "1", "--header")
    assert out.splitlines()[0].startswith("# evalue: ")  # the statistics' note, then the header
    assert out.splitlines()[1].split("\t") == [
        "qseqid", "sseqid", "pident", "length", "mismatch", "gapopen", "qstart", "qend",
        "sstart", "send", "evalue", "bitscore", "qlen"]
    out = _run(capsys, "--columns", "sseqid,score,bitscore", "--top", "2", "--no-header")
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) == 6 and all(len(r) == 3 for r in rows)
