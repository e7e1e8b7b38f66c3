"""The CUDA backend: the tasks of a ``map`` as GPU threads (task-per-thread).

Single calls and whole tables run on the CPU backend (one task cannot fill a
GPU with this strategy); a ``map`` whose plan compiles for the device runs one
thread per task, tasks ordered longest first so the threads of a warp do
similar work, in launches sized to a scratch-memory budget (inputs larger than
the device are processed in chunks with the same results). Set
``DSLC_CUDA_BLOCK`` (threads per block, default 128) and
``DSLC_CUDA_SCRATCH_MB`` (window/table storage per launch, default 4096) to
override the defaults.
"""

from __future__ import annotations

import math
import os

import numpy as np

from dslc.cpu import modules
from dslc.cpu.backend import CpuBackend
from dslc.emit.cuda import CudaGenerator, kernel_source
from dslc.emit.plan import plan_task
from dslc.emit.pyexpr import NotCompilable
from dslc.runtime.values import Sequence


def _cuda():
    from numba import cuda
    return cuda


class CudaBackend(CpuBackend):
    name = "cuda"

    @staticmethod
    def available() -> bool:
        try:
            return bool(_cuda().is_available())
        except Exception:  # no driver, no toolkit: simply not available
            return False

    @staticmethod
    def real_gpu() -> bool:
        """A device, not the simulator (``auto`` only picks a real one)."""
        return CudaBackend.available() and os.environ.get("NUMBA_ENABLE_CUDASIM") != "1"

    def __init__(self, program, globals_: dict):
        super().__init__(program, globals_)
        self.device_fallbacks: dict[str, str] = {}
        self._kernels: dict = {}

    def map(self, func: str, tasks: list[dict], span, progress=None) -> list:
        if not tasks:
            return []
        f = self.program.functions[func]
        try:
            kind, widest, request = self.map_entry(f, tasks)
            compiled = self._device_compile(func, kind, widest, request)
        except NotCompilable as e:
            self.device_fallbacks[func] = str(e)
            compiled = None
        if compiled is None:
            return super().map(func, tasks, span, progress)
        values = self._launch(compiled, f, tasks)
        bad = [k for k, v in enumerate(values) if v != v]
        out = []
        for k, v in enumerate(values):
            if k in bad:  # a task the kernel could not finish: the CPU reports why
                out.append(super().map(func, [tasks[k]], span)[0])
            else:
                out.append(self._result(v, f.ret, span))
        if progress is not None:
            progress(len(tasks))
        return out

    # ------------------------------------------------------------------ compile
    def _device_compile(self, func, kind, scope, request):
        key = (func, kind, request, tuple((n, len(v) if isinstance(v, Sequence) else None)
                                          for n, v in sorted(scope.items())))
        if key in self._kernels:
            return self._kernels[key]
        plan = plan_task(self.program, func, kind, scope, request, self.user_schedules)
        gen = CudaGenerator(self.program, plan)
        source, argnames = gen.generate()
        result = (source, argnames, plan, gen.storage)
        self._kernels[key] = result
        self.generated[func] = (plan, source)
        return result

    # ------------------------------------------------------------------ launch
    def _launch(self, compiled, f, tasks: list[dict]) -> np.ndarray:
        cuda = _cuda()
        source, argnames, plan, storage = compiled
        kinds = modules.argument_kinds(argnames, tasks)
        module = modules.load(source + "\n" + kernel_source(argnames, kinds,
                                                            [fn for fn, _ in storage]))
        env = dict(plan_extents(plan))
        env.update({f"W_{gi}": g.schedule.window for gi, g in enumerate(plan.groups)
                    if g.windowed})
        dims = [tuple(int(eval(d, {"__builtins__": {}}, env)) for d in ds) for _, ds in storage]
        per_task = sum(8 * math.prod(d) for d in dims) or 8
        budget = int(os.environ.get("DSLC_CUDA_SCRATCH_MB", "4096")) * 2**20
        chunk = max(1, min(len(tasks), budget // per_task))
        block = int(os.environ.get("DSLC_CUDA_BLOCK", "128"))
        order = np.argsort([-_size(t) for t in tasks], kind="stable").astype(np.int64)
        out = np.empty(len(tasks), dtype=np.float64)
        for start in range(0, len(tasks), chunk):
            ids = order[start:start + chunk]
            sub = [tasks[k] for k in ids]
            arrays = self._pack(argnames, kinds, sub, plan, f)
            scratch = [cuda.device_array(d + (len(sub),), dtype=np.float64) for d in dims]
            d_out = cuda.device_array(len(sub), dtype=np.float64)
            local = np.arange(len(sub), dtype=np.int64)
            grid = (len(sub) + block - 1) // block
            module.batch[grid, block](cuda.to_device(local), *arrays, *scratch, d_out)
            out[ids] = d_out.copy_to_host()
        return out

    def _pack(self, argnames, kinds, tasks, plan, f) -> list:
        cuda = _cuda()
        windows = tuple(g.schedule.window for g in plan.groups)
        return [cuda.to_device(a) if isinstance(a, np.ndarray) else a
                for a in modules.pack(argnames, kinds, tasks, self, windows, f)]


def plan_extents(plan) -> dict[str, int]:
    out = {}
    for g in plan.groups:
        out.update(g.extents.values)
    return out


def _size(task: dict) -> int:
    return sum(len(v) for v in task.values() if isinstance(v, Sequence))
