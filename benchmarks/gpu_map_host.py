"""The host part of a queries x database GPU map, timed on the CPU.

Binds ``--queries`` queries x ``--n`` proteins as `dslc run` binds ``q (*) db``
(two packed columns, the query varying slowest: benchmarks/sw_gpu.py
``product_map``) and times the CUDA backend's host functions on that batch, each
on a fresh batch (their cached properties not yet computed): the grouping, the
cut into launches, the map's decision (``_choose_map``: kernel generation and
planning) and, per launch, the host arrays each launch packs. Needs no GPU: the
backend is made under Numba's simulator (``NUMBA_ENABLE_CUDASIM=1``) and no
kernel is launched: the device's interleaving of the database (a kernel) is left
out of the per-launch times (its host part, ``layout.layout`` and the copies of
its arrays, is timed instead), and the simulator's copies are host copies.

    NUMBA_ENABLE_CUDASIM=1 DSLC_CUDA_PIPELINE=2162688 \
        python benchmarks/gpu_map_host.py --n 1000000 --queries 10
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import SW_PROGRAM  # noqa: E402


def product_batch(first: dict, queries, pack):
    """``len(queries)`` x the database, as `dslc run` binds ``q (*) db``."""
    from dslc.lang.batch import SeqColumn, Shared, TaskBatch

    n = len(pack.lengths)
    total = len(queries.lengths) * n
    cols = {k: Shared(v) for k, v in first.items()}
    cols["s"] = SeqColumn(queries, np.arange(total, dtype=np.int64) // n)
    cols["t"] = SeqColumn(pack, np.arange(total, dtype=np.int64) % n)
    return TaskBatch(tuple(first), cols, total)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=10)
    args = ap.parse_args()

    import dslc
    from benchmarks.common import load_proteome, proteome_path, sample_database
    from dslc.cuda import layout
    from dslc.cuda.backend import CudaBackend
    from dslc.lang.records import SeqPack
    from dslc.runtime.binding import bind_call
    from dslc.runtime.script import backend_globals

    proteome = load_proteome(proteome_path())
    db = sample_database(proteome, args.n)
    pack = SeqPack.of(db, db[0].alphabet)
    near = sorted(proteome, key=lambda s: (abs(len(s) - 375), s.name))[:args.queries]
    queries = SeqPack.of(near, near[0].alphabet)
    checked = dslc.compile(SW_PROGRAM, backend="interp").checked
    first = bind_call(checked.functions["sw"], [checked.defined["blosum62"], 10, 1, near[0],
                                                db[0]], checked, None)
    gpu = CudaBackend(checked, backend_globals(checked))
    fresh = lambda: product_batch(first, queries, pack)  # noqa: E731
    out = {}
    b = fresh()
    _, out["TaskBatch.lengths"] = timed(lambda: b.lengths)
    _, out["TaskBatch.grouped"] = timed(lambda: b.grouped)
    _, out["TaskBatch.order"] = timed(lambda: b.order)
    b = fresh()
    _, out["_choose_map (first: kernel generated)"] = timed(lambda: gpu._choose_map("sw", b))
    b = fresh()
    c, out["_choose_map (kernel known)"] = timed(lambda: gpu._choose_map("sw", b))
    k = c.compiled.kernel
    b = fresh()
    _ = b.grouped, b.lengths
    _, out["_launches (grouping done)"] = timed(
        lambda: gpu._launches(b, k.plan, k.storage, k.dtype))
    out["launches"] = len(c.compiled.launches)
    for codes in (pack.codes, queries.codes):  # resident, as after a first map
        gpu._resident(codes, 0)
    real = layout.interleave
    layout.interleave = host_part  # no kernel: its host part (the layout) alone
    try:
        out.update(per_launch(gpu, c.compiled, b))
    finally:
        layout.interleave = real
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()},
                     indent=1))


def host_part(cuda, codes, starts, lens, block, stream, threads=256, put=None):
    """What ``layout.interleave`` does on the host: the layout (the scatter, a
    kernel, is what this benchmark leaves out) and the copies of its three arrays."""
    from dslc.cuda import layout

    base = layout.layout(lens, block)
    put = put or (lambda a: cuda.to_device(a, stream=stream))
    for a in (starts, lens, base):
        put(np.ascontiguousarray(a, dtype=np.int64))
    return np.zeros(1, dtype=np.uint8), base[:-1]


def per_launch(gpu, run, batch) -> dict:
    """Seconds, summed over every launch, of the host work ``_launch`` does for a
    launch before the kernel: ``_pack`` (the sequences' items, rows, interleaving
    layout and lengths, ``modules.pack``) and the launch's storage shapes."""
    import inspect

    k = run.kernel
    args, f = list(k.args), gpu.program.functions["sw"]
    memory = gpu._memory()
    new = "at" in inspect.signature(gpu._pack).parameters
    made, sums = {}, {"per launch: _pack": 0.0, "per launch: _dims": 0.0}
    for n, ids in enumerate(run.launches):
        arena = memory.arenas[n % 2]
        at = ((run, n, made, arena),) if new else ()
        _, t = timed(lambda: gpu._pack(args, run.travel, batch, ids, k.plan, f, k.dtype,
                                       k.block, memory.streams[n % 2], *at))
        sums["per launch: _pack"] += t
        arena.reset()
        longest = (lambda: run.longest[n]) if new else (
            lambda: {m: int(v[ids].max()) for m, v in batch.lengths.items()})
        _, t = timed(lambda: gpu._dims(k.plan, list(k.storage), longest()))
        sums["per launch: _dims"] += t
    return sums


if __name__ == "__main__":
    main()
