"""What a script's statements produce: probabilities, whole tables and ``map`` arrays.

Backends compute raw numbers (probabilities as their logs); the script wraps
them here so that printing and the Python API know what they hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Prob:
    """A probability held as its natural log."""

    log: float

    @property
    def p(self) -> float:
        return math.exp(self.log)

    def __float__(self) -> float:
        return self.p


@dataclass(frozen=True, eq=False)
class Axis:
    """One dimension of a result: its name and, where useful, a label per position
    (the symbol at each sequence position, the record name of each sequence)."""

    name: str
    labels: tuple[str, ...] | None = None


class _Grid:
    """Indexing and shape shared by tables and map results (values held raw)."""

    values: np.ndarray
    value_type: str

    def __getitem__(self, index):
        return wrap(self.values[index], self.value_type)

    @property
    def shape(self):
        return self.values.shape


@dataclass(frozen=True, eq=False)
class TableResult(_Grid):
    """The whole table of a recursive function (``r = d(s, t)``)."""

    func: str
    value_type: str  # int, float, prob, bool
    values: np.ndarray  # probabilities as logs
    axes: tuple[Axis, ...]


@dataclass(frozen=True, eq=False)
class MapResult(_Grid):
    """``map(f, A (*) B)``: one value per element of the cross product of the lists."""

    func: str
    value_type: str
    values: np.ndarray
    axes: tuple[Axis, ...]


def wrap(raw, value_type: str):
    """A raw backend number as a script value (None: a cell outside a declared range)."""
    if isinstance(raw, (np.ndarray, tuple)) or raw is None:
        return raw  # (a tuple's components are Python numbers already)
    if value_type == "prob":
        return Prob(float(raw))
    if value_type == "int":
        f = float(raw)
        return f if math.isinf(f) else int(raw)
    if value_type == "float":
        return float(raw)
    if value_type == "bool":
        return bool(raw)
    return raw


def to_array(raw_values: list, value_type: str) -> np.ndarray:
    """Raw results as a numpy array: int64 where every value is a finite int,
    float64 otherwise (so int infinities survive); an object array of the raw values
    where some are None (cells of a table outside its declared ranges) or where they
    are tuples."""
    if value_type == "tuple" or any(v is None for v in raw_values):
        out = np.empty(len(raw_values), dtype=object)  # (np.array would unpack tuples)
        for k, v in enumerate(raw_values):
            out[k] = v
        return out
    if value_type == "int" and all(isinstance(v, int) for v in raw_values):
        try:
            return np.array(raw_values, dtype=np.int64)
        except OverflowError:
            return np.array(raw_values, dtype=object)
    if value_type == "bool":
        return np.array(raw_values, dtype=bool)
    return np.array([float(v) for v in raw_values], dtype=np.float64)
