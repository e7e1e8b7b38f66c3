"""Alignments of a search's top hits against the search itself (CPU backend).

The search: the standard library's Gotoh Smith-Waterman (BLOSUM62, gaps 10 + 1),
one query of about 375 residues against pyhmmer's 2,100-protein test proteome, as
one ``map``. Then the alignments of its ``--top`` best hits: for each, the traceback
(``Program.trace``, tables filled by the compiled backend, the walk on the
interpreter) and the alignment read off it (``Program.align``). Both timed warm
(compiled modules loaded); the ratio is the alignments' share of the search's time.

    python benchmarks/trace_hits.py [--top 100] [--limit N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SW_PROGRAM, load_proteome, pick_query  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=100)
    ap.add_argument("--limit", type=int, default=0, help="use only the first N proteins")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()

    import numpy as np

    import dslc

    db = load_proteome()
    if args.limit:
        db = db[: args.limit]
    query = pick_query(db, 375)
    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    prog.map("sw", "blosum62", 10, 1, query, db[:4])  # compile (or load from the cache)
    prog.align(prog.trace("sw", "blosum62", 10, 1, query, db[0]))

    t0 = time.perf_counter()
    scores = prog.map("sw", "blosum62", 10, 1, query, db).values
    search = time.perf_counter() - t0
    top = np.argsort(-scores, kind="stable")[: args.top]
    t0 = time.perf_counter()
    alignments = [prog.align(prog.trace("sw", "blosum62", 10, 1, query, db[k])) for k in top]
    aligned = time.perf_counter() - t0
    assert all(a.score == scores[k] for a, k in zip(alignments, top))
    out = {"query": query.name, "query_length": len(query), "database": len(db),
           "top": len(top), "search_s": round(search, 3), "alignments_s": round(aligned, 3),
           "ratio": round(aligned / search, 3)}
    print(json.dumps(out, indent=2))
    print(alignments[0])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
