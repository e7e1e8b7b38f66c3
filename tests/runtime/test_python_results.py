"""Results and arguments of the Python API (dslc.api, dslc.lang.results):
results behave as numpy arrays, print short, convert to pandas, and maps
started from Python have axes named and labelled as a script's are; sequences
come as str (lower case folded as in FASTA), Bio.Seq, SeqRecord or numpy
arrays; script-defined values are reachable by name."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import dslc
from dslc.errors import DslcError

SRC = """
define alphabet dna "ACGT"
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
    if i == 0 then j
    else if j == 0 then i
    else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
    else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
int ed(seq[dna] q, seq[dna] t) = d(q, len(q), t, len(t))
int add(int a, int b) = a + b
"""


@pytest.fixture(scope="module")
def prog():
    return dslc.compile(SRC, backend="interp")


def test_a_map_result_is_an_array(prog):
    m = prog.map("ed", ["ACGT", "AC", "T"], ["ACG", "GG"])
    arr = np.asarray(m)
    assert arr.shape == (3, 2) and arr.dtype == np.int64
    assert arr.tolist() == [[1, 3], [1, 2], [3, 2]]
    assert len(m) == 3 and m.ndim == 2
    assert [row.tolist() for row in m] == arr.tolist()
    assert m[1, 1] == 2 and isinstance(m[1, 1], int)
    assert (np.asarray(m, dtype=float) == arr).all()


def test_a_one_axis_map_iterates_over_script_values(prog):
    m = prog.map("add", [1, 2, 3], 10)
    assert list(m) == [11, 12, 13] and len(m) == 3


def test_a_map_with_no_list_has_no_length_but_is_true(prog):
    m = prog.map("add", 1, 2)
    assert np.asarray(m).shape == () and m[()] == 3
    with pytest.raises(TypeError, match="0-d"):
        len(m)
    assert bool(m)


def test_the_repr_of_a_large_result_is_short(prog):
    m = prog.map("add", list(range(70)), list(range(30)))
    text = repr(m)
    assert len(text) < 600, len(text)
    assert "MapResult add" in text and "(70, 30)" in text and "a x b" in text


def test_maps_from_python_have_named_labelled_axes(prog):
    from Bio.Seq import Seq
    from Bio.SeqRecord import SeqRecord

    m = prog.map("ed", [SeqRecord(Seq("ACGT"), id="r1"), "ACGTACGTACGTACGTACGTAA"], "ACG")
    assert [a.name for a in m.axes] == ["q"]
    assert m.axes[0].labels == ("r1", "ACGTACGTACGTACGTA...")


def test_a_table_from_python_has_labelled_axes(prog):
    t = prog.d("ACG", "AG")
    assert [a.name for a in t.axes] == ["i", "j"]
    assert t.axes[0].labels == ("", "A", "C", "G")


def test_to_pandas_indexes_by_labels_and_positions(prog):
    pytest.importorskip("pandas")
    df = prog.map("ed", ["ACGT", "T"], ["ACG", "GG"]).to_pandas()
    assert list(df.index) == ["ACGT", "T"] and list(df.columns) == ["ACG", "GG"]
    assert df.index.name == "q" and df.loc["T", "GG"] == 2
    s = prog.map("add", [1, 2], 0).to_pandas()
    assert s.tolist() == [1, 2] and s.name == "add"
    table = prog.d("AAC", "A").to_pandas()  # residues repeat: rows are positions
    assert list(table.index) == [0, 1, 2, 3] and table.loc[3, 1] == 2


def test_to_pandas_without_pandas_is_one_clear_error(prog, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(DslcError, match="needs pandas"):
        prog.map("add", [1, 2], 0).to_pandas()


def test_bio_objects_numpy_arrays_and_lower_case_are_sequences(prog):
    from Bio.Seq import Seq
    from Bio.SeqRecord import SeqRecord

    want = prog.ed("ACGT", "AGT")
    assert prog.ed(Seq("ACGT"), SeqRecord(Seq("AGT"), id="x")) == want
    assert prog.ed("acgt", "aGt") == want
    assert prog.ed(np.array(list("ACGT")), np.array([b"A", b"G", b"T"])) == want
    assert prog.ed(np.array([0, 1, 2, 3]), "AGT") == want
    assert prog.map("ed", [Seq("acgt")], ["agt"]).values.tolist() == [[want]]


def test_an_array_of_strings_is_not_one_sequence(prog):
    with pytest.raises(DslcError, match="needs a sequence"):
        prog.ed(np.array(["AC", "GT"]), "A")


def test_an_alphabet_with_lower_case_letters_is_matched_exactly():
    p = dslc.compile("examples/edit_distance.bio", backend="interp")
    assert p.d("kitten", "sitting")[6, 7] == 3
    with pytest.raises(DslcError, match="symbol 'K'"):
        p.d("Kitten", "sitting")


def test_a_bad_record_is_named_in_the_error(prog):
    from Bio.Seq import Seq
    from Bio.SeqRecord import SeqRecord

    with pytest.raises(DslcError, match="sequence rec7: symbol 'N' at position 2"):
        prog.ed(SeqRecord(Seq("ANGT"), id="rec7"), "A")


def test_matrices_are_given_and_fetched_by_name():
    p = dslc.compile("examples/smith_waterman.bio", backend="interp")
    blosum = p.value("blosum62")
    assert blosum.name == "blosum62"
    by_name = p.map("sw", "blosum62", 10, 1, "MKVLAAG", ["MKVLAAGIV", "mkv"])
    by_value = p.map("sw", blosum, 10, 1, "MKVLAAG", ["MKVLAAGIV", "MKV"])
    assert by_name.values.tolist() == by_value.values.tolist()
    assert by_name.values[0] > by_name.values[1] > 0
    with pytest.raises(DslcError, match="defines no value 'blosum99'"):
        p.value("blosum99")
