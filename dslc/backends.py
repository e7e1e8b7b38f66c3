"""Backends by name. Each is a class ``(program, globals, options=...) -> backend``
satisfying :class:`~dslc.interp.protocol.Backend` (``value``, ``table``, ``map``);
:func:`make` binds the CompileOptions a run compiles under."""

from __future__ import annotations

import functools
import os
import sys

from dslc import settings
from dslc.errors import DslcError
from dslc.interp.protocol import Backend

__all__ = ["Backend", "driver_installed", "get", "make", "names", "register", "require",
           "resolve"]


def _interp():
    from dslc.interp.backend import InterpBackend
    return InterpBackend


def _cpu():
    from dslc.cpu.backend import CpuBackend
    return CpuBackend


def _cuda():
    from dslc.cuda.backend import CudaBackend
    return CudaBackend


_FACTORIES = {"interp": _interp, "cpu": _cpu, "cuda": _cuda}


def register(name: str, factory) -> None:
    """Make a backend available under ``name`` (``factory()`` returns its class)."""
    _FACTORIES[name] = factory


def names() -> list[str]:
    return sorted(_FACTORIES) + ["auto"]


def resolve(name: str) -> str:
    """``auto``: the interpreter where the compiled backends cannot run, the CPU
    backend where no CUDA driver is installed, else ``auto`` itself, which picks
    CPU or GPU per map and call (:mod:`dslc.auto`)."""
    if name != "auto":
        if not isinstance(name, str) or name not in _FACTORIES:
            raise DslcError(f"unknown backend {name!r}", hint="backends: " + ", ".join(names()))
        return name
    if "cpu" not in _FACTORIES or not _available("cpu"):
        return "interp"
    return "auto" if "cuda" in _FACTORIES and driver_installed() else "cpu"


def driver_installed() -> bool:
    """Could a real CUDA GPU be here: is the driver installed (not the simulator)?
    Seen without importing Numba: on Linux its device node (or WSL's GPU device),
    elsewhere its library; whether a GPU answers is asked only when some work
    wants it (``dslc.auto``)."""
    if settings.simulated():
        return False
    if settings.is_set("NUMBA_CUDA_DRIVER"):
        return True
    if sys.platform.startswith("linux"):
        return any(os.path.exists(p) for p in _LINUX_DRIVER)
    from ctypes.util import find_library

    return any(find_library(lib) is not None for lib in ("cuda", "nvcuda"))


_LINUX_DRIVER = ("/dev/nvidiactl", "/proc/driver/nvidia", "/dev/dxg")


def _available(name: str, real: bool = False) -> bool:
    """Can this backend run here? ``real``: on hardware (the CUDA simulator only
    counts when asked for by name)."""
    cls = _FACTORIES[name]()
    check = getattr(cls, "real_gpu", None) if real else None
    check = check or getattr(cls, "available", None)
    return bool(check()) if check is not None else True


def require(name: str) -> None:
    """A backend asked for by name that cannot run here is a clear error (an
    unknown name too: :func:`resolve`'s)."""
    if name == "auto":
        return
    resolve(name)  # an unknown name: one DslcError naming the backends
    if not _available(name):
        hint = ("no CUDA GPU or driver was found; use --backend cpu (or set "
                "NUMBA_ENABLE_CUDASIM=1 to run kernels in the simulator)") if name == "cuda" \
            else "install numba and islpy"
        raise DslcError(f"backend '{name}' is not available on this machine", hint=hint)


def make(name: str, options):
    """A ``(program, globals) -> backend`` for backend ``name`` compiling under the
    CompileOptions ``options`` (built once where the work entered dslc)."""
    return functools.partial(get(name), options=options)


def get(name: str):
    resolved = resolve(name)
    if resolved == "auto":
        from dslc.auto import AutoBackend
        return AutoBackend
    return _FACTORIES[resolved]()
