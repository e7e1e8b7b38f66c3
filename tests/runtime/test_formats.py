"""FASTQ and Stockholm files for load(seq[A], ...), chosen by extension (gzip
too), parsed by Biopython, with FASTA's error messages (record, position, line)."""

from __future__ import annotations

import gzip

import pytest

import dslc
from dslc.errors import DslcError
from dslc.runtime.formats import read_sequences, sequence_format
from dslc.lang.values import Alphabet

pytest.importorskip("Bio")

DNA = Alphabet("dna", ("A", "C", "G", "T"))

FASTQ = "@r1 first read\nACGT\n+\nIIII\n@r2\nacgtac\n+r2\n@@@@II\n@r3\n\n+\n\n"

STOCKHOLM = """# STOCKHOLM 1.0
#=GF ID fam
s1  AC-GT
s2  A..GT
#=GS s1 DE first

s1  TT
s2  TA
//
"""


def text(seqs):
    return [(s.name, "".join(DNA.symbols[c] for c in s.codes)) for s in seqs]


def test_format_by_extension():
    assert [sequence_format(p) for p in ("a.fastq", "a.FQ.gz", "b.sto", "c.stk.gz",
                                         "d.fasta", "e.fa.gz", "f")] == \
        ["fastq", "fastq", "stockholm", "stockholm", "fasta", "fasta", "fasta"]


def test_fastq_records_plain_and_gzipped(tmp_path):
    (tmp_path / "r.fastq").write_text(FASTQ)
    with gzip.open(tmp_path / "r.fq.gz", "wt") as fh:
        fh.write(FASTQ)
    want = [("r1", "ACGT"), ("r2", "ACGTAC"), ("r3", "")]
    assert text(read_sequences(str(tmp_path / "r.fastq"), DNA)) == want
    assert text(read_sequences(str(tmp_path / "r.fq.gz"), DNA)) == want


def test_fastq_stranger_names_record_position_and_line(tmp_path):
    p = tmp_path / "r.fastq"
    p.write_text(FASTQ.replace("acgtac", "acgNac"))
    with pytest.raises(DslcError) as e:
        read_sequences(str(p), DNA)
    assert "record 'r2': symbol 'N' at position 4 (line 6)" in e.value.message


def test_fastq_malformed_is_one_error(tmp_path):
    p = tmp_path / "r.fastq"
    p.write_text("@r1\nACGT\n+\nII\n")
    with pytest.raises(DslcError) as e:
        read_sequences(str(p), DNA)
    assert "not a valid FASTQ file" in e.value.message and "differs" in e.value.message


def test_stockholm_rows_without_gaps(tmp_path):
    p = tmp_path / "f.sto"
    p.write_text(STOCKHOLM)
    assert text(read_sequences(str(p), DNA)) == [("s1", "ACGTTT"), ("s2", "AGTTA")]
    p.write_text(STOCKHOLM.replace("s2  TA", "s2  TX"))
    with pytest.raises(DslcError) as e:
        read_sequences(str(p), DNA)
    assert "record 's2': symbol 'X' at position 5 (line 8)" in e.value.message


def test_a_script_loads_fastq(tmp_path):
    (tmp_path / "r.fastq").write_text(FASTQ)
    (tmp_path / "s.bio").write_text('define alphabet dna "ACGT"\nint n(seq[dna] s) = len(s)\n'
                                    'r = load(seq[dna], "r.fastq")\nprint map(n, r)\n')
    got = dslc.compile(str(tmp_path / "s.bio"), backend="interp").run()
    assert list(got.values())[0].values.tolist() == [4, 6, 0]


@pytest.mark.parametrize("text,line,words", [
    (STOCKHOLM[:-3], 8, "the file ends inside the alignment begun at line 1, with no closing '//'"),
    (STOCKHOLM[:-3] + "\n\n", 8, "the file ends inside the alignment begun at line 1"),
    (STOCKHOLM.split("\n\n")[0] + "\n", 5, "the file ends inside the alignment begun at line 1"),
    (STOCKHOLM + STOCKHOLM[:-3], 17, "the file ends inside the alignment begun at line 10"),
    (STOCKHOLM[:-3] + STOCKHOLM, 9, "a new '# STOCKHOLM 1.0' header, but the alignment begun at line 1"),
    (STOCKHOLM + "s3  ACGT\n", 10, "'s3  ACGT' after the closing '//' of line 9"),
    (STOCKHOLM + "#=GF ID x\n", 10, "'#=GF ID x' after the closing '//' of line 9"),
    (STOCKHOLM + "//\n", 10, "'//' with no alignment open"),
])
def test_stockholm_not_closed_by_its_slashes_is_one_located_error(tmp_path, text, line, words):
    """A Stockholm file cut short (no closing '//') was read as a shorter alignment, and a
    sequence line after '//' failed an assertion inside Biopython (a traceback)."""
    for name, data in (("f.sto", text.encode()), ("f.sto.gz", gzip.compress(text.encode()))):
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(DslcError) as e:
            read_sequences(str(p), DNA)
        assert e.value.message.startswith(f"{p}, line {line}: "), e.value.message
        assert words in e.value.message, e.value.message


def test_stockholm_alignments_closed_and_blank_lines_after_them(tmp_path):
    p = tmp_path / "f.sto"
    p.write_text(STOCKHOLM + "\n" + STOCKHOLM.replace("s1", "u1") + "\n\n")
    assert [n for n, _ in text(read_sequences(str(p), DNA))] == ["s1", "s2", "u1", "s2"]
