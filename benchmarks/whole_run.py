"""Whole ``dslc run`` processes as a user sees them: wall-clock seconds of the first run
(empty cache: every plan and kernel compiled) and of the second (same cache), per backend.

    python3 benchmarks/whole_run.py --backends cpu,cuda,auto --json whole_run.json
    python3 benchmarks/whole_run.py --proteome .whl/proteome.faa   # adds the 10 x 2,100 job

Each job is a .bio script written into a scratch folder with its data; each backend gets
its own fresh cache directory, so its first run is cold. The printed output of every run
must equal the CPU backend's (itself tested against the interpreter), so a fast wrong
answer cannot pass.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LCS = """\
int lcs(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = 0
  | s[i - 1] == t[j - 1] = lcs(i - 1, j - 1) + 1
  | otherwise = lcs(i - 1, j) max lcs(i, j - 1)
a = load(seq[dna], "a.fasta")
b = load(seq[dna], "b.fasta")
print map(lcs, a (*) b)
"""

ONE_NUMBER = "const x = 6\nint f(int n) = n * x + 1\nprint f(7)\n"

SW_QUERIES = """\
q = load(seq[protein], "queries.fasta")
db = load(seq[protein], "proteome.faa")
print map(sw, blosum62 (*) 11 (*) 1 (*) q (*) db)
"""


def _fasta(names_seqs) -> str:
    return "".join(f">{n}\n{s}\n" for n, s in names_seqs)


def make_jobs(scratch: Path, proteome: str | None) -> dict[str, Path]:
    """Write every job's script and data; returns name -> script path."""
    rng = random.Random(7)
    jobs = {}
    lcs = scratch / "lcs"
    lcs.mkdir()
    (lcs / "a.fasta").write_text(_fasta((f"a{k}", "".join(rng.choice("ACGT") for _ in range(30)))
                                        for k in range(4)))
    (lcs / "b.fasta").write_text(_fasta((f"b{k}", "".join(rng.choice("ACGT") for _ in range(40)))
                                        for k in range(5)))
    (lcs / "lcs.bio").write_text(LCS)
    jobs["lcs 4x5 dna"] = lcs / "lcs.bio"
    one = scratch / "one"
    one.mkdir()
    (one / "one.bio").write_text(ONE_NUMBER)
    jobs["one number"] = one / "one.bio"
    jobs["examples/smith_waterman.bio"] = ROOT / "examples" / "smith_waterman.bio"
    jobs["examples/edit_distance.bio"] = ROOT / "examples" / "edit_distance.bio"
    if proteome:
        sw = scratch / "sw"
        sw.mkdir()
        text = Path(proteome).read_text()
        (sw / "proteome.faa").write_text(text)
        records = [r for r in text.split(">")[1:]][:10]
        (sw / "queries.fasta").write_text("".join(">" + r for r in records))
        from benchmarks.common import SW_PROGRAM

        (sw / "sw.bio").write_text(SW_PROGRAM + "\n" + SW_QUERIES)
        jobs["sw 10 x proteome"] = sw / "sw.bio"
    return jobs


def run_once(script: Path, backend: str, cache: Path) -> tuple[float, str]:
    env = dict(os.environ, DSLC_CACHE_DIR=str(cache))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", str(script), "--backend",
                        backend, "--quiet", "--format", "json"], capture_output=True, text=True,
                       cwd=script.parent, env=env)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{script} on {backend} failed:\n{r.stderr}")
    return wall, r.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", default="cpu,cuda,auto")
    ap.add_argument("--proteome", help="a protein FASTA file for the 10-query search job")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        jobs = make_jobs(scratch, args.proteome)
        for job, script in jobs.items():
            _, want = run_once(script, "cpu", scratch / "reference-cache")
            for backend in args.backends.split(","):
                cache = scratch / f"cache-{backend}-{abs(hash(job))}"
                first, out1 = run_once(script, backend, cache)
                second, out2 = run_once(script, backend, cache)
                same = out1 == want and out2 == want
                row = {"job": job, "backend": backend, "first_s": round(first, 2),
                       "second_s": round(second, 2), "same_output_as_cpu": same}
                print(json.dumps(row), flush=True)
                results.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if all(r["same_output_as_cpu"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
