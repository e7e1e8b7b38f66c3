"""Smith-Waterman database search on the CPU: dslc's compiled backend against
parasail's striped SIMD search, in the same run, on the same data.

BLOSUM62, gaps 10 + 1 in the contract's convention (a gap of length L costs
10 + L), which is parasail's open 11 / extend 1. The query is the first protein
of length 375 in pyhmmer's 2,100-protein test proteome; the database is that
proteome (``--queries N``: its first N proteins, one map of N queries x the database,
as a multi-query search runs). Scores must be identical; GCUPS = query length x
database residues / seconds (the queries' lengths added up).

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
    query = queries[0] if len(queries) == 1 else queries  # (one query: passed alone)
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
    for n in sorted({1, threads}):
        numba.set_num_threads(n)
        scores = None

        def run():
            nonlocal scores
            scores = prog.map("sw", blosum, 10, 1, query, db).values.ravel().tolist()
        t = best_of(run, 3)
        results[f"dslc_{n}_threads"] = {"seconds": t, "gcups": cells / t / 1e9,
                                        "gcups_per_core": cells / t / 1e9 / n}
    numba.set_num_threads(threads)

    profiles = [parasail.profile_create_16(q.text, parasail.blosum62) for q in queries]
    peer = None

    def run_parasail():
        nonlocal peer
        peer = [parasail.sw_striped_profile_16(p, s.text, 11, 1).score
                for p in profiles for s in db]
    t = best_of(run_parasail, 3)
    results["parasail_striped_16_1_thread"] = {"seconds": t, "gcups": cells / t / 1e9}

    identical = scores == peer
    mismatches = sum(a != b for a, b in zip(scores, peer))
    best = results[f"dslc_{threads}_threads"]
    report = {
        "query": ",".join(q.name for q in queries),
        "query_length": sum(len(q) for q in queries), "proteins": len(db),
        "residues": sum(len(s) for s in db), "cells": cells,
        "identical_scores": identical, "mismatches": mismatches,
        "first_call_seconds": warm, "results": results,
        "ratio_per_core": results["dslc_1_threads"]["gcups"] /
        results["parasail_striped_16_1_thread"]["gcups"],
        "ratio_all_cores_vs_parasail_one_core": best["gcups"] /
        results["parasail_striped_16_1_thread"]["gcups"],
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
