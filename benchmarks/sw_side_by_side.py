"""Smith-Waterman on a GPU machine, side by side in one run: dslc's generated
CUDA kernel, dslc's CPU backend (both from sw_gpu.py) and CUDASW++4.0 built from
its public source (cudasw_gpu.py), on the same database and queries, one after
the other in this one command; then one table of GCUPS and ratios.

    python3 benchmarks/sw_side_by_side.py --proteome .whl/proteome.faa --n 1000000 --json sw_side.json

Each part writes its own JSON too (``--work``), so a part that fails or runs out
of time leaves the others' figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proteome", required=True)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--queries", default="144,375,1000")
    ap.add_argument("--cpu-n", type=int, default=20_000)
    ap.add_argument("--work", default="/tmp/sw_side_by_side")
    ap.add_argument("--json")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    common = ["--proteome", args.proteome, "--n", str(args.n), "--queries", args.queries]
    parts = {
        "dslc": [sys.executable, os.path.join(HERE, "sw_gpu.py"), *common,
                 "--cpu-n", str(args.cpu_n)],
        "cudasw": [sys.executable, os.path.join(HERE, "cudasw_gpu.py"), *common],
    }
    reports = {}
    for name, cmd in parts.items():
        out = os.path.join(args.work, f"{name}.json")
        status = subprocess.run(cmd + ["--json", out]).returncode
        reports[name] = json.load(open(out)) if os.path.exists(out) else {"status": status}
    table = side_by_side(reports)
    for row in table:
        print(json.dumps(row))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": table, "parts": reports}, fh, indent=2)


def side_by_side(reports: dict) -> list[dict]:
    """One row per query: kernel and end-to-end GCUPS of dslc, its CPU backend,
    CUDASW++'s kernels, and dslc's kernel as a fraction of each."""
    rows = []
    dslc = reports.get("dslc", {}).get("queries", {})
    cudasw = reports.get("cudasw", {}).get("queries", {})
    for q in sorted(set(dslc) | set(cudasw), key=int):
        d, c = dslc.get(q, {}), cudasw.get(q, {}).get("cudasw", {})
        row = {"query": int(q), "dslc_kernel_gcups": d.get("gpu_kernel_gcups"),
               "dslc_end_to_end_gcups": d.get("gpu_gcups"),
               "dslc_cpu_gcups": d.get("cpu_gcups")}
        for kernel, e in c.items():
            row[f"cudasw_{kernel}_gcups"] = e["gcups"]
            if row["dslc_kernel_gcups"]:
                row[f"dslc_kernel_over_cudasw_{kernel}"] = row["dslc_kernel_gcups"] / e["gcups"]
        rows.append(row)
    return rows


if __name__ == "__main__":
    main()
