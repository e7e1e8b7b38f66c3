"""``dslc explain --plot``: a real figure (matplotlib), not a strip of pixels:
both axes of a table over one sequence, named after their parameters, a colour
bar of partitions, the dependences, and for a map the work of its tasks."""

from __future__ import annotations

import pytest

import dslc
from dslc import explain
from dslc.cli import main

pytest.importorskip("matplotlib")

FOLD = """\
define alphabet rna "ACGU"
int n(seq[rna] x, index[x] i, index[x] j)
  | j <= i + 1 = 0
  | otherwise = n(i + 1, j) max n(i, j - 1)
print n("GGGAAAUCCAGU", 0, 12)
"""

SEARCH = """\
define alphabet dna "ACGT"
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
    if i == 0 then j
    else if j == 0 then i
    else (d(i - 1, j) min d(i, j - 1)) + 1
int best(seq[dna] s, seq[dna] t) = d(len(s), len(t))
db = load(seq[dna], "db.fasta")
print map(best, "ACGTA" (*) db)
"""


def test_a_table_over_one_sequence_is_drawn_square_with_axes(tmp_path, capsys):
    """Both parameters index x: the old plot read one extent and drew 1 column."""
    import matplotlib.image as mpimg

    script = tmp_path / "fold.bio"
    script.write_text(FOLD)
    png = tmp_path / "wave.png"
    assert main(["explain", str(script), "--plot", str(png)]) == 0
    img = mpimg.imread(str(png))
    h, w = img.shape[:2]
    assert h >= 300 and w >= 300 and 0.5 < h / w < 2, img.shape
    prog = dslc.compile(str(script))
    rep = explain.report(prog)
    from dslc import plot

    fig = plot.figure(prog, rep, "n", [])
    ax, bar = fig.axes  # the domain and its colour bar
    assert ax.get_xlabel().startswith("j (position in x, 0 .. 12")
    assert ax.get_ylabel().startswith("i (position in x, 0 .. 12")
    assert ax.images[0].get_array().shape == (13, 13)
    assert "partition" in bar.get_ylabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["reads n(i + 1, j)", "reads n(i, j - 1)"]


def test_a_map_shows_the_work_of_each_task(tmp_path):
    (tmp_path / "db.fasta").write_text(">a\nACG\n>b\nACGTACGTAC\n>c\nA\n")
    script = tmp_path / "search.bio"
    script.write_text(SEARCH)
    prog = dslc.compile(str(script))
    done = explain.run(prog)
    rep = explain.report(prog, done=done)
    from dslc import plot

    fig = plot.figure(prog, rep, "d", explain.map_tasks(done, prog, "d"))
    domain, work, parts, _ = fig.axes
    cells = [int(p.get_height()) for p in work.patches]
    assert cells == [6 * 4, 6 * 11, 6 * 2]
    steps = [int(p.get_height()) for p in parts.patches]
    coeffs = rep["d"]["schedule"]
    assert steps == [abs(coeffs["i"]) * 5 + abs(coeffs["j"]) * n + 1 for n in (3, 10, 1)]
