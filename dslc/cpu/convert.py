"""Arguments as the generated code takes them: sequences as their codes, numbers
as finite floats, extension values as their device arrays or layouts (built once
per value), and what of an argument decides a plan (:func:`plan_shape`). Shared by
the CPU backend, its batches (dslc.cpu.modules) and the CUDA backend."""

from __future__ import annotations

import math

import numpy as np

from dslc.errors import InternalError, NotCompilable
from dslc.lang import types as T
from dslc.lang.values import Sequence


def convert(v, registry):
    """A bound argument as the generated code takes it: sequences as their codes,
    extension values through their type's ``device_array`` layout, numbers as floats.
    The generated code assumes numbers and device-array data finite (emit.infinity):
    an infinite one raises :class:`NonFinite`, and the call runs on the interpreter."""
    if isinstance(v, Sequence):
        return v.codes
    if isinstance(v, bool):
        return v
    if isinstance(v, tuple):  # a tuple argument (emit.tuples): float64 components
        return tuple(float(convert(x, registry)) for x in v)
    if isinstance(v, (int, float)):
        if not math.isfinite(v):
            raise NonFinite("an infinite number argument")
        return float(v)
    for spec in registry.types.values():
        if spec.device_array is not None and spec.accepts is not None and spec.accepts(v):
            arr = _LAYOUTS.get(id(v))
            if arr is None or arr[0] is not v:
                data = spec.device_array(v)
                arr = _LAYOUTS[id(v)] = (v, data, not _numbers(spec) or _finite(data))
            if not arr[2]:
                raise NonFinite(f"a {spec.name} holding an infinity or NaN")
            return arr[1]
    if layout_spec(v, registry) is not None:
        return _PLACEHOLDER  # travels as its layout's arrays (layout_arrays)
    raise NotCompilable(f"argument of type {type(v).__name__}")


_LAYOUTS: dict[int, tuple] = {}  # id -> (value kept alive, its array, finite)


class Inexact(Exception):
    """A compiled int result beyond 2^53, or a map task with no value: the
    interpreter recomputes it exactly (or reports the overflow or the error)."""


class NonFinite(ValueError):
    """An infinite number argument, or an extension value whose device array
    holds an infinity: the generated code assumes them finite (emit.infinity),
    so the call runs on the interpreter (a ValueError: every compiled entry
    re-runs it there)."""


def _numbers(spec) -> bool:
    """Are the values read from this type's device array int or float numbers
    (what emit.infinity assumes finite)?"""
    try:
        return spec.index_value is not None and \
            spec.index_value(T.ExtT(spec.name)) in (T.INT, T.FLOAT)
    except Exception:  # an index type that needs more than the bare type: assume numbers
        return True


def _finite(arr) -> bool:
    a = np.asarray(arr)
    return a.dtype.kind not in "fc" or bool(np.isfinite(a).all())
_PLACEHOLDER = np.zeros(1, np.int8)


def layout_spec(v, registry):
    for spec in registry.types.values():
        if spec.layout is not None and spec.accepts is not None and spec.accepts(v):
            return spec
    return None


_MODEL_LAYOUTS: dict[int, tuple] = {}  # id -> (value kept alive, {name: array})


def layout_arrays(v, registry) -> dict:
    """The named arrays of a model value's device layout (sdk.Layout), built once."""
    hit = _MODEL_LAYOUTS.get(id(v))
    if hit is not None and hit[0] is v:
        return hit[1]
    spec = layout_spec(v, registry)
    if spec is None:
        raise NotCompilable(f"no device layout for a {type(v).__name__}")
    built = spec.layout.build(v)
    missing = set(spec.layout.names()) - set(built)
    if missing:
        raise InternalError(f"layout of {spec.name} lacks {sorted(missing)}")
    arrays = {n: np.ascontiguousarray(a) for n, a in built.items()}
    if len(_MODEL_LAYOUTS) > 64:
        _MODEL_LAYOUTS.clear()
    _MODEL_LAYOUTS[id(v)] = (v, arrays)
    return arrays


def plan_shape(v, registry):
    """What of an argument decides a plan: a sequence's length, a model's element
    counts (the domains of its element types)."""
    if isinstance(v, Sequence):
        return len(v)
    spec = layout_spec(v, registry)
    if spec is None:
        return None
    return tuple(sorted((t.name, t.size(v)) for t in registry.types.values()
                        if t.role == "recursive" and t.size is not None
                        and _owned_by(t, v)))


def _owned_by(t, v) -> bool:
    try:
        t.size(v)
    except Exception:  # an element type of another kind of model
        return False
    return True


EXACT = 2.0**53  # float64 holds every int below this exactly


def python_numbers(raw: np.ndarray, ints: bool) -> tuple[list, np.ndarray]:
    """A map's float64 values as the interpreter's numbers (an ``int`` table's as
    Python ints, infinities as floats), and the tasks to recompute: no value (NaN: a
    task that stopped on a check) or an int beyond 2^53. Vectorised: a million
    tasks' values are one conversion, not a million Python calls."""
    if not ints:
        return raw.tolist(), np.flatnonzero(raw != raw)
    exact = np.isfinite(raw) & (np.abs(raw) < EXACT)
    redo = np.flatnonzero((raw != raw) | np.isfinite(raw) & ~exact)
    if exact.all():
        return raw.astype(np.int64).tolist(), redo
    out = np.where(exact, raw, 0.0).astype(np.int64).astype(object)
    out[~exact] = raw[~exact].astype(object)  # infinities (and values to recompute)
    return out.tolist(), redo
