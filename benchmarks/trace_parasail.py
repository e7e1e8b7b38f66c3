"""Alignments of the top hits of several queries, each checked against parasail.

For each of ``--queries`` queries (proteins of the proteome picked by length, from
about 100 to 900 residues), one ``map`` of the standard library's Gotoh
Smith-Waterman (BLOSUM62, gaps 10 + 1) over pyhmmer's 2,100-protein proteome, then
``Program.align`` of ``Program.traces(...)`` (the hits traced together) for its
``--top`` best hits. Every alignment is rescored here from its printed rows alone
(Biopython's BLOSUM62, a gap run of length L costing 11 + (L - 1), parasail's open 11 /
extend 1) and that score must equal
parasail's ``sw_striped_profile_16`` for the same pair, and dslc's search score.

    python benchmarks/trace_parasail.py [--queries 10] [--top 10] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SW_PROGRAM, load_proteome, pick_query  # noqa: E402

LENGTHS = (100, 150, 200, 250, 300, 375, 450, 550, 700, 900)
OPEN, EXTEND = 11, 1  # parasail's convention: a gap of length L costs OPEN + (L - 1) * EXTEND


def rescore(rows: tuple[str, str, str], blosum) -> int:
    """The score of an alignment read from its query and reference rows alone."""
    top, _, bottom = rows
    score, gap = 0, None  # gap: the row whose run of '-' is open
    for x, y in zip(top, bottom):
        if x == "-" or y == "-":
            row = "top" if x == "-" else "bottom"
            score -= EXTEND if gap == row else OPEN
            gap = row
        else:
            score += int(blosum[x][y])
            gap = None
    return score


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()

    import numpy as np
    import parasail
    from Bio.Align import substitution_matrices

    import dslc

    blosum = substitution_matrices.load("BLOSUM62")
    db = load_proteome()
    queries = [pick_query(db, n) for n in LENGTHS[: args.queries]]
    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    prog.map("sw", "blosum62", 10, 1, queries[0], db[:4])  # compile (or load from the cache)
    search = aligned = 0.0
    checked, mismatches = 0, []
    for query in queries:
        t0 = time.perf_counter()
        scores = prog.map("sw", "blosum62", 10, 1, query, db).values
        search += time.perf_counter() - t0
        top = np.argsort(-scores, kind="stable")[: args.top]
        t0 = time.perf_counter()
        alignments = [prog.align(d) for d in prog.traces(
            "sw", [("blosum62", 10, 1, query, db[k]) for k in top])]
        aligned += time.perf_counter() - t0
        profile = parasail.profile_create_16(query.text, parasail.blosum62)
        for k, a in zip(top, alignments):
            theirs = parasail.sw_striped_profile_16(profile, db[k].text, OPEN, EXTEND).score
            mine = rescore(a.rows, blosum)
            checked += 1
            if not mine == theirs == a.score == scores[k]:
                mismatches.append({"query": query.name, "hit": db[k].name, "rescored": mine,
                                   "parasail": theirs, "dslc": int(a.score)})
    out = {"queries": len(queries), "top": args.top, "database": len(db),
           "alignments": checked, "equal_to_parasail": checked - len(mismatches),
           "search_s": round(search, 3), "alignments_s": round(aligned, 3),
           "ratio": round(aligned / search, 3), "mismatches": mismatches[:10]}
    print(json.dumps(out, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    if mismatches:
        raise SystemExit("alignments whose rescored score differs from parasail's")


if __name__ == "__main__":
    main()
