"""Smith-Waterman database search on the CPU: dslc's compiled backend against
parasail's fastest SIMD search on this machine, in the same run, on the same data.

BLOSUM62, gaps 10 + 1 in the contract's convention (a gap of length L costs
10 + L), which is parasail's open 11 / extend 1. The query is the first protein
of length 375 in pyhmmer's 2,100-protein test proteome; the database is that
proteome (``--queries N``: its first N proteins, one map of N queries x the database,
as a multi-query search runs). Scores must be identical; GCUPS = query length x
database residues / seconds (the queries' lengths added up).

parasail is timed in each of the variants a user would try for a database search
(striped, scan, and the saturating search that runs 8-bit lanes and re-runs in
16 bits what saturates), each with its query profile made once, on one core; the
ratio is against the fastest of them. dslc runs on one thread with its own choice
of lanes (int8, its tasks that reach the ceiling recomputed in int16, where
emit.narrow proves them exact) and, for comparison in the same run, with
``DSLC_NARROW=16`` (int16 lanes) and ``DSLC_NARROW=0`` (float32 lanes), then on every
thread.

    python benchmarks/sw_cpu.py [--limit N] [--proteome FASTA] [--queries N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SW_PROGRAM, best_of, load_proteome  # noqa: E402


# parasail's exact functions a user would try for a search with a query profile (the
# saturating ones run 8-bit lanes and re-run in 16 bits what saturates; the 8-bit
# ones alone cap scores at 127)
PARASAIL_VARIANTS = ("sw_striped_profile_sat", "sw_striped_profile_16", "sw_scan_profile_16",
                     "sw_scan_profile_sat", "sw_diag_profile_16")


def _records(seqs):
    """``seqs`` as loaded records, as a user's query file gives them (a map over
    records binds no task one by one: dslc.api ``load``)."""
    import tempfile

    from dslc.lang.fasta import read_fasta

    with tempfile.NamedTemporaryFile("w", suffix=".faa", delete=False) as fh:
        fh.write("".join(f">{s.name}\n{s.text}\n" for s in seqs))
    try:
        return read_fasta(fh.name, seqs[0].alphabet)
    finally:
        os.unlink(fh.name)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="use only the first N proteins")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--proteome", help="the proteome's FASTA (default: pyhmmer's copy)")
    ap.add_argument("--queries", type=int, default=1,
                    help="N > 1: the proteome's first N proteins as queries, one map of "
                         "N queries x the database (parasail: one profile per query)")
    args = ap.parse_args()

    import numba
    import parasail

    import dslc

    db = load_proteome(args.proteome)
    queries = [next(s for s in db if len(s) == 375)] if args.queries == 1 else \
        db[: args.queries]
    query = queries[0] if len(queries) == 1 else _records(queries)  # (one query: alone)
    if args.limit:
        db = db[: args.limit]
    cells = sum(len(q) for q in queries) * sum(len(s) for s in db)

    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    blosum = prog.checked.defined["blosum62"]
    t0 = time.perf_counter()
    # compile (or load from the cache): 40 proteins, so that the lanes are compiled too
    prog.map("sw", blosum, 10, 1, query, db[:40])
    warm = time.perf_counter() - t0
    assert not prog._engine().fallbacks, prog._engine().fallbacks

    results = {}
    threads = numba.config.NUMBA_NUM_THREADS

    def timed(n, repeat=3):
        numba.set_num_threads(n)
        out = {}

        def run():
            out["scores"] = prog.map("sw", blosum, 10, 1, query, db).values.ravel().tolist()
        t = best_of(run, repeat)
        numba.set_num_threads(threads)
        return t, out["scores"]

    from dslc import settings
    for narrowest, lanes in (("0", "float32"), ("16", "int16")):
        settings.use({"DSLC_NARROW": narrowest})
        prog.map("sw", blosum, 10, 1, query, db[:40])  # (these lanes compiled)
        t, _ = timed(1)
        results[f"dslc_{lanes}_1_threads"] = {"seconds": t, "gcups": cells / t / 1e9}
    settings.use({"DSLC_NARROW": "1"})
    for n in sorted({1, threads}):
        t, scores = timed(n)
        results[f"dslc_{n}_threads"] = {"seconds": t, "gcups": cells / t / 1e9,
                                        "gcups_per_core": cells / t / 1e9 / n}
    variant = {k: v[2] for k, v in prog._engine().inner.packs.generated.items()}

    peer = None
    for name in PARASAIL_VARIANTS:
        fn = getattr(parasail, name, None)
        if fn is None:
            continue
        make = getattr(parasail, "profile_create_" + name.rsplit("_", 1)[1])
        profiles = [make(q.text, parasail.blosum62) for q in queries]

        def run_parasail():
            nonlocal peer
            peer = [fn(p, s.text, 11, 1).score for p in profiles for s in db]
        t = best_of(run_parasail, 3)
        results[f"parasail_{name}_1_thread"] = {"seconds": t, "gcups": cells / t / 1e9}
        if scores != peer:
            raise SystemExit(f"scores differ from parasail's {name}")
    fastest = max((k for k in results if k.startswith("parasail_")),
                  key=lambda k: results[k]["gcups"])

    identical = scores == peer
    mismatches = sum(a != b for a, b in zip(scores, peer))
    best = results[f"dslc_{threads}_threads"]
    peer_gcups = results[fastest]["gcups"]
    report = {
        "query": ",".join(q.name for q in queries),
        "query_length": sum(len(q) for q in queries), "proteins": len(db),
        "residues": sum(len(s) for s in db), "cells": cells,
        "identical_scores": identical, "mismatches": mismatches,
        "first_call_seconds": warm, "results": results, "dslc_lanes": variant,
        "parasail_fastest": fastest,
        "ratio_per_core": results["dslc_1_threads"]["gcups"] / peer_gcups,
        "ratio_float32_lanes_per_core": results["dslc_float32_1_threads"]["gcups"] / peer_gcups,
        "ratio_int16_lanes_per_core": results["dslc_int16_1_threads"]["gcups"] / peer_gcups,
        "ratio_all_cores_vs_parasail_one_core": best["gcups"] / peer_gcups,
        "cpu_threads": threads,
    }
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
    if not identical:
        raise SystemExit("scores differ from parasail")


if __name__ == "__main__":
    main()
