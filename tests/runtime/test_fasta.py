"""FASTA reading: records, wrapping, gzip, case, and the errors a user can meet."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from dslc.errors import DslcError, Span
from dslc.lang import fasta
from dslc.lang.fasta import parse_fasta_text, read_fasta
from dslc.lang.stdlib import standard_alphabets
from dslc.lang.values import Alphabet

DNA = standard_alphabets()["dna"]
PROTEIN = standard_alphabets()["protein"]
SPAN = Span("prog.bio", 3, 6)


def texts(records):
    return [(r.name, r.text) for r in records]


# ---------------------------------------------------------------- good files


def test_multi_record_wrapped_lines_and_names():
    text = ">one first record\nACGT\nAC\n\n>two\nGG\nT\n>three\tx\nA\n"
    recs = parse_fasta_text(text, DNA)
    assert texts(recs) == [("one", "ACGTAC"), ("two", "GGT"), ("three", "A")]
    assert all(r.alphabet is DNA for r in recs)
    assert recs[0].codes.dtype == np.uint8
    assert recs[0].codes.tolist() == [0, 1, 2, 3, 0, 1]


def test_windows_line_endings_blank_lines_and_inner_whitespace():
    text = "\r\n>a desc\r\nAC GT\r\n\r\n  TT\tA \r\n>b\r\n\r\nC\r\n"
    assert texts(parse_fasta_text(text, DNA)) == [("a", "ACGTTTA"), ("b", "C")]


def test_empty_header_and_empty_record():
    recs = parse_fasta_text(">\nAC\n>empty\n>z\nG\n", DNA)
    assert texts(recs) == [("record1", "AC"), ("empty", ""), ("z", "G")]
    assert len(recs[1]) == 0


def test_lowercase_is_read_as_uppercase_for_an_uppercase_alphabet():
    assert texts(parse_fasta_text(">s\nacgT\n", DNA)) == [("s", "ACGT")]
    # protein has '*' among its symbols, still an upper-case alphabet
    assert texts(parse_fasta_text(">p\nmkw*\n", PROTEIN)) == [("p", "MKW*")]


def test_case_is_exact_for_an_alphabet_with_lower_case_symbols():
    mixed = Alphabet("mixed", ("a", "B"))
    assert texts(parse_fasta_text(">m\naB\n", mixed)) == [("m", "aB")]
    with pytest.raises(DslcError) as e:
        parse_fasta_text(">m\naBb\n", mixed)
    assert "'b'" in e.value.message and "position 3" in e.value.message


def test_digit_alphabet():
    dice = Alphabet("dice", tuple("123456"))
    assert texts(parse_fasta_text(">r\n1 2 3\n6 6\n", dice)) == [("r", "12366")]


def test_multi_character_symbols_are_whitespace_separated_tokens():
    codes = Alphabet("codes", ("10", "11", "7"))
    recs = parse_fasta_text(">t\n10 11\n 7\t10\n>u\n11\n", codes)
    assert [r.codes.tolist() for r in recs] == [[0, 1, 2, 0], [1]]
    assert recs[0].text == "10 11 7 10"
    with pytest.raises(DslcError) as e:
        parse_fasta_text(">t\n10 11\n12 7\n", codes, "x.fa", SPAN)
    msg = e.value.message
    assert "'t'" in msg and "'12'" in msg and "position 3" in msg and "x.fa" in msg


def test_multi_character_upper_case_tokens_fold_case():
    abc = Alphabet("pairs", ("AA", "AB"))
    assert parse_fasta_text(">t\naa Ab\n", abc)[0].codes.tolist() == [0, 1]


def test_non_ascii_text_is_validated_not_crashed():
    with pytest.raises(DslcError) as e:
        parse_fasta_text(">s\nACÄT\n", DNA, "u.fa", SPAN)
    assert "'Ä'" in e.value.message and "position 3" in e.value.message


def test_read_fasta_plain_file(tmp_path):
    p = tmp_path / "db.fasta"
    p.write_text(">x\nMKV\nLL\n>y\nW\n")
    assert texts(read_fasta(str(p), PROTEIN)) == [("x", "MKVLL"), ("y", "W")]


def test_gzip_detected_by_magic_bytes_not_by_name(tmp_path):
    data = gzip.compress(b">g1\nACGT\nAA\n>g2\nccc\n")
    for name in ("reads.fa.gz", "reads.fasta"):
        p = tmp_path / name
        p.write_bytes(data)
        assert texts(read_fasta(str(p), DNA)) == [("g1", "ACGTAA"), ("g2", "CCC")]


def test_large_record_round_trips(tmp_path):
    rng = np.random.default_rng(1)
    seq = "".join(rng.choice(list("ACGT"), 10_000))
    wrapped = "\n".join(seq[i:i + 60] for i in range(0, len(seq), 60))
    p = tmp_path / "big.fa"
    p.write_text(f">big\n{wrapped}\n")
    (rec,) = read_fasta(str(p), DNA)
    assert rec.text == seq and len(rec) == 10_000


# ---------------------------------------------------------------- errors


def _err(text, alphabet=DNA) -> DslcError:
    with pytest.raises(DslcError) as e:
        parse_fasta_text(text, alphabet, "reads.fasta", SPAN)
    assert e.value.span == SPAN
    return e.value


def test_bad_symbol_names_file_record_position_and_character():
    err = _err(">r1\nACGT\n>r2 second\nACGTAC\nGGXA\n")
    msg = err.message
    assert "reads.fasta" in msg and "'r2'" in msg and "position 9" in msg and "'X'" in msg
    assert "line 5" in msg


def test_bad_symbol_is_reported_as_written_in_the_file():
    err = _err(">r\nacgtn\n")
    assert "'n'" in err.message and "position 5" in err.message


def test_position_ignores_whitespace_and_line_breaks():
    err = _err(">r\nAC GT\nA-\n")
    assert "position 6" in err.message and "'-'" in err.message and "line 3" in err.message


def test_empty_text_has_no_records():
    for text in ("", "\n\n  \n", "\r\n"):
        assert "no FASTA records" in _err(text).message


def test_sequence_before_first_header():
    err = _err("ACGT\n>r\nA\n")
    assert "before the first '>'" in err.message and "reads.fasta:1" in err.message


def test_missing_file(tmp_path):
    path = str(tmp_path / "nowhere.fasta")
    with pytest.raises(DslcError) as e:
        read_fasta(path, DNA, SPAN)
    assert path in e.value.message and "no such file" in e.value.message
    assert e.value.span == SPAN


def test_empty_file(tmp_path):
    p = tmp_path / "empty.fasta"
    p.write_text("")
    with pytest.raises(DslcError) as e:
        read_fasta(str(p), DNA, SPAN)
    assert str(p) in e.value.message and "no FASTA records" in e.value.message
    assert e.value.span == SPAN


def test_a_directory(tmp_path):
    with pytest.raises(DslcError) as e:
        read_fasta(str(tmp_path), DNA, SPAN)
    assert "directory" in e.value.message and e.value.span == SPAN


def test_permission_denied(tmp_path, monkeypatch):
    p = tmp_path / "secret.fasta"
    p.write_text(">a\nA\n")

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(p))

    monkeypatch.setattr(fasta, "open", denied, raising=False)
    with pytest.raises(DslcError) as e:
        read_fasta(str(p), DNA, SPAN)
    assert str(p) in e.value.message and "permission denied" in e.value.message
    assert e.value.span == SPAN


def test_invalid_gzip(tmp_path):
    p = tmp_path / "broken.fa.gz"
    p.write_bytes(b"\x1f\x8b\x08\x00garbage-not-deflate")
    with pytest.raises(DslcError) as e:
        read_fasta(str(p), DNA, SPAN)
    assert str(p) in e.value.message and "gzip" in e.value.message


def test_truncated_gzip(tmp_path):
    p = tmp_path / "cut.fa.gz"
    p.write_bytes(gzip.compress(b">a\n" + b"ACGT" * 1000)[:40])
    with pytest.raises(DslcError) as e:
        read_fasta(str(p), DNA, SPAN)
    assert "gzip" in e.value.message


def test_binary_file(tmp_path):
    p = tmp_path / "bin.fa"
    p.write_bytes(b">a\n\xff\xfe\x00ACGT")
    with pytest.raises(DslcError) as e:
        read_fasta(str(p), DNA, SPAN)
    assert "not a text file" in e.value.message


def test_errors_render_without_traceback_text(tmp_path):
    with pytest.raises(DslcError) as e:
        read_fasta(str(tmp_path / "none.fa"), DNA, SPAN)
    out = e.value.render()
    assert out.startswith("prog.bio:3:6: error:") and "Traceback" not in out
