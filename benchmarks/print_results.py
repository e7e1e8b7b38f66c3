"""Host work of a large map run, without the map: reading a big FASTA file, decoding its
record names, and printing a 10 x N int result (text and JSON), each timed in CPU seconds
(``time.process_time``: steadier than wall time on a shared machine) and wall seconds. The
file is read twice: the first read in the process pays for loading what reading needs
(Numba and its cached kernel, for the compiled reader), the second does not.

    python benchmarks/print_results.py --fasta /tmp/sw1000000/db.fasta [--rows 10] [--json out.json]
        [--out DIR]

The FASTA file is ``db.fasta`` as benchmarks/whole_run.py's ``make_million_jobs`` writes
it. The result is random Smith-Waterman-sized scores (0..2,000) of ``rows`` x records,
printed as ``print map(...)`` prints it (``render_text``, ``render_json``), its record
names as the column labels.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(label: str, report: dict, fn):
    """``fn()``, its CPU and wall seconds put in ``report[label]``."""
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    report[label] = {"cpu_s": round(time.process_time() - c0, 3),
                     "wall_s": round(time.perf_counter() - w0, 3)}
    print(f"{label:>16}: {report[label]['cpu_s']:.3f} s CPU, "
          f"{report[label]['wall_s']:.3f} s wall", flush=True)
    return out


def main() -> None:
    import numpy as np

    from dslc.lang.fasta import read_fasta
    from dslc.lang.results import Axis, MapResult
    from dslc.lang.stdlib import standard_alphabets
    from dslc.runtime.render import render_json, render_text
    from dslc.runtime.script import record_names

    ap = argparse.ArgumentParser()
    ap.add_argument("--fasta", required=True)
    ap.add_argument("--rows", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("--out", help="a folder to write the printed text and JSON to (to compare)")
    args = ap.parse_args()
    report: dict = {}
    records = timed("read_fasta", report, lambda: read_fasta(
        args.fasta, standard_alphabets()["protein"]))
    timed("read_fasta again", report, lambda: read_fasta(
        args.fasta, standard_alphabets()["protein"]))  # (libraries and kernels loaded)
    names = timed("record_names", report, lambda: record_names(records.pack))
    n = len(names)
    values = np.random.default_rng(1).integers(0, 2000, size=(args.rows, n))
    rows = [f"q{k}" for k in range(args.rows)]
    result = MapResult("sw", "int", values,
                       (Axis("q", tuple(rows)), Axis("db", names)))
    text = timed("render_text", report, lambda: render_text([("map", result)]))
    js = timed("render_json", report, lambda: render_json([("map", result)]))
    report["records"], report["text_mb"] = n, round(len(text) / 2**20, 1)
    report["json_mb"] = round(len(js) / 2**20, 1)
    if args.out:
        Path(args.out, "map.txt").write_text(text)
        Path(args.out, "map.json").write_text(js)
        Path(args.out, "names.txt").write_text("\n".join(names))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
