"""Where a traced hit's time goes beside the fill: a probe, not a compiler path.

The search of benchmarks/trace_hits.py (the standard library's Gotoh Smith-Waterman,
one query of about 375 residues against ``--database`` proteins drawn from pyhmmer's
proteome), then the traces and alignments of its top 100 hits, several times in one
process, with the walks' Python parts timed (wall microseconds per hit):

- ``walk``: the generated walk's call alone (dslc.trace.jit, ``Walks.walk``), which
  releases the interpreter lock while it runs (``nogil``), so its time includes taking
  the lock back;
- ``steps``: ``Walks._steps``, the walk's arrays made into its record (numpy calls,
  some of which release the lock too);
- ``tables``: ``Walks._tables``, the walk's tables opened.

Each run is one of these variants, the first three alternated twice:

- ``chunks``: as dslc runs it (the next chunk's tables filled while a chunk is walked);
- ``walk keeps the lock``: the same walk compiled without ``nogil``;
- ``no read ahead``: the fill threads do not make the entry's whole-table read
  (dslc.trace.ahead), the walks make it;
- ``one chunk``: every hit's tables filled before any walk (``TraceRunner.chunk = 100``).

Then ``--fill``: the fill alone, the top hits' tables by the generated ``table``
task on 1, 4, 8 and 16 threads (best of 3), as generated (float64) and as a copy of
its text storing float32 (which these integer scores allow exactly), to see how far
the fill is bound by memory traffic.

    python benchmarks/trace_lock_probe.py [--database 1000000] [--backend cuda] [--fill]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import (SW_PROGRAM, load_proteome, pick_query,  # noqa: E402
                               sample_database, traced_bindings)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--database", type=int, default=50_000)
    ap.add_argument("--backend", default="cpu", help="the search's backend")
    ap.add_argument("--fill", action="store_true", help="also time the fill alone")
    args = ap.parse_args()

    import numpy as np

    import dslc

    db = load_proteome()
    query = pick_query(db, 375)
    db = sample_database(db, args.database)
    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    searcher = prog if args.backend == "cpu" else dslc.compile(SW_PROGRAM, backend=args.backend)
    scores = np.asarray(searcher.map("sw", "blosum62", 10, 1, query, db).values)
    top = np.argsort(-scores, kind="stable")[:100]
    calls = [("blosum62", 10, 1, query, db[k]) for k in top]
    prog.align(prog.trace("sw", *calls[0]))
    parts: dict = {}
    mode: dict = {}
    _instrument(parts, mode)
    prog.traces("sw", calls[:4])  # (each variant's walk compiled)
    mode["gil"] = True
    prog.traces("sw", calls[:4])
    runs = [("chunks", {}), ("walk keeps the lock", {"gil": True}),
            ("no read ahead", {"noahead": True})]
    for label, m in runs + runs + [("one chunk", {"chunk": 100})]:
        mode.clear()
        mode.update(m)
        prog._trace_runner.chunk = m.get("chunk", 0)
        parts.clear()
        t0 = time.perf_counter()
        ds = prog.traces("sw", calls)
        t1 = time.perf_counter()
        for d in ds:
            prog.align(d)
        t2 = time.perf_counter()
        each = " ".join(f"{k} {1e4 * v:.0f}" for k, v in sorted(parts.items()))
        print(f"{label:20s} alignments {1e3 * (t2 - t0):6.1f} ms (traces {1e3 * (t1 - t0):5.1f}, "
              f"align {1e3 * (t2 - t1):4.1f}) | us a hit: {each}", flush=True)
    if args.fill:
        _fill(prog, calls)


def _instrument(parts: dict, mode: dict) -> None:
    """The walks' parts timed into ``parts``; ``mode`` picks the variant."""
    import numba

    from dslc.cpu import tables
    from dslc.trace import jit

    def timed(name, fn):
        def run(*a):
            t = time.perf_counter()
            try:
                return fn(*a)
            finally:
                parts[name] = parts.get(name, 0.0) + time.perf_counter() - t
        return run

    for name, attr in (("tables", "_tables"), ("steps", "_steps")):
        setattr(jit.Walks, attr, timed(name, getattr(jit.Walks, attr)))
    compiled, keeping = jit.Walks._compiled, {}

    def walk_of(self, *a):
        got = compiled(self, *a)
        if got is None:
            return got
        fn, names = got
        if mode.get("gil"):
            if id(fn) not in keeping:
                keeping[id(fn)] = numba.njit(nogil=False)(fn.py_func)
            fn = keeping[id(fn)]
        return timed("walk", fn), names
    jit.Walks._compiled = walk_of
    whole = tables.whole_tables

    def fill(cpu, func, callings, span, description="", after=None):
        return whole(cpu, func, callings, span, description,
                     None if mode.get("noahead") else after)
    tables.whole_tables = fill


def _fill(prog, calls) -> None:
    """The top hits' tables by the generated ``table`` task alone, by threads."""
    import numpy as np

    module, callings, bound = traced_bindings(prog, calls)
    with open(module.__file__) as fh:
        source = fh.read()
    path = os.path.join(tempfile.mkdtemp(), "float32_tables.py")
    with open(path, "w") as fh:  # (the tables' storage; every cell's arithmetic as before)
        fh.write(source.replace("np.float64)", "np.float32)").replace("cache=True", "cache=False"))
    spec = importlib.util.spec_from_file_location("float32_tables", path)
    narrow = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(narrow)
    for a, b in zip(module.task(*bound[0]), narrow.task(*bound[0])):
        assert np.array_equal(a, b)  # (exact here: small integer scores)
    print(f"fill alone: {len(bound)} hits, mean length "
          f"{np.mean([len(c['t']) for c in callings]):.0f} against {len(callings[0]['s'])}")
    for label, m in (("float64", module), ("float32", narrow)):
        for threads in (1, 4, 8, 16):
            with ThreadPoolExecutor(threads) as pool:
                def sweeps(some, pool=pool, task=m.task):
                    return list(pool.map(lambda b: task(*b), some))
                sweeps(bound[:threads])
                best = min(_timed(lambda: sweeps(bound)) for _ in range(3))
            print(f"fill {label} threads {threads:2d}: {1e3 * best:6.1f} ms, "
                  f"{1e3 * best * threads / len(bound):.2f} thread-ms a hit", flush=True)


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
