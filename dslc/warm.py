"""A map's GPU kernel compiled ahead, in the background, for the runs to come.

``auto`` takes the CPU for a map where compiling its kernel would cost this run
more than the GPU saves (docs/benchmarks.md: the 10-query proteome search takes
14 s on the CPU cold and 6 s warm, 18 s on the GPU cold with 17 s of kernel
compile, 3.4 s once the kernel is cached). That is right for this run and wrong
for every run after it, which finds no kernel in the cache either and takes the
CPU again. So where the GPU would win once its kernel is cached, ``auto`` starts
one detached process (:func:`start`) that runs the same map on the CUDA backend,
which compiles the kernel into the cache, and records it as ``auto``'s own GPU
maps do (:func:`remember_kernel`); this run neither waits for it nor reads what
it prints. ``DSLC_AUTO_AHEAD=0`` turns it off.

Also here: the record of which kernel module a map ran with, by which ``auto``
knows a map's kernel is cached (:func:`kernel_cached`).
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dslc import settings

BATCH_BYTES = 256 * 2**20  # larger maps are not copied for the background run


@dataclass(frozen=True)
class Job:
    """What the background process needs: the script (as the cluster's workers
    take it: its syntax tree and constants, checked again there), the map's entry
    and tasks, and the name its kernel is recorded under."""

    tree: object
    consts: tuple
    float_consts: frozenset
    base_dir: str | None
    func: str
    batch: object  # a TaskBatch
    key: str


def _record(key: str) -> Path:
    from dslc.store.disk import cache_dir

    return cache_dir() / f"gpu_{key}.json"


def remember_kernel(key: str, module_file: str) -> None:
    """Note that the map named ``key`` ran with the kernel module ``module_file``."""
    from dslc.store.disk import write_entry

    write_entry(_record(key).name, json.dumps({"module": Path(module_file).stem}))


def kernel_cached(key: str) -> bool:
    """Did a map named ``key`` run before, and does numba-cuda's cache of its
    kernel module (``__pycache__`` beside it, ``@cuda.jit(cache=True)``) exist?"""
    from dslc.store.disk import read_entry

    try:
        stem = json.loads(read_entry(_record(key).name) or "")["module"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if not isinstance(stem, str) or "/" in stem or not stem.startswith("dslc_"):
        return False
    return any((_record(key).parent / "__pycache__").glob(f"{stem}.*.nbi"))


def start(program, func: str, batch, key: str):
    """Start the background run of ``func`` over ``batch`` on the CUDA backend
    (the process, or None where it is off, one for this map is under way, or the
    batch is too large to hand over)."""
    from dslc.store.disk import cache_dir

    if settings.choice("DSLC_AUTO_AHEAD") == "0":
        return None
    if _bytes(batch) > BATCH_BYTES:
        batch = sample(batch)
        if batch is None or _bytes(batch) > BATCH_BYTES:
            return None
    path = cache_dir() / f"ahead_{key}.pickle"
    try:
        with open(path, "xb") as fh:  # exclusively: one background run per map
            source = Path(program.ast.source_name)
            job = Job(program.ast, tuple(sorted(program.consts.items())),
                      program.float_consts, str(source.parent) if source.is_file() else None,
                      func, batch, key)
            pickle.dump(job, fh)
    except FileExistsError:
        return None
    except Exception:  # what cannot be handed over is not compiled ahead
        path.unlink(missing_ok=True)
        return None
    return subprocess.Popen([sys.executable, "-m", "dslc.warm", str(path)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env=settings.environment())


def sample(batch):
    """A smaller batch for the background compile of ``batch``'s kernel, or None
    where none is smaller: the CUDA backend plans a map for its widest task and picks
    its strategy by the task count (at least ``DSLC_CUDA_HYBRID_TASKS``: a task a
    thread), so the largest tasks of every group of :attr:`TaskBatch.grouped` (every
    query of a product, the widest of each) to twice that count in all, their
    sequences packed anew (a subset would keep the whole database's buffer: 350 MB
    for a million proteins, more than is copied to the background run), compile
    the kernel the whole map runs. Where they do not (a kernel of another shape),
    the next run compiles its own, as without the compile ahead."""
    from dslc.cuda.rules import HYBRID_TASKS

    limit = 2 * settings.number("DSLC_CUDA_HYBRID_TASKS", HYBRID_TASKS)
    if len(batch) <= limit:
        return None
    order, bounds = batch.grouped
    groups = len(bounds) - 1
    each = max(1, limit // max(groups, 1))
    ids = np.concatenate([order[a:min(b, a + each)] for a, b in
                          zip(bounds[:-1].tolist(), bounds[1:].tolist())])
    widest = [int(lens.argmax()) for lens in batch.lengths.values()]
    return _repacked(batch.subset(np.unique(np.concatenate([ids, widest]))))


def _repacked(batch):
    """``batch`` with each sequence column packed from only the records it reads."""
    from dslc.lang.batch import SeqColumn, TaskBatch
    from dslc.lang.records import SeqPack

    cols = {}
    for name, col in batch.columns.items():
        if isinstance(col, SeqColumn):
            rows, index = np.unique(col.index, return_inverse=True)
            pack = SeqPack.of([col.pack.sequence(int(r)) for r in rows.tolist()],
                              col.pack.alphabet)
            col = SeqColumn(pack, index.astype(np.int64))
        cols[name] = col
    return TaskBatch(batch.names, cols, len(batch))


def _bytes(batch) -> int:
    from dslc.lang.batch import SeqColumn

    return sum(c.pack.codes.nbytes for c in batch.columns.values() if isinstance(c, SeqColumn))


def run(path: str) -> None:
    """The background process: the map on the CUDA backend, its kernel recorded."""
    from dslc import deep
    from dslc.check.program import check_program
    from dslc.cuda.backend import CudaBackend
    from dslc.runtime.script import backend_globals

    try:
        with open(path, "rb") as fh:
            job = pickle.load(fh)
        checked = deep.run(job.tree.depth, check_program, job.tree, dict(job.consts), None,
                           job.base_dir, job.float_consts)
        cuda = CudaBackend(checked, backend_globals(checked))
        deep.run(job.tree.depth, cuda.map, job.func, job.batch, None)
        module = cuda.kernel_files.get(job.func)
        if module is not None:
            remember_kernel(job.key, module)
    finally:
        Path(path).unlink(missing_ok=True)


if __name__ == "__main__":
    run(sys.argv[1])
