"""``--backend auto``: each map or call on the backend predicted to finish first.

A CUDA kernel costs a compile before its first launch (seconds to minutes: 110 s
for the kernel of an LCS map) and, even cached on disk, the start of the driver
and the loading of the kernel; the data travels to the device; then the GPU
computes far more cells a second than the CPU. The CPU backend's modules cost a
compile too, unless cached. So each map or call is predicted on both:

* its work, as cells (:func:`predicted_cells`) and bytes to move to the device
  (:func:`predicted_bytes`);
* whether the CPU module (its plan in the cache, :meth:`CpuBackend.code_cached`)
  and the CUDA kernel (:func:`kernel_cached`) are already compiled;
* this machine's measured speeds (dslc.calibrate: measured once, kept in the
  cache directory): cells a second per CPU core (times the cores for a map),
  cells a second on the GPU, the GPU's start, the bandwidth to it, and the
  compile seconds of small functions, scaled to generated ones
  (:data:`CPU_COMPILE_SCALE`, :data:`GPU_COMPILE_SCALE`).

:func:`decide` is the whole comparison, a pure function; :func:`choose` adds
what is settled before measuring anything: work below ``DSLC_AUTO_GPU_CELLS``
(default 10^8 cells, well under a second on one core) stays on the CPU without
looking for a GPU, and with no GPU there is nothing to calibrate.
:class:`AutoBackend` applies it per map and call and records each (``dslc
explain`` and ``--timings`` show the prediction and the choice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from dslc.check import tir
from dslc.errors import NotCompilable
from dslc import settings
from dslc.errors import DslcError
from dslc.lang import types as T
from dslc.lang.values import Sequence
from dslc.warm import kernel_cached, remember_kernel  # noqa: F401 (auto's record of kernels)

FLOOR_CELLS = 10**8  # DSLC_AUTO_GPU_CELLS: less work than this never looks for a GPU
SAMPLE = 4096  # a map's cells are summed over at most this many tasks, then scaled
# a generated module or kernel takes longer to compile than the calibration's small
# function, about ten times on an H200 host for both: a CPU module 10 s against the
# calibration function's 1.1 s (10 queries x the proteome, first run against second),
# a CUDA kernel 12-18 s against the calibration kernel's 1.6-1.8 s (LCS's tiled kernel
# 12.3 s, Smith-Waterman's over a million proteins 17.6 s of first run); 30 for kernels
# made the GPU lose a million-protein search's first run it wins (docs/benchmarks.md)
CPU_COMPILE_SCALE = 10.0
GPU_COMPILE_SCALE = 10.0
KERNEL_LOAD_S = 0.3  # loading a cached kernel onto the device


@dataclass(frozen=True)
class Work:
    """What a map or call asks of a backend."""

    cells: int
    bytes: int = 0  # to move to the device
    is_map: bool = True  # a map uses every core; a single call one


@dataclass(frozen=True)
class Choice:
    """Where one map or call runs, and why (as ``dslc explain`` prints it)."""

    backend: str  # "cpu" or "cuda"
    reason: str
    cells: int
    kernel_cached: bool
    cpu_s: float | None = None  # the predictions, where made
    gpu_s: float | None = None


def floor() -> int:
    """The least work for which the GPU is considered (the setting)."""
    return settings.number("DSLC_AUTO_GPU_CELLS", FLOOR_CELLS)


def predict(work: Work, kernel_cached: bool, cpu_cached: bool, cal,
            gpu_started: bool = False) -> tuple[float, float]:
    """Predicted seconds (CPU, GPU) for ``work`` on a machine calibrated ``cal``."""
    cores = cal.cores if work.is_map else 1
    cpu = work.cells / (cal.cpu_cells_s * cores)
    if not cpu_cached:
        cpu += cal.cpu_compile_s * CPU_COMPILE_SCALE
    if cal.gpu_cells_s <= 0:
        return cpu, math.inf
    gpu = work.cells / cal.gpu_cells_s + work.bytes / max(cal.h2d_bytes_s, 1.0)
    gpu += KERNEL_LOAD_S if kernel_cached else cal.gpu_compile_s * GPU_COMPILE_SCALE
    if not gpu_started:
        gpu += cal.gpu_start_s
    return cpu, gpu


def decide(work: Work, kernel_cached: bool, cpu_cached: bool, cal,
           gpu_started: bool = False) -> Choice:
    """The backend predicted to finish first; the CPU on a tie (the GPU is
    never chosen where it is predicted no faster)."""
    cpu, gpu = predict(work, kernel_cached, cpu_cached, cal, gpu_started)
    kernel = "kernel cached" if kernel_cached else "kernel to compile"
    module = "" if cpu_cached else ", module to compile"
    why = (f"{work.cells:,} cells: predicted cpu {cpu:.3g} s{module}, "
           f"gpu {gpu:.3g} s ({kernel})")
    backend = "cuda" if gpu < cpu else "cpu"
    return Choice(backend, why, work.cells, kernel_cached, cpu, gpu)


def choose(work: Work, kernel_cached: Callable[[], bool], cpu_cached: Callable[[], bool],
           gpu_present: Callable[[], bool], calibration: Callable[[], object],
           least: int, gpu_started: bool = False,
           known: Callable[[], object] = lambda: None) -> Choice:
    """:func:`decide`, after what needs no measuring: work below ``least``
    cells stays on the CPU and asks nothing more; with no GPU, the CPU (no
    calibration). The callables are asked only where needed: where ``known()``
    gives the machine's calibration already on file, the decision is taken from
    it first, and the driver is asked whether a GPU answers only when the GPU
    is chosen (a map the CPU wins pays nothing for looking)."""
    if work.cells < least:
        return Choice("cpu", f"{work.cells:,} cells < {least:,} (small work stays on the CPU)",
                      work.cells, False)
    cal = known()
    if cal is None:
        if not gpu_present():
            return Choice("cpu", f"{work.cells:,} cells, but no CUDA GPU here", work.cells,
                          False)
        cal = calibration()
    choice = decide(work, kernel_cached(), cpu_cached(), cal, gpu_started)
    if choice.backend == "cuda" and not gpu_present():
        return Choice("cpu", f"{work.cells:,} cells, but no CUDA GPU here", work.cells, False)
    return choice


def predicted_cells(cpu, func: str, tasks: list[dict]) -> int:
    """The cells a map over ``tasks`` (or a call: one task) computes: for each
    task, the size of its table (every cell up to the final one), or for a
    plain function that reaches tables, the product of its sequences' lengths
    plus one (the tables over them are that size); 1 for straight-line code.
    Of a batch whose sequences' lengths decide it, exactly from its columns;
    otherwise, over a large map, a sample of the tasks spread over it, scaled."""
    f = cpu.program.functions[func]
    if not any(g.is_table for g in tir.reachable(cpu.program.functions, func)):
        return len(tasks)
    exact = _column_cells(cpu.program, f, tasks)
    if exact is not None:
        return exact
    step = max(1, len(tasks) // SAMPLE)
    picked = tasks[::step]
    total = sum(_task_cells(cpu, f, t) for t in picked)
    return total * len(tasks) // len(picked)


def _column_cells(program, f, tasks) -> int | None:
    """What :func:`_task_cells` gives, summed over a batch's tasks read off its
    columns where the sequences' lengths alone decide it (a table's recursive
    parameters each an index of a sequence argument or a symbol, as
    :meth:`CpuBackend.final_cell` reads them; a plain function's sequences): exact,
    and no task is made (sampling a million-task map's tasks as dicts took about
    0.1 s of its run); None where it is not so."""
    from dslc.lang.batch import TaskBatch

    if not isinstance(tasks, TaskBatch):
        return None
    seqs = [n for n in tasks.names if tasks.is_seq(n)]
    if f.is_table:
        sides = []
        for p in f.rec_params:
            t = p.type
            if isinstance(t, T.IndexT) and p.name not in tasks.names and t.seq in seqs:
                sides.append(t.seq)
            elif isinstance(t, T.SymT):
                sides.append(len(program.alphabets[t.alpha.name]) - 1)
            else:
                return None
    else:
        sides = seqs
    size = 1.0  # a number where every task has the same, else one per task (float64:
    for side in sides:  # exact below 2^53, a prediction past it)
        size = size * (side + 1 if isinstance(side, int) else _lengths(tasks, side) + 1)
    return int(size * tasks.count if np.isscalar(size) else size.sum())


def _lengths(tasks, name: str):
    """A sequence parameter's lengths in a batch: one number if every task shares it."""
    from dslc.lang.batch import Shared

    col = tasks.columns[name]
    return len(col.value) if isinstance(col, Shared) else tasks.lengths[name]


def predicted_bytes(tasks: list[dict]) -> int:
    """Bytes a map sends to the device: its tasks' sequences (one byte a
    residue; a sequence every task shares counted once) and a result each; of a
    batch, each packed buffer its columns read, whole and once (what the CUDA
    backend uploads)."""
    from dslc.lang.batch import SeqColumn, Shared, TaskBatch

    if isinstance(tasks, TaskBatch):
        cols = tasks.columns.values()
        packs = {id(c.pack): c.pack.codes.nbytes for c in cols if isinstance(c, SeqColumn)}
        shared = sum(len(c.value) for c in cols
                     if isinstance(c, Shared) and isinstance(c.value, Sequence))
        return sum(packs.values()) + shared + 8 * len(tasks)
    step = max(1, len(tasks) // SAMPLE)
    picked = tasks[::step]
    first = tasks[0]
    own = sum(len(v) for t in picked for n, v in t.items()
              if isinstance(v, Sequence) and v is not first[n])
    shared = sum(len(v) for n, v in first.items()
                 if isinstance(v, Sequence) and all(t[n] is v for t in picked))
    return own * len(tasks) // len(picked) + shared + 8 * len(tasks)


def _task_cells(cpu, f, task: dict) -> int:
    if f.is_table:
        try:
            return math.prod(c + 1 for c in cpu.final_cell(f, task))
        except (NotCompilable, DslcError, KeyError, TypeError, ValueError, OverflowError):
            pass  # a domain only planning knows (or an infinite one): the sequences' estimate
    return math.prod(len(v) + 1 for v in task.values() if isinstance(v, Sequence))


def kernel_key(cpu, func: str, tasks: list[dict]) -> str:
    """What names a map's kernel across runs: the plan's key (program, entry,
    the widest task's shapes) and the number of tasks (which picks the kernel's
    strategy)."""
    from dslc.cpu import modules
    from dslc.cpu.backend import widest_task
    from dslc.lang.batch import TaskBatch

    f = cpu.program.functions[func]
    widest = widest_task(TaskBatch.of(tasks))
    return modules.plan_key(cpu.program, func, f"cuda-map{len(tasks)}{f.is_table}", None, widest,
                            options=cpu.options)


class AutoBackend:
    """Runs each map and call on the CPU or the CUDA backend, as :func:`choose`
    says. ``run_gpu=False`` decides and records alike but runs everything on the
    CPU (``dslc explain``)."""

    name = "auto"

    def __init__(self, program, globals_: dict, run_gpu: bool = True, options=None):
        from dslc.cpu.backend import CpuBackend

        self.program = program
        self.globals = globals_
        self.cpu = CpuBackend(program, globals_, options)
        self.options = self.cpu.options
        self.run_gpu = run_gpu
        self.decisions: dict[str, Choice] = {}  # entry -> the last decision for it
        self._cuda = None
        self._gpu: bool | None = None
        self._cal = None  # this machine's calibration, loaded when first needed
        self.ahead: dict = {}  # entry -> the background process compiling its kernel
        self._later = None  # that process's start, once the map in hand has run

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
        if self._later is not None:  # after the map: the compile takes none of its cores
            self.ahead[func] = self._later()
            self._later = None
        module = getattr(backend, "kernel_files", {}).get(func)
        if backend is not self.cpu and module is not None:
            remember_kernel(kernel_key(self.cpu, func, tasks), module)
        return out

    def explain(self) -> dict:
        return self.cpu.explain()

    def ran_on(self, func: str):
        """The backend the last decision for ``func`` sent it to (``--timings``)."""
        c = self.decisions.get(func)
        return self._cuda if c is not None and c.backend == "cuda" and self.run_gpu \
            and self._cuda is not None else self.cpu

    def _pick(self, func: str, tasks: list[dict], key: Callable[[], str] | None):
        """The backend for this work. ``key()`` names a map's kernel, asked only
        for work large enough for it to matter; a call's kernel is never taken as
        cached (the GPU runs a call as one big problem, compiled in this process)."""
        is_map = key is not None
        work = Work(predicted_cells(self.cpu, func, tasks),
                    predicted_bytes(tasks) if is_map else 0, is_map)
        choice = choose(work, lambda: is_map and kernel_cached(key()),
                        lambda: self.cpu.code_cached(func, tasks, is_map),
                        self._gpu_present, self._calibration, floor(),
                        gpu_started=self._cuda is not None, known=self._known)
        self.decisions[func] = choice
        if choice.backend == "cpu" and self.run_gpu and is_map and choice.gpu_s is not None \
                and not choice.kernel_cached:
            self._ahead(func, tasks, work, key())
        if choice.backend == "cpu" or not self.run_gpu:
            return self.cpu
        if self._cuda is None:
            from dslc.cuda.backend import CudaBackend

            # one CPU backend for both: what the device leaves to it reuses its code
            self._cuda = CudaBackend(self.program, self.globals, cpu=self.cpu)
        return self._cuda

    def reading(self, nbytes: int) -> None:
        """The script starts reading a sequence file of ``nbytes``: where it is large
        and this machine's calibration on file found a GPU, Numba-CUDA's set-up
        starts on a thread now (dslc.cuda.target_start), so that a map the GPU
        takes does not wait for it after the reading; a map the CPU takes loses a
        core's share of the reading for it."""
        from dslc.cuda.ahead import AHEAD_BYTES

        if not self.run_gpu or nbytes < AHEAD_BYTES or self.options.simulated:
            return
        cal = self._known()
        if cal is not None and cal.gpu_cells_s > 0:
            from dslc.cuda import target_start

            target_start.shared().start()

    def _ahead(self, func: str, tasks, work: Work, key: str) -> None:
        """Where the GPU loses this map only for its kernel's compile, compile it
        ahead in the background for the runs to come (dslc.warm), started once
        this map has run: predicted for a next run, with this run's CPU module and
        that kernel both cached."""
        from dslc import warm
        from dslc.lang.batch import TaskBatch

        cpu, gpu = predict(work, True, True, self._calibration())
        if gpu < cpu:
            self._later = lambda: warm.start(self.program, func, TaskBatch.of(tasks), key)

    def _calibration(self):
        if self._cal is None:
            from dslc import calibrate

            self._cal = calibrate.load(gpu=True)
        return self._cal

    def _known(self):
        """The calibration on file, found without starting CUDA (or None)."""
        if self._cal is None:
            from dslc import calibrate

            self._cal = calibrate.known(gpu=True)
        return self._cal

    def _gpu_present(self) -> bool:
        if self._gpu is None:
            from dslc.cuda.backend import CudaBackend

            self._gpu = CudaBackend.real_gpu()
        return self._gpu
