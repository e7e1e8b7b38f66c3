"""The byte reader (fasta._read_packed) against the line reader (the reference) on
random FASTA files: headers with leading blanks, tabs, empty names and
descriptions; wrapped, blank, comment and Windows lines; spaces inside sequence
lines; lower case; chunk boundaries anywhere. Same records and names, or both
refuse; and a clean file never leaves the byte reader."""

from __future__ import annotations

import gzip

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


# --------------------------------------------------------------------------- gzip in blocks

_RECORDS = "".join(f">s{k} d\n{'ACGT' * (k % 40)}\nac\n" for k in range(1500))  # 120 kB


def _records(read):
    return [(r.name, r.text) for r in read()]


def _buffer_sizes(monkeypatch) -> list[int]:
    """The byte reader's buffer length at each reservation (a growth shows as a change)."""
    sizes = []
    reserve = fasta._PackReader._reserve

    def spy(self, need):
        reserve(self, need)
        sizes.append(len(self.buffer))
    monkeypatch.setattr(fasta._PackReader, "_reserve", spy)
    return sizes


def test_a_gzipped_file_read_in_blocks_equals_the_plain_file_in_one_buffer(tmp_path,
                                                                           monkeypatch):
    """Decompressed a block at a time straight into the packed buffer, sized once
    from the gzip trailer (ISIZE): the buffer never grows (it did, by half again,
    when a gzipped file started from nothing), and the records are the plain file's."""
    plain, zipped = tmp_path / "db.fa", tmp_path / "db.fa.gz"
    plain.write_text(_RECORDS)
    zipped.write_bytes(gzip.compress(_RECORDS.encode()))
    monkeypatch.setattr(fasta, "_CHUNK", 97)  # many blocks, lines cut anywhere
    sizes = _buffer_sizes(monkeypatch)
    packed = fasta._read_packed(str(zipped), DNA, None)
    assert packed is not None and len(set(sizes)) == 1 and sizes[0] > len(packed.codes)
    from dslc.lang.records import Records

    assert [(r.name, r.text) for r in Records(packed)] == _records(
        lambda: fasta.read_fasta(str(plain), DNA))
    assert _records(lambda: fasta.read_fasta(str(zipped), DNA)) == _records(
        lambda: parse_fasta_text(_RECORDS, DNA))


def test_a_multi_member_gzip_file_reads_every_member(tmp_path, monkeypatch):
    """Concatenated gzip members are one file (``cat a.gz b.gz``); the trailer gives
    only the last member's size, so the buffer grows past it as before."""
    half = len(_RECORDS) // 2
    cut = _RECORDS.index(">", half)
    path = tmp_path / "two.fa.gz"
    path.write_bytes(gzip.compress(_RECORDS[:cut].encode())
                     + gzip.compress(_RECORDS[cut:cut + 40].encode())
                     + gzip.compress(_RECORDS[cut + 40:].encode()) + gzip.compress(b""))
    monkeypatch.setattr(fasta, "_CHUNK", 113)
    sizes = _buffer_sizes(monkeypatch)
    assert _records(lambda: fasta.read_fasta(str(path), DNA)) == _records(
        lambda: parse_fasta_text(_RECORDS, DNA))
    assert len(set(sizes)) > 1  # grown past the last member's size


@pytest.mark.parametrize("keep", [-1, -4, -9, 0.5])
def test_a_truncated_gzip_file_gives_the_readers_error(tmp_path, keep):
    """Cut anywhere (its trailer then four bytes of something else: a size the
    buffer is not trusted beyond), the file is refused as the reader refuses it."""
    data = gzip.compress(_RECORDS.encode())
    path = tmp_path / "cut.fa.gz"
    path.write_bytes(data[:int(len(data) * keep)] if isinstance(keep, float) else data[:keep])
    with pytest.raises(DslcError) as e:
        fasta.read_fasta(str(path), DNA)
    assert str(path) in e.value.message and "looks gzipped but cannot be decompressed" \
        in e.value.message


def test_each_block_keeps_only_its_headers_not_its_header_room(tmp_path, monkeypatch):
    """A block's record starts and name lengths are written into room for the most
    headers its bytes could hold (one per two bytes, as int64, twice); kept as views,
    that room stayed alive for every block until the file was read (several times
    the residues on a large file). What is kept owns only the headers' entries."""
    path = tmp_path / "db.fa"
    path.write_text(_RECORDS)
    monkeypatch.setattr(fasta, "_CHUNK", 4096)
    kept = []
    take = fasta._PackReader._take

    def spy(self, *args):
        take(self, *args)
        kept.extend(self.starts + self.name_lens)
    monkeypatch.setattr(fasta._PackReader, "_take", spy)
    assert fasta._read_packed(str(path), DNA, None) is not None
    assert kept and all(a.base is None and a.nbytes == 8 * len(a) for a in kept)


def test_a_trailer_claiming_more_than_deflate_can_give_is_not_allocated(tmp_path):
    """A truncated file's last four bytes are compressed data, not ISIZE: the buffer's
    first size stays within what its bytes could decompress to (about 1032-fold)."""
    data = gzip.compress(_RECORDS.encode())
    path = tmp_path / "cut.fa.gz"
    path.write_bytes(data[:200] + b"\xff\xff\xff\xff")
    with open(path, "rb") as fh:
        assert fasta._gzip_size(fh) == 204 * 1032 and fh.tell() == 0
    path.write_bytes(data)
    with open(path, "rb") as fh:
        assert fasta._gzip_size(fh) == len(_RECORDS)
