"""A product map on one GPU in this process against the same map on a pool of GPU
workers (``--gpus``: one worker process per device), end to end and map alone:

    python benchmarks/cluster_gpus.py --proteome .whl/proteome.faa [--n 1000000]
        [--queries 10] [--qlen 375] [--gpus 0,1] [--json out.json]

The database is N proteins drawn with replacement from ``--proteome`` (benchmarks.common's
seeded picks), written as FASTA and read back by dslc (timed: both runs start from the
file); the queries are the proteome's proteins nearest ``--qlen`` residues. Both maps are
timed warm (compiled code in the shared DSLC_CACHE_DIR, the workers started and given one
map first), best of 2, and their values must be equal.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cluster_scaling import read, timed, write_fasta  # noqa: E402
from benchmarks.common import SW_PROGRAM, database_picks  # noqa: E402


def best(fn, repeat: int = 2):
    runs = [timed(fn) for _ in range(repeat)]
    return min(runs, key=lambda r: r[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--proteome", required=True)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--qlen", type=int, default=375)
    ap.add_argument("--gpus", default="0,1")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    os.environ.setdefault("DSLC_CACHE_DIR", tempfile.mkdtemp(prefix="dslc-cache-"))

    import dslc
    from dslc.cluster import open_pool, parse_gpus

    proteome = read(Path(args.proteome))
    tmp = Path(tempfile.mkdtemp(prefix="dslc-gpus-bench-"))
    write_fasta(tmp / "db.fasta", [proteome[int(k)] for k in database_picks(len(proteome), args.n)])
    near = sorted(proteome, key=lambda s: (abs(len(s) - args.qlen), s.name))[:args.queries]
    write_fasta(tmp / "q.fasta", near)
    read_s, db = timed(lambda: read(tmp / "db.fasta"))
    queries = read(tmp / "q.fasta")
    cells = sum(len(q) for q in queries) * int(db.pack.lengths.sum())

    prog = dslc.compile(SW_PROGRAM, backend="cuda")
    blosum = prog.checked.defined["blosum62"]

    def run(**where):
        return prog.map("sw", blosum, 10, 1, queries, db, **where).values.ravel().tolist()

    first_local, _ = timed(run)
    local_s, local = best(run)
    devices = parse_gpus(args.gpus)
    start_s, pool = timed(lambda: open_pool(gpus=devices))
    try:
        first_pool, _ = timed(lambda: run(client=pool.client))
        pool_s, there = best(lambda: run(client=pool.client))
    finally:
        pool.close()
    assert there == local, "the GPU workers' values differ from the local run's"
    report = {
        "device": os.popen("nvidia-smi --query-gpu=name --format=csv,noheader").read().split("\n"),
        "proteins": args.n, "queries": len(queries), "residues": int(db.pack.codes.size),
        "cells": cells, "fasta_read_seconds": read_s,
        "one_gpu_here": {"map_seconds": local_s, "first_map_seconds": first_local,
                         "gcups": cells / local_s / 1e9},
        "pool": {"gpus": list(devices), "map_seconds": pool_s, "first_map_seconds": first_pool,
                 "start_seconds": start_s, "gcups": cells / pool_s / 1e9},
        "speedup_map": local_s / pool_s,
        "speedup_end_to_end": (read_s + local_s) / (read_s + pool_s),
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")


if __name__ == "__main__":
    main()
