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


_FACTORIES = {"interp": _interp, "cpu": _cpu}


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
        if candidate in _FACTORIES and _available(candidate):
            return candidate
    return "interp"


def _available(name: str) -> bool:
    cls = _FACTORIES[name]()
    check = getattr(cls, "available", None)
    return bool(check()) if check is not None else True


def get(name: str):
    return _FACTORIES[resolve(name)]()
