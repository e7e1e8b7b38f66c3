"""The byte reader (fasta._read_packed) against the line reader (the reference) on
random FASTA files: headers with leading blanks, tabs, empty names and
descriptions; wrapped, blank, comment and Windows lines; spaces inside sequence
lines; lower case; chunk boundaries anywhere. Same records and names, or both
refuse; and a clean file never leaves the byte reader."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.errors import DslcError
from dslc.lang import fasta
from dslc.lang.fasta import parse_fasta_text
from dslc.lang.stdlib import standard_alphabets

DNA = standard_alphabets()["dna"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

_WORD = st.text("abcXY_.|-09", max_size=6)
_BLANK = st.sampled_from(["", " ", "\t", "  ", " \t"])
_SEQ = st.text("ACGTacgt", min_size=0, max_size=9)


@st.composite
def headers(draw) -> str:
    desc = draw(st.one_of(st.just(""), st.builds(lambda b, w: b + w, _BLANK.filter(bool), _WORD)))
    return ">" + draw(_BLANK) + draw(_WORD) + desc


@st.composite
def fasta_files(draw, spaced: bool) -> str:
    """A file of up to six records; ``spaced``: whitespace inside sequence lines,
    comments, blank and Windows lines too."""
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        lines.append(draw(headers()))
        for _ in range(draw(st.integers(0, 3))):
            seq = draw(_SEQ)
            if spaced:
                seq = draw(st.sampled_from(["", " ", "\t"])).join(seq) + draw(_BLANK)
                if draw(st.booleans()):
                    lines.append(draw(st.sampled_from(["", ";note", "   "])))
            lines.append(seq)
    end = "\r\n" if spaced and draw(st.booleans()) else "\n"
    return end.join(lines) + draw(st.sampled_from([end, ""]))


def _read(read):
    try:
        return [(r.name, r.text) for r in read()]
    except DslcError as e:
        return e.message


def _both(tmp_path, text: str, chunk: int, monkeypatch):
    path = tmp_path / "f.fa"
    path.write_bytes(text.encode())
    monkeypatch.setattr(fasta, "_CHUNK", chunk)
    packed = fasta._read_packed(str(path), DNA, None)
    want = _read(lambda: parse_fasta_text(text, DNA, str(path)))
    return packed, want, path


@SETTINGS
@given(st.booleans().flatmap(fasta_files), st.integers(1, 40))
def test_byte_reader_equals_line_reader(tmp_path, monkeypatch, text, chunk):
    packed, want, path = _both(tmp_path, text, chunk, monkeypatch)
    if packed is not None:
        from dslc.lang.records import Records

        assert [(r.name, r.text) for r in Records(packed)] == want
    assert _read(lambda: fasta.read_fasta(str(path), DNA)) == want


@SETTINGS
@given(fasta_files(spaced=False), st.integers(1, 40))
def test_clean_files_stay_on_the_byte_reader(tmp_path, monkeypatch, text, chunk):
    packed, want, _ = _both(tmp_path, text, chunk, monkeypatch)
    assert packed is not None or isinstance(want, str)



def _outcome(read):
    try:
        return [(r.name, r.text) for r in read()]
    except DslcError as e:
        return e.message


@pytest.mark.parametrize("data", [b">a\x01b c\nACGT\n", b">a\nAC\x7fGT\n", b">a\nAC\x02GT\n",
                                  b">a\nACGT\n;c\x0b\n>b\nA\n", b">a\nACGT\n;c\x03\n>b\nA\n"])
def test_a_control_byte_in_any_line_reads_as_the_line_reader_reads_it(tmp_path, data):
    """The byte reader checks header and comment lines for control bytes and
    declines those of sequence lines through its table: either way the file
    gives the line reader's records or error."""
    path = tmp_path / "x.fa"
    path.write_bytes(data)
    protein = standard_alphabets()["protein"]
    assert _outcome(lambda: fasta.read_fasta(str(path), protein)) == _outcome(
        lambda: fasta._read_lines(str(path), protein, None))
