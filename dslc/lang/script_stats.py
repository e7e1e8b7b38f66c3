"""The script built-ins ``bits``, ``evalue`` and ``evd_evalue`` (dslc.lang.stats and
dslc.lang.search_stats applied to script values), and ``len`` (a list's number of
items: the database size an E-value is multiplied by).

They take a score or a whole ``map`` result of scores and give the same shape
back (a map result keeps its axes, so its record names), so a search prints its
scores and their E-values side by side. They are script statements' built-ins,
not functions' (a function's value is a score; its significance depends on the
search around it). A function the script defines with the same name wins.
An E-value result carries a note saying which statistics made it
(``MapResult.note``), which text and TSV output print as a ``#`` line.
"""

from __future__ import annotations

import math

import numpy as np

from dslc.lang import types as T
from dslc.errors import DslcError
from dslc.lang import composition, search_stats, stats
from dslc.lang.composition import counts_of_pack
from dslc.lang.gumbel import FitError
from dslc.lang.sequences import describe
from dslc.lang.records import Records, is_list, record_names
from dslc.lang.results import MapResult, absent
from dslc.lang.values import Matrix, Sequence

SIGNATURES = {
    "bits": ("score", "matrix", "open", "extend"),
    "evalue": ("score", "m", "n", "matrix", "open", "extend", "method"),
    "evd_evalue": ("score", "db"),
    "len": ("value",),
}
OPTIONAL = {"evalue": 1}  # trailing arguments that may be left out


def is_builtin(name: str, functions) -> bool:
    """Whether a script's call of ``name`` means the built-in (no function of
    the script has that name)."""
    return name in SIGNATURES and name not in functions


def static_type(e, arg_types: list) -> T.Type | None:
    """The checker's view: the argument count, and the result's shape (a map
    result of floats for a map result of scores, else a float)."""
    want = SIGNATURES[e.func]
    least = len(want) - OPTIONAL.get(e.func, 0)
    if not least <= len(e.args) <= len(want):
        count = str(len(want)) if least == len(want) else f"{least} or {len(want)}"
        raise DslcError(f"{e.func} takes {count} arguments ({', '.join(want)}), "
                        f"got {len(e.args)}", e.span)
    score = arg_types[0]
    if e.func == "len":
        return T.INT
    if isinstance(score, T.ArrayT):
        return T.ArrayT(T.FLOAT)
    return None if score is None else T.FLOAT


def call(e, args: list):
    """Evaluate ``bits(...)``, ``evalue(...)`` or ``evd_evalue(...)`` on the values ``args``."""
    named = dict(zip(SIGNATURES[e.func], zip(args, e.args)))
    if e.func == "len":
        return _count(*named["value"])
    score, axes = _scores(*named["score"])
    gone = _skipped(named["score"][0], e)
    if e.func == "evd_evalue":
        return _evd(score, axes, named, e)
    params = stats.karlin(_matrix_name(*named["matrix"]), _int(*named["open"]),
                          _int(*named["extend"]), e.span)
    if e.func == "bits":
        out = stats.bit_score(score, params)
        if axes is None:
            return float(out)
        out = np.asarray(out, dtype=np.float64)
        if gone is not None:  # a task a where skipped has no score, so no bits
            out = np.where(gone, None, out.astype(object))
        return MapResult(e.func, "float", out, axes)
    if axes is None:  # one score: no search around it, so the published statistics
        m = _query_length(*named["m"], axes)
        n = _database_length(*named["n"])
        m_eff, n_eff = stats.effective_lengths(m, n, _entries(named["n"][0]), params)
        return float(stats.evalue(score, m_eff, n_eff, params))
    return _search_evalue(score, axes, named, params, e)


def _search_evalue(score, axes, named, params, e) -> MapResult:
    """``evalue`` over a map result: search_stats by the method asked (``auto``
    unless a 7th argument names one)."""
    method = _method(*named["method"]) if "method" in named else "auto"
    matrix = named["matrix"][0] if isinstance(named["matrix"][0], Matrix) else None
    if method == "published":
        matrix = None  # no compositions needed: a million proteins' counts are not made
    query = _side(*named["m"], axes, None, matrix, query=True)
    db = _side(*named["n"], axes, query.axis, matrix, query=False)
    label = f"{_matrix_name(*named['matrix']).upper()} {_cost(named)}"
    scores = None if matrix is None else matrix.values
    try:
        got = search_stats.evalues(score, _integral(score), query, db, params, scores, method,
                                   label)
    except ValueError as err:
        raise DslcError(f"evalue: {err}", e.span) from None
    return MapResult(e.func, "float", np.asarray(got.values, dtype=np.float64), axes,
                     note=got.note)


def _cost(named) -> str:
    """The gap cost as the note names it, ``open/extend``."""
    return f"{named['open'][0]}/{named['extend'][0]}"


def _evd(score, axes, named, e) -> MapResult:
    """``evd_evalue(score, db)``: a Gumbel law fitted over the axis of ``db``."""
    v, arg = named["db"]
    if axes is None:
        raise DslcError("evd_evalue fits the scores of a map result, got one number",
                        named["score"][1].span)
    axis = _axis_of(v, arg, axes, None)
    try:
        got = search_stats.evd(score, _integral(score), axis)
    except FitError as err:
        raise DslcError(f"evd_evalue: cannot fit the scores: {err}", e.span) from None
    return MapResult(e.func, "float", np.asarray(got.values, dtype=np.float64), axes,
                     note=got.note)


def _integral(score: np.ndarray) -> bool:
    """Whether the scores lie on the integers (their lattice: dslc.lang.gumbel)."""
    finite = score[np.isfinite(score)]
    return bool(np.all(finite == np.round(finite)))


def _method(v, arg) -> str:
    if isinstance(v, str) and v.lower() in search_stats.METHODS:
        return v.lower()
    raise DslcError(f"evalue's method must be one of {', '.join(search_stats.METHODS)}, got "
                    f"{describe(v) if not isinstance(v, str) else repr(v)}", arg.span)


def _entries(v) -> int:
    """How many sequences a database argument holds (1 for a number or one sequence)."""
    return len(v) if is_list(v) else 1


def _side(v, arg, axes, taken, matrix, query: bool) -> search_stats.Side:
    """A query or database argument as search_stats sees it: a number (a length),
    a sequence, or a list of sequences that is an axis of the scores (not the axis
    ``taken`` by the queries)."""
    one = _length(v, arg)
    if one is not None:
        counts = _counts([v], matrix) if isinstance(v, Sequence) else None
        return search_stats.Side(None, np.asarray(float(one)),
                                 None if counts is None else counts[0])
    if query:
        _query_length(v, arg, axes)  # (its error where v is no axis of the scores)
        axis = _axis_of(v, arg, axes, None)
    else:
        axis = _axis_of(v, arg, axes, taken, required=False)
        if axis is None:  # a database the scores were not mapped over: its total length
            return search_stats.Side(None, np.asarray(float(_database_length(v, arg))), None)
    lengths = _list_lengths(v, arg)
    counts = _counts(v, matrix)
    windows = None if query or counts is None else _windows(v, matrix)
    return search_stats.Side(axis, np.asarray(lengths, dtype=np.float64), counts, windows)


def _list_lengths(v, arg) -> tuple[int, ...]:
    if isinstance(v, Records):
        return tuple(int(n) for n in v.pack.lengths)
    return tuple(_seq_length(x, arg) for x in v)


def _axis_of(v, arg, axes, taken, required: bool = True):
    """The index of the axis of ``axes`` that is the list ``v`` (its record names
    and lengths, or its labels), other than ``taken``."""
    if is_list(v):
        if isinstance(v, Records):
            names, lengths = record_names(v.pack), tuple(int(n) for n in v.pack.lengths)
        else:
            names = tuple(getattr(x, "name", None) for x in v)
            lengths = tuple(len(x) if isinstance(x, Sequence) else None for x in v)
        for k, axis in enumerate(axes):
            if k != taken and axis.labels == names and (
                    axis.lengths is None or axis.lengths == lengths):
                return k
    if not required:
        return None
    raise DslcError("expected the list the scores were mapped over", arg.span,
                    hint="pass the database list of the map(...) that made the scores")


def _counts(v, matrix):
    """Residue counts over the matrix's symbols per sequence of ``v`` (None where
    there is no matrix value or a symbol of the sequences is not the matrix's)."""
    recode = _recoding(v, matrix)
    if recode is None:
        return None
    if isinstance(v, Records):
        raw = counts_of_pack(v.pack.codes, v.pack.offsets, len(recode))
    else:
        raw = np.stack([np.bincount(np.asarray(x.codes, dtype=np.int64),
                                    minlength=len(recode)).astype(np.float64) for x in v])
    return _over_matrix(raw, recode, matrix)


def _windows(v, matrix) -> composition.Windows:
    """The windows of the sequences of ``v`` (composition.window_counts) over the
    matrix's symbols (``_counts`` said they are the matrix's)."""
    recode = _recoding(v, matrix)
    if isinstance(v, Records):
        codes, offsets = v.pack.codes, v.pack.offsets
    else:
        codes = np.concatenate([np.asarray(x.codes, dtype=np.int64) for x in v] or [[]])
        offsets = np.r_[0, np.cumsum([len(x) for x in v])]
    w = composition.window_counts(codes, offsets, len(recode))
    over = _over_matrix(w.counts, recode, matrix)
    return composition.Windows(over, w.owner,
                               composition.frequencies(over.sum(axis=0, dtype=np.float64)))


def _recoding(v, matrix) -> np.ndarray | None:
    """Each symbol of the sequences' alphabet as the matrix's symbol code (None where
    there is no matrix value or a symbol of the sequences is not the matrix's)."""
    if matrix is None:
        return None
    alphabet = v.pack.alphabet if isinstance(v, Records) else \
        (v[0].alphabet if len(v) and isinstance(v[0], Sequence) else None)
    if alphabet is None:
        return None
    index = {s: k for k, s in enumerate(matrix.alphabet.symbols)}
    if not all(s in index for s in alphabet.symbols):
        return None
    return np.array([index[s] for s in alphabet.symbols], dtype=np.int64)


def _over_matrix(raw: np.ndarray, recode: np.ndarray, matrix) -> np.ndarray:
    """Counts over the sequences' symbols as counts over the matrix's (same dtype)."""
    out = np.zeros((len(raw), len(matrix.alphabet)), dtype=raw.dtype)
    np.add.at(out.T, recode, raw.T)
    return out


def _count(v, arg) -> int:
    """``len(v)``: a list's number of items, a sequence's number of symbols, an
    array's number of elements (of rows: a value whose class says ``counted``)."""
    if is_list(v) or isinstance(v, Sequence) or getattr(v, "counted", False):
        return len(v)
    raise DslcError(f"len takes a list or a sequence, got {describe(v)}", arg.span)


def _skipped(v, e):
    """The cells of a map result of scores that a ``where`` skipped (None: none).
    Bits follow each score, so a skipped one has none; an E-value is a statement
    about the whole search (its size, a fit over its scores), which a filtered map
    is not: one error, saying where E-values of a filtered search come from."""
    if not isinstance(v, MapResult):
        return None
    gone = absent(v.values)
    if not gone.any():
        return None
    if e.func != "bits":
        raise DslcError(f"{e.func} takes the scores of a whole search, and a where skipped "
                        "some of these", e.args[0].span,
                        hint="give it the unfiltered map's scores, or map a function of the "
                             "kept scores (examples/hmmsearch.bio)")
    return gone


def _scores(v, arg):
    """A score as a float array and the axes of the map result it came from
    (None for one number; a cell a where skipped is NaN)."""
    if isinstance(v, MapResult) and v.value_type in ("int", "float"):
        gone = absent(v.values)
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
