"""Splitting a map's tasks into shards of about equal predicted work.

Work is predicted as cells (the size of each task's table, as ``auto`` predicts
it), not as a count of tasks: one protein of 2,000 residues is a hundred of 20.
"""

from __future__ import annotations

import heapq

from dslc.errors import DslcError


def split(weights: list[int], n: int) -> list[list[int]]:
    """At most ``n`` non-empty shards of task indexes, each in increasing order,
    whose summed weights are as even as the greedy rule makes them: the heaviest
    task first, each to the lightest shard so far (within 4/3 of the best split).
    A task is never divided: a single large problem stays on one worker."""
    n = max(1, min(n, len(weights)))
    heap = [(0, k) for k in range(n)]  # (work so far, shard)
    shards: list[list[int]] = [[] for _ in range(n)]
    for i in sorted(range(len(weights)), key=lambda i: (-weights[i], i)):
        work, k = heapq.heappop(heap)
        shards[k].append(i)
        heapq.heappush(heap, (work + max(1, weights[i]), k))
    return [sorted(s) for s in shards if s]


def task_cells(program, func: str, tasks: list[dict]) -> list[int]:
    """The predicted cells of each task of a map of ``func`` (dslc.auto's rule)."""
    from dslc.auto import predicted_cells
    from dslc.cpu.backend import CpuBackend

    cpu = CpuBackend(program, {})
    return [predicted_cells(cpu, func, [t]) for t in tasks]


def parse_gpus(spec: str, count=None) -> tuple[int, ...]:
    """The devices ``--gpus`` names: ``all``, a number ``N`` (devices 0 .. N-1)
    or a list ``0,2``. ``count()`` says how many GPUs the host has; it is asked
    to check every form."""
    text = spec.strip()
    have = _count(count)
    if text == "all":
        devices = tuple(range(have))
    elif text.isdigit():
        devices = tuple(range(int(text)))
    else:
        parts = [p.strip() for p in text.split(",")]
        if not all(p.isdigit() for p in parts):
            raise DslcError(f"--gpus expects all, a number or a list like 0,2; got '{spec}'")
        devices = tuple(int(p) for p in parts)
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
