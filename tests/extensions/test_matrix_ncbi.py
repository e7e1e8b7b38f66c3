"""The NCBI matrix format: the standard tables, ``define matrix`` bodies, files,
and every malformed grid a user can write."""

from __future__ import annotations

import gzip
import itertools
import textwrap

import numpy as np
import pytest
from Bio.Align import substitution_matrices

from dslc.cli import main
from dslc.errors import DslcError, Span
from dslc.lang import stdlib as stdlib_data
from dslc.check.registry import standard_matrices
from dslc.lang.stdlib import standard_alphabets
from dslc.lang.values import Alphabet, Matrix
from dslc_extensions.matrix.ncbi import load_matrix_file, parse_matrix

DNA = standard_alphabets()["dna"]
PROTEIN = standard_alphabets()["protein"]
NAMES = {"blosum45": "BLOSUM45", "blosum50": "BLOSUM50", "blosum62": "BLOSUM62",
         "blosum80": "BLOSUM80", "pam250": "PAM250"}
BODY = Span("prog.bio", 4, 29)  # where the text after a block's '{' starts

DNASIMPLE = """
     A  C  G  T
  A  2 -1 -1 -1
  C -1  2 -1 -1
  G -1 -1  2 -1
  T -1 -1 -1  2
"""


def grid(symbols, rows=None, values=None) -> str:
    """An NCBI grid over ``symbols`` (rows in the order ``rows``)."""
    rows = symbols if rows is None else rows
    values = values or {}
    lines = ["   " + "  ".join(symbols)]
    for r in rows:
        lines.append(r + " " + " ".join(str(values.get((r, c), 1 if r == c else 0))
                                        for c in symbols))
    return "\n".join(lines) + "\n"


def error(text, alphabet=DNA, span=BODY, **kw) -> DslcError:
    with pytest.raises(DslcError) as e:
        parse_matrix(text, alphabet, name="m", span=span, **kw)
    return e.value


# ---------------------------------------------------------------- standard tables


def test_standard_alphabets():
    alpha = standard_alphabets()
    assert alpha["dna"].symbols == tuple("ACGT")
    assert alpha["rna"].symbols == tuple("ACGU")
    assert alpha["protein"].symbols == tuple("ARNDCQEGHILKMFPSTWYVBZX*")
    assert standard_alphabets() is alpha  # cached


def test_blosum62_spot_values_against_biopython():
    m = standard_matrices()["blosum62"]
    bio = substitution_matrices.load("BLOSUM62")
    c = PROTEIN.code
    spots = {("W", "W"): 11, ("A", "A"): 4, ("E", "K"): 1, ("W", "C"): -2,
             ("C", "C"): 9, ("*", "*"): 1, ("A", "*"): -4, ("X", "X"): -1}
    for (a, b), want in spots.items():
        assert m.values[c(a), c(b)] == want
        assert bio[a][b] == want
    for a, b in itertools.product(PROTEIN.symbols, repeat=2):
        assert m.values[c(a), c(b)] == bio[a][b], (a, b)


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_standard_matrix_equals_biopython(name):
    m = standard_matrices()[name]
    bio = substitution_matrices.load(NAMES[name])
    assert isinstance(m, Matrix) and m.name == name and m.alphabet is PROTEIN
    assert m.values.dtype == np.int64 and m.values.shape == (24, 24)
    assert not m.is_float
    for (j, a), (k, b) in itertools.product(enumerate(PROTEIN.symbols), repeat=2):
        assert m.values[j, k] == bio[a][b], (name, a, b)
    assert (m.values == m.values.T).all()  # the published tables are symmetric
    assert m.pyvalues[0][0] == int(m.values[0, 0])


def test_standard_matrices_are_cached():
    assert standard_matrices() is standard_matrices()


def test_standard_matrices_fall_back_to_the_source_tree(monkeypatch):
    def absent(package):
        raise ModuleNotFoundError(package)

    monkeypatch.setattr(stdlib_data.resources, "files", absent)
    text = stdlib_data.stdlib_dir().joinpath("matrices", "BLOSUM62").read_text()
    assert text.startswith("#")
    assert parse_matrix(text, PROTEIN).values.tolist() == \
        standard_matrices()["blosum62"].values.tolist()


def test_stdlib_file_reordered_to_another_symbol_order():
    shuffled = Alphabet("shuffled", tuple(reversed(PROTEIN.symbols)))
    text = stdlib_data.stdlib_dir().joinpath("matrices").joinpath("BLOSUM62").read_text()
    m = parse_matrix(text, shuffled, name="b62")
    ref = standard_matrices()["blosum62"]
    for a, b in itertools.product(PROTEIN.symbols, repeat=2):
        assert m.values[shuffled.code(a), shuffled.code(b)] == \
            ref.values[PROTEIN.code(a), PROTEIN.code(b)]


# ---------------------------------------------------------------- define blocks


def test_define_block_body():
    m = parse_matrix(DNASIMPLE, DNA, name="dnasimple", span=BODY)
    assert m.name == "dnasimple" and m.alphabet is DNA
    assert m.values.dtype == np.int64
    assert m.values.tolist() == [[2, -1, -1, -1], [-1, 2, -1, -1], [-1, -1, 2, -1],
                                 [-1, -1, -1, 2]]


def test_define_block_with_comments_and_indentation():
    body = """  // a simple DNA matrix
        # NCBI-style comment
           A  C  G  T   // header
        A  0  3  3  3   // row A

        C  3  0  3  3
        G  3  3  0  3
        T  3  3  3  0
    """
    assert parse_matrix(body, DNA).values.tolist() == \
        [[0, 3, 3, 3], [3, 0, 3, 3], [3, 3, 0, 3], [3, 3, 3, 0]]


def test_rows_and_columns_reordered_to_the_alphabet():
    values = {("T", "A"): 7, ("A", "T"): -7, ("G", "C"): 5}
    text = grid(list("TGCA"), rows=list("CATG"), values=values)
    m = parse_matrix(text, DNA)
    c = DNA.code
    assert m.values[c("T"), c("A")] == 7 and m.values[c("A"), c("T")] == -7
    assert m.values[c("G"), c("C")] == 5 and m.values[c("C"), c("G")] == 0
    assert [m.values[c(s), c(s)] for s in "ACGT"] == [1, 1, 1, 1]


def test_float_entries_make_a_float_matrix():
    for entry in ("0.5", "1e-3", "2.", ".25", "-1.5E2", "-inf"):
        m = parse_matrix(grid(list("ACGT"), values={("A", "C"): entry}), DNA)
        assert m.values.dtype == np.float64 and m.is_float
        assert m.values[0, 1] == float(entry)
        assert m.values[1, 1] == 1.0


def test_multi_character_symbols():
    alpha = Alphabet("codes", ("10", "11"))
    m = parse_matrix("    11 10\n10  1  2\n11  3  4\n", alpha)
    assert m.values.tolist() == [[2, 1], [4, 3]]


# ---------------------------------------------------------------- errors


def test_empty_body():
    err = error("\n  // nothing\n")
    assert "empty" in err.message and err.span == BODY


def test_header_only():
    err = error("  A C G T\n")
    assert "no rows" in err.message


def test_ragged_row_points_at_its_line():
    text = "\n   A  C  G  T\nA  1  0  0  0\nC  0  1  0\nG  0  0  1  0\nT  0  0  0  1\n"
    err = error(text)
    assert "row 'C' has 3 entries" in err.message and "4" in err.message
    assert err.span.file == "prog.bio" and err.span.line == BODY.line + 3


def test_too_many_entries_points_at_the_extra_one():
    text = "   A C G T\nA 1 0 0 0 9\nC 0 1 0 0\nG 0 0 1 0\nT 0 0 0 1\n"
    err = error(text)
    assert "row 'A' has 5 entries" in err.message
    assert (err.span.line, err.span.col) == (BODY.line + 1, 11)


def test_row_symbol_not_in_header():
    err = error("   A C G T\nA 1 0 0 0\nC 0 1 0 0\nU 0 0 1 0\nT 0 0 0 1\n")
    assert "row 'U'" in err.message and "not a symbol of the header" in err.message
    assert (err.span.line, err.span.col) == (BODY.line + 3, 1)


def test_row_without_symbol():
    err = error("   A C G T\n1 0 0 0\n")
    assert "must start with its symbol" in err.message


def test_non_numeric_entry_points_at_the_entry():
    err = error("   A C G T\nA 1 0 0 0\nC 0 1 x 0\nG 0 0 1 0\nT 0 0 0 1\n")
    assert "'x'" in err.message and "row 'C'" in err.message and "not a number" in err.message
    assert (err.span.line, err.span.col) == (BODY.line + 2, 7)


@pytest.mark.parametrize("bad", ["nan", "1_000", "0x10", "--1", "1e", "3,5"])
def test_odd_numbers_are_not_numbers(bad):
    err = error(grid(list("ACGT"), values={("G", "T"): bad}))
    assert f"'{bad}'" in err.message and "not a number" in err.message


def test_entry_too_large_for_int64():
    err = error(grid(list("ACGT"), values={("G", "T"): 2 ** 70}))
    assert "64-bit" in err.message


def test_missing_alphabet_symbols_are_named():
    err = error(grid(list("ACG")))
    assert "lacks symbol 'T'" in err.message and "'dna'" in err.message
    err = error("   A C\nA 1 0\nC 0 1\n")
    assert "lacks symbols 'G' 'T'" in err.message


def test_symbols_outside_the_alphabet_are_named():
    err = error(grid(list("ACGTUN")))
    assert "'U' 'N'" in err.message and "outside alphabet 'dna'" in err.message
    assert err.span.line == BODY.line  # the header, the text's first line
    assert err.span.col == BODY.col + grid(list("ACGTUN")).index("U")


def test_missing_and_extra_together():
    err = error(grid(list("ACGU")))
    assert "lacks symbol 'T'" in err.message and "'U'" in err.message


def test_symbols_are_case_sensitive():
    err = error(grid(list("acgt")))
    assert "lacks symbols 'A' 'C' 'G' 'T'" in err.message


def test_duplicated_header_symbol():
    err = error("   A C G A\nA 1 0 0 0\n")
    assert "'A' appears twice in the header" in err.message
    assert (err.span.line, err.span.col) == (BODY.line, BODY.col + 9)


def test_duplicated_row():
    text = "   A C G T\nA 1 0 0 0\nC 0 1 0 0\nA 0 0 1 0\nT 0 0 0 1\n"
    err = error(text)
    assert "row 'A' appears twice" in err.message
    assert f"line {BODY.line + 1}" in err.message and err.span.line == BODY.line + 3


def test_not_square():
    err = error("   A C G T\nA 1 0 0 0\nC 0 1 0 0\nT 0 0 0 1\n")
    assert "4 columns but 3 rows" in err.message and "square" in err.message
    assert "'G'" in err.message


def test_line_offset_moves_errors_down_the_file():
    text = "   A C G T\nA 1 0 0 0\nC 0 1 ? 0\n"
    err = error(text, span=Span("prog.bio", 10, 3), line_offset=5)
    assert (err.span.file, err.span.line, err.span.col) == ("prog.bio", 17, 7)
    err = error(text, span=None, line_offset=5)
    assert err.span is None and "line 8" in err.message


# ---------------------------------------------------------------- files


def test_load_matrix_file(tmp_path):
    p = tmp_path / "dnasimple.txt"
    p.write_text("# a comment\n" + DNASIMPLE)
    m = load_matrix_file(str(p), DNA)
    assert m.name == "dnasimple.txt" and m.values[0, 0] == 2 and m.values[0, 1] == -1


def test_load_gzipped_matrix_file(tmp_path):
    p = tmp_path / "m.gz"
    p.write_bytes(gzip.compress(DNASIMPLE.encode()))
    assert load_matrix_file(str(p), DNA).values[3, 3] == 2


def test_load_biopython_file_equals_the_standard_table():
    import os

    path = os.path.join(os.path.dirname(substitution_matrices.__file__), "data", "BLOSUM62")
    m = load_matrix_file(path, PROTEIN)
    assert (m.values == standard_matrices()["blosum62"].values).all()


def test_missing_matrix_file(tmp_path):
    span = Span("prog.bio", 2, 5)
    path = str(tmp_path / "absent.txt")
    with pytest.raises(DslcError) as e:
        load_matrix_file(path, DNA, span)
    assert path in e.value.message and "no such file" in e.value.message
    assert e.value.span == span


def test_matrix_file_is_a_directory(tmp_path):
    with pytest.raises(DslcError) as e:
        load_matrix_file(str(tmp_path), DNA, Span("prog.bio", 2, 5))
    assert "directory" in e.value.message


def test_unreadable_matrix_file(tmp_path, monkeypatch):
    from dslc.lang import fasta

    p = tmp_path / "m.txt"
    p.write_text(DNASIMPLE)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(p))

    monkeypatch.setattr(fasta, "open", denied, raising=False)
    with pytest.raises(DslcError) as e:
        load_matrix_file(str(p), DNA, Span("prog.bio", 2, 5))
    assert str(p) in e.value.message and "permission denied" in e.value.message


def test_malformed_matrix_file_names_file_and_line(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("# header comment\n   A C G T\nA 1 0 0 0\nC 0 1 0\n")
    span = Span("prog.bio", 2, 5)
    with pytest.raises(DslcError) as e:
        load_matrix_file(str(p), DNA, span)
    assert e.value.span == span
    assert f"{p}:4:" in e.value.message and "row 'C' has 3 entries" in e.value.message


def test_protein_file_over_dna_names_the_extra_symbols(tmp_path):
    import os

    path = os.path.join(os.path.dirname(substitution_matrices.__file__), "data", "BLOSUM62")
    with pytest.raises(DslcError) as e:
        load_matrix_file(path, DNA, Span("prog.bio", 1, 1))
    assert "outside alphabet 'dna'" in e.value.message and "'R'" in e.value.message


# ---------------------------------------------------------------- through a script


def run(capsys, tmp_path, script, **files):
    for name, text in files.items():
        (tmp_path / name.replace("__", ".")).write_text(text)
    p = tmp_path / "prog.bio"
    p.write_text(textwrap.dedent(script))
    code = main(["run", str(p)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_error_in_a_define_block_points_at_the_script_line(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path, """\
        // a matrix with a typo
        define matrix d[dna] {
             A  C  G  T
          A  0  3  3  3   // comment
          C  3  0  x  3
          G  3  3  0  3
          T  3  3  3  0
        }
        """)
    assert code == 2 and "Traceback" not in err
    assert "prog.bio:5:12: error: matrix 'd': entry 'x' in row 'C' is not a number" in err


def test_define_and_load_in_a_script(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path, """\
        define matrix d[dna] {
             A  C  G  T
          A  2 -1 -1 -1
          C -1  2 -1 -1
          G -1 -1  2 -5
          T -1 -1 -1  2
        }
        f = load(matrix[dna], "m.txt")
        int first(matrix m, seq[dna] s, seq[dna] t) = m[s[0], t[0]]
        int firstp(matrix m, seq[protein] s, seq[protein] t) = m[s[0], t[0]]
        print first(d, "G", "T")
        print first(f, "A", "C")
        print firstp(blosum62, "W", "W")
        """, m__txt=grid(list("TGCA"), values={("A", "C"): 6}))
    assert code == 0, err
    assert [line.rsplit("= ", 1)[-1] for line in out.splitlines()] == ["-5", "6", "11"]


def test_bad_matrix_file_in_a_script_points_at_the_load(capsys, tmp_path):
    code, out, err = run(capsys, tmp_path, """\
        x = 1
        f = load(matrix[dna], "m.txt")
        """, m__txt="  A C\nA 1 0\nC 0 1\n")
    assert code == 2 and "Traceback" not in err
    assert "prog.bio:2:" in err and "m.txt" in err and "lacks symbols 'G' 'T'" in err


# ---------------------------------------------------------------- nucleotide matrices

NUC44 = str(__import__("pathlib").Path(__file__).parents[2] / "examples" / "data" / "NUC.4.4")


def test_nuc44_is_cut_to_dna_and_rna():
    """NCBI's NUC.4.4 has the IUPAC ambiguity codes and writes T: over dna its
    extra codes are cut away, over rna its T stands for U."""
    std = stdlib_data.standard_alphabets()
    dna = load_matrix_file(NUC44, std["dna"])
    assert dna.values.tolist() == [[5, -4, -4, -4], [-4, 5, -4, -4],
                                   [-4, -4, 5, -4], [-4, -4, -4, 5]]
    rna = load_matrix_file(NUC44, std["rna"])
    assert rna.values.tolist() == dna.values.tolist()
    ref = substitution_matrices.read(NUC44)
    for a, b in itertools.product("ACGU", repeat=2):
        x, y = (c.replace("U", "T") for c in (a, b))
        assert rna.values[std["rna"].code(a), std["rna"].code(b)] == ref[x][y]


def test_ambiguity_codes_are_cut_only_when_nothing_else_is_wrong():
    err = error(grid(list("ACGN")))  # T missing: still an error
    assert "lacks symbol 'T'" in err.message
