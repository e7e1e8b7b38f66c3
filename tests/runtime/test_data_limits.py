"""Hostile data files: limits on what a load reads, and files that are not text.

Limits are lowered through their settings, so no test needs a large file."""

from __future__ import annotations

import gzip
import os
import tempfile
import tracemalloc
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.errors import DslcError, Span
from dslc.lang.fasta import read_fasta, read_text, text_lines
from dslc.lang.stdlib import standard_alphabets

DNA = standard_alphabets()["dna"]
SPAN = Span("prog.bio", 3, 6)


def _error(path, alphabet=DNA) -> DslcError:
    with pytest.raises(DslcError) as e:
        read_fasta(str(path), alphabet, SPAN)
    assert e.value.span == SPAN and str(path) in e.value.message
    return e.value


def _bomb(path, expanded: int) -> None:
    """A gzip file of one record of ``expanded`` bases, written without holding it."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"ACGT" * (1 << 18)
    with open(path, "wb") as fh:
        fh.write(z.compress(b">bomb\n"))
        for _ in range(expanded // len(block)):
            fh.write(z.compress(block))
        fh.write(z.flush())


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_not_a_text_file():
    e = _error("/dev/zero")
    assert "not a text file" in e.message and "line 1" in e.message and "NUL" in e.message


def test_nul_bytes_name_their_line(tmp_path):
    p = tmp_path / "nul.fa"
    p.write_bytes(b">a\nACGT\n>b\nAC\x00\x00GT\n")
    e = _error(p)
    assert "not a text file" in e.message and "line 4" in e.message and "NUL" in e.message


def test_bytes_that_are_not_utf8_name_their_line(tmp_path):
    p = tmp_path / "latin.fa"
    p.write_bytes(b">a\nACGT\n\xff\xfeAC\n")
    e = _error(p)
    assert "not a text file" in e.message and "line 3" in e.message


def test_a_file_past_the_load_limit_stops(tmp_path, monkeypatch):
    p = tmp_path / "big.fa"
    p.write_text(">a\n" + "ACGT\n" * 1000)
    monkeypatch.setenv("DSLC_MAX_LOAD_BYTES", "1000")
    e = _error(p)
    assert "DSLC_MAX_LOAD_BYTES" in e.message and "1,000" in e.message
    monkeypatch.setenv("DSLC_MAX_LOAD_BYTES", "5003")
    assert len(read_fasta(str(p), DNA)[0]) == 4000


def test_a_gzip_bomb_stops_early_without_expanding(tmp_path, monkeypatch):
    p = tmp_path / "bomb.fa.gz"
    _bomb(p, 64 << 20)
    assert p.stat().st_size < 1 << 20
    monkeypatch.setenv("DSLC_MAX_LOAD_BYTES", str(4 << 20))
    tracemalloc.start()
    try:
        e = _error(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "DSLC_MAX_LOAD_BYTES" in e.message and "uncompressed" in e.message
    assert peak < 24 << 20  # streamed: the 64 MiB were never held


def test_a_record_past_the_residue_limit_names_record_and_line(tmp_path, monkeypatch):
    p = tmp_path / "long.fa"
    p.write_text(">short\nACGT\n>long one\nACGTAC\nGTACG\nA\n")
    monkeypatch.setenv("DSLC_MAX_RECORD_RESIDUES", "10")
    e = _error(p)
    assert "'long'" in e.message and "DSLC_MAX_RECORD_RESIDUES" in e.message
    assert "line 5" in e.message
    monkeypatch.setenv("DSLC_MAX_RECORD_RESIDUES", "12")
    assert [len(r) for r in read_fasta(str(p), DNA)] == [4, 12]


def test_one_line_longer_than_any_record_stops_while_reading(tmp_path, monkeypatch):
    p = tmp_path / "line.fa"
    p.write_text(">a\n" + "A" * 300_000 + "\n")
    monkeypatch.setenv("DSLC_MAX_RECORD_RESIDUES", "10")
    monkeypatch.setattr("dslc.lang.fasta._CHUNK", 100_000)
    e = _error(p)
    assert "line 2" in e.message and "DSLC_MAX_RECORD_RESIDUES" in e.message


def test_a_bad_setting_is_one_error(tmp_path, monkeypatch):
    p = tmp_path / "ok.fa"
    p.write_text(">a\nACGT\n")
    monkeypatch.setenv("DSLC_MAX_LOAD_BYTES", "lots")
    with pytest.raises(DslcError) as e:
        read_fasta(str(p), DNA, SPAN)
    assert "DSLC_MAX_LOAD_BYTES" in e.value.message


def test_every_loader_reads_through_the_same_limits(tmp_path, monkeypatch):
    p = tmp_path / "tree.nwk.gz"
    p.write_bytes(gzip.compress(b"(a:1,b:2);\n" + b" " * 5000))
    assert read_text(str(p), SPAN, "Newick file").startswith("(a:1,b:2);")
    monkeypatch.setenv("DSLC_MAX_LOAD_BYTES", "1000")
    with pytest.raises(DslcError) as e:
        read_text(str(p), SPAN, "Newick file")
    assert "Newick file" in e.value.message and "DSLC_MAX_LOAD_BYTES" in e.value.message


def test_line_numbers_survive_chunk_boundaries(tmp_path, monkeypatch):
    """A CRLF, a UTF-8 character or a line cut by chunk boundaries still reads right."""
    monkeypatch.setattr("dslc.lang.fasta._CHUNK", 7)
    p = tmp_path / "crlf.fa"
    p.write_bytes(">a é\r\nACGTACGTACGTACGTAC\r\nAC\r\rGT\r\n>b\r\nNN\r\n".encode())
    with pytest.raises(DslcError) as e:
        read_fasta(str(p), DNA, SPAN)
    assert "line 7" in e.value.message and "'N'" in e.value.message
    p.write_bytes(">a é\r\nACGTACGTACGTACGTAC\r\nAC\r\rGT\r\n>b\r\nCC".encode())
    assert [r.text for r in read_fasta(str(p), DNA)] == ["ACGTACGTACGTACGTAC" + "ACGT", "CC"]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="A\r\n é>\x0c\u2028", max_size=60), st.integers(1, 9))
def test_streamed_lines_are_those_of_splitlines(text, chunk):
    """Whatever the chunk size, the streamed lines (and their numbers) are those
    of reading the whole text at once."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.txt")
        with open(p, "wb") as fh:
            fh.write(text.encode())
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("dslc.lang.fasta._CHUNK", chunk)
            got = list(text_lines(p, SPAN))
    assert got == list(enumerate(text.splitlines(), 1))
