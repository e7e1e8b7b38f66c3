"""A traceback chunk's fill beside a thread busy in Python, as the walks are.

dslc fills the tables of a search's top hits on a pool of threads (dslc.cpu.tables) from a
thread of its own while the walks of the chunk before run Python on the main thread
(dslc.trace.run). Each time a fill thread needs the interpreter lock back (after a sweep,
around the read ahead, dslc.trace.ahead), it may wait for the main thread's switch
interval. This times ``whole_tables`` of ``--hits`` bindings of the query of about 375
residues against itself (the top hits of benchmarks/trace_hits.py's million-protein
search are), milliseconds a hit, median of ``--repeat``: alone, and from a thread of its
own while the main thread loops in Python; with the learned read ahead (``ahead``) and
without (``none``); at each switch interval of ``--intervals`` (seconds).

    python3 benchmarks/fill_beside_busy.py [--proteome FASTA] [--hits 32,100]
                                           [--intervals 0.005,0.0005] [--repeat 7] [--json F]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SW_PROGRAM, load_proteome, pick_query, traced_bindings  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proteome", help="the proteome's FASTA (default: pyhmmer's copy)")
    ap.add_argument("--hits", default="32,100")
    ap.add_argument("--intervals", default="0.005,0.0005")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json")
    args = ap.parse_args()

    import numba

    import dslc
    from dslc.cpu import tables

    db = load_proteome(args.proteome)
    query = pick_query(db, 375)
    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    most = max(int(n) for n in args.hits.split(","))
    _, callings, _ = traced_bindings(prog, [("blosum62", 10, 1, query, query)] * most)
    runner = prog._trace_runner  # (its walks have learned the entry's read)
    cpu, reads = runner.engine, runner.tracer.reads

    def fill(calls, after):
        return tables.whole_tables(cpu, "h", calls, None, "trace", after)

    def timed(calls, after, busy: bool) -> float:
        if not busy:
            t0 = time.perf_counter()
            fill(calls, after)
            return time.perf_counter() - t0
        with concurrent.futures.ThreadPoolExecutor(1) as ex:
            t0 = time.perf_counter()
            done = ex.submit(fill, calls, after)
            while not done.done():  # (Python work, as a walk's: small dicts and strings)
                {k: (k, str(k)) for k in range(50)}
            spent = time.perf_counter() - t0
            done.result()
        return spent

    out = {"threads": numba.get_num_threads(), "learned": reads.learned(), "ms_a_hit": {}}
    for interval in (float(x) for x in args.intervals.split(",")):
        sys.setswitchinterval(interval)
        for variant, after in (("ahead", reads.ahead), ("none", None)):
            for n in (int(x) for x in args.hits.split(",")):
                for busy in (False, True):
                    calls = callings[:n]
                    timed(calls, after, busy)
                    ts = [timed(calls, after, busy) for _ in range(args.repeat)]
                    key = f"interval {interval * 1e3:g} ms, {variant}, {n} hits, " \
                          f"{'beside a busy thread' if busy else 'alone'}"
                    out["ms_a_hit"][key] = round(1e3 * statistics.median(ts) / n, 3)
                    print(f"{key}: {out['ms_a_hit'][key]} ms a hit", flush=True)
    sys.setswitchinterval(0.005)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
