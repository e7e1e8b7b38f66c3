"""Programs whose GPU code the CI cannot run (it has no GPU: the CUDA tests run in
Numba's simulator), run on a real GPU and compared with the interpreter.

    python3 benchmarks/device_check/run.py

Each program runs as a whole ``dslc run --format json`` on ``interp``, ``cpu`` and
``cuda``; the outputs must be equal. Today: a map of tuple values (a score with its
count of co-optimal alignments), whose kernel holds tuples in device code."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = ["tuple_map.bio"]


def main() -> int:
    bad = 0
    with tempfile.TemporaryDirectory() as cache:
        for prog in PROGRAMS:
            outs = {}
            for backend in ("interp", "cpu", "cuda"):
                r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", prog, "--backend",
                                    backend, "--quiet", "--format", "json", "-v"],
                                   cwd=HERE, capture_output=True, text=True,
                                   env={**__import__("os").environ, "DSLC_CACHE_DIR": cache})
                outs[backend] = r.stdout if r.returncode == 0 else f"rc {r.returncode}"
                print(f"{prog} {backend}: rc {r.returncode}; {r.stderr.strip()[-400:]}")
            same = len(set(outs.values())) == 1
            bad += not same
            print(f"{prog}: {'equal on every backend' if same else 'DIFFERENT'}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
