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
