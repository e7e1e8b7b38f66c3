"""Map progress: a tqdm bar only on a terminal (or in a notebook) and only for a
map still running after two seconds, never with --quiet; a callback gets
``(done, total)`` from inside the backends' drivers, as groups of tasks finish."""

from __future__ import annotations

import io

import pytest

import dslc
from dslc import backends
from dslc.runtime import progress as P
from dslc.runtime.script import ScriptRunner

MAP = ("define alphabet dna \"ACGT\"\nint f(seq[dna] s) = len(s)\n"
       "xs = load(seq[dna], \"xs.fasta\")\nprint map(f, xs)\n")


class FakeTty(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def fasta(tmp_path, monkeypatch):
    (tmp_path / "xs.fasta").write_text("".join(f">s{k}\n{'ACGT' * k}\n" for k in range(10)))
    monkeypatch.chdir(tmp_path)


def run_script(stream, quiet=False, progress=None):
    prog = dslc.compile(MAP, backend="interp")
    return ScriptRunner(prog.checked, backends.get("interp"), None, quiet=quiet,
                        progress_stream=stream, progress=progress).run()


def test_bar_on_a_terminal(monkeypatch):
    monkeypatch.setattr(P, "DELAY", 0.0)
    stream = FakeTty()
    run_script(stream)
    assert "/10 [" in stream.getvalue() and "task" in stream.getvalue()


def test_no_bar_for_a_short_map_or_off_a_terminal_or_quiet():
    for stream, quiet in ((FakeTty(), False), (io.StringIO(), False), (FakeTty(), True)):
        run_script(stream, quiet)  # (the first: a map shorter than two seconds)
        assert stream.getvalue() == ""


def test_callback_counts_up_to_the_total():
    seen = []
    stream = FakeTty()
    run_script(stream, quiet=True, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (10, 10) and len(seen) > 1
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert stream.getvalue() == ""  # a callback replaces the bar


SUM = """define alphabet dna "ACGT"
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
    if i == 0 then j
    else if j == 0 then i
    else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
    else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
int f(seq[dna] a, seq[dna] b) = d(a, len(a), b, len(b))
"""


def test_compiled_map_reports_progress_in_pieces(monkeypatch):
    """The compiled CPU map runs in pieces when watched, each piece reported, and
    gives the same values as one piece (and as the interpreter)."""
    pytest.importorskip("numba")
    monkeypatch.setattr(P, "CHUNK_MIN", 8)
    prog = dslc.compile(SUM, backend="cpu")
    seqs = ["ACGT" * (1 + k % 5) + "A" * (k % 3) for k in range(50)]
    seen = []
    got = prog.map("f", seqs, "ACG", progress=lambda d, t: seen.append((d, t))).values
    assert len(seen) >= 3 and seen[-1] == (50, 50)
    assert list(got) == list(prog.map("f", seqs, "ACG").values)
    interp = dslc.compile(SUM, backend="interp")
    assert list(got) == list(interp.map("f", seqs, "ACG").values)
