"""A traceback fill as one compiled batch call, against the thread pool: a probe.

dslc fills the tables of a search's top hits on a pool of Python threads, one call of
the generated ``table`` task per hit (dslc.cpu.tables). docs/decisions/tracebacks.md
says what bounds the alignments; one step it leads to is a fill whose threads run no Python per hit:
several bindings per compiled call, each table still allocated by its own sweep,
returned through a typed list. This probe times that fill alone, on the bindings of
the top ``--top`` hits of one query (about 375 residues) against pyhmmer's proteome
(the standard library's Gotoh Smith-Waterman, the CPU backend), best of ``--repeat``:

- ``pool``: as dslc fills them, a pool of threads, one ``task`` call per hit;
- ``batch, typed list``: one ``prange`` loop over the hits (``nogil``, largest first,
  handed out ``--chunk`` at a time: 2, as dslc.cpu.modules runs a map's tasks), each task's
  tables stored in its slot of a ``numba.typed.List``, as such a fill returns them
  (the list made before the clock starts);
- ``batch, dropped``: the same loop, each task's tables dropped once made (one cell
  kept), which no fill can do: how fast the sweeps run when each thread reuses its
  own tables' memory, the bound of any compiled batch.

Every table of the typed-list batch is checked equal to the pool's first. It patches
nothing in dslc; the loops are written here, the task is dslc's generated one.

    python benchmarks/batch_fill_probe.py [--proteome FASTA] [--top 100] [--repeat 5]
                                         [--chunk 2] [--self]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import (SW_PROGRAM, load_proteome, pick_query,  # noqa: E402
                               traced_bindings)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proteome", help="the proteome's FASTA (default: pyhmmer's copy)")
    ap.add_argument("--top", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=2,
                    help="hits a batch's thread takes at a time (numba.set_parallel_chunksize)")
    ap.add_argument("--self", action="store_true",
                    help="every hit is the query itself, as the top 100 of "
                         "benchmarks/trace_hits.py's million-protein search are")
    args = ap.parse_args()

    import numba
    import numpy as np

    import dslc

    db = load_proteome(args.proteome)
    query = pick_query(db, 375)
    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    scores = prog.map("sw", "blosum62", 10, 1, query, db).values
    top = np.argsort(-scores, kind="stable")[: args.top]
    hits = [query] * args.top if args.self else [db[k] for k in top]
    module, _, bound = traced_bindings(prog, [("blosum62", 10, 1, query, t) for t in hits])
    print(f"{len(bound)} hits, mean length {np.mean([len(b[-1]) for b in bound]):.0f} "
          f"against {len(query)}; tables {module.TABLES}")
    batch_list, batch_drop = _batches(module.task)
    args_of = _packed(bound)
    want = [module.task(*b) for b in bound]
    got = _slots(module.task, bound)
    batch_list(*args_of, got)
    assert all(all(np.array_equal(x, y) for x, y in zip(a, b)) for a, b in zip(want, got))
    del want, got
    numba.set_parallel_chunksize(args.chunk)  # (a map's tasks: two at a time)
    most = numba.get_num_threads()
    for threads in sorted({1, 4, 8, 16, most} & set(range(1, most + 1))):
        numba.set_num_threads(threads)
        with ThreadPoolExecutor(threads) as pool:
            def by_pool(pool=pool):
                return list(pool.map(lambda b: module.task(*b), bound))
            lists = [_slots(module.task, bound) for _ in range(args.repeat + 1)]
            row = {"pool": _best(by_pool, args.repeat),
                   "batch, typed list": _best(
                       lambda lists=lists: batch_list(*args_of, lists.pop()), args.repeat),
                   "batch, dropped": _best(
                       lambda: batch_drop(*args_of, np.zeros(len(bound))), args.repeat)}
        print(f"threads {threads:2d}: " + ", ".join(
            f"{k} {1e3 * v:.1f} ms ({1e3 * v * threads / len(bound):.2f} thread-ms a hit)"
            for k, v in row.items()), flush=True)


def _packed(bound):
    """The bindings as one batch: the shared arguments once, the database sequence
    of each hit as a slice of one buffer (its start and length), largest first."""
    import numpy as np

    seqs = [b[-1] for b in bound]
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    order = np.argsort(-lengths, kind="stable").astype(np.int64)
    return (order, *bound[0][:-1], np.concatenate(seqs), starts, lengths)


def _batches(task):
    """The two compiled loops over a batch of hits (``task``: the generated sweep)."""
    import numba

    @numba.njit(parallel=True, nogil=True)
    def stored(order, sm, gap_open, gap_ext, s, buf, start, length, out):
        for n in numba.prange(len(order)):
            k = order[n]
            out[k] = task(sm, gap_open, gap_ext, s, buf[start[k]:start[k] + length[k]])

    @numba.njit(parallel=True, nogil=True)
    def dropped(order, sm, gap_open, gap_ext, s, buf, start, length, out):
        for n in numba.prange(len(order)):
            k = order[n]
            out[k] = task(sm, gap_open, gap_ext, s, buf[start[k]:start[k] + length[k]])[0][0, 0]
    return stored, dropped


def _slots(task, bound):
    """A typed list of one slot per hit for ``task``'s tuple of tables."""
    import numba
    import numpy as np
    from numba.np.numpy_support import as_dtype
    from numba.typed import List

    sig = tuple(numba.typeof(a) for a in bound[0])
    task.compile(sig)
    ret = task.overloads[sig].signature.return_type
    empty = tuple(np.empty((0,) * t.ndim, as_dtype(t.dtype)) for t in ret.types)
    out = List.empty_list(ret)
    for _ in bound:
        out.append(empty)
    return out


def _best(fn, repeat: int) -> float:
    fn()  # (compiled, and the threads' heaps warm)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


if __name__ == "__main__":
    main()
