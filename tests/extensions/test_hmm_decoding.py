"""``decoding(model, x)``: both decodings beside the posteriors by state name, as
a TSV and a plot, and its command line (dslc_extensions.hmm.decode), against the
independent casino references of tests/reference.py."""

from __future__ import annotations

import contextlib
import csv
import io

import numpy as np
import pytest

import dslc
from dslc_extensions.hmm import decoding
from dslc_extensions.hmm.decode import main
from tests import reference as ref
from tests.conftest import EXAMPLES

ROLLS = "651466562366614641463214342565655341153444654632522241664261"


@pytest.fixture(scope="module")
def casino():
    return dslc.compile(str(EXAMPLES / "casino.bio"), backend="interp").checked.defined["casino"]


def test_decoding_against_the_references(casino):
    d = decoding(casino, ROLLS, backend="interp")
    assert d.symbols == list(ROLLS) and d.states == ["fair", "loaded"]
    want = np.array([[p["fair"], p["loaded"]] for p in ref.casino_posteriors(ROLLS)])
    assert np.allclose(d.posteriors, want, rtol=1e-9, atol=1e-12)
    assert np.allclose(d.posteriors.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert d.viterbi == ref.casino_viterbi_states(ROLLS)
    assert d.posterior == ref.casino_posterior_states(ROLLS)


def test_tsv_rows(casino):
    d = decoding(casino, ROLLS, backend="interp")
    rows = list(csv.DictReader(io.StringIO(d.tsv()), delimiter="\t"))
    assert len(rows) == len(ROLLS)
    for k, row in enumerate(rows):
        assert row["position"] == str(k + 1) and row["symbol"] == ROLLS[k]
        assert row["viterbi"] == d.viterbi[k] and row["posterior"] == d.posterior[k]
        assert abs(float(row["P(fair)"]) + float(row["P(loaded)"]) - 1) < 1e-5
        # the posterior-decoded state is the more probable one (ties aside)
        p = {s: float(row[f"P({s})"]) for s in d.states}
        assert p[row["posterior"]] >= max(p.values()) - 1e-6


def test_a_sequence_the_model_cannot_emit(casino):
    d = decoding(casino, "", backend="interp")
    assert d.viterbi == [] and d.tsv().count("\n") == 1


def test_command_line_tsv_and_plots(tmp_path, casino):
    fasta = tmp_path / "r.fa"
    fasta.write_text(f">one\n{ROLLS[:20]}\n>two x\n{ROLLS[20:]}\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(EXAMPLES / "casino.bio"), "casino", f"@{fasta}", "--backend", "interp",
                     "--plot", str(tmp_path / "p.png")])
    assert code == 0
    text = out.getvalue()
    assert text.startswith("# one\nposition\tsymbol\tviterbi\tposterior\tP(fair)\tP(loaded)\n")
    assert "# two\n" in text and text.count("\n") == 2 + 2 + len(ROLLS)
    for name in ("one", "two"):
        assert (tmp_path / f"p.{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_command_line_errors_are_one_message(tmp_path, capsys):
    assert main([str(EXAMPLES / "casino.bio"), "nope", "123"]) == 2
    err = capsys.readouterr().err
    assert "defines no model 'nope'" in err and "casino" in err and "Traceback" not in err
    assert main([str(EXAMPLES / "casino.bio"), "casino", f"@{tmp_path / 'none.fa'}"]) == 2
    assert "none.fa" in capsys.readouterr().err
