"""The constants of the cluster's scaling model (docs/benchmarks-log.md, "Scaling beyond
one GPU: a model"), measured on a Dask LocalCluster of this host's CPU workers:

* the per-shard overhead of the pool: one map of many tiny tasks split into k shards,
  time against k (the slope is the seconds a shard costs beyond its tasks' work);
* scattering a packed database of N residues to every worker (``broadcast=True``), and
  to one worker only (the rest is Dask's replication among the workers);
* a product map (Q queries x N proteins, Smith-Waterman, cpu backend) end to end on the
  pool against the same map in this process, with the values compared;
* reading the database's FASTA file here (what the client does before any shard).

    python benchmarks/cluster_scaling.py --proteome proteome.faa [--queries 5] [--n 20000]
        [--workers 2] [--json out.json]

The proteins are drawn with replacement from ``--proteome`` (benchmarks.common's
seeded picks); the queries are the proteome's proteins nearest 100, 200, ... residues.
Each worker runs one thread and Numba one thread (NUMBA_NUM_THREADS=1), so two workers
use the two cores the local run uses. The host's load average is reported with the
figures: on a shared machine they are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import SW_PROGRAM, database_picks, pick_query  # noqa: E402

# Measured on an H100 (docs/benchmarks-log.md, "A million-protein GPU map end to end"), not here:
GPU_CELLS_PER_S = 1.0e12  # the kernel at q = 375: 1.22e12 cells in 1.22 s (10 x 1M proteins)
HOST_TO_DEVICE = 13.2e9  # bytes/s
FASTA_READ = 57.5e6  # bytes/s of FASTA text per reading process (340 MB in 5.5-6 s)
INTERLEAVE = 0.25e-6  # seconds per protein, the database interleaved for the GPU
RESIDUES_PER_PROTEIN = 325  # 1M drawn proteins: 3.25e8 residues (1.22e12 / (10 x 375))
FASTA_BYTES_PER_PROTEIN = 340  # 1M drawn proteins: 340 MB of FASTA
MODEL_GPUS = (1, 2, 8, 64)

SHARDS = (2, 8, 32, 128)  # shard counts of the overhead measurement
TINY = 2000  # proteins of 8 residues in the overhead measurement (x the queries: its tasks)


def write_fasta(path: Path, records) -> None:
    with open(path, "w") as out:
        for k, s in enumerate(records):
            out.write(f">{s.name}_{k}\n{s.text}\n")


def read(path: Path):
    from dslc.lang.fasta import read_fasta
    from dslc.lang.stdlib import standard_alphabets

    return read_fasta(str(path), standard_alphabets()["protein"])


def product_batch(prog, queries, db):
    """The columnar batch of ``map(sw, blosum62 (*) 10 (*) 1 (*) queries (*) db)``, as a
    script's ``load`` binds it: one packed buffer per list, task (q, d) at q * N + d."""
    from dslc.lang.batch import SeqColumn, Shared, TaskBatch

    tf = prog.checked.functions["sw"]
    one = prog._bind_map(tf, [prog.checked.defined["blosum62"], 10, 1, queries[0], db[0]])
    q, n = len(queries), len(db)
    cols = {name: Shared(one[name]) for name in ("sm", "open", "ext")}
    cols["s"] = SeqColumn(queries.pack, np.repeat(np.arange(q, dtype=np.int64), n))
    cols["t"] = SeqColumn(db.pack, np.tile(np.arange(n, dtype=np.int64), q))
    return TaskBatch(tuple(one), cols, q * n)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def shard_overhead(client, plan, prog, batch, threads: int) -> dict:
    """Seconds of one pool map of ``batch`` for each shard count, and the fitted slope."""
    from dslc.cluster import Pool

    runs = {}
    for k in SHARDS:
        pool = Pool(client, per_thread=max(1, k // threads))
        pool.map(plan, prog.checked, "sw", batch, None)  # the workers' backends warm
        runs[k] = min(timed(lambda: pool.map(plan, prog.checked, "sw", batch, None))[0]
                      for _ in range(3))
    ks = np.array(list(runs), dtype=float)
    slope, base = np.polyfit(ks, np.array(list(runs.values())), 1)
    return {"tasks": len(batch), "seconds_by_shards": runs, "seconds_per_shard": slope,
            "seconds_at_zero_shards": base}


def client_side(prog, batch, shards: int) -> dict:
    """Seconds per million tasks of what the client does per task: predicting cells and
    cutting shards (shards.task_cells, shards.shard_tasks), and placing the values that
    come back into the map's result list (Pool.map)."""
    from dslc.cluster.shards import shard_tasks, task_cells

    per = 1e6 / len(batch)
    fresh = type(batch)(batch.names, batch.columns, batch.count)  # no cached order
    plan_s, cut = timed(lambda: shard_tasks(fresh, task_cells(prog.checked, "sw", fresh),
                                            shards))
    values = np.arange(len(batch), dtype=np.int64)

    def place():
        out = np.empty(len(batch), dtype=object)
        for ids in cut:
            out[ids] = values[ids]
        return out.tolist()
    place_s, _ = timed(place)
    return {"tasks": len(batch), "plan_seconds_per_million_tasks": plan_s * per,
            "place_seconds_per_million_values": place_s * per}


def scatter_cost(client, pack) -> dict:
    """Seconds to scatter ``pack`` (and a 4x larger one) to every worker and to one."""
    from dslc.lang.records import SeqPack

    out = {}
    big = SeqPack(pack.alphabet, np.tile(pack.codes, 4), pack.offsets, pack.names,
                  pack.name_offsets)
    for name, p in (("db", pack), ("db_x4", big)):
        row = {"residues": int(p.codes.size)}
        for how, kw in (("every_worker", {"broadcast": True}), ("one_worker", {})):
            times = []
            for _ in range(3):
                t, futures = timed(lambda: client.scatter([p], hash=False, **kw))
                times.append(t)
                client.cancel(futures)
            row[how] = min(times)
            row[f"{how}_mb_per_s"] = p.codes.nbytes / min(times) / 1e6
        out[name] = row
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--proteome", help="a protein FASTA file (read only; required to measure)")
    ap.add_argument("--queries", type=int, default=5)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", default=None)
    ap.add_argument("--model-from", default=None,
                    help="a report this script wrote: only the model, from its constants")
    args = ap.parse_args()
    if args.model_from:
        report = json.loads(Path(args.model_from).read_text())
        return _write(_with_model(report), args.json)

    import distributed

    import dslc
    from dslc.cluster import Pool
    from dslc.cluster.worker import Plan

    load_before = os.getloadavg()
    proteome = read(Path(args.proteome))
    picks = database_picks(len(proteome), args.n)
    tmp = Path(tempfile.mkdtemp(prefix="dslc-cluster-bench-"))
    write_fasta(tmp / "db.fasta", [proteome[int(k)] for k in picks])
    write_fasta(tmp / "q.fasta", [pick_query(proteome, 100 * (k + 1))
                                  for k in range(args.queries)])
    fasta_mb = (tmp / "db.fasta").stat().st_size / 1e6
    read_s, db = timed(lambda: read(tmp / "db.fasta"))
    queries = read(tmp / "q.fasta")
    tiny = _tiny(tmp, proteome, picks)

    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    batch = product_batch(prog, queries, db)
    cells = sum(len(q) * int(db.pack.lengths.sum()) for q in queries)
    engine = prog._engine()
    engine.map("sw", product_batch(prog, queries, tiny), None)  # compiled (or cached) here
    local_s, local = timed(lambda: engine.map("sw", batch, None))

    cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                       processes=True, dashboard_address=":0",
                                       env={"NUMBA_NUM_THREADS": "1"})
    client = distributed.Client(cluster)
    try:
        plan = Plan.of(prog.checked, prog.base_dir, "cpu")
        pool = Pool(client)
        first_s, _ = timed(lambda: pool.map(plan, prog.checked, "sw", batch, None))
        pool_s, there = min((timed(lambda: pool.map(plan, prog.checked, "sw", batch, None))
                             for _ in range(2)), key=lambda r: r[0])
        assert there == local, "the pool's values differ from the local run's"
        overhead = shard_overhead(client, plan, prog, product_batch(prog, queries, tiny),
                                  args.workers)
        scatter = scatter_cost(client, db.pack)
    finally:
        client.close()
        cluster.close()

    report = {
        "machine": {"cpus": os.cpu_count(), "load_average_before": load_before,
                    "load_average_after": os.getloadavg()},
        "workers": args.workers, "queries": args.queries, "proteins": args.n,
        "residues": int(db.pack.codes.size), "cells": cells,
        "fasta_read": {"mb": fasta_mb, "seconds": read_s, "mb_per_s": fasta_mb / read_s},
        "local": {"seconds": local_s, "gcups": cells / local_s / 1e9},
        "pool": {"seconds": pool_s, "gcups": cells / pool_s / 1e9,
                 "first_map_seconds": first_s, "speedup_over_local": local_s / pool_s},
        "shard_overhead": overhead,
        "client_side": client_side(prog, batch, 2 * args.workers),
        "scatter": scatter,
    }
    _write(_with_model(report), args.json)


def _with_model(report: dict) -> dict:
    report["model_100m_proteins_10_queries"] = model(report)
    report["model_1m_proteins_10_queries"] = model(report, proteins=1e6)
    return report


def _write(report: dict, path: str | None) -> None:
    text = json.dumps(report, indent=2)
    print(text)
    if path:
        Path(path).write_text(text + "\n")


def model(report: dict, queries: int = 10, qlen: int = 375, proteins: float = 1e8) -> dict:
    """Predicted seconds of ``queries`` x ``proteins`` on G GPUs by term (the model of
    docs/benchmarks.md): the GPU constants above, the pool's from ``report``. dslc as it
    is: the FASTA read by one process on the client; with a pool (G > 1) the database
    sent from the client once in slices (one per shard, each to one worker) at the rate
    measured for one worker, and the values back the same way; each GPU interleaving and
    uploading only its slice; one shard per GPU; the values placed on the client. G = 1
    is a run without a pool (nothing sent)."""
    send = report["scatter"]["db_x4"]["one_worker_mb_per_s"] * 1e6  # bytes/s of one copy
    residues = proteins * RESIDUES_PER_PROTEIN
    tasks = queries * proteins
    client = report["client_side"]
    out = {}
    for g in MODEL_GPUS:
        pooled = g > 1
        terms = {
            "read_fasta_on_client": proteins * FASTA_BYTES_PER_PROTEIN / FASTA_READ,
            "plan_on_client": pooled * tasks / 1e6 * client["plan_seconds_per_million_tasks"],
            "send_database": pooled * residues / send,
            "interleave_and_upload": proteins / g * INTERLEAVE + residues / g / HOST_TO_DEVICE,
            "per_shard_overhead": pooled * g * report["shard_overhead"]["seconds_per_shard"],
            "kernel": queries * qlen * residues / (g * GPU_CELLS_PER_S),
            "values_back": pooled * tasks * 8 / send
            + tasks / 1e6 * client["place_seconds_per_million_values"],
        }
        total = sum(terms.values())
        out[g] = {"seconds": total, "terms": terms,
                  "largest_term": max(terms, key=terms.get),
                  "without_the_read": total - terms["read_fasta_on_client"]}
    return out


def _tiny(tmp: Path, proteome, picks):
    """TINY proteins of 8 residues (the first 8 of each drawn protein)."""
    with open(tmp / "tiny.fasta", "w") as out:
        for k in picks[:TINY]:
            out.write(f">t{k}\n{proteome[int(k)].text[:8]}\n")
    return read(tmp / "tiny.fasta")


if __name__ == "__main__":
    main()
