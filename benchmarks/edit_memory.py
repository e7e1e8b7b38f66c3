"""Peak memory of a score-only edit distance of two random 50,000-base
sequences on the CPU backend: only the sliding window (3 anti-diagonals) is
kept, never the 2.5e9-cell table.

Reported: the process's peak resident set size, and the same for a process
that does everything but the alignment (imports, a tiny compiled call), so
the difference is what the alignment itself costs.

    python benchmarks/edit_memory.py [--n 50000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

PROBE = r"""
import resource, sys, time, json, random
import dslc
n = int(sys.argv[1])
src = '''
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
    if i == 0 then j
    else if j == 0 then i
    else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
    else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
'''
prog = dslc.compile(src, backend="cpu")
rng = random.Random(7)
s = "".join(rng.choice("ACGT") for _ in range(n)); t = "".join(rng.choice("ACGT") for _ in range(n))
prog.call("d", s[:8], 8, t[:8], 8)          # compile on a tiny input first
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter(); v = prog.call("d", s, n, t, n); dt = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"n": n, "distance": v, "seconds": dt, "gcups": n * n / dt / 1e9,
                  "baseline_rss_mb": base / 1024, "peak_rss_mb": peak / 1024,
                  "alignment_mb": (peak - base) / 1024}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--json")
    args = ap.parse_args()
    r = subprocess.run([sys.executable, "-c", PROBE, str(args.n)], capture_output=True, text=True,
                       check=True)
    line = r.stdout.strip().splitlines()[-1]
    print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(json.loads(line), indent=2))


if __name__ == "__main__":
    main()
