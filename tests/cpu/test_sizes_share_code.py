"""A database of another size runs the machine code compiled for the first one.

Lengths are in a plan's key (the schedule is ranked, and its storage windows are
sized, at the run's extents: dslc.schedule.legality), but not in the generated
code, which reads every extent at run time: so another size plans again (a
fraction of a second) and finds the module's machine code in Numba's cache. Here
the second map is a fresh process's (the loaded modules forgotten), over a
database of other lengths and another count, as a user's next run is."""

from __future__ import annotations

import logging

import numpy as np

import dslc
from dslc.cpu import modules

# a map of fewer than 16 tasks (the scalar path: its compile is the cheaper one)
SRC = """
define alphabet dna "ACGT"
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = j
  | j == 0 = i
  | otherwise = (d(i - 1, j) + 1) min (d(i, j - 1) + 1)
      min (d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1))
int dist(seq[dna] s, seq[dna] t) = d(s, t, len(s), len(t))
"""


def _map(db: list[str], caplog) -> tuple[list, list[str]]:
    prog = dslc.compile(SRC, backend="cpu")
    with caplog.at_level(logging.INFO, logger="dslc"):
        caplog.clear()
        values = prog.map("dist", ["ACGTTGCA"], db)
    return values, [r.getMessage() for r in caplog.records]


def test_a_database_of_another_size_finds_its_code_in_the_cache(tmp_path, monkeypatch,
                                                                 caplog):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(modules, "_LOADED", {})
    small = ["ACG", "TTGCA", "A"]
    first, log = _map(small, caplog)
    assert any("compiled (not in the cache)" in m for m in log)
    monkeypatch.setattr(modules, "_LOADED", {})  # as a new process: nothing loaded
    large = ["ACGTACGTAAGT" * 5, "T" * 90, "GATTACA", "CC", "ACGTTGCAACGT"]
    second, log = _map(large, caplog)
    assert any("planned and generated" in m for m in log)  # other extents, planned again
    assert not any("compiled (not in the cache)" in m for m in log), log
    assert any("machine code from the cache" in m for m in log)
    interp = dslc.compile(SRC, backend="interp")
    for got, db in ((first, small), (second, large)):
        assert np.asarray(got).tolist() == np.asarray(interp.map("dist", ["ACGTTGCA"], db)).tolist()
