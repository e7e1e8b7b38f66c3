"""Hit tables: printed ``map`` results as rows, one per task, for ``--format tsv``
and ``--format jsonl``.

Printed map results over the same axes (same list operands, so the same record
names in the same order) join into one table: the record names first, one
column per printed result (``print scores`` then ``print ev`` give the columns
``scores`` and ``ev``). ``--sort``, ``--top``, ``--min-score`` and
``--max-evalue`` shape each table; other printed values (numbers, whole tables,
lists) are not hits and print as in text, as ``# ``-comment lines in TSV and as
``{"print": name, "value": ...}`` in JSON lines.

A column made by ``evalue(...)`` is an E-value column: it sorts smallest first
and ``--max-evalue`` filters on it. The score column is the table's first other
column: ``--min-score`` filters on it. Any other column sorts largest first;
an axis (record names) sorts alphabetically.

``--align`` adds each printed row's alignment: the task of the table's first column
that a map of the script computed is traced again (the rows together, so their tables
are filled in one backend call) and read as an alignment (dslc.trace.align), after the
rows are shaped, so only the rows printed are traced.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from dslc.errors import DslcError
from dslc.lang.results import Axis, HitTable, MapResult, Prob, _labels, exp_of_log, records  # noqa: F401
from dslc.runtime.tsv_rows import tsv_text

EVALUE = "evalue"
# --align's columns: the alignment's first sequence (q) and second (t), as ``align`` gives
# them (0-based starts, ends exclusive), its length in columns, counts, CIGAR, gapped rows
ALIGNED = ("qstart", "qend", "tstart", "tend", "length", "identities", "similar", "gaps",
           "cigar", "qseq", "tseq")


@dataclass(frozen=True)
class Shape:
    """How hit tables are cut down and ordered (the command line's options)."""

    sort: str | None = None
    top: int | None = None
    min_score: float | None = None
    max_evalue: float | None = None
    align: bool = False  # each printed row's alignment (--align)

    def __post_init__(self):
        if self.top is not None and self.top < 1:
            raise DslcError(f"--top needs a positive number of rows, got {self.top}")

    @property
    def active(self) -> bool:
        return self.align or any(x is not None for x in (self.sort, self.top, self.min_score,
                                                          self.max_evalue))


def _same_axes(a: MapResult, b: MapResult) -> bool:
    return a.values.shape == b.values.shape and len(a.axes) == len(b.axes) and all(
        x.name == y.name and x.labels == y.labels for x, y in zip(a.axes, b.axes))


def group(printed: list[tuple[str, object]]) -> list:
    """The printed values in print order, map results over the same axes joined
    into one HitTable (placed where the first of them was printed)."""
    out: list = []
    tables: list[list] = []  # [axes, columns] per table, in order
    for name, value in printed:
        if not isinstance(value, MapResult):
            out.append((name, value))
            continue
        for t in tables:
            if _same_axes(t[1][0][1], value):
                t[1].append((name, value))
                break
        else:
            tables.append([value.axes, [(name, value)]])
            out.append(tables[-1])
    return [HitTable(x[0], tuple(x[1])) if isinstance(x, list) else x for x in out]


# ------------------------------------------------------------------ shaping
def shape_rows(table: HitTable, how: Shape) -> list:
    """The table's rows (names, values, task number) filtered, sorted and cut as
    ``how`` says. The filters and the order are taken on each column's numbers as
    arrays (:func:`_numbers`), and only the rows kept are made: a million-protein
    search's ``--top 100`` makes 100 rows, not a million (their making and a Python
    sort took 5 of its 9.5 s on an H200 host: docs/benchmarks.md)."""
    kinds = [_role(r) for _, r in table.columns]
    ids = np.arange(table.size(), dtype=np.int64)
    if how.min_score is not None:
        k = _column(kinds, "score", table, "--min-score")
        ids = ids[_numbers(table, k)[ids] >= how.min_score]
    if how.max_evalue is not None:
        k = _column(kinds, EVALUE, table, "--max-evalue")
        ids = ids[_numbers(table, k)[ids] <= how.max_evalue]
    key = _sort_key(table, kinds, how)
    if key is not None:
        ids = key(ids)
    return table.indexed_rows(ids if how.top is None else ids[:how.top])


def _numbers(table: HitTable, k: int) -> np.ndarray:
    """Column ``k``'s values as floats (``_num`` of each), task by task: its
    array converted at once where it holds numbers, else value by value (which
    says what cannot be compared)."""
    r = table.columns[k][1]
    if r.values.dtype.kind in "iuf" and r.value_type in ("int", "float"):
        return r.values.astype(np.float64).ravel()
    if r.values.dtype.kind == "f" and r.value_type == "prob":  # (held as logs: Prob.p each,
        flat = r.values.ravel().tolist()  # by math.exp, so that ties are the same ties)
        return np.fromiter(map(exp_of_log, flat), dtype=np.float64, count=len(flat))
    return np.array([_num(r[idx]) for idx in np.ndindex(*r.values.shape)], dtype=np.float64)


def _role(r: MapResult) -> str:
    return EVALUE if r.func == EVALUE and r.value_type == "float" else "score"


def _column(kinds: list[str], role: str, table: HitTable, option: str) -> int:
    if role in kinds:
        return kinds.index(role)
    if role == EVALUE:
        raise DslcError(f"{option}: the printed map results over "
                        f"{' x '.join(a.name for a in table.axes) or 'nothing'} have no E-value "
                        "column", hint="print evalue(scores, queries, db, blosum62, 11, 1) too")
    raise DslcError(f"{option}: the printed map results have no score column")


def _num(v) -> float:
    if isinstance(v, Prob):
        return v.p
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DslcError(f"cannot compare a {type(v).__name__} value with a number "
                        "(filter and sort a column of numbers)")
    return float(v)


def _sort_key(table: HitTable, kinds: list[str], how: Shape):
    """Best first: the named column (E-values up, others down, names in
    alphabetical order), or by default, when --top asks for the best rows, the
    E-value column if there is one, else the score column. Given as the sort of
    an array of task numbers (stable: ties keep task order)."""
    axis_keys, col_keys = table.keys()
    if how.sort is None:
        if how.top is None:
            return None
        k = kinds.index(EVALUE) if EVALUE in kinds else 0
        return _by_column(table, k, kinds[k])
    if how.sort in col_keys:
        k = col_keys.index(how.sort)
        return _by_column(table, k, kinds[k])
    if how.sort in axis_keys:
        k = axis_keys.index(how.sort)
        shape = table.columns[0][1].values.shape
        labels = _labels(table.axes[k], shape[k])
        return lambda ids: np.asarray(sorted(
            ids.tolist(), key=lambda i: labels[np.unravel_index(i, shape)[k]]), dtype=np.int64)
    raise DslcError(f"--sort: no column '{how.sort}'",
                    hint="columns: " + ", ".join(axis_keys + col_keys))


def _by_column(table: HitTable, k: int, kind: str):
    sign = 1.0 if kind == EVALUE else -1.0

    def order(ids):
        keys = sign * _numbers(table, k)[ids]
        return ids[np.argsort(keys, kind="stable")]
    return order


def check_shape(groups: list, how: Shape) -> None:
    """A --sort naming no column of any table is an error (one naming a column of
    some tables sorts those); so is shaping when nothing printed is a hit table."""
    tables = [g for g in groups if isinstance(g, HitTable)]
    if how.active and not tables:
        raise DslcError("--sort, --top, --min-score, --max-evalue and --align shape printed "
                        "map results, and the script prints none")
    if how.align and not any(_traced(t) for t in tables):
        raise DslcError("--align: no printed map result is a map the script ran",
                        hint="print the result of map(f, ...) itself")
    if how.sort is None:
        return
    known = [k for t in tables for part in t.keys() for k in part]
    if how.sort not in known:
        raise DslcError(f"--sort: no column '{how.sort}'", hint="columns: " + ", ".join(known))


def _shaped(table: HitTable, how: Shape) -> list:
    """``shape_rows`` with a --sort naming another table's column left out; with
    --align, each row with its alignment last (None where the table has no column a
    map of the script computed)."""
    axis_keys, col_keys = table.keys()
    if how.sort is not None and how.sort not in axis_keys + col_keys:
        rows = shape_rows(table, Shape(None, how.top, how.min_score, how.max_evalue))
    else:
        rows = shape_rows(table, how)
    traced = _traced(table) if how.align else None
    if traced is None:
        return [(names, values, None) for names, values, _ in rows]
    aligned = traced.tasks.alignments([k for _, _, k in rows])
    return [(names, values, a) for (names, values, _), a in zip(rows, aligned)]


def _traced(table: HitTable):
    """The table's first column a map of the script computed (its tasks can be
    traced), or None."""
    return next((r for _, r in table.columns if r.tasks is not None), None)


def _aligned_cells(a) -> list:
    """--align's columns of one row (``ALIGNED``)."""
    return [a.starts[0], a.ends[0], a.starts[1], a.ends[1], a.length, a.identities,
            a.similar, a.gaps, a.cigar or "-", a.rows[0], a.rows[2]]


# ------------------------------------------------------------------ TSV
def render_tsv(printed: list[tuple[str, object]], how: Shape = Shape()) -> str:
    """One TSV table per group of map results (a header line, then a row per
    task), other printed values as ``# `` lines of their text form."""
    from dslc.runtime.render import render_text

    groups = group(printed)
    check_shape(groups, how)
    blocks = []
    for g in groups:
        if isinstance(g, HitTable):  # a blank line before each table but a first block
            blocks.append(("\n" if blocks else "") + _notes(g) + _tsv_table(g, how))
        else:
            blocks.append("\n".join("# " + line for line in render_text([g]).splitlines()))
    return "\n".join(blocks)


def _notes(table: HitTable) -> str:
    """A ``# column: note`` line per column that carries a note (the statistics an
    E-value column was made with), before the table's header line."""
    _, col_keys = table.keys()
    return "".join(f"# {_field(k)}: {_field(r.note)}\n"
                   for k, (_, r) in zip(col_keys, table.columns) if getattr(r, "note", None))


def _tsv_table(table: HitTable, how: Shape) -> str:
    axis_keys, col_keys = table.keys()
    probs = [r.value_type == "prob" for _, r in table.columns]
    head = axis_keys + [h for c, p in zip(col_keys, probs) for h in ([c, c + ".log"] if p else [c])]
    if how.align and _traced(table) is not None:
        head += list(ALIGNED)
    lines = ["\t".join(_field(h) for h in head)]
    fast = None if how.active else tsv_text(table, lines[0], _field)
    if fast is not None:
        return fast
    for names, values, aligned in _shaped(table, how):
        cells = [_field(x) for x in names]
        for v in values:
            cells.extend(_tsv_cell(v))
        if aligned is not None:
            cells.extend(_field(str(x)) for x in _aligned_cells(aligned))
        lines.append("\t".join(cells))
    return "\n".join(lines)


def _tsv_cell(v) -> list[str]:
    """A value as TSV: a probability as its value and its natural log (two
    columns, so one too small for a float keeps its log)."""
    from dslc.runtime.render import fmt_scalar

    if isinstance(v, Prob):
        return [fmt_scalar(v.p), fmt_scalar(v.log)]
    return [_field(fmt_scalar(v))]


def _field(s: str) -> str:
    """No tab or line break inside a field (a record name could hold a tab)."""
    return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")


# ------------------------------------------------------------------ JSON lines
def render_jsonl(printed: list[tuple[str, object]], how: Shape = Shape()) -> str:
    """One JSON object per line: a task of a map result ``{axis: record name, ...,
    column: value, ...}``, any other printed value ``{"print": name, "value": v}``."""
    from dslc.runtime.render import to_json_value

    groups = group(printed)
    check_shape(groups, how)
    lines = []
    for g in groups:
        if not isinstance(g, HitTable):
            lines.append(_dump({"print": g[0], "value": to_json_value(g[1])}))
            continue
        fast = None if how.active else _jsonl_rows(g)
        if fast is not None:
            lines.extend(fast)
            continue
        axis_keys, col_keys = g.keys()
        for names, values, aligned in _shaped(g, how):
            obj = dict(zip(axis_keys, names))
            obj.update(zip(col_keys, (to_json_value(v) for v in values)))
            if aligned is not None:
                obj["alignment"] = to_json_value(aligned.to_json())
            lines.append(_dump(obj))
    return "\n".join(lines)


def _jsonl_rows(table: HitTable) -> list[str] | None:
    """Every line of an unshaped table at once, or None (as ``tsv_text``):
    each record name and value encoded once, the lines filled from a template
    of the keys (what ``json.dumps`` of the row's dict writes)."""
    from dslc.runtime import cells

    flats = [cells.json_flat(r.values, r.value_type) for _, r in table.columns]
    axis_keys, col_keys = table.keys()
    keys = axis_keys + col_keys
    if any(f is None for f in flats) or not table.axes or len(set(keys)) < len(keys):
        return None  # (two equal keys: the row's dict keeps one)
    values = [cells.json_texts(f.ravel().tolist()) for f in flats]
    names = table.name_columns(cells.json_strings)
    escaped = (json.dumps(k).replace("{", "{{").replace("}", "}}") for k in keys)
    template = "{{" + ", ".join(f"{k}: {{}}" for k in escaped) + "}}"
    return list(map(template.format, *names, *values))


def _dump(obj) -> str:
    return json.dumps(obj, allow_nan=False)
