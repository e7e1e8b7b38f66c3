"""The language's data forms and operators on every backend: 2-D arrays (literals,
g[i, j], len(g) and g.cols in declared ranges, ints2d parameters), lists of sequences
(seqs[A] parameters from literals and files, len(d), len(d[k]), d[k][m]), any/all,
``**`` and the text of a traceback (common, merged). Drawn programs
(tests/generators_lang.py) against their independent meaning and the interpreter,
under ``DSLC_STRICT_COMPILE=1`` on the compiled backends (nothing left to the
interpreter). Few, small draws: each is compiled on every backend."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.generators import outcome, strict_outcome
from tests.generators_lang import (grid_recurrences, is_subsequence, power_recurrences,
                                   text_recurrences, word_recurrences)

FEW = settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck))


@FEW
@given(rec=grid_recurrences())
def test_grid_paths(backend, rec):
    src, want = rec.source(), rec.evaluate()
    assert outcome(src, "interp") == want, src
    assert strict_outcome(src, backend) == want, src


@FEW
@given(rec=word_recurrences())
def test_word_lists(backend, rec, tmp_path_factory):
    path = tmp_path_factory.mktemp("words") / "words.fasta"
    path.write_text(rec.fasta())
    src, want = rec.source(str(path)), rec.evaluate()
    assert outcome(src, "interp") == want, src
    assert strict_outcome(src, backend) == want, src


@FEW
@given(rec=power_recurrences())
def test_powers_and_quantifiers(backend, rec):
    src, want = rec.source(), rec.evaluate()
    assert outcome(src, "interp") == want, src
    assert strict_outcome(src, backend) == want, src


@FEW
@given(rec=text_recurrences())
def test_traceback_text(backend, rec):
    src = rec.source()
    lcs, common, scs, merged = outcome(src, "interp")
    n, m = rec.lengths()
    assert (lcs, scs) == (n, m), src
    assert len(common) == n and is_subsequence(common, rec.s) and is_subsequence(common, rec.t)
    assert len(merged) == m and is_subsequence(rec.s, merged) and is_subsequence(rec.t, merged)
    assert strict_outcome(src, backend) == [lcs, common, scs, merged], src


# --------------------------------------------------------------------------- misuse
# Each misuse of the forms is one located error (file:line:col, the line, a caret,
# exit status 2), on the interpreter: the checker's errors come before any backend.
MISUSES = [
    ("const g = [[1, 2], [3]]\n", 1, 20, "rectangular"),
    ("const g = [[1, 2], 3]\n", 1, 20, "rows"),
    ("const g = [[[1]]]\n", 1, 13, "one or two dimensions"),
    ('define alphabet ab "ab"\nconst w = ["ab", 3]\n', 2, 18, "strings only"),
    ('define alphabet ab "ab"\nconst w = ["ab"]\nint f(int i) = len(w[i])\nprint f(0)\n', 3, 20,
     "no alphabet yet"),
    ('define alphabet ab "ab"\nint g(seq[ab] x) = len(x)\n'
     'int f(seqs[ab] d, int i) = g(d[i])\n', 3, 30, "len(d[k]) and d[k][m]"),
    ('define alphabet ab "ab"\nconst w = ["ab", "c"]\n'
     'int f(seqs[ab] d, int i) = len(d[i])\nprint f(w, 0)\n', 4, 7, "not in alphabet"),
    ("int f(int n) = n ** -1\nprint f(3)\n", 1, 16, "at least 0"),
    ("prob f(prob p) = p ** 2\n", 1, 18, "probability"),
    ("bool f(int n) = any(k in 0 ... n : k)\n", 1, 36, "must be a bool"),
    ("int f(int n) = foo(k in 0 ... n : k)\n", 1, 16, "any(v in R : c)"),
    ("const g = [[1, 2]]\nint f(int i) = g[i, 2]\nprint f(0)\n", 2, 16, "column 2 is outside"),
    ("x = load(ints, \"w.txt\")\nint f(int i in 0 ... len(x)) = i\n", 2, 26, "declared range"),
    ('define alphabet ab "ab"\nint f(seq[ab] s) = len(s)\nprint common(trace(f("ab")))\n', 3, 7,
     "no sequence"),
]


def test_misuse_is_one_located_error(capsys, write_bio, tmp_path):
    from tests.cli.test_errors import expect_error

    (tmp_path / "w.txt").write_text("1 2 3\n")
    for k, (src, line, col, said) in enumerate(MISUSES):
        path = write_bio(src)
        expect_error(capsys, path, line=line, col=col, contains=(said,))


def test_ragged_grid_file_is_located_in_the_file(capsys, write_bio, tmp_path):
    from tests.cli.test_errors import run_cli

    (tmp_path / "g.txt").write_text("1 2 3\n\n4 5 6  # a comment\n7 8\n")
    path = write_bio('const g = load(ints2d, "g.txt")\nprint g\n')
    code, out, err = run_cli(capsys, "run", str(path))
    assert code == 2 and "g.txt:4:1: error: a 2-D array is rectangular" in err, err
    (tmp_path / "g.txt").write_text("# nothing\n")
    code, out, err = run_cli(capsys, "run", str(path))
    assert code == 2 and "needs at least one row" in err, err
