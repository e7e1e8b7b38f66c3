"""What a script's statements produce: probabilities, whole tables and ``map`` arrays.

Backends compute raw numbers (probabilities as their logs); the script wraps
them here so that printing and the Python API know what they hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


def exp_of_log(log: float) -> float:
    """``math.exp``, giving ``inf`` past the largest double instead of raising."""
    try:
        return math.exp(log)
    except OverflowError:
        return math.inf


@dataclass(frozen=True)
class Prob:
    """A probability held as its natural log."""

    log: float

    @property
    def p(self) -> float:
        """The probability as a float: ``inf`` where it is beyond the largest
        double (a likelihood ratio over a long sequence), whose log still holds it."""
        return exp_of_log(self.log)

    def __float__(self) -> float:
        return self.p


@dataclass(frozen=True, eq=False)
class Axis:
    """One dimension of a result: its name and, where useful, a label per position
    (the symbol at each sequence position, the record name of each sequence).
    ``numbered``: the positions themselves index the axis and the labels only
    annotate them (a table's index axis, whose residues repeat). ``lengths``:
    the length of each sequence along a map's axis of sequences (E-values need
    each query's length, dslc.lang.script_stats)."""

    name: str
    labels: tuple[str, ...] | None = None
    numbered: bool = False
    lengths: tuple[int, ...] | None = None


class _Grid:
    """Indexing, shape and the array protocol shared by tables and map results.

    The values are held raw (probabilities as natural logs, as in ``.values``),
    so ``np.asarray(result)`` is ``result.values``; indexing one cell gives the
    script value (a ``Prob``, an int, ...)."""

    values: np.ndarray
    value_type: str
    func: str
    axes: tuple[Axis, ...]

    def __getitem__(self, index):
        return wrap(self.values[index], self.value_type)

    @property
    def shape(self):
        return self.values.shape

    @property
    def ndim(self) -> int:
        return self.values.ndim

    @property
    def dtype(self):
        return self.values.dtype

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self.values, dtype=dtype)
        return np.asarray(self.values, dtype=dtype)

    def __len__(self) -> int:
        if self.values.ndim == 0:
            raise TypeError(f"len() of a 0-d {type(self).__name__} (a map with no list operand)")
        return self.values.shape[0]

    def __iter__(self):
        """Over the first axis, as a numpy array iterates."""
        return (self[k] for k in range(len(self)))

    def __bool__(self) -> bool:
        return True  # a result is a value, not a container whose emptiness matters

    def __repr__(self) -> str:
        """Short whatever the size: kind, shape, axes and a few values."""
        held = "prob, as natural logs" if self.value_type == "prob" else self.value_type
        axes = " x ".join(a.name for a in self.axes) or "-"
        body = np.array2string(self.values, threshold=12, edgeitems=3, max_line_width=90,
                               precision=6)
        lines = body.splitlines()
        if len(lines) > 8:
            lines = lines[:3] + [" ..."] + lines[-3:]
        return (f"<{type(self).__name__} {self.func}: {held}, shape {self.values.shape}, "
                f"axes {axes}\n" + "\n".join(lines) + ">")

    def to_pandas(self):
        """A pandas Series (one axis, or more than two: a MultiIndex) or DataFrame
        (two axes), indexed by the axes' labels where those are distinct (record
        names, alphabet symbols), else by position. Needs pandas installed."""
        try:
            import pandas as pd
        except ImportError:
            from dslc.errors import DslcError

            raise DslcError("to_pandas() needs pandas, which is not installed",
                            hint="pip install pandas") from None
        if self.values.ndim == 0:
            from dslc.errors import DslcError

            raise DslcError("a 0-d result has no table form; index it with [()]")
        index = [_index(pd, a, n) for a, n in zip(self.axes, self.values.shape)]
        if self.values.ndim == 2:
            return pd.DataFrame(self.values, index=index[0], columns=index[1])
        if self.values.ndim == 1:
            return pd.Series(self.values, index=index[0], name=self.func)
        multi = pd.MultiIndex.from_product(index, names=[a.name for a in self.axes])
        return pd.Series(self.values.ravel(), index=multi, name=self.func)


def _index(pd, axis: Axis, n: int):
    """An axis as a pandas Index: its labels (record names, symbols) unless the
    axis is numbered by position."""
    labels = axis.labels
    if labels is not None and len(labels) == n and not axis.numbered:
        return pd.Index(list(labels), name=axis.name)
    return pd.RangeIndex(n, name=axis.name)


@dataclass(frozen=True, eq=False, repr=False)
class TableResult(_Grid):
    """The whole table of a recursive function (``r = d(s, t)``)."""

    func: str
    value_type: str  # int, float, prob, bool
    values: np.ndarray  # probabilities as logs
    axes: tuple[Axis, ...]


@dataclass(frozen=True, eq=False, repr=False)
class MapResult(_Grid):
    """``map(f, A (*) B)``: one value per element of the cross product of the lists."""

    func: str
    value_type: str
    values: np.ndarray
    axes: tuple[Axis, ...]
    # how its tasks are traced again (``alignments(ks)``: dslc.runtime.script.MapTasks),
    # None where no script ran it; not pickled (it holds the run)
    tasks: object = field(default=None, compare=False)
    # what a reader must know to read the values (an E-value's statistics:
    # dslc.lang.search_stats), printed as a comment line with them; None for most
    note: str | None = field(default=None, compare=False)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "tasks"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, tasks=None)

    def records(self) -> list[dict]:
        """One dict per task: the record name on each axis, and the value under
        the function's name (:func:`records`)."""
        return records(self)


def absent(values: np.ndarray) -> np.ndarray:
    """Which cells hold no value (None): a table's cells outside its declared
    ranges, a map's tasks its ``where`` skipped (dslc.runtime.filtered). Only an
    object array can hold None; a numeric one has every cell."""
    if values.dtype != object:
        return np.zeros(values.shape, dtype=bool)
    return np.frompyfunc(lambda v: v is None, 1, 1)(values).astype(bool)


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


def to_array(raw_values: list | np.ndarray, value_type: str) -> np.ndarray:
    """Raw results as a numpy array: int64 where every value is a finite int,
    float64 otherwise (so int infinities survive); an object array of the raw values
    where some are None (cells of a table outside its declared ranges) or where they
    are tuples. A list of plain numbers converts in one numpy call (a map's
    million values); anything else value by value (:func:`_floats_reference`).
    A numpy array of numbers (a table's values) converts without a Python
    object per cell, to what the list of its cells would give."""
    if isinstance(raw_values, np.ndarray):
        if raw_values.dtype.kind in "biuf" and value_type != "tuple":
            return raw_values.ravel().astype(bool if value_type == "bool" else np.float64)
        raw_values = list(raw_values.ravel())
    kinds = set(map(type, raw_values))
    if value_type == "tuple" or type(None) in kinds:
        out = np.empty(len(raw_values), dtype=object)  # (np.array would unpack tuples)
        for k, v in enumerate(raw_values):
            out[k] = v
        return out
    if value_type == "int" and all(issubclass(k, int) for k in kinds):
        try:
            return np.array(raw_values, dtype=np.int64)
        except OverflowError:
            return np.array(raw_values, dtype=object)
    if value_type == "bool":
        return np.array(raw_values, dtype=bool)
    if kinds <= _PLAIN:  # numpy converts each as float() does
        return np.array(raw_values, dtype=np.float64)
    return _floats_reference(raw_values)


_PLAIN = {float, int, np.float64, np.float32, np.int64, np.int32}


def _floats_reference(raw_values: list) -> np.ndarray:
    """The reference conversion: ``float()`` of each value."""
    return np.array([float(v) for v in raw_values], dtype=np.float64)


# Hit tables (dslc.runtime.hits shapes and prints them): rows of map results.
@dataclass(frozen=True, eq=False)
class HitTable:
    """Map results over the same axes: ``columns`` are (printed name, result)."""

    axes: tuple[Axis, ...]
    columns: tuple[tuple[str, MapResult], ...]

    def keys(self) -> tuple[list[str], list[str]]:
        """Unique names for the axes and the columns (a map of a list with itself
        has two axes of one name: the second becomes ``db (2)``)."""
        seen: dict[str, int] = {}
        out = []
        for name in [a.name for a in self.axes] + [c for c, _ in self.columns]:
            seen[name] = seen.get(name, 0) + 1
            out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
        return out[:len(self.axes)], out[len(self.axes):]

    def rows(self) -> list[tuple[tuple[str, ...], tuple]]:
        """(record names, values) per task, in task order."""
        return [(names, values) for names, values, _ in self.indexed_rows()]

    def indexed_rows(self, ids=None) -> list[tuple[tuple[str, ...], tuple, int]]:
        """(record names, values, task number) per task, in task order (the task
        number: its position in the map's tasks, as ``MapResult.tasks`` counts);
        ``ids``: those tasks' rows only, in that order (a search's top hits, chosen
        on the value arrays, out of a million tasks)."""
        shape = self.columns[0][1].values.shape
        labels = [_labels(a, n) for a, n in zip(self.axes, shape)]  # once, not per row
        if ids is None:
            ids = np.arange(int(np.prod(shape)), dtype=np.int64)
        ids = np.asarray(ids, dtype=np.int64)
        where = zip(*(w.tolist() for w in np.unravel_index(ids, shape))) if shape else \
            [()] * len(ids)
        out = []
        for k, idx in zip(ids.tolist(), where):
            names = tuple(lab[j] for lab, j in zip(labels, idx))
            out.append((names, tuple(r[idx] for _, r in self.columns), k))
        return out

    def size(self) -> int:
        """The tasks (rows) of the table."""
        return int(np.prod(self.columns[0][1].values.shape))

    def name_columns(self, encode=list) -> list[list[str]]:
        """Each axis's record name for every task, in task order (``rows``'
        names, a column per axis); ``encode`` turns an axis's list of labels
        into what is printed (each label encoded once, however many rows)."""
        shape = self.columns[0][1].values.shape
        where = np.unravel_index(np.arange(int(np.prod(shape)), dtype=np.int64), shape)
        return [np.array(encode(_labels(a, n)), dtype=object)[k].tolist()
                for a, n, k in zip(self.axes, shape, where)]


def _labels(axis: Axis, n: int) -> list[str]:
    """The axis's labels as text (``str`` of each; one type check of them all
    where they are strings already: a million record names)."""
    labels = axis.labels
    if labels is not None and len(labels) == n:
        return list(labels) if set(map(type, labels)) <= {str} else [str(x) for x in labels]
    return list(map(str, range(n)))


def records(result: MapResult, column: str | None = None) -> list[dict]:
    """A map result as one dict per task: each axis's record name, and the value
    (a script value: an int, a float, a ``Prob``) under ``column`` (default: the
    function's name)."""
    table = HitTable(result.axes, ((column or result.func, result),))
    axis_keys, (col,) = table.keys()
    return [{**dict(zip(axis_keys, names)), col: values[0]} for names, values in table.rows()]
