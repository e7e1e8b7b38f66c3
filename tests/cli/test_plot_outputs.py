"""What a biologist reads, from the ``dslc`` command: ``--plot FILE.png`` draws the
printed values that have a picture (an RNA structure's arcs, a table of posteriors as
a line per state), the value's kind deciding; ``--format tsv`` prints a whole table of
two axes (posteriors by position and state) as a TSV block named by the states."""

from __future__ import annotations

import csv
import io

import pytest

from dslc.cli import main
from tests.conftest import EXAMPLES

PNG = b"\x89PNG\r\n\x1a\n"
FOLD = """\
define alphabet rna "ACGU"
bool pairs(symbol[rna] a, symbol[rna] b) =
    (a == 'A' and b == 'U') or (a == 'U' and b == 'A') or (a == 'G' and b == 'C')
 or (a == 'C' and b == 'G') or (a == 'G' and b == 'U') or (a == 'U' and b == 'G')
int n(seq[rna] x, index[x] i, index[x] j)
  | j <= i + 4 = 0
  | otherwise = n(i + 1, j)
        max max(k in i + 4 ... j - 1 where pairs(x[i], x[k]) : 1 + n(i + 1, k) + n(k + 1, j))
print brackets(trace(n("GGGAAAUCC", 0, 9)))
print n("GGGAAAUCC", 0, 9)
"""


def _run(capsys, *args):
    code = main(["run", "--quiet", "--backend", "interp", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_fold_drawn_as_arcs(capsys, write_bio, tmp_path):
    """One drawable value (the structure; the pair count has no picture): the PNG at
    the path given, and a line on stderr saying what was drawn."""
    pytest.importorskip("matplotlib")
    code, out, err = _run(capsys, str(write_bio(FOLD)), "--plot", str(tmp_path / "arcs.png"))
    assert code == 0 and "(((...)))" in out
    assert (tmp_path / "arcs.png").read_bytes().startswith(PNG)
    assert err.strip() == f"wrote {tmp_path / 'arcs.png'} (brackets(trace(n(\"GGGAAAUCC\", 0, 9))))"


def test_posteriors_as_tsv_and_plots(capsys, tmp_path):
    """examples/casino_decode.bio: TSV of the posteriors, a column per state by name,
    the fair and loaded die's adding up to 1 per roll; --plot draws each table of
    the three printed (posteriors, Viterbi path, posterior decoding) into its own
    file named by the printed value."""
    pytest.importorskip("matplotlib")
    script = str(EXAMPLES / "casino_decode.bio")
    code, out, err = _run(capsys, script, "--format", "tsv", "--plot", str(tmp_path / "d.png"))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "# post = table of hmm_posteriors, 61 x 4"
    assert lines[63].startswith("# path = table of hmm_vstate")  # (a 1-D table: its text)
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[1:63])), delimiter="\t"))
    assert list(rows[0]) == ["i", "symbol", "start", "fair", "loaded", "end"]
    assert len(rows) == 61 and rows[1]["symbol"] == "6" and rows[0]["symbol"] == ""
    assert all(abs(float(r["fair"]) + float(r["loaded"]) - 1) < 1e-9 for r in rows[1:])
    for name in ("post", "path", "dec"):
        assert (tmp_path / f"d.{name}.png").read_bytes().startswith(PNG)
    assert err.count("wrote ") == 3


def test_nothing_to_draw_is_one_error(capsys, write_bio, tmp_path):
    code, out, err = _run(capsys, str(write_bio("print 2 * 3\n")), "--plot",
                          str(tmp_path / "x.png"))
    assert code == 2 and "Traceback" not in err and out.strip() == "2 * 3 = 6"
    assert "nothing printed can be drawn" in err and not (tmp_path / "x.png").exists()
