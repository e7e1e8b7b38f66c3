"""The first GPU map of a newly loaded database, end to end, against its kernel.

One query against N proteins drawn from a proteome, as ``dslc run`` binds them: a
packed buffer read once (a new ``SeqPack`` each sample, so every sample is the
first map of its database: the upload, the size order and the interleaving are in
it), then the same batch mapped again (the database resident). The kernel is
compiled and the process's CUDA set-up done by warm-up maps over a small
database first. Each sample's map seconds, kernel seconds and their ratio (the
issue asks for at least 0.6), then the medians.

    python benchmarks/first_map.py --proteome .whl/proteome.faa --n 1000000 --samples 5
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402

import dslc  # noqa: E402
from benchmarks.common import SW_PROGRAM, load_proteome, pick_query, sample_database  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--proteome", required=True)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--query", type=int, default=375, help="query length (nearest)")
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()

    from dslc.cuda.backend import CudaBackend
    from dslc.lang.batch import SeqColumn, Shared, TaskBatch
    from dslc.lang.records import SeqPack
    from dslc.runtime.binding import bind_call
    from dslc.runtime.script import backend_globals

    proteome = load_proteome(args.proteome)
    db = sample_database(proteome, args.n)
    checked = dslc.compile(SW_PROGRAM, backend="interp").checked
    gpu = CudaBackend(checked, backend_globals(checked))
    query = pick_query(proteome, args.query)
    first = bind_call(checked.functions["sw"], [checked.defined["blosum62"], 10, 1, query, db[0]],
                      checked, None)

    def batch(seqs):
        pack = SeqPack.of(seqs, seqs[0].alphabet)
        cols = {k: Shared(v) for k, v in first.items()}
        cols["t"] = SeqColumn(pack, np.arange(len(seqs), dtype=np.int64))
        return TaskBatch(tuple(first), cols, len(seqs))

    small = sample_database(proteome, 5000)
    for _ in range(2):  # compile, and Numba-CUDA's set-up, on a database of their own
        gpu.map("sw", batch(small), None)
    rows = []
    for k in range(args.samples):
        b = None
        gc.collect()  # the last sample's database and its device copies are gone first,
        from numba import cuda  # and freed (as in a `dslc run`, which holds no other one)

        cuda.current_context().deallocations.clear()
        b = batch(db)
        row = {}
        for what in ("first", "again"):
            gpu.kernel_seconds = 0.0
            t0 = time.perf_counter()
            gpu.map("sw", b, None)
            seconds = time.perf_counter() - t0
            row[what] = {"seconds": round(seconds, 4), "kernel_seconds": round(gpu.kernel_seconds, 4),
                         "kernel_share": round(gpu.kernel_seconds / seconds, 3)}
        rows.append(row)
        print(json.dumps({"sample": k, **row}), flush=True)
    out = {"proteins": args.n, "query_length": len(query), "samples": rows,
           "median": {w: {"seconds": statistics.median(r[w]["seconds"] for r in rows),
                          "kernel_share": statistics.median(r[w]["kernel_share"] for r in rows)}
                      for w in ("first", "again")}}
    print(json.dumps(out["median"]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
