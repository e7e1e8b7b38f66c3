"""The alignments of a search's top hits as a user sees them: whole ``dslc run`` processes
of ``examples/search.bio`` with ``--top N --align``, against the same run without
``--align``, and each run's own ``--timings`` rows (the map, and ``alignments of N
tasks``: the rows' tracebacks and alignments, made as the hit table is printed).

The database is N proteins drawn with replacement from the proteome (the draw of
benchmarks/whole_run.py's ``--million`` jobs), the query the protein of about 375
residues. Each backend gets a fresh cache: a first run (everything compiled), then
``--repeat`` runs of each kind (with and without ``--align``) in turn. The printed
rows' scores must be the same with and without ``--align``. Reported per run: its wall
seconds, the map's and the alignments' rows of ``--timings``; per backend, the medians
and the alignments' seconds as a share of the map and of the whole run without them
(benchmarks/trace_hits.py measures the same alignments inside one process, against the
search's load and map there).

    python3 benchmarks/align_run.py --proteome .whl/proteome.faa --n 1000000 --top 100 \
        [--backends cuda,cpu] [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEARCH = ROOT / "examples" / "search.bio"


def write_data(folder: Path, proteome: str, n: int) -> tuple[Path, Path]:
    """The database (N proteins drawn as whole_run.py draws them) and the query file."""
    from benchmarks.whole_run import make_million_jobs

    job = make_million_jobs(folder, proteome, n)[f"sw 1 x {n:,}"]
    return job.parent.parent / "db.fasta", job.parent / "queries.fasta"


def timed_rows(stderr: str) -> dict:
    """``--timings``' rows by what they are (``map of ...``, ``alignments of ...``):
    their total seconds, and the run's wall seconds under ``run``."""
    out = {}
    for line in stderr.splitlines():
        words = line.split()
        if line.startswith("  run: "):
            out["run"] = float(words[1])
        elif len(words) > 4 and words[0] in ("map", "alignments") and words[1] == "of":
            out[words[0]] = float(words[-1])
    return out


def run_once(backend: str, cache: Path, db: Path, queries: Path, top: int,
             align: bool) -> dict:
    env = dict(os.environ, DSLC_CACHE_DIR=str(cache))
    cmd = [sys.executable, "-m", "dslc.cli", "run", str(SEARCH), "--backend", backend,
           "--quiet", "--set", f"db={db}", "--set", f"queries={queries}", "--format", "tsv",
           "--top", str(top), "--timings"] + (["--align"] if align else [])
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.stderr.write(f"{' '.join(cmd)} failed:\n{r.stderr[-3000:]}\n")
        return {"wall_s": wall, "failed": True}
    rows = [ln.split("\t")[:3] for ln in r.stdout.splitlines()[1:]]
    return {"wall_s": round(wall, 3), **{f"{k}_s": v for k, v in timed_rows(r.stderr).items()},
            "hits": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--proteome", required=True, help="the proteome's FASTA")
    ap.add_argument("--n", type=int, default=1_000_000, help="proteins in the database")
    ap.add_argument("--top", type=int, default=100)
    ap.add_argument("--backends", default="cuda")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    results, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        db, queries = write_data(Path(tmp), args.proteome, args.n)
        for backend in args.backends.split(","):
            cache = Path(tmp) / f"cache-{backend}"
            cache.mkdir()
            first = run_once(backend, cache, db, queries, args.top, True)
            runs = {True: [], False: []}
            for _ in range(args.repeat):
                for align in (True, False):
                    runs[align].append(run_once(backend, cache, db, queries, args.top, align))
            every = [first] + runs[True] + runs[False]
            same = all(not r.get("failed") for r in every) and \
                len({json.dumps(r["hits"]) for r in every}) == 1
            ok = ok and same

            def median(rs, key):
                got = [r[key] for r in rs if key in r]
                return round(statistics.median(got), 3) if got else None
            aligned, plain = median(runs[True], "alignments_s"), median(runs[False], "run_s")
            row = {"backend": backend, "database": args.n, "top": args.top,
                   "first_run": {k: v for k, v in first.items() if k != "hits"},
                   "with_align": [{k: v for k, v in r.items() if k != "hits"}
                                  for r in runs[True]],
                   "without": [{k: v for k, v in r.items() if k != "hits"} for r in runs[False]],
                   "alignments_s": aligned, "map_s": median(runs[False], "map_s"),
                   "run_without_s": plain,
                   "share_of_map": round(aligned / median(runs[False], "map_s"), 3)
                   if aligned else None,
                   "share_of_run": round(aligned / plain, 3) if aligned and plain else None,
                   "same_hits": same}
            print(json.dumps(row), flush=True)
            results.append(row)
            if args.json:
                Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
