"""Device code compiled to PTX without a device: what Numba's simulator cannot check.

The simulator runs device functions as Python, so a construct the CUDA target cannot
type (a numpy ufunc such as ``np.floor``: numba-cuda has no device lowering for it)
passes there and fails only on a GPU. Compiling to PTX needs NVVM (the CUDA toolkit's
compiler library), not a driver or a device: this module compiles device sources for
a compute capability with ``cuda.compile_ptx`` in a process of its own, where the
simulator is off. It types and lowers the code as a GPU's would, but runs nothing:
it proves the code compiles for the device, not that its values are right (the
simulator's tests, and the tests run on a GPU, check those).

Run as ``python -m dslc.cuda.lowering_check`` (the simulator off): it compiles every
device helper of targets.runtime with float64 values, int64 indices and float64
arrays, prints one line per failure and exits 1 on any, 3 where there is no NVVM.
"""

from __future__ import annotations

import math
import sys

import numpy as np

CC = (9, 0)  # Hopper: the features the kernels use are Volta's or later, any will do


def arg_type(param: str, helper: str):
    """The Numba type a device helper's parameter is compiled with, by its name: the
    failure flag ``F``, a missing-value flag ``m`` and a read's array ``a`` (``_ld2_f``:
    2-D...) are float64 arrays, ``tid`` and indices int64, every other a float64."""
    from numba import types

    if param in ("F", "m"):
        return types.float64[:]
    if param == "a" and helper.startswith("_ld"):
        return types.Array(types.float64, int(helper[3:-2] or 1), "C")
    if param in ("tid", "i", "j", "k", "n", "e"):
        return types.int64
    return types.float64


def helper_module() -> dict:
    """Every device helper (targets.runtime) as the kernels' modules carry them: the
    CUDA printer's library of every group, the checks flagged, executed once."""
    from numba import cuda
    from dslc.targets.printer import CudaPrinter

    text = CudaPrinter().library("core", "domain", "demand", "device", flagged=True)
    ns = {"math": math, "np": np, "cuda": cuda}
    exec(compile("import math\nimport numpy as np\nfrom numba import cuda\n" + text,
                 "<device helpers>", "exec"), ns)
    return ns


class _Capability:
    """What a device dispatcher asks of the current device when a device function is
    compiled for a call from another: its compute capability. Without a device the
    driver cannot answer, so the check names the one it compiles for (:data:`CC`)."""

    compute_capability = CC


def _without_device(ns: dict) -> None:
    """Where no driver answers, device functions calling each other compile for
    :data:`CC` (their dispatchers' module asks the current device otherwise)."""
    from numba import cuda

    if cuda.is_available():
        return
    module = sys.modules[type(ns["_undef_f"]).__module__]
    module.get_current_device = _Capability


def compile_helpers() -> list[str]:
    """The failures compiling each device helper to PTX, one line each."""
    import inspect

    from numba import cuda, types
    from dslc.targets import runtime

    ns = helper_module()
    _without_device(ns)
    bad = []
    for h in runtime.HELPERS:
        if h.device is None:
            continue
        name = h.device.split("def ", 1)[1].split("(", 1)[0]
        fn = ns[name].py_func
        params = list(inspect.signature(fn).parameters)
        args = tuple(arg_type(p, name) for p in params)
        try:
            _, ret = cuda.compile_ptx(fn, args, device=True, cc=CC)
        except Exception as e:  # noqa: BLE001 - every failure is reported, by helper
            bad.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        if ret == types.pyobject:
            bad.append(f"{name}: typed as a Python object")
    return bad


def nvvm_present() -> bool:
    try:
        from numba.cuda.cudadrv import nvvm
        nvvm.NVVM()
        return True
    except Exception:  # noqa: BLE001 - any failure to load it means no NVVM here
        return False


def main() -> int:
    from numba.core import config

    if config.ENABLE_CUDASIM:
        print("the simulator is on: run with NUMBA_ENABLE_CUDASIM=0")
        return 2
    if not nvvm_present():
        print("no NVVM (the CUDA toolkit's compiler library) here")
        return 3
    bad = compile_helpers()
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
