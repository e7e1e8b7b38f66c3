"""Weighted (Sankoff) parsimony on a 17-leaf tree over 20,000 alignment columns
(thesis §7.3.3.3), on every backend present (``--backends cpu,cuda`` picks some; cuda
runs the columns as GPU threads and reports its kernel, see ``device``), in one run;
compiled backends run the script twice (``warm_seconds``: code already loaded).

The tree and the alignment are generated (seeded): a random binary tree of 17
leaves, and columns drawn uniformly over ACGT. The program is the standard
library's `sankoff` with the contract's `dnasimple` matrix.

    python benchmarks/parsimony.py [--columns 20000] [--backends cpu,cuda] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import device_report, run_with_engine  # noqa: E402


def random_tree(rng: random.Random, leaves: int) -> str:
    nodes = [f"L{k}" for k in range(leaves)]
    while len(nodes) > 1:
        a = nodes.pop(rng.randrange(len(nodes)))
        b = nodes.pop(rng.randrange(len(nodes)))
        nodes.append(f"({a}:{rng.uniform(0.01, 0.3):.3f},{b}:{rng.uniform(0.01, 0.3):.3f})")
    return nodes[0] + ";"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--columns", type=int, default=20_000)
    ap.add_argument("--leaves", type=int, default=17)
    ap.add_argument("--backends", help="comma-separated (default: every backend present)")
    ap.add_argument("--json")
    args = ap.parse_args()

    import dslc
    from dslc import backends
    from dslc.lang.stdlib import stdlib_source

    rng = random.Random(17)
    work = Path(tempfile.mkdtemp())
    (work / "species.nwk").write_text(random_tree(rng, args.leaves))
    rows = {f"L{k}": "".join(rng.choice("ACGT") for _ in range(args.columns))
            for k in range(args.leaves)}
    (work / "aln.fasta").write_text("".join(f">{n}\n{s}\n" for n, s in rows.items()))
    script = stdlib_source("phylo") + """
define matrix dnasimple[dna] {
     A  C  G  T
  A  0  2  1  2
  C  2  0  2  1
  G  1  2  0  2
  T  2  1  2  0
}
t = load(tree, "species.nwk")
cols = load(columns[dna], "aln.fasta")
total = map(sankoff, t (*) cols (*) dnasimple)
print total
"""
    path = work / "parsimony.bio"
    path.write_text(script)
    report = {"leaves": args.leaves, "columns": args.columns, "backends": {}}
    results = {}
    wanted = args.backends.split(",") if args.backends else None
    for name in [b for b in backends.names() if b != "auto"]:
        if not backends._available(name) or (wanted and name not in wanted):
            continue
        prog = dslc.compile(str(path), backend=name)
        t0 = time.perf_counter()
        out, engine = run_with_engine(prog, name)
        dt = time.perf_counter() - t0
        results[name] = out["total"].values.tolist()
        engine_note = "" if name == "interp" else "compiled: tree and column device layouts (sdk)"
        report["backends"][name] = {"seconds": dt, "columns_per_second": args.columns / dt,
                                    "note": engine_note}
        if name != "interp":  # again in the same process: compiled code already loaded
            t0 = time.perf_counter()
            _, engine = run_with_engine(prog, name)
            warm = time.perf_counter() - t0
            report["backends"][name].update(warm_seconds=warm,
                                            warm_columns_per_second=args.columns / warm)
        device = device_report(engine, "sankoff")
        if device is not None:
            report["backends"][name]["device"] = device
        print(name, report["backends"][name], flush=True)
    first = next(iter(results.values()))
    report["identical_across_backends"] = all(v == first for v in results.values())
    report["total_cost"] = int(sum(first))
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
