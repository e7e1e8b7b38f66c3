"""Alignments of a search's top hits against the search itself (CPU backend).

The search: the standard library's Gotoh Smith-Waterman (BLOSUM62, gaps 10 + 1),
one query of about 375 residues against pyhmmer's 2,100-protein test proteome, as
one ``map``. Then the alignments of its ``--top`` best hits: for each, the traceback
(``Program.traces``: every hit's tables filled by one call of the compiled
backend, the hits in parallel, then each walk over its tables with the interpreter's
closures; ``--each``: ``Program.trace`` per hit) and the alignment read off it
(``Program.align``). Both timed warm (compiled modules loaded); the ratio is the
alignments' share of the search's time, in wall and in CPU seconds (the process's, all
threads: the search runs on every core, the alignments on one). ``--database N``
searches N proteins drawn from the proteome instead (benchmarks.common.sample_database),
to see the search grow with the database while the alignments stay ``--top``.
``--routes plain,planned,compiled`` times the alignments once per walk route, in this
order, in the same run (``compiled``: paths walked by generated Numba code where their
shape allows, dslc.trace.jit, with its steps counted and the seconds its walk took to
plan, load and compile on first use; ``planned``: step plans, dslc.trace.plan;
``plain``: the walk node by node), each with the CPU seconds of its walks alone
(``Tracer.derive``: the tables' fill excluded), the steps walked and the walk's CPU
microseconds per step. Each route also reports the wall milliseconds per hit of each
part of the alignments (``per_hit_ms``), the minor page faults they took (first
touches of fresh memory, mostly the fill's tables: ``page_faults``) and the seconds
Python's cyclic collector ran inside them (``collector_s``). The hits are traced a
chunk at a time, each chunk's tables freed once walked, the next chunk's filled while
this one is walked (the fill's part: the wait for it) (``--chunk``,
by default dslc.trace.run.chunk_size(); ``--chunk 100``: every hit's tables filled and
held together, as before chunks). With ``DSLC_TRACE_FILL=process`` (dslc.runtime.fill_process)
each route's runner starts a fill process of its own, waited for before the alignments are
timed (``ready_after_s``); ``fill_process`` gives the hits it filled and the wall seconds
of its sweeps and of its copies into shared memory (``child_fill_s``, ``child_copy_s``).
``--again N`` times the same alignments N more times in the same process (``later_s``):
the first time is a process's first use of that much table memory (the fill process's,
and its segments', fresh pages), the later ones reuse it.

    python benchmarks/trace_hits.py [--top 100] [--proteome FASTA] [--limit N | --database N]
                                    [--each] [--routes planned] [--chunk N] [--again N]
                                    [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SW_PROGRAM, load_proteome, pick_query, sample_database  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=100)
    ap.add_argument("--proteome", help="the proteome's FASTA (default: pyhmmer's copy)")
    ap.add_argument("--limit", type=int, default=0, help="use only the first N proteins")
    ap.add_argument("--database", type=int, default=0,
                    help="search N proteins drawn from the proteome (with replacement)")
    ap.add_argument("--each", action="store_true",
                    help="trace the hits one call each (Program.trace), not together")
    ap.add_argument("--backend", default="cpu",
                    help="the search's backend (the alignments run on the CPU backend)")
    ap.add_argument("--routes", default="planned",
                    help="the walk routes timed, comma-separated: planned, plain, compiled")
    ap.add_argument("--from-fasta", action="store_true",
                    help="the search reads its database from a FASTA file (Program.load: one "
                         "packed buffer, as `dslc run` reads it) and maps over it; the search's "
                         "time is the read and the map, each also reported")
    ap.add_argument("--chunk", type=int, default=0,
                    help="hits traced together, their tables freed before the next chunk "
                         "(TraceRunner.chunk; 0: dslc.trace.run.chunk_size())")
    ap.add_argument("--again", type=int, default=0,
                    help="then time the same alignments N more times in the same process "
                         "(memory and processes warm: later_s)")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()

    import numpy as np

    import dslc

    db = load_proteome(args.proteome)
    if args.limit:
        db = db[: args.limit]
    query = pick_query(db, 375)
    if args.database:
        db = sample_database(db, args.database)
    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    searcher = prog if args.backend == "cpu" else dslc.compile(SW_PROGRAM, backend=args.backend)
    # compile (or load from the cache): on a GPU, the kernel of a map this large
    searcher.map("sw", "blosum62", 10, 1, query, db[:4] if args.backend == "cpu" else db[:20000])
    prog.align(prog.trace("sw", "blosum62", 10, 1, query, db[0]))
    prog.traces("sw", [("blosum62", 10, 1, query, db[k]) for k in range(2)])

    read = 0.0
    if args.from_fasta:
        path = os.path.join(tempfile.mkdtemp(), "db.fasta")
        with open(path, "w") as fh:
            fh.writelines(f">{s.name}\n{s.text}\n" for s in db)
    t0, c0 = time.perf_counter(), time.process_time()
    if args.from_fasta:
        db = searcher.load(path, "protein")
        read = time.perf_counter() - t0
    scores = searcher.map("sw", "blosum62", 10, 1, query, db).values
    search, search_cpu = time.perf_counter() - t0, time.process_time() - c0
    top = np.argsort(-scores, kind="stable")[: args.top]
    out = {"query": query.name, "query_length": len(query), "database": len(db),
           "search_backend": args.backend, "top": len(top), "search_s": round(search, 3),
           "search_cpu_s": round(search_cpu, 3)}
    if args.from_fasta:
        out.update({"read_s": round(read, 3), "map_s": round(search - read, 3)})
    for route in args.routes.split(","):
        walk = _route(prog, route, query, db)
        prog._trace_runner.chunk = args.chunk
        fills = prog._trace_runner.fills
        before = (fills.filled, dict(fills.seconds)) if fills is not None else None
        faults, collected = _faults(), _collector_seconds()
        t0, c0 = time.perf_counter(), time.process_time()
        if args.each:
            derivations = [prog.trace("sw", "blosum62", 10, 1, query, db[k]) for k in top]
        else:
            derivations = prog.traces("sw", [("blosum62", 10, 1, query, db[k]) for k in top])
        t1 = time.perf_counter()
        alignments = [prog.align(d) for d in derivations]
        aligned, aligned_cpu = time.perf_counter() - t0, time.process_time() - c0
        faults, collected = _faults() - faults, collected.stop()
        parts = {"fill": walk[4]["fill"], "python steps": walk[4]["step"],
                 "compiled walk": walk[4]["compiled"],
                 "alignment": time.perf_counter() - t1}
        parts["rest"] = aligned - sum(parts.values())
        assert all(a.score == scores[k] for a, k in zip(alignments, top))
        steps = sum(len(d.steps) for d in derivations)
        key = "" if len(args.routes.split(",")) == 1 else f"{route}_"
        out.update({f"{key}alignments_s": round(aligned, 3),
                    f"{key}ratio": round(aligned / search, 3),
                    **({f"{key}ratio_to_map": round(aligned / (search - read), 3)}
                       if args.from_fasta else {}),
                    f"{key}alignments_cpu_s": round(aligned_cpu, 3),
                    f"{key}cpu_ratio": round(aligned_cpu / search_cpu, 3),
                    f"{key}walk_cpu_s": round(walk[0], 3), f"{key}steps": steps,
                    f"{key}walk_us_per_step": round(1e6 * walk[0] / steps, 1),
                    f"{key}per_hit_ms": {k: round(1e3 * v / len(top), 3)
                                         for k, v in parts.items()},
                    f"{key}page_faults": faults, f"{key}collector_s": round(collected, 4)})
        out[f"{key}fill_process"] = None if fills is None else {
            "hits_filled": fills.filled - before[0], "ready_after_s": round(
                prog._trace_runner.fill_process_start_s, 2), "why_not": fills.why,
            **{f"child_{k}_s": round(v - before[1][k], 3) for k, v in fills.seconds.items()}}
        if args.again:
            later = [_aligned(prog, query, db, top) for _ in range(args.again)]
            out[f"{key}later_s"] = [round(t, 3) for t, _ in later]
            if fills is not None:
                out[f"{key}later_child_s"] = [{k: round(v, 3) for k, v in c.items()}
                                              for _, c in later]
        if route == "compiled":
            walks = prog._trace_runner.tracer.walks
            compiled = walks.steps - walk[1]
            out.update({"compiled_steps": compiled,
                        "compiled_part_cpu_s": round(walk[3], 3),
                        "compiled_part_us_per_step": round(1e6 * walk[3] / max(compiled, 1), 1),
                        "compiled_first_use_s": round(walk[2], 3)})
    out["load_average"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=2))
    print(alignments[0])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


def _aligned(prog, query, db, top) -> tuple:
    """Wall seconds of the top hits' alignments traced together once more, and the
    fill process's seconds in them (its sweeps and copies; empty without one)."""
    fills = prog._trace_runner.fills
    before = dict(fills.seconds) if fills is not None else {}
    t0 = time.perf_counter()
    derivations = prog.traces("sw", [("blosum62", 10, 1, query, db[k]) for k in top])
    [prog.align(d) for d in derivations]
    spent = time.perf_counter() - t0
    return spent, {k: v - before[k] for k, v in fills.seconds.items()} if fills else {}


def _route(prog, route: str, query, db) -> list:
    """Trace with a runner of this walk route from now on (warmed up: its plans made,
    a compiled walk loaded and compiled); returns ``[CPU seconds]`` that its walks
    (``Tracer.derive``) add up to, then the compiled steps of the warm-up, the
    wall seconds of the warm-up (a compiled walk's first use) and the CPU seconds of
    the walks' compiled parts (``Tracer._compiled``)."""
    from dslc.runtime import fill_process
    from dslc.trace.run import TraceRunner

    fills = fill_process.started(prog.checked, prog._engine(), prog.base_dir)
    runner = TraceRunner(prog.checked, prog._globals, prog._engine(),
                         planned=route != "plain", compiled=route == "compiled", fills=fills)
    prog._trace_runner = runner
    t0 = time.perf_counter()
    prog.traces("sw", [("blosum62", 10, 1, query, db[k]) for k in range(2)])
    first = time.perf_counter() - t0
    while fills is not None and not fills.ready() and fills.why == "":
        time.sleep(0.02)  # (started with the runner: ready before the hits are known)
    runner.fill_process_start_s = time.perf_counter() - t0
    walks = runner.tracer.walks
    spent = [0.0, 0 if walks is None else walks.steps, first, 0.0]
    runner.tracer.derive = _timed(runner.tracer.derive, spent, 0, time.process_time)
    # the compiled part of the walks (Tracer._compiled), within them
    runner.tracer._compiled = _timed(runner.tracer._compiled, spent, 3, time.process_time)
    spent.append(_wall_parts(runner))
    return spent


def _faults() -> int:
    """The process's minor page faults so far (first touches of fresh memory: the
    fill's tables are most of the alignments' memory)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


class _collector_seconds:
    """Wall seconds Python's cyclic collector runs from now until ``stop()``."""

    def __init__(self):
        import gc

        self.total, self._t0, self._gc = 0.0, None, gc
        gc.callbacks.append(self._seen)

    def _seen(self, phase, info) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
        elif self._t0 is not None:
            self.total += time.perf_counter() - self._t0

    def stop(self) -> float:
        self._gc.callbacks.remove(self._seen)
        return self.total


def _wall_parts(runner) -> dict:
    """Wall seconds of the parts of the alignments, added up from now on: ``fill``
    (the first tables of a chunk's hits filled together, each walk first run up to
    the table it opens, ``TraceRunner._fill_ahead``, then waited for,
    ``TraceRunner._fill_wait``: a chunk's sweeps run while the chunk before it is
    walked, and only the wait for them counts), ``step`` (the steps walked in
    Python: a search's entry, its best cell read off the whole table, and any
    step the compiled walk does not take: ``Tracer._step``), ``compiled`` (the
    compiled walks with what they make: ``Tracer._compiled``)."""
    parts = {"fill": 0.0, "step": 0.0, "compiled": 0.0}
    for name, owner, attr in (("step", runner.tracer, "_step"),
                              ("compiled", runner.tracer, "_compiled"),
                              ("fill", runner, "_fill_wait")):
        setattr(owner, attr, _timed(getattr(owner, attr), parts, name))
    first = _timed(runner._fill_ahead, parts, "fill")

    def fill(*a, **k):  # (its walks up to the first tables count as the fill's)
        before = parts["step"]
        try:
            return first(*a, **k)
        finally:
            parts["step"] = before
    runner._fill_ahead = fill
    return parts


def _timed(fn, parts, name, clock=time.perf_counter):
    """``fn``, adding the seconds of each call by ``clock`` (wall, or
    ``time.process_time`` for CPU seconds) to ``parts[name]``."""
    def timed(*a, **k):
        t0 = clock()
        try:
            return fn(*a, **k)
        finally:
            parts[name] += clock() - t0
    return timed


if __name__ == "__main__":
    main()
