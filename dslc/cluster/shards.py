"""Splitting a map's tasks into shards of about equal predicted work.

Work is predicted as cells (the size of each task's table, as ``auto`` predicts
it), not as a count of tasks: one protein of 2,000 residues is a hundred of 20.
Both the prediction and the split are numpy passes over the batch's columns, so a
map of ten million tasks is split without a Python object per task.
"""

from __future__ import annotations

import heapq
import re

import numpy as np

from dslc.errors import DslcError
from dslc import numtext

GREEDY_UP_TO = 4096  # units split by the greedy rule; more are cut into ranges


def shard_tasks(batch, cells: np.ndarray, n: int) -> list[np.ndarray]:
    """At most ``n`` shards of the task indexes of ``batch`` (each increasing, so
    a worker meets its first failing task first), of about equal ``cells``.

    The unit split is a position of :attr:`TaskBatch.grouped`'s order: where the
    batch is a product (groups of one size: every query with the same database),
    position ``p`` is the ``p``-th database item with every query, so a shard
    reads one slice of the database for all the queries (a GPU worker interleaves
    and uploads it once); otherwise a position is one task."""
    order, bounds = batch.grouped
    sizes = np.diff(bounds)
    rows = len(sizes) if len(sizes) > 1 and (sizes == sizes[0]).all() else 1
    units = order.reshape(rows, -1)
    weights = cells[units].sum(axis=0)
    return [np.sort(units[:, s].ravel()) for s in map(np.asarray, split(weights, n))]


def split(weights, n: int) -> list:
    """At most ``n`` non-empty shards of unit indexes, each in increasing order,
    of about equal summed weight. A few units (up to ``GREEDY_UP_TO``) by the
    greedy rule: the heaviest first, each to the lightest shard so far (within 4/3
    of the best split). More are cut into ranges of their order by the running
    sum (numpy; each shard within one unit of an even share: the caller orders
    them largest first). A unit is never divided: a large problem stays whole."""
    if len(weights) > GREEDY_UP_TO:
        return _ranges(np.maximum(np.asarray(weights, dtype=np.int64), 1), n)
    n = max(1, min(n, len(weights)))
    heap = [(0, k) for k in range(n)]  # (work so far, shard)
    shards: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        work, k = heapq.heappop(heap)
        shards[k].append(i)
        heapq.heappush(heap, (work + max(1, weights[i]), k))
    return [sorted(s) for s in shards if s]


def _ranges(weights: np.ndarray, n: int) -> list[np.ndarray]:
    """Consecutive ranges of ``weights``, cut where the running sum crosses each
    ``k/n`` of the total (empty ranges dropped)."""
    run = np.cumsum(weights)
    marks = run[-1] * np.arange(1, n) / n
    cuts = np.unique(np.concatenate(([0], np.searchsorted(run, marks, side="right"),
                                     [len(weights)])))
    return [np.arange(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def task_cells(program, func: str, tasks) -> np.ndarray:
    """The predicted cells of each task of a map of ``func`` (dslc.auto's rule,
    per task): the size of its table where ``func`` is one, from the batch's
    lengths in one numpy pass where its final cell is them (task by task where it
    is not), else the product of its sequences' lengths plus one; 1 a task for a
    function that reaches no table. ``tasks``: a batch or a list of dicts."""
    from dslc.check import tir
    from dslc.cpu.backend import CpuBackend
    from dslc.emit.pyexpr import NotCompilable
    from dslc.lang.batch import TaskBatch

    batch = TaskBatch.of(tasks)
    ones = np.ones(len(batch), dtype=np.int64)
    f = program.functions[func]
    if not any(g.is_table for g in tir.reachable(program.functions, func)):
        return ones
    if f.is_table:
        cpu = CpuBackend(program, {})
        try:
            cells = ones
            for i in range(len(f.rec_params)):
                cells = cells * (cpu.final_column(f, batch, i) + 1)
            return cells
        except (NotCompilable, DslcError, KeyError, TypeError, ValueError):
            pass  # a domain only planning knows: the sequences' estimate
    return np.prod([n + 1 for n in batch.lengths.values()], axis=0, initial=1) * ones


_DEVICE = re.compile(r"[0-9]+")  # ASCII digits (str.isdigit takes '²', which int() refuses)


def _device(text: str) -> int:
    """A device number or count, never converted past 64 bits (dslc.numtext)."""
    n = numtext.int_of(text)
    if n is None:
        raise DslcError(f"--gpus: {numtext.shown(text)} is more GPUs than any host has")
    return n


def parse_gpus(spec: str, count=None) -> tuple[int, ...]:
    """The devices ``--gpus`` names: ``all``, a number ``N`` (devices 0 .. N-1)
    or a list ``0,2``. ``count()`` says how many GPUs the host has; it is asked
    to check every form."""
    text = spec.strip()
    have = _count(count)
    if text == "all":
        devices = tuple(range(have))
    elif _DEVICE.fullmatch(text):
        devices = tuple(range(_device(text)))
    else:
        parts = [p.strip() for p in text.split(",")]
        if not all(_DEVICE.fullmatch(p) for p in parts):
            raise DslcError(f"--gpus expects all, a number or a list like 0,2; got '{spec}'")
        devices = tuple(_device(p) for p in parts)
        if len(set(devices)) != len(devices):
            raise DslcError(f"--gpus names a device twice: '{spec}'")
    if not devices:
        raise DslcError("--gpus needs at least one GPU",
                        hint="a number counts devices: --gpus 1 runs on device 0; "
                             "--gpus 0,2 names them")
    if max(devices) >= have:
        raise DslcError(f"--gpus {spec}: this host has {have} GPU(s) (devices 0..{have - 1})")
    return devices


def _count(count) -> int:
    n = (count or gpu_count)()
    if n == 0:
        raise DslcError("--gpus: no CUDA GPU was found on this host",
                        hint="use --cluster local for CPU workers")
    return n


def gpu_count() -> int:
    """The CUDA GPUs of this host (0 without a driver; the simulator is not a GPU)."""
    from dslc import backends

    if not backends.driver_installed():
        return 0
    try:
        from numba import cuda

        return len(cuda.list_devices())
    except Exception:  # noqa: BLE001 - a driver that does not answer has no GPU to give
        return 0
