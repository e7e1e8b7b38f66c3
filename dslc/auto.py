"""``--backend auto``: each map or call on the backend that can pay off.

A CUDA kernel costs a compile before its first launch (tens of seconds; 110 s for
the kernel of an LCS map) and, even when numba-cuda has it cached on disk, the
start of the driver and the loading of the kernel (about a second). The CPU
backend does some 10^8 to 10^9 cells a second per core (docs/benchmarks.md). So
the GPU is chosen only for work whose size pays for what it costs to start:

* the work is predicted as cells: the sum over the tasks of a map (or the one
  call) of the size of the entry's table (:func:`predicted_cells`);
* a kernel already compiled and cached (:func:`kernel_cached`) needs
  ``DSLC_AUTO_GPU_CELLS`` cells (default 10^9); one still to compile needs
  ``DSLC_AUTO_GPU_COMPILE_CELLS`` (default 5 x 10^10);
* below that, or with no GPU, the CPU backend runs it.

:func:`choose` is the whole decision, a pure function; :class:`AutoBackend`
applies it per map and call and records each (``dslc explain`` shows them).
The GPU is looked for only when some work is large enough to want it, so a
small run never starts the CUDA driver.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from dslc.check import tir
from dslc.emit.pyexpr import NotCompilable
from dslc.errors import DslcError, env_int
from dslc.runtime.values import Sequence

CACHED_CELLS = 10**9  # DSLC_AUTO_GPU_CELLS: a cached kernel pays from here
COMPILE_CELLS = 5 * 10**10  # DSLC_AUTO_GPU_COMPILE_CELLS: a kernel to compile, from here
SAMPLE = 4096  # a map's cells are summed over at most this many tasks, then scaled


@dataclass(frozen=True)
class Choice:
    """Where one map or call runs, and why (as ``dslc explain`` prints it)."""

    backend: str  # "cpu" or "cuda"
    reason: str
    cells: int
    kernel_cached: bool


def thresholds() -> tuple[int, int]:
    """(cells with a cached kernel, cells with a kernel to compile) from the settings."""
    return (env_int("DSLC_AUTO_GPU_CELLS", CACHED_CELLS, 0),
            env_int("DSLC_AUTO_GPU_COMPILE_CELLS", COMPILE_CELLS, 0))


def choose(cells: int, kernel_cached: bool, gpu_present: Callable[[], bool],
           cached_cells: int, compile_cells: int) -> Choice:
    """The backend for work of ``cells`` predicted cells. ``gpu_present`` is
    asked only when the work is large enough to want the GPU."""
    if cells < min(cached_cells, compile_cells):
        return Choice("cpu", f"{cells:,} cells < {min(cached_cells, compile_cells):,} "
                      "(small work stays on the CPU)", cells, kernel_cached)
    need = cached_cells if kernel_cached else compile_cells
    kernel = "kernel cached" if kernel_cached else "kernel not compiled yet"
    if cells < need:
        return Choice("cpu", f"{cells:,} cells < {need:,} ({kernel})", cells, kernel_cached)
    if not gpu_present():
        return Choice("cpu", f"{cells:,} cells, but no CUDA GPU here", cells, kernel_cached)
    return Choice("cuda", f"{cells:,} cells >= {need:,} ({kernel})", cells, kernel_cached)


def predicted_cells(cpu, func: str, tasks: list[dict]) -> int:
    """The cells a map over ``tasks`` (or a call: one task) computes: for each
    task, the size of its table (every cell up to the final one), or for a
    plain function that reaches tables, the product of its sequences' lengths
    plus one (the tables over them are that size); 1 for straight-line code.
    Over a large map, a sample of the tasks spread over it, scaled."""
    f = cpu.program.functions[func]
    if not any(g.is_table for g in tir.reachable(cpu.program.functions, func)):
        return len(tasks)
    step = max(1, len(tasks) // SAMPLE)
    picked = tasks[::step]
    total = sum(_task_cells(cpu, f, t) for t in picked)
    return total * len(tasks) // len(picked)


def _task_cells(cpu, f, task: dict) -> int:
    if f.is_table:
        try:
            return math.prod(c + 1 for c in cpu._final(f, task))
        except (NotCompilable, DslcError, KeyError, TypeError, ValueError):
            pass  # a domain only planning knows: the sequences' estimate
    return math.prod(len(v) + 1 for v in task.values() if isinstance(v, Sequence))


def kernel_key(cpu, func: str, tasks: list[dict]) -> str:
    """What names a map's kernel across runs: the plan's key (program, entry,
    the widest task's shapes) and the number of tasks (which picks the kernel's
    strategy)."""
    from dslc.cpu import modules
    from dslc.cpu.backend import _widest
    from dslc.runtime.batch import TaskBatch

    f = cpu.program.functions[func]
    widest = _widest(TaskBatch.of(tasks))
    return modules.plan_key(cpu.program, func, f"cuda-map{len(tasks)}{f.is_table}", None, widest)


def _record(key: str) -> Path:
    from dslc.cpu.cache import cache_dir

    return cache_dir() / f"gpu_{key}.json"


def remember_kernel(key: str, module_file: str) -> None:
    """Note that the map named ``key`` ran with the kernel module ``module_file``."""
    from dslc.cpu.cache import write_entry

    write_entry(_record(key).name, json.dumps({"module": Path(module_file).stem}))


def kernel_cached(key: str) -> bool:
    """Did a map named ``key`` run before, and does numba-cuda's cache of its
    kernel module (``__pycache__`` beside it, ``@cuda.jit(cache=True)``) exist?"""
    try:
        stem = json.loads(_record(key).read_text())["module"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if not isinstance(stem, str) or "/" in stem or not stem.startswith("dslc_"):
        return False
    return any((_record(key).parent / "__pycache__").glob(f"{stem}.*.nbi"))


class AutoBackend:
    """Runs each map and call on the CPU or the CUDA backend, as :func:`choose`
    says. ``run_gpu=False`` decides and records alike but runs everything on the
    CPU (``dslc explain``)."""

    name = "auto"

    def __init__(self, program, globals_: dict, run_gpu: bool = True):
        from dslc.cpu.backend import CpuBackend

        self.program = program
        self.globals = globals_
        self.cpu = CpuBackend(program, globals_)
        self.run_gpu = run_gpu
        self.decisions: dict[str, Choice] = {}  # entry -> the last decision for it
        self._cuda = None
        self._gpu: bool | None = None

    def value(self, func: str, args: dict, span, description: str = ""):
        if self.cpu.direct(func):
            return self.cpu.value(func, args, span, description)
        return self._pick(func, [args], None).value(func, args, span, description)

    def table(self, func: str, calling: dict, span, description: str = ""):
        return self._pick(func, [calling], None).table(func, calling, span, description)

    def map(self, func: str, tasks: list[dict], span, progress=None) -> list:
        if not tasks:
            return []
        backend = self._pick(func, tasks, lambda: kernel_key(self.cpu, func, tasks))
        out = backend.map(func, tasks, span, progress)
        module = getattr(backend, "kernel_files", {}).get(func)
        if backend is not self.cpu and module is not None:
            remember_kernel(kernel_key(self.cpu, func, tasks), module)
        return out

    def explain(self) -> dict:
        return self.cpu.explain()

    def _pick(self, func: str, tasks: list[dict], key: Callable[[], str] | None):
        """The backend for this work. ``key()`` names a map's kernel, asked only
        for work large enough for it to matter; a call's kernel is never taken as
        cached (the GPU runs a call as one big problem, compiled in this process)."""
        cells = predicted_cells(self.cpu, func, tasks)
        limits = thresholds()
        cached = key is not None and cells >= min(limits) and kernel_cached(key())
        choice = choose(cells, cached, self._gpu_present, *limits)
        self.decisions[func] = choice
        if choice.backend == "cpu" or not self.run_gpu:
            return self.cpu
        if self._cuda is None:
            from dslc.cuda.backend import CudaBackend

            self._cuda = CudaBackend(self.program, self.globals)
        return self._cuda

    def _gpu_present(self) -> bool:
        if self._gpu is None:
            from dslc.cuda.backend import CudaBackend

            self._gpu = CudaBackend.real_gpu()
        return self._gpu
