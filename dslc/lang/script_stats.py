"""The script built-ins ``bits`` and ``evalue`` (dslc.lang.stats applied to
script values), and ``len`` (a list's number of items: the database size an
E-value is multiplied by).

They take a score or a whole ``map`` result of scores and give the same shape
back (a map result keeps its axes, so its record names), so a search prints its
scores and their E-values side by side. They are script statements' built-ins,
not functions' (a function's value is a score; its significance depends on the
search around it). A function the script defines with the same name wins.
"""

from __future__ import annotations

import math

import numpy as np

from dslc.lang import types as T
from dslc.errors import DslcError
from dslc.lang import stats
from dslc.lang.sequences import describe
from dslc.lang.records import Records, is_list, record_names
from dslc.lang.results import MapResult, absent
from dslc.lang.values import Matrix, Sequence

SIGNATURES = {
    "bits": ("score", "matrix", "open", "extend"),
    "evalue": ("score", "m", "n", "matrix", "open", "extend"),
    "len": ("value",),
}


def is_builtin(name: str, functions) -> bool:
    """Whether a script's call of ``name`` means the built-in (no function of
    the script has that name)."""
    return name in SIGNATURES and name not in functions


def static_type(e, arg_types: list) -> T.Type | None:
    """The checker's view: the argument count, and the result's shape (a map
    result of floats for a map result of scores, else a float)."""
    want = SIGNATURES[e.func]
    if len(e.args) != len(want):
        raise DslcError(f"{e.func} takes {len(want)} arguments ({', '.join(want)}), "
                        f"got {len(e.args)}", e.span)
    score = arg_types[0]
    if e.func == "len":
        return T.INT
    if isinstance(score, T.ArrayT):
        return T.ArrayT(T.FLOAT)
    return None if score is None else T.FLOAT


def call(e, args: list):
    """Evaluate ``bits(...)`` or ``evalue(...)`` on the values ``args``."""
    named = dict(zip(SIGNATURES[e.func], zip(args, e.args)))
    if e.func == "len":
        return _count(*named["value"])
    score, axes = _scores(*named["score"])
    params = stats.karlin(_matrix_name(*named["matrix"]), _int(*named["open"]),
                          _int(*named["extend"]), e.span)
    if e.func == "bits":
        out = stats.bit_score(score, params)
    else:
        m = _query_length(*named["m"], axes)
        n = _database_length(*named["n"])
        out = stats.evalue(score, m, n, params)
    if axes is None:
        return float(out)
    out = np.asarray(out, dtype=np.float64)
    gone = absent(named["score"][0].values)
    if gone.any():  # a task a where skipped has no score, so no statistic
        out = np.where(gone, None, np.broadcast_to(out, gone.shape).astype(object))
    return MapResult(e.func, "float", out, axes)


def _count(v, arg) -> int:
    """``len(v)``: a list's number of items, a sequence's number of symbols."""
    if is_list(v) or isinstance(v, Sequence):
        return len(v)
    raise DslcError(f"len takes a list or a sequence, got {describe(v)}", arg.span)


def _scores(v, arg):
    """A score as a float array and the axes of the map result it came from
    (None for one number)."""
    if isinstance(v, MapResult) and v.value_type in ("int", "float"):
        gone = absent(v.values)  # (absent cells: NaN here, absent again in the result)
        return np.where(gone, np.nan, v.values).astype(np.float64), v.axes
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v), None
    raise DslcError(f"a score must be a number or a map result of int or float scores, got "
                    f"{describe(v)}", arg.span)


def _matrix_name(v, arg) -> str:
    if isinstance(v, Matrix):
        return v.name
    if isinstance(v, str):
        return v
    raise DslcError(f"expected a substitution matrix (blosum62) or its name, got {describe(v)}",
                    arg.span)


def _int(v, arg) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise DslcError(f"a gap cost must be an int, got {describe(v)}", arg.span)
    return v


def _length(v, arg) -> int | None:
    if isinstance(v, Sequence):
        return len(v)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and math.isfinite(v):
        return v
    if is_list(v):
        return None
    raise DslcError(f"a length must be a positive number, a sequence or a list of sequences, "
                    f"got {describe(v)}", arg.span)


def _query_length(v, arg, axes):
    """``m``: a number, a sequence's length, or, for a list of sequences that is
    an axis of the scores, each task's own sequence's length."""
    one = _length(v, arg)
    if one is not None:
        return one
    if axes is None:
        raise DslcError("a list of sequences as m needs a map result of scores over it", arg.span)
    if isinstance(v, Records):  # read from the packed records: no sequence is made
        lengths = tuple(int(n) for n in v.pack.lengths)
        names = record_names(v.pack)  # (a map's axis over them: equal at once)
    else:
        lengths = tuple(_seq_length(x, arg) for x in v)
        names = tuple(x.name for x in v)
    for k, axis in enumerate(axes):
        if axis.lengths == lengths and axis.labels == names:
            shape = [1] * len(axes)
            shape[k] = len(lengths)
            return np.asarray(lengths, dtype=np.float64).reshape(shape)
    raise DslcError("m is a list of sequences the scores were not mapped over", arg.span,
                    hint="pass the list the map ran over, one length, or one sequence")


def _database_length(v, arg):
    """``n``: a number, a sequence's length, or a list's total length (a database)."""
    one = _length(v, arg)
    if one is not None:
        return one
    total = int(v.pack.lengths.sum()) if isinstance(v, Records) else \
        sum(_seq_length(x, arg) for x in v)
    if total == 0:
        raise DslcError("n is an empty list of sequences", arg.span)
    return total


def _seq_length(x, arg) -> int:
    if not isinstance(x, Sequence):
        raise DslcError(f"expected a list of sequences, found {describe(x)} in it", arg.span)
    return len(x)
