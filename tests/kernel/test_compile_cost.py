"""Compile time is a cost the compiler weighs: the runtime helpers a generated module
carries are plain Numba functions (CPU) and device functions (GPU), never inlined at
Numba's IR level, where every call site would get its own copy of the helper's code
before type inference and SSA (twice the compile time of examples/hmmsearch.bio's
modules; docs/benchmarks.md). LLVM and NVVM inline them in the machine code."""

from __future__ import annotations

from dslc.emit import demand
from dslc.targets import runtime
from dslc.targets.printer import CudaPrinter, Printer

GROUPS = tuple(sorted({h.group for h in runtime.HELPERS}))


def test_cpu_helpers_are_not_ir_inlined():
    text = Printer().library(*GROUPS) + "".join(demand.read_helper(n) for n in (1, 2, 3))
    assert text.count("@numba.njit") >= len([h for h in runtime.HELPERS if h.host]) + 3
    assert "inline" not in text


def test_device_helpers_are_not_ir_inlined():
    text = CudaPrinter().library(*GROUPS, flagged=True)
    assert "@cuda.jit(device=True)" in text
    assert "inline" not in text
