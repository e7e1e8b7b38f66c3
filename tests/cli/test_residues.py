"""Stand-ins: an alphabet declares symbols outside it that sequences read as one of
its own (``define alphabet A "..." where "UO" = 'X'``; the predefined protein reads U,
O and J as X). Proteins with U and O search without error, their scores those of the
same proteins with X, and one warning per file names the count;
``DSLC_STRICT_RESIDUES=1`` refuses them with the located error. Every reader (FASTA
by its byte reader and its line reader, FASTQ, Stockholm, a literal, Python text)
reads them alike."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc import settings as dslc_settings
from dslc.cli import main
from dslc.errors import DslcError
from dslc.lang.fasta import parse_fasta_text, read_fasta
from dslc.lang.stdlib import standard_alphabets
from dslc.runtime.formats import read_sequences
from tests.conftest import EXAMPLES

SEARCH = str(EXAMPLES / "search.bio")
QUERIES = ">selp\nMKVUAGCUSLLOAHK\n>pyl\nmkvlaAGIVgllu\n"
DB = ">s1\nMKVCAGCWSLLKAHKEE\n>s2\nAGIVGLLOAGCSS\n>s3\nWWWWPPPP\n"
WARNED = re.compile(r"^(\S+:\d+:\d+): warning: (\S+): (\d+) residues? outside alphabet "
                    r"'protein' read as its declared stand-ins \(([^)]*)\)", re.M)


@pytest.fixture(autouse=True)
def _lenient():
    """``--setting`` holds for the rest of the process: each test starts lenient."""
    dslc_settings._OPTIONS.pop("DSLC_STRICT_RESIDUES", None)
    yield
    dslc_settings._OPTIONS.pop("DSLC_STRICT_RESIDUES", None)


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main(["run", "--quiet", "--backend", "interp", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _as_x(text: str) -> str:
    return re.sub("[UOJuoj]", "X", text)


def test_proteins_with_u_and_o_search_with_one_warning_per_file(capsys, tmp_path):
    (tmp_path / "q.fa").write_text(QUERIES)
    (tmp_path / "d.fa").write_text(DB)
    (tmp_path / "qx.fa").write_text(_as_x(QUERIES))
    (tmp_path / "dx.fa").write_text(_as_x(DB))
    code, out, err = _run(capsys, SEARCH, "--set", f"queries={tmp_path / 'q.fa'}",
                          "--set", f"db={tmp_path / 'd.fa'}", "--format", "tsv")
    assert code == 0, err
    warned = {m.group(2): (int(m.group(3)), m.group(4)) for m in WARNED.finditer(err)}
    assert len(err.strip().splitlines()) == 2, err  # one line per file, nothing else
    assert warned == {str(tmp_path / "q.fa"): (4, "1 'O' as 'X', 3 'U' as 'X'"),
                      str(tmp_path / "d.fa"): (1, "1 'O' as 'X'")}
    assert all(m.group(1).startswith(SEARCH + ":") for m in WARNED.finditer(err))
    code, plain, err = _run(capsys, SEARCH, "--set", f"queries={tmp_path / 'qx.fa'}",
                            "--set", f"db={tmp_path / 'dx.fa'}", "--format", "tsv")
    assert code == 0 and err == "", err
    assert out == plain  # the same proteins with X: the same hits


def test_strict_residues_refuse_them_where_they_are(capsys, tmp_path):
    (tmp_path / "q.fa").write_text(QUERIES)
    (tmp_path / "d.fa").write_text(_as_x(DB))
    code, out, err = _run(capsys, "--setting", "DSLC_STRICT_RESIDUES=1", SEARCH,
                          "--set", f"queries={tmp_path / 'q.fa'}",
                          "--set", f"db={tmp_path / 'd.fa'}")
    assert code == 2 and "Traceback" not in err, err
    lines = err.splitlines()
    assert re.match(r"^\S+search\.bio:\d+:\d+: error: .*q\.fa: record 'selp': symbol 'U' at "
                    r"position 4 \(line 2\) is not in alphabet 'protein'", lines[0]), err
    assert "^" in lines[2] and "reads 'U' as 'X'" in lines[3] and "STRICT" in lines[3]


@pytest.mark.parametrize("name, text", [
    ("r.fasta.gz", None),  # (the byte reader declines on a stand-in: the line reader counts)
    ("r.fastq", "@a\nMKUo\n+\nIIII\n@b\nUU\n+\nII\n"),
    ("r.sto", "# STOCKHOLM 1.0\na MKU-o\nb UU---\n//\n"),
])
def test_every_reader_counts_them(tmp_path, capsys, name, text):
    path = tmp_path / name
    if text is None:
        path.write_bytes(gzip.compress(b">a\nMKUo\n>b\nUU\n"))
    else:
        path.write_text(text)
    protein = standard_alphabets()["protein"]
    got = read_sequences(str(path), protein)
    assert [s.text for s in got] == ["MKXX", "XX"]
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "4 residues" in err and "3 'U' as 'X'" in err, err


def test_a_literal_and_python_text_read_them_too(capsys, write_bio):
    import dslc

    path = write_bio('int f(seq[protein] s) = len(s)\nprint f("MKUO")\n')
    code, out, err = _run(capsys, str(path))
    assert code == 0 and out.strip() == 'f("MKUO") = 4'
    assert re.search(r'prog\.bio:2:7: warning: sequence "MKUO": 2 residues', err), err
    prog = dslc.compile(str(path), backend="interp")
    assert prog.f("mkuoj") == 5
    assert "3 residues" in capsys.readouterr().err


@settings(max_examples=40, deadline=None)
@given(body=st.text(st.sampled_from("ACDEFGHIKLMNPQRSTVWYXacdeUOJuoj*"), min_size=1,
                    max_size=40))
def test_read_as_x_with_the_count(body):
    protein = standard_alphabets()["protein"]
    want = protein.encode(_as_x(body).upper())
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        (got,) = parse_fasta_text(f">r\n{body}\n", protein, "x.fa")
    assert np.array_equal(got.codes, want)
    n = sum(c in "UOJuoj" for c in body)
    assert (f": {n} residue" in err.getvalue()) if n else err.getvalue() == ""


def test_strict_mode_refuses_each_reader(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_STRICT_RESIDUES", "1")
    protein = standard_alphabets()["protein"]
    (tmp_path / "a.fa").write_text(">a\nMKVu\n")
    with pytest.raises(DslcError, match=r"symbol 'u' at position 4 \(line 2\)"):
        read_fasta(str(tmp_path / "a.fa"), protein)
    with pytest.raises(DslcError, match="symbol 'O' at position 2"):
        protein.encode("MO")
    assert dslc_settings.choice("DSLC_STRICT_RESIDUES") == "1"


@pytest.mark.parametrize("source, words", [
    ('define alphabet x "AB" where "A" = \'B\'', ["'A' is one of its symbols"]),
    ('define alphabet x "AB" where "C" = \'D\'', ["'D'", "not one of its symbols"]),
    ('define alphabet x "AB" where "CC" = \'A\'', ["'C' is given a stand-in twice"]),
    ('define alphabet x "AB" where', ["expected"]),
])
def test_bad_stand_ins_are_one_located_error(capsys, write_bio, source, words):
    code = main(["check", str(write_bio(source + "\n"))])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and re.match(r"^\S+:1:\d+: error: ", err), err
    for w in words:
        assert w in err, err


@settings(max_examples=30, deadline=None)
@given(body=st.text(st.sampled_from("ACGTNacgtnRYSWKMBDHVrysw"), min_size=1, max_size=40),
       rna=st.booleans())
def test_nucleotide_ambiguity_codes_read_as_n(body, rna):
    """``dna5`` (``rna5``): ACGT (ACGU) and N, the other IUPAC ambiguity codes read as
    N with one warning naming the count; the four-symbol ``dna``/``rna`` refuse every
    ambiguity code, N too, with a hint naming the wide alphabet."""
    import contextlib
    import io

    name = "rna" if rna else "dna"
    wide, narrow = standard_alphabets()[f"{name}5"], standard_alphabets()[name]
    body = body.replace("T", "U").replace("t", "u") if rna else body
    want = wide.encode(re.sub("[RYSWKMBDHV]", "N", body.upper()))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        (got,) = parse_fasta_text(f">r\n{body}\n", wide, "x.fa")
    assert np.array_equal(got.codes, want) and len(wide) == 5 and len(narrow) == 4
    n = sum(c in "RYSWKMBDHVrysw" for c in body)
    assert (f": {n} residue" in err.getvalue() and "as 'N'" in err.getvalue()) if n \
        else err.getvalue() == ""
    if any(c in "NRYSWKMBDHVnrysw" for c in body):
        with pytest.raises(DslcError) as e:
            parse_fasta_text(f">r\n{body}\n", narrow, "x.fa")
        assert f"{name}5" in e.value.render() and "ambiguity code" in e.value.render()


def test_dna5_strict_refuses_and_a_script_reads_it(capsys, write_bio, tmp_path):
    """A genome file with N and R read by a script over the predefined ``dna5``: one
    warning for the R (N is a symbol), the length counts every position; strict
    mode refuses the R with the stand-in's hint."""
    (tmp_path / "g.fa").write_text(">g\nACGTNNRYacgt\n")
    genome = tmp_path / "g.fa"
    path = write_bio(f'int f(seq[dna5] s) = len(s)\nprint f(load(seq[dna5], "{genome}")[0])\n')
    code, out, err = _run(capsys, str(path))
    assert code == 0 and out.strip().endswith("= 12"), (out, err)
    assert err.count("warning:") == 1 and "2 residues" in err and "1 'R' as 'N'" in err, err
    code, out, err = _run(capsys, "--setting", "DSLC_STRICT_RESIDUES=1", str(path))
    assert code == 2 and "symbol 'R' at position 7" in err and "reads 'R' as 'N'" in err, err
