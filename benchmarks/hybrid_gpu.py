"""Task-per-block against task-per-thread on a GPU, by map size: where the
hybrid's threshold (``DSLC_CUDA_HYBRID_TASKS``) should lie. Smith-Waterman
(the standard library's Gotoh, BLOSUM62, gaps 10 + 1) of one query against
N proteins drawn from the proteome, both strategies forced in turn
(``DSLC_CUDA_STRATEGY``), each map run once to compile and once timed; the
scores of the two must be equal.

    python3 benchmarks/hybrid_gpu.py --proteome FILE --sizes 256,1024,4096,16384,65536 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SW_PROGRAM  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proteome", help="FASTA (default: the one in pyhmmer's wheel)")
    ap.add_argument("--sizes", default="256,1024,4096,16384,65536")
    ap.add_argument("--query", type=int, default=375)
    ap.add_argument("--json")
    args = ap.parse_args()

    import dslc
    from dslc.cuda.backend import CudaBackend
    from dslc.runtime.binding import bind_call
    from dslc.runtime.script import backend_globals

    from benchmarks.common import load_proteome, pick_query, proteome_path, sample_database

    proteome = load_proteome(args.proteome or proteome_path())
    checked = dslc.compile(SW_PROGRAM, backend="interp").checked
    sw, blosum = checked.functions["sw"], checked.defined["blosum62"]
    query = pick_query(proteome, args.query)
    rows = []
    for n in (int(x) for x in args.sizes.split(",")):
        db = sample_database(proteome, n)
        tasks = [bind_call(sw, [blosum, 10, 1, query, t], checked, None) for t in db]
        cells = len(query) * sum(len(t) for t in db)
        row, scores = {"tasks": n}, {}
        for strategy in ("thread", "block"):
            os.environ["DSLC_CUDA_STRATEGY"] = strategy
            gpu = CudaBackend(checked, backend_globals(checked))
            gpu.map("sw", tasks, None)
            gpu.kernel_seconds = 0.0
            t0 = time.perf_counter()
            scores[strategy] = gpu.map("sw", tasks, None)
            wall = time.perf_counter() - t0
            row[strategy] = {"seconds": wall, "kernel_seconds": gpu.kernel_seconds,
                             "kernel_gcups": _gcups(cells, gpu.kernel_seconds),
                             "gcups": _gcups(cells, wall), "strategy": gpu.strategy["sw"]}
        del os.environ["DSLC_CUDA_STRATEGY"]
        row["scores_equal"] = scores["thread"] == scores["block"]
        if row["block"]["kernel_seconds"] > 0:  # the simulator times nothing
            row["block_over_thread_kernel"] = (row["thread"]["kernel_seconds"]
                                               / row["block"]["kernel_seconds"])
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"query": len(query), "rows": rows}, fh, indent=2)


def _gcups(cells: int, seconds: float) -> float | None:
    return cells / seconds / 1e9 if seconds > 0 else None


if __name__ == "__main__":
    main()
