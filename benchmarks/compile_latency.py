"""Compile latency per example: cold (empty code cache) and cached (a second
process finds the generated source and Numba's machine code on disk).

Each measurement is a fresh Python process that imports dslc and Numba and
warms Numba's own start-up first, then times ``Program.run()`` on the CPU backend: parsing and checking are
separate (``check``), and ``run`` includes planning, code generation, Numba
compilation (or cache load) and the examples' small computations.

    python benchmarks/compile_latency.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ["edit_distance", "needleman_wunsch", "smith_waterman", "nussinov", "three_way"]

PROBE = r"""
import sys, time, json
import numba, numpy as np, dslc
# Numba's own one-off start-up (its typing registries load on first dispatch, ~0.5 s here)
# is paid before timing: it is the same for any Numba program, not dslc's compile cost.
@numba.njit(cache=False)
def _warm(a):
    return np.log1p(np.exp(a[0])) + max(a[0], 1.0)
_warm(np.ones(2))
t0 = time.perf_counter(); prog = dslc.compile(sys.argv[1], backend="cpu"); t1 = time.perf_counter()
prog.run(); t2 = time.perf_counter()
print(json.dumps({"check": t1 - t0, "run": t2 - t1}))
"""


def measure(example: str, cache: str) -> dict:
    env = dict(os.environ, DSLC_CACHE_DIR=cache, NUMBA_CACHE_DIR=cache)
    r = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / "examples" / f"{example}.bio")],
                       capture_output=True, text=True, env=env, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    args = ap.parse_args()
    out = {}
    for ex in EXAMPLES:
        with tempfile.TemporaryDirectory() as cache:
            cold = measure(ex, cache)
            cached = measure(ex, cache)
        out[ex] = {"check_s": round(cold["check"], 3), "cold_run_s": round(cold["run"], 3),
                   "cached_run_s": round(cached["run"], 3)}
        print(ex, out[ex], flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
