"""Shaping a hit table of a million rows: ``--top`` (and the filters and sorts) taken on
the value arrays (dslc.runtime.hits.shape_rows) against the row-by-row reading the
property test holds it to (tests/runtime/test_shape_rows.py: every row made, sorted in
Python, then cut), in the same process. One query x N proteins, int scores drawn at
random, record names as a loaded database's.

    python benchmarks/hit_shaping.py [--rows 1000000] [--top 100] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--top", type=int, default=100)
    ap.add_argument("--json")
    args = ap.parse_args()

    import numpy as np

    from dslc.lang.results import Axis, HitTable, MapResult
    from dslc.runtime.hits import Shape, shape_rows
    from tests.runtime.test_shape_rows import reference

    rng = np.random.default_rng(0)
    names = tuple(f"d{k}_938293.PRJEB85.HG003688_{k % 2100}" for k in range(args.rows))
    score = rng.integers(0, 2000, (1, args.rows)).astype(np.int64)
    axes = (Axis("q", ("query",)), Axis("db", names))
    table = HitTable(axes, (("score", MapResult("sw", "int", score, axes)),))
    out = {"rows": args.rows, "top": args.top}
    picked = {}
    for name, shape in (("arrays", shape_rows), ("row_by_row", reference)):
        t0 = time.perf_counter()
        rows = shape(table, Shape(top=args.top))
        out[f"{name}_s"] = round(time.perf_counter() - t0, 3)
        picked[name] = [k for *_, k in rows]
    out["same_rows"] = picked["arrays"] == picked["row_by_row"]
    out["ratio"] = round(out["row_by_row_s"] / out["arrays_s"], 1)
    print(json.dumps(out, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    if not out["same_rows"]:
        raise SystemExit("the two shapings differ")


if __name__ == "__main__":
    main()
