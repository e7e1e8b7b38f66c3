"""A whole result array's cells printed at once: JSON values and text, with numpy.

Printing a map of ten million scores one value at a time (``wrap`` then
``to_json_value`` or ``fmt_scalar`` per cell) costs a minute of Python calls.
Here a result of numbers (int, float, prob, bool; None cells allowed) is
converted in a few numpy passes and C-level ``map`` calls, giving exactly what
the per-value path (dslc.runtime.render, kept as the reference and for every
other value) gives: Python ints and floats (whose ``repr`` the JSON encoder
writes), ``"inf"``/``"-inf"``/``"nan"`` strings, ``{"prob": p, "log": ln_p}``
with ``p`` from ``math.exp`` (numpy's ``exp`` may differ in the last bit), and
text through Python's own ``format`` (numpy's float formatting differs).

Every function returns ``None`` where it does not apply (another value type,
objects that are not numbers, a value the per-value path refuses: an int NaN, a
probability whose ``p`` overflows); the caller then takes the per-value path,
which gives the value or the error.
"""

from __future__ import annotations

import json
import math

import numpy as np

NUMBERS = ("int", "float", "prob", "bool")
_INT_RANGE = 2.0**63  # float64 values an int64 holds after truncation
_EXACT = 2.0**53  # ints float64 holds exactly
_SCALARS = (int, float, np.integer, np.floating, np.bool_)
_INTS = (int, np.integer, np.bool_)


# ------------------------------------------------------------------ numbers
def numeric(arr: np.ndarray, value_type: str):
    """``(values, none)``: the cells as a flat numeric array (None cells left
    out) and the mask of None cells (``None`` where there are none); ``None``
    where the array holds something other than numbers."""
    if value_type not in NUMBERS or not isinstance(arr, np.ndarray):
        return None
    if arr.dtype != object:
        return (arr.ravel(), None) if arr.dtype.kind in "biuf" else None
    items = arr.ravel().tolist()
    kinds = set(map(type, items))
    none = None
    if type(None) in kinds:
        none = np.fromiter((x is None for x in items), dtype=bool, count=len(items))
        items = [x for x in items if x is not None]
        kinds.discard(type(None))
    if not all(issubclass(k, _SCALARS) for k in kinds):
        return None
    values = _array_of(items, kinds, value_type)
    return None if values is None else (values, none)


def _array_of(items: list, kinds: set, value_type: str) -> np.ndarray | None:
    """Number objects as one array that loses nothing the per-value path keeps:
    ints as int64 (beyond it, or mixed with floats beyond 2^53: None)."""
    try:
        if value_type == "int" and all(issubclass(k, _INTS) for k in kinds):
            return np.array(items, dtype=np.int64)
        values = np.array(items, dtype=np.float64)
    except (OverflowError, ValueError, TypeError):
        return None
    if value_type == "int" and (np.abs(values[np.isfinite(values)]) >= _EXACT).any():
        return None
    return values


def _with_none(flat: np.ndarray, none: np.ndarray | None, shape) -> np.ndarray:
    """``flat`` (an object array of the cells that are not None) at its places
    in an object array of ``shape``, None in the other cells."""
    if none is None:
        return flat.reshape(shape)
    out = np.full(none.shape, None, dtype=object)
    out[~none] = flat
    return out.reshape(shape)


def _objects(items) -> np.ndarray:
    return np.fromiter(items, dtype=object)


def _ints(v: np.ndarray):
    """An int result's cells as ``(int64 values, +inf mask, -inf mask)`` (the
    masks None where the values are ints already); None for a NaN (the
    per-value path raises on it) or a float beyond int64."""
    if v.dtype.kind in "biu":
        if v.dtype.kind == "u" and v.size and int(v.max()) >= _INT_RANGE:
            return None
        return v.astype(np.int64), None, None
    finite = np.isfinite(v)
    if np.isnan(v).any() or (np.abs(v[finite]) >= _INT_RANGE).any():
        return None
    return np.where(finite, v, 0.0).astype(np.int64), v == math.inf, v == -math.inf


def _with_infinities(out: np.ndarray, up, down) -> np.ndarray:
    """``out`` (an object array) with ``"inf"``/``"-inf"`` where the masks say."""
    if up is not None:
        out[up] = "inf"
        out[down] = "-inf"
    return out


def _int_values(v: np.ndarray) -> np.ndarray | None:
    """An int result's cells as an object array of Python ints, infinities as
    ``"inf"``/``"-inf"`` (None as :func:`_ints`)."""
    got = _ints(v)
    return None if got is None else _with_infinities(got[0].astype(object), *got[1:])


def _exp(logs: np.ndarray) -> list | None:
    """``math.exp`` of each log (None where one overflows, as ``Prob.p`` would)."""
    try:
        return list(map(math.exp, logs.tolist()))
    except OverflowError:
        return None


# ------------------------------------------------------------------ JSON
def json_flat(arr: np.ndarray, value_type: str) -> np.ndarray | None:
    """The result's JSON values as an object array of its shape (its ``tolist()``:
    the nested lists ``render._nested`` gives), or None."""
    got = numeric(arr, value_type)
    if got is None:
        return None
    values, none = got
    flat = _JSON[value_type](values)
    return None if flat is None else _with_none(flat, none, arr.shape)


def _json_int(v: np.ndarray) -> np.ndarray | None:
    return _int_values(v)


def _json_float(v: np.ndarray) -> np.ndarray:
    f = v.astype(np.float64)
    out = f.astype(object)
    out[f != f] = "nan"
    out[f == math.inf] = "inf"
    out[f == -math.inf] = "-inf"
    return out


def _json_prob(v: np.ndarray) -> np.ndarray | None:
    f = v.astype(np.float64)
    if ((f != f) | (f == math.inf)).any():
        return None  # p is NaN or inf: JSON has no word for it (the per-value path raises)
    ps = _exp(f)
    if ps is None:
        return None
    logs = _json_float(f).tolist()
    return _objects({"prob": p, "log": lg} for p, lg in zip(ps, logs))


def _json_bool(v: np.ndarray) -> np.ndarray:
    return v.astype(bool).astype(object)


_JSON = {"int": _json_int, "float": _json_float, "prob": _json_prob, "bool": _json_bool}


def json_texts(values: list) -> list[str]:
    """Each JSON value of a flat list as its JSON text, in one encoder call:
    numbers, strings like ``"inf"``, booleans and null never hold ``", "``, so
    the encoded list splits into its items; a probability's dict is written
    from its two numbers."""
    dicts = [k for k, x in enumerate(values) if isinstance(x, dict)]
    if not dicts:
        return _split(values)
    out = _split([None if isinstance(x, dict) else x for x in values])
    ps = _split([values[k]["prob"] for k in dicts])
    logs = _split([values[k]["log"] for k in dicts])
    for k, p, lg in zip(dicts, ps, logs):
        out[k] = '{"prob": ' + p + ', "log": ' + lg + "}"
    return out


def json_strings(texts: list[str]) -> list[str]:
    """Each string's JSON text (``json.dumps`` of each): in one encoder call
    where no string holds ``", "`` (its encoding then holds none either)."""
    if ", " in "\n".join(texts):
        return list(map(json.dumps, texts))
    return _split(texts)


def _split(values: list) -> list[str]:
    if not values:
        return []
    return json.dumps(values, allow_nan=False)[1:-1].split(", ")


# ------------------------------------------------------------------ text
def text_cells(arr: np.ndarray, value_type: str, tsv: bool = False) -> list[str] | None:
    """The result's cells as text in C order (what ``fmt_scalar(wrap(...))``
    gives each; None cells empty), or None. ``tsv``: a probability as its value
    and its log in two tab-separated fields (dslc.runtime.hits)."""
    out = text_array(arr, value_type, tsv)
    return None if out is None else out.tolist()


def text_array(arr: np.ndarray, value_type: str, tsv: bool = False) -> np.ndarray | None:
    """:func:`text_cells` as a flat object array (no list of millions made
    only to be indexed again: dslc.runtime.tsv_rows)."""
    got = numeric(arr, value_type)
    if got is None:
        return None
    values, none = got
    make = _tsv_prob if tsv and value_type == "prob" else _TEXT[value_type]
    flat = make(values)
    if flat is None:
        return None
    out = _with_none(flat, none, (-1,))
    if none is not None:
        out[none] = ""
    return out


def _text_int(v: np.ndarray) -> np.ndarray | None:
    got = _ints(v)
    if got is None:
        return None
    return _with_infinities(_objects(map(str, got[0].tolist())), *got[1:])


_G10 = "{:.10g}".format


def _text_float(v: np.ndarray) -> np.ndarray:
    return _objects(map(_G10, v.astype(np.float64).tolist()))


def _text_prob(v: np.ndarray) -> np.ndarray | None:
    """As ``fmt_scalar`` of a ``Prob``: ``0 (log -inf)`` for zero, six digits
    of a p below 1e-300, ten otherwise, and the log's ten."""
    f = v.astype(np.float64)
    ps = _exp(f)
    if ps is None:
        return None
    p = np.array(ps, dtype=np.float64)
    zero = f == -math.inf
    small = ~zero & ((p == 0.0) | (p < 1e-300))
    out = np.full(f.shape, "0 (log -inf)", dtype=object)
    for mask, form in ((small, "{:.6g} (log {:.10g})"), (~zero & ~small, "{:.10g} (log {:.10g})")):
        out[mask] = _objects(map(form.format, p[mask].tolist(), f[mask].tolist()))
    return out


def _tsv_prob(v: np.ndarray) -> np.ndarray | None:
    f = v.astype(np.float64)
    ps = _exp(f)
    if ps is None:
        return None
    return _objects(map("{:.10g}\t{:.10g}".format, ps, f.tolist()))


def _text_bool(v: np.ndarray) -> np.ndarray:
    return np.array(["false", "true"], dtype=object)[v.astype(bool).astype(np.intp)]


_TEXT = {"int": _text_int, "float": _text_float, "prob": _text_prob, "bool": _text_bool}
