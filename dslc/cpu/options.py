"""Numba compiler options dslc needs that Numba's decorators do not expose."""

from __future__ import annotations


def enable_noalias() -> None:
    """Make ``@numba.njit(noalias=True)`` available.

    Numba's compiler has a ``noalias`` flag (each array argument's data pointer
    is marked ``noalias`` in LLVM); its parallel lowering sets it for gufunc
    kernels, but no decorator option maps to it. Generated lane code receives
    all its arrays as arguments and never passes one array twice, so the
    promise holds there, and it is what lets LLVM vectorise the lane loops
    (without it every store might alias every load, and the loops stay scalar).
    """
    from numba.core import cpu, options

    if not isinstance(getattr(cpu.CPUTargetOptions, "noalias", None), options.TargetOptions.Mapping):
        cpu.CPUTargetOptions.noalias = options.TargetOptions.Mapping("noalias")
