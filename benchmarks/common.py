"""Shared by the benchmarks: real data from installed packages, timing helpers."""

from __future__ import annotations

import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SW_PROGRAM = """
int h(matrix sm, const open, const ext, seq[protein] s, index[s] i, seq[protein] t, index[t] j)
  | i == 0 or j == 0 = 0
  | otherwise = 0 max e(i, j) max f(i, j) max h(i - 1, j - 1) + sm[s[i - 1], t[j - 1]]
int e(matrix sm, const open, const ext, seq[protein] s, index[s] i, seq[protein] t, index[t] j)
  | j == 0 = -inf
  | otherwise = e(i, j - 1) - ext max h(i, j - 1) - open - ext
int f(matrix sm, const open, const ext, seq[protein] s, index[s] i, seq[protein] t, index[t] j)
  | i == 0 = -inf
  | otherwise = f(i - 1, j) - ext max h(i - 1, j) - open - ext
int sw(matrix sm, const open, const ext, seq[protein] s, seq[protein] t) =
    max(i in 0 ... len(s) : max(j in 0 ... len(t) : h(i, j)))
"""


def proteome_path() -> str:
    """The 2,100-protein proteome shipped in pyhmmer's wheel (test data)."""
    import pyhmmer

    return os.path.join(os.path.dirname(pyhmmer.__file__), "tests", "data", "seqs",
                        "938293.PRJEB85.HG003687.faa")


def load_proteome():
    from dslc.runtime.fasta import read_fasta
    from dslc.runtime.stdlib_data import standard_alphabets

    return read_fasta(proteome_path(), standard_alphabets()["protein"])


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
