"""Backends by name. Each is a class ``(program, globals) -> backend`` with the
``value``/``table``/``map`` interface described in :mod:`dslc.interp.backend`."""

from __future__ import annotations

from dslc.errors import DslcError


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
    """``auto`` picks the best backend present on this machine."""
    if name != "auto":
        if name not in _FACTORIES:
            raise DslcError(f"unknown backend '{name}'", hint="backends: " + ", ".join(names()))
        return name
    for candidate in ("cuda", "cpu"):
        if candidate in _FACTORIES and _available(candidate, real=True):
            return candidate
    return "interp"


def _available(name: str, real: bool = False) -> bool:
    """Can this backend run here? ``real``: on hardware (the CUDA simulator only
    counts when asked for by name)."""
    cls = _FACTORIES[name]()
    check = getattr(cls, "real_gpu", None) if real else None
    check = check or getattr(cls, "available", None)
    return bool(check()) if check is not None else True


def require(name: str) -> None:
    """A backend asked for by name that cannot run here is a clear error."""
    if name != "auto" and not _available(name):
        hint = ("no CUDA GPU or driver was found; use --backend cpu (or set "
                "NUMBA_ENABLE_CUDASIM=1 to run kernels in the simulator)") if name == "cuda" \
            else "install numba and islpy"
        raise DslcError(f"backend '{name}' is not available on this machine", hint=hint)


def get(name: str):
    return _FACTORIES[resolve(name)]()
