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

Whole kernels too, where numba-cuda and NVRTC are installed (Numba's own CUDA target
cannot type the builtin ``min`` of two ints in device code, which every kernel has):
:class:`recorded_launches`, in a process running maps in the simulator, records each
kernel launched (its module's text, its arguments' types) in a file, and
``python -m dslc.cuda.lowering_check FILE`` compiles each for the device, the module's
simulator-only spellings (the float32 tile's ``_fmax``, the stand-in warp shuffles)
replaced by the GPU's first (:func:`on_device`).
"""

from __future__ import annotations

import json
import math
import re
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


def _without_device() -> None:
    """Where no driver answers, device functions calling each other compile for
    :data:`CC` (their dispatchers' module asks the current device otherwise)."""
    from numba import cuda
    from numba.cuda import dispatcher

    if not cuda.is_available():
        dispatcher.get_current_device = _Capability


def compile_helpers() -> list[str]:
    """The failures compiling each device helper to PTX, one line each."""
    import inspect

    from numba import cuda, types
    from dslc.targets import runtime

    ns = helper_module()
    _without_device()
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


# ------------------------------------------------------------------ whole kernels
def _spec(arg) -> list:
    """A launch argument's type as plain data: an array's dtype, dimensions and layout
    (the simulator's device array: the numpy array it wraps), or a scalar's kind."""
    arg = getattr(arg, "_ary", arg)
    if isinstance(arg, np.ndarray):
        layout = "C" if arg.flags.c_contiguous else "F" if arg.flags.f_contiguous else "A"
        return ["array", arg.dtype.name, arg.ndim, layout]
    if isinstance(arg, (bool, np.bool_)):
        return ["boolean"]
    return ["int64"] if isinstance(arg, (int, np.integer)) else ["float64"]


def _type(spec: list):
    from numba import types

    if spec[0] == "array":
        return types.Array(getattr(types, spec[1]), spec[2], spec[3])
    return getattr(types, spec[0])


class recorded_launches:
    """While inside: every launch of a generated module's kernel in Numba's simulator
    recorded (the module's text, the kernel's name, its arguments' types), once per
    distinct triple, and written to ``path`` as JSON on leaving. The simulator's launch
    is wrapped and still called."""

    def __init__(self, path):
        self.path, self.seen = path, {}

    def __enter__(self):
        from numba.cuda.simulator import kernel

        self._cls, self._call = kernel.FakeCUDAKernel, kernel.FakeCUDAKernel.__call__
        seen, call = self.seen, self._call

        def recording(k, *args):
            source = k.fn.__globals__.get("_dslc_source")  # (cpu.modules.load sets it)
            if not k._device and source is not None:
                seen.setdefault((source, k.fn.__name__, json.dumps([_spec(a) for a in args])))
            return call(k, *args)
        self._cls.__call__ = recording
        return self

    def __exit__(self, *exc):
        self._cls.__call__ = self._call
        with open(self.path, "w") as f:
            json.dump([{"source": s, "kernel": k, "args": json.loads(a)}
                       for s, k, a in self.seen], f)
        return False


def on_device(source: str) -> str:
    """A kernel module generated for the simulator as the same generators write it
    for a GPU: the float32 tile's ``_fmax``/``_fmin`` (emit.tiles) and the warp
    shuffles (targets.printer's simulator printer: a stand-in function)."""
    from dslc.emit.tiles import DEVICE_FMAX, SIMULATED_FMAX
    from dslc.targets.printer import CudaPrinter, SimulatedCudaPrinter

    source = source.replace(SIMULATED_FMAX, DEVICE_FMAX)
    for line in SimulatedCudaPrinter.SHUFFLE_IMPORT:
        source = source.replace(line, "")
    stand_in = re.escape(SimulatedCudaPrinter.SHUFFLE).replace(r"\{v\}", r"(\w+)") \
        .replace(r"\{m\}", r"(\d+)")
    return re.sub(stand_in, lambda m: CudaPrinter.SHUFFLE.format(v=m[1], m=m[2]), source)


def compile_kernels(path) -> list[str]:
    """The failures compiling each launch recorded in ``path`` to PTX, one line each."""
    import tempfile
    from pathlib import Path

    from numba import cuda

    with open(path) as f:
        launches = json.load(f)
    work, bad = Path(tempfile.mkdtemp(prefix="dslc-ptx-")), []
    for n, rec in enumerate(launches):
        file = work / f"kernel_{n}.py"  # (a kernel cached on disk needs a file)
        file.write_text(on_device(rec["source"]))
        ns = {"__name__": f"dslc_ptx_{n}", "__file__": str(file)}
        try:
            exec(compile(file.read_text(), str(file), "exec"), ns)
            _without_device()
            cuda.compile_ptx(ns[rec["kernel"]].py_func,
                             tuple(_type(s) for s in rec["args"]), cc=CC)
        except Exception as e:  # noqa: BLE001 - every failure is reported, by kernel
            first = next((ln for ln in str(e).splitlines() if ln.strip()), "")
            bad.append(f"kernel {n} ({rec['kernel']}): {type(e).__name__}: {first}")
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
    bad = compile_helpers() if len(sys.argv) < 2 else \
        [line for path in sys.argv[1:] for line in compile_kernels(path)]
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
