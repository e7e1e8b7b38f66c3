"""Shared by the benchmarks: real data from installed packages, timing helpers."""

from __future__ import annotations

import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def _sw_program() -> str:
    """The standard library's Gotoh Smith-Waterman (the contract's h, e, f, sw)."""
    from dslc.runtime.stdlib_data import stdlib_source

    return stdlib_source("align")


SW_PROGRAM = _sw_program()


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
