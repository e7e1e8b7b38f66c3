"""CUDA code generation, task-per-thread (thesis §5.5.1.1).

The same task plan and loop nest as the CPU backend, compiled as a device
function; one thread runs one task's sweep. Storage is allocated by the host
for the whole launch with the task as the innermost dimension
(``T[slot, i, task]``), so neighbouring threads touch neighbouring words and
every window access coalesces.

Only plans whose checks were all proved away compile here (no domain check,
no sequence-index check, no run-time coercion that can fail): a kernel cannot
report which call went wrong, so anything that might fail runs on the CPU
backend, which can.
"""

from __future__ import annotations

import re

from dslc.emit.cpu import CpuGenerator
from dslc.emit.pyexpr import RUNTIME_HELPERS, Block, NotCompilable

CHECKS = ("_dom(", "_chk(", "_to_log(", "_to_index(", "_div(", "_fmod_floor(", "_neg_prob(",
           "_log(", "_sqrt(")

# Device code spells a few numpy names through ``math`` (scalars only there).
_DEVICE_NAMES = [(r"\bnp\.inf\b", "math.inf"), (r"\bnp\.nan\b", "math.nan"),
                 (r"\bnp\.int64\(", "int("), (r"\bnp\.exp\(", "math.exp("),
                 (r"\bnp\.log1p\(", "math.log1p("), (r"\bnp\.log\(", "math.log("),
                 (r"\bnp\.sqrt\(", "math.sqrt("), (r"\bnp\.floor\(", "math.floor(")]

HEADER = "import math\nimport numpy as np\nfrom numba import cuda\n"


def to_device(src: str) -> str:
    """Host-flavoured generated code as device code: decorators and math names."""
    src = src.replace('@numba.njit(inline="always")', "@cuda.jit(device=True, inline=True)")
    src = src.replace("@numba.njit(cache=True)", "@cuda.jit(device=True)")
    for pat, rep in _DEVICE_NAMES:
        src = re.sub(pat, rep, src)
    return src


class CudaGenerator(CpuGenerator):
    """Task-per-thread: storage comes from the launch, indexed by the thread's task."""

    def __init__(self, program, plan):
        super().__init__(program, plan)
        self.storage: list[tuple[str, list[str]]] = []  # (function, dims without the task)
        self.dtype = "float64"  # of the storage and the table values

    def cell_ref(self, func: str, index: list[str]) -> str:
        return f"T_{func}[{', '.join(index + ['tid'])}]"

    def allocate(self, b: Block, func: str, dims: list[str]) -> None:
        self.storage.append((func, dims))

    def module_source(self, args: list[str], body: Block) -> str:
        task_args = args + [f"T_{f}" for f, _ in self.storage] + ["tid"]
        helpers = "\n".join(self.helpers.values())
        task = f"@numba.njit(cache=True)\ndef task({', '.join(task_args)}):\n{body.render(1)}\n"
        if any(c in task or c in helpers for c in CHECKS):
            raise NotCompilable("a run-time check the kernel could not report")
        if "np.empty" in task or "np.full" in task:
            raise NotCompilable("allocation inside the task")
        return "\n".join([HEADER, to_device(RUNTIME_HELPERS), to_device(helpers),
                          to_device(task)])


def kernel_source(argnames: list[str], kinds: dict[str, str], storage: list[str]) -> str:
    """The launch: one thread per task, ``order`` listing the tasks of this launch."""
    from dslc.cpu.modules import packed_call

    params, call = packed_call(argnames, kinds)
    params += [f"T_{f}" for f in storage]
    call += [f"T_{f}" for f in storage] + ["n"]
    return (f"@cuda.jit\n"
            f"def batch(order, {', '.join(params)}, out):\n"
            f"    n = cuda.grid(1)\n"
            f"    if n < order.shape[0]:\n"
            f"        k = order[n]\n"
            f"        out[k] = task({', '.join(call)})\n")
