"""Smith-Waterman database search on a GPU: dslc's CUDA backend (task-per-thread)
and its CPU backend, in the same run, on the same data.

The database is N proteins drawn with replacement from pyhmmer's 2,100-protein
test proteome (so lengths and composition follow the real proteome); queries are
proteins of that proteome of length 144, 375 and 1000 (the nearest length when
none is exact). BLOSUM62, gaps 10 + 1 (parasail/CUDASW++ open 11, extend 1).
GCUPS = query length x database residues / seconds of the map (kernel launches,
transfers and packing included; compilation excluded by a warm-up call); kernel
GCUPS count the kernels' time alone. --tiles compares register tile heights.
Scores of the CPU run (on a subset) must equal the GPU's for the same proteins.

    python benchmarks/sw_gpu.py --proteome FILE --n 1000000 --cpu-n 20000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SW_PROGRAM  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proteome", help="FASTA (default: the one in pyhmmer's wheel)")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--cpu-n", type=int, default=20_000)
    ap.add_argument("--queries", default="144,375,1000")
    ap.add_argument("--tiles", help="register tile rows to compare, e.g. 8,16,32")
    ap.add_argument("--product", type=int, default=0,
                    help="also time one map of this many queries (the proteome's proteins "
                         "nearest 375 residues) x the database, as one columnar product batch")
    ap.add_argument("--json")
    args = ap.parse_args()

    import dslc
    from dslc.cuda.backend import CudaBackend
    from dslc.runtime.binding import bind_call
    from dslc.runtime.script import backend_globals
    from dslc.cpu.backend import CpuBackend

    from benchmarks.common import load_proteome, pick_query, proteome_path, sample_database

    path = args.proteome or proteome_path()
    proteome = load_proteome(path)
    db = sample_database(proteome, args.n)
    residues = sum(len(s) for s in db)
    from dslc.lang.records import SeqPack

    pack = SeqPack.of(db, db[0].alphabet)  # what the FASTA reader makes of the database
    prog = dslc.compile(SW_PROGRAM, backend="interp")
    checked = prog.checked
    blosum = checked.defined["blosum62"]
    sw = checked.functions["sw"]
    gpu = CudaBackend(checked, backend_globals(checked))
    cpu = CpuBackend(checked, backend_globals(checked))

    report = {"proteins": args.n, "residues": residues, "proteome": os.path.basename(path),
              "queries": {}}
    tiles = [int(x) for x in args.tiles.split(",")] if args.tiles else [None]
    for qlen in (int(x) for x in args.queries.split(",")):
        query = pick_query(proteome, qlen)
        tasks = [bind_call(sw, [blosum, 10, 1, query, t], checked, None) for t in db]
        batch = columnar(tasks, db, pack)
        by_tile = {}
        for rows in tiles:
            if rows is not None:
                os.environ["DSLC_CUDA_TILE"] = str(rows)
            # compile the kernel the whole map will use: a small warm-up map would
            # get task-per-block from the hybrid choice, a different kernel
            os.environ["DSLC_CUDA_STRATEGY"] = "thread"
            gpu.map("sw", tasks[:256], None)
            del os.environ["DSLC_CUDA_STRATEGY"]
            assert not gpu.device_fallbacks, gpu.device_fallbacks
            gpu.kernel_seconds = 0.0
            t0 = time.perf_counter()
            scores = gpu.map("sw", tasks, None)
            t_gpu = time.perf_counter() - t0
            # the same map from a columnar batch, as `dslc run` binds a FASTA database
            # (one packed buffer, no Python object per task): the end-to-end figure
            kernel_dicts = gpu.kernel_seconds
            gpu.kernel_seconds = 0.0
            t0 = time.perf_counter()
            col_scores = gpu.map("sw", batch, None)
            t_col = time.perf_counter() - t0
            assert list(col_scores) == list(scores)
            by_tile[str(rows or "default")] = {
                "columnar_seconds": t_col, "columnar_gcups": len(query) * residues / t_col / 1e9,
                "columnar_kernel_seconds": gpu.kernel_seconds,
                "columnar_over_kernel": gpu.kernel_seconds / t_col,
                "seconds": t_gpu, "gcups": len(query) * residues / t_gpu / 1e9,
                "kernel_seconds": kernel_dicts,
                "kernel_gcups": len(query) * residues / kernel_dicts / 1e9,
                "strategy": gpu.strategy.get("sw"), "launches": gpu.launches,
                "pipeline": os.environ.get("DSLC_CUDA_PIPELINE", "default")}
            print(json.dumps({qlen: by_tile}), flush=True)
        sub = tasks[: args.cpu_n]
        # the warm-up is the timed map itself: a smaller one plans for its own
        # longest protein and leaves the timed map to compile again
        cpu.map("sw", sub, None)
        t0 = time.perf_counter()
        cpu_scores = cpu.map("sw", sub, None)
        t_cpu = time.perf_counter() - t0
        sub_res = sum(len(t["t"]) for t in sub)
        entry = {"query": query.name, "length": len(query), "gpu_by_tile": by_tile,
                 "gpu_seconds": t_gpu, "gpu_gcups": len(query) * residues / t_gpu / 1e9,
                 "gpu_kernel_gcups": len(query) * residues / kernel_dicts / 1e9,
                 "cpu_proteins": len(sub), "cpu_seconds": t_cpu,
                 "cpu_gcups": len(query) * sub_res / t_cpu / 1e9,
                 "cpu_threads": _threads(),
                 "scores_identical_on_cpu_subset": cpu_scores == scores[: len(sub)]}
        entry["gpu_over_cpu"] = entry["gpu_gcups"] / entry["cpu_gcups"]
        report["queries"][str(qlen)] = entry
        print(json.dumps({qlen: entry}), flush=True)
    if args.product:
        first = bind_call(sw, [blosum, 10, 1, proteome[0], db[0]], checked, None)
        report["product"] = product_map(gpu, first, proteome, pack, args.product, residues)
        print(json.dumps({"product": report["product"]}), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)


def product_map(gpu, first: dict, proteome, pack, count: int, residues: int) -> dict:
    """``count`` queries x the database as one map, the way `dslc run` binds
    ``q (*) db`` from two FASTA files (two packed columns, the query varying
    slowest), in a process whose kernel is loaded (the first map is this process's
    first of this shape; the second finds the database on the device): each map's
    seconds end to end
    (grouping, launches, transfers, kernels), its kernel seconds, and GCUPS."""
    from dslc.lang.batch import SeqColumn, Shared, TaskBatch
    from dslc.lang.records import SeqPack

    by_length = sorted(proteome, key=lambda s: (abs(len(s) - 375), s.name))[:count]
    queries = SeqPack.of(by_length, by_length[0].alphabet)
    n = len(pack.lengths)
    total = count * n
    cells = sum(len(q) for q in by_length) * residues
    rows = []
    for _ in range(2):
        cols = {k: Shared(v) for k, v in first.items()}  # the matrix and the gap costs
        cols["s"] = SeqColumn(queries, np.arange(total, dtype=np.int64) // n)
        cols["t"] = SeqColumn(pack, np.arange(total, dtype=np.int64) % n)
        batch = TaskBatch(tuple(first), cols, total)
        gpu.kernel_seconds = 0.0
        t0 = time.perf_counter()
        gpu.map("sw", batch, None)
        took = time.perf_counter() - t0
        rows.append({"seconds": took, "kernel_seconds": gpu.kernel_seconds,
                     "gcups": cells / took / 1e9, "kernel_gcups": cells / gpu.kernel_seconds / 1e9,
                     "launches": gpu.launches})
    return {"queries": count, "proteins": n, "cells": cells, "maps": rows}


def columnar(tasks: list, db: list, pack):
    """The tasks as the runtime binds a map over a database: the database's column
    one packed buffer (``pack``) read by task number, every other argument shared."""
    from dslc.lang.batch import SeqColumn, Shared, TaskBatch

    first = tasks[0]
    names = tuple(first)
    cols = {n: SeqColumn(pack, np.arange(len(db), dtype=np.int64)) if first[n] is db[0]
            else Shared(first[n]) for n in names}
    return TaskBatch(names, cols, len(tasks))


def _threads() -> int:
    import numba
    return numba.config.NUMBA_NUM_THREADS


if __name__ == "__main__":
    main()
