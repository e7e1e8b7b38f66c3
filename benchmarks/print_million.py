"""Printing a map of a million values, and reading a large FASTA file: whole ``dslc run``
processes per output format, and the same steps timed alone in one process.

    python benchmarks/print_million.py [--records 1000000] [--fasta big.faa] \
        [--dslc-path OLD_CHECKOUT] [--json out.json]

The script maps a cheap recurrence (a float per record) over a synthetic FASTA of
``--records`` short DNA records (seeded) and prints the map; each format (json, jsonl,
tsv, text) is one whole process, after a warm-up run that fills the compile cache. The
SHA-256 of every output is reported, so two checkouts (``--dslc-path``: put an older
checkout's package first on the path) can be shown to print the same bytes. ``steps``
times, in this process, converting the million raw values (``to_array``) and rendering
them in each format, and reading ``--fasta`` (a large protein file) with ``read_fasta``
(wall and CPU seconds). ``--queries Q`` renders instead an int map of Q x ``--records``
with a name on each axis (the result of searching Q queries against a database), and
each step reports the SHA-256 of what it rendered.

    python benchmarks/print_million.py --formats '' --queries 10 --steps tsv \
        --fasta db.fasta
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """\
param db = "records.fa"
float w(seq[dna] s, index[s] i) = if i == 0 then 1.0 else w(i - 1) / 3.0 + i
float score(seq[dna] s) = w(len(s))
d = load(seq[dna], db)
m = map(score, d)
print m
"""

STEPS = """\
import hashlib, json, random, sys, time
import numpy as np
from dslc.lang.results import Axis, MapResult, to_array
from dslc.runtime.render import render_json, render_text
from dslc.runtime.hits import render_tsv, render_jsonl
n, fasta, formats, queries = int(sys.argv[1]), sys.argv[2], sys.argv[3].split(","), \
    int(sys.argv[4])
rng = random.Random(1)
out = {}
if queries:  # a search's shape: int scores of queries x n records, both axes named
    scores = np.random.default_rng(1).integers(0, 3000, size=(queries, n))
    axes = (Axis("q", tuple(f"Q{k}_sp|P{k:05d}" for k in range(queries))),
            Axis("db", tuple(f"d{k}_938293.PRJEB85.HG{k % 7919:06d}_{k % 613}"
                             for k in range(n))))
    m = MapResult("sw", "int", scores, axes)
else:
    raw = [rng.choice([1.0, 1.3333333333333333, 3.814814814814815, 12.750088909210994])
           * rng.random() for _ in range(n)]
    t = time.perf_counter(); values = to_array(raw, "float")
    out["to_array"] = time.perf_counter() - t
    m = MapResult("score", "float", values, (Axis("d", tuple(f"r{k}" for k in range(n))),))
for name, render in (("json", render_json), ("jsonl", render_jsonl), ("tsv", render_tsv),
                     ("text", render_text)):
    if name not in formats:
        continue
    t, c = time.perf_counter(), time.process_time()
    text = render([("m", m)])
    out[name] = time.perf_counter() - t
    out[name + "_cpu"] = time.process_time() - c
    out[name + "_sha256"] = hashlib.sha256(text.encode()).hexdigest()[:16]
    del text
if fasta != "-":
    from dslc.lang.fasta import read_fasta
    from dslc.lang.stdlib import standard_alphabets
    t, c = time.perf_counter(), time.process_time()
    recs = read_fasta(fasta, standard_alphabets()["protein"])
    out["fasta"] = time.perf_counter() - t
    out["fasta_cpu"] = time.process_time() - c
    out["fasta_records"] = len(recs)
print(json.dumps(out))
"""

RUN = "import sys; from dslc.cli import main; sys.exit(main())"


def write_records(path: Path, n: int) -> None:
    rng = random.Random(1)
    with open(path, "w") as fh:
        for k in range(n):
            seq = "".join(rng.choice("ACGT") for _ in range(rng.randint(1, 12)))
            fh.write(f">r{k} synthetic\n{seq}\n")


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def run_format(workdir: Path, fmt: str, env: dict, timeout: float) -> dict:
    """One whole ``dslc run`` printing the map as ``fmt``: wall seconds, CPU
    seconds (user + system: on a shared machine the steadier figure) and the
    SHA-256 of what it printed (None past ``timeout`` seconds)."""
    out = workdir / f"out.{fmt}"
    cmd = [sys.executable, "-c", RUN, "run", "million.bio", "--backend", "cpu",
           "--format", fmt, "--quiet"]
    t, before = time.perf_counter(), _children_cpu()
    try:
        with open(out, "wb") as fh:
            subprocess.run(cmd, cwd=workdir, env=env, stdout=fh, check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"format": fmt, "wall_s": None, "timed_out_after_s": timeout}
    wall = time.perf_counter() - t
    return {"format": fmt, "wall_s": round(wall, 2), "cpu_s": round(_children_cpu() - before, 2),
            "sha256": hashlib.sha256(out.read_bytes()).hexdigest()[:16]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--fasta", default="-", help="a large protein FASTA to time reading")
    ap.add_argument("--dslc-path", default=str(ROOT), help="the checkout whose dslc runs")
    ap.add_argument("--formats", default="json,jsonl,tsv,text")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a run may take")
    ap.add_argument("--steps", default="json,jsonl,tsv,text", help="formats timed alone")
    ap.add_argument("--queries", type=int, default=0,
                    help="steps only: render an int map of QUERIES x RECORDS with names on "
                         "both axes (a search's result) instead of a float per record")
    ap.add_argument("--json", help="write the results here too")
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=args.dslc_path)  # (every child runs outside ROOT)
    env.setdefault("DSLC_CACHE_DIR", tempfile.mkdtemp(prefix="dslc-print-"))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        formats = [f for f in args.formats.split(",") if f]
        if formats:  # (--formats '': the steps alone)
            (work / "million.bio").write_text(SCRIPT)
            write_records(work / "records.fa", 50)
            subprocess.run([sys.executable, "-c", RUN, "run", "million.bio", "--backend", "cpu",
                            "--quiet"], cwd=work, env=env, check=True, capture_output=True)
            write_records(work / "records.fa", args.records)
        runs = [run_format(work, f, env, args.timeout) for f in formats]
        done = subprocess.run([sys.executable, "-c", STEPS, str(args.records), args.fasta,
                               args.steps, str(args.queries)], cwd=work, env=env,
                              capture_output=True, text=True, check=True)
    steps = json.loads(done.stdout.splitlines()[-1])
    result = {"records": args.records, "dslc_path": args.dslc_path, "runs": runs,
              "steps": {k: round(v, 2) if isinstance(v, float) else v
                        for k, v in steps.items()}}
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
