"""Hit tables: printed ``map`` results as rows, one per task, for ``--format tsv``
and ``--format jsonl``.

Printed map results over the same axes (same list operands, so the same record
names in the same order) join into one table: the record names first, one
column per printed result (``print score`` then ``print evalue`` give the columns
``score`` and ``evalue``). ``--columns`` chooses other columns, BLAST's and
HMMER's among them (dslc.runtime.hit_columns). Other printed values (numbers,
whole tables, lists) are not hits and print as in text, as ``# ``-comment lines in
TSV and as ``{"print": name, "value": ...}`` in JSON lines. A task no printed map ran
(each skipped it: ``map ... where``) has no row; an absent cell is empty in TSV and
null in JSON lines, passes no ``--min-score`` or ``--max-evalue`` and sorts last.

A table of two or more axes is a search: its *query* is a row's index on every
axis but the last, its *subject* the last axis's record (the database). Rows are
printed by query (in the queries' order), and within a query best first: by the
E-value column where there is one (smallest first), else, where ``--top`` asks for
the best rows, by the score column (largest first). ``--top N`` keeps the ``N``
best rows of each query, ``--top-total N`` the ``N`` best of the whole table;
``--sort COLUMN`` orders the whole table by that column instead (an E-value
smallest first, any other column largest first, an axis alphabetically).
``--min-score`` filters on the score column and ``--max-evalue`` on the E-value
column. A table without an E-value column and no option stays in task order
(which is by query already).

``--align``, and any column that needs the alignment, trace each printed row's task
again: the task of the table's first column that a map of the script computed (the
rows together, so their tables are filled in one backend call), read as an alignment
(dslc.trace.align), after the rows are shaped, so only the rows printed are traced.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from dslc.errors import DslcError
from dslc.lang.results import (Axis, HitTable, MapResult, Prob, _labels, absent,  # noqa: F401
                               exp_of_log, records)
from dslc.runtime import hit_columns as hc
from dslc.runtime.hit_columns import ALIGNED, BITS, EVALUE  # noqa: F401
from dslc.runtime.tsv_cells import field as _field, tsv_cell as _tsv_cell
from dslc.runtime.tsv_rows import tsv_text


@dataclass(frozen=True)
class Shape:
    """How hit tables are cut down, ordered and laid out (the command line's options)."""

    sort: str | None = None
    top: int | None = None  # rows kept per query
    min_score: float | None = None
    max_evalue: float | None = None
    align: bool = False  # each printed row's alignment (--align)
    top_total: int | None = None  # rows kept of the whole table
    columns: tuple[str, ...] | None = None  # --columns (presets expanded per table)
    header: bool | None = None  # the TSV's header line; None: as the columns say

    def __post_init__(self):
        for option, n in (("--top", self.top), ("--top-total", self.top_total)):
            if n is not None and n < 1:
                raise DslcError(f"{option} needs a positive number of rows, got {n}")

    @property
    def active(self) -> bool:
        """Was any option given that shapes hit tables?"""
        return self.align or any(x is not None for x in (
            self.sort, self.top, self.min_score, self.max_evalue, self.top_total, self.columns))

    def with_header(self) -> bool:
        """A TSV header line unless ``--no-header``, or ``--columns blast`` (BLAST's
        tabular output has none: what its parsers read) without ``--header``."""
        if self.header is not None:
            return self.header
        return not (self.columns is not None and self.columns[:1] == ("blast",))


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
    """The table's rows (names, values, task number) filtered, ordered and cut as
    ``how`` says (:func:`shape_ids`)."""
    ids = shape_ids(table, how)
    return table.indexed_rows(ids)


def shape_ids(table: HitTable, how: Shape) -> np.ndarray | None:
    """The task numbers of the rows printed, in print order (the module's
    docstring says which); None: every row, in task order. The filters and the
    order are taken on each column's numbers as arrays (:func:`_numbers`), so
    only the rows kept are made: a million-protein search's ``--top 100`` makes
    100 rows, not a million (their making and a Python sort took 5 of its 9.5 s
    on an H200 host: docs/benchmarks.md)."""
    roles = [hc.role(n, r) for n, r in table.columns]
    ids = np.arange(table.size(), dtype=np.int64)
    cut = False
    gone = _all_absent(table)
    if gone is not None:  # tasks no printed map ran: no row
        ids, cut = ids[~gone], True
    if how.min_score is not None:
        k = _column(roles, "score", table, "--min-score")
        ids, cut = ids[_numbers(table, k)[ids] >= how.min_score], True
    if how.max_evalue is not None:
        k = _column(roles, EVALUE, table, "--max-evalue")
        ids, cut = ids[_numbers(table, k)[ids] <= how.max_evalue], True
    key = _rank(table, roles, how)
    if key is None:
        return ids if cut else None
    group = _query_of(table)
    if how.top is not None:  # the best N of each query
        ids = ids[np.lexsort((key[ids], group[ids]))]
        ids = ids[_place_in_run(group[ids]) < how.top]
    if how.top_total is not None:  # the best N of them all
        ids = np.sort(ids[np.argsort(key[ids], kind="stable")][:how.top_total])
    if how.sort is not None:
        return ids[np.argsort(key[ids], kind="stable")]
    ids = np.sort(ids)
    return ids[np.lexsort((key[ids], group[ids]))]


def _query_of(table: HitTable) -> np.ndarray:
    """Each task's query: its index on every axis but the last (one query for
    a table of one axis or none)."""
    shape = table.columns[0][1].values.shape
    n = table.size()
    if len(shape) < 2 or not n:
        return np.zeros(n, dtype=np.int64)
    return np.arange(n, dtype=np.int64) // shape[-1]


def _place_in_run(values: np.ndarray) -> np.ndarray:
    """Each element's place in its run of equal values (0 at a run's first)."""
    if not len(values):
        return values
    starts = np.concatenate(([0], np.flatnonzero(np.diff(values)) + 1))
    first = np.repeat(starts, np.diff(np.concatenate((starts, [len(values)]))))
    return np.arange(len(values)) - first


def _all_absent(table: HitTable) -> np.ndarray | None:
    """Per task, whether every column's cell is absent (a task each printed map's
    ``where`` skipped: no row), or None where every task has a value somewhere."""
    gone = None
    for _, r in table.columns:
        cells = absent(r.values).ravel()
        if not cells.any():
            return None
        gone = cells if gone is None else gone & cells
    return gone


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
    # (an absent cell is NaN: no --min-score or --max-evalue keeps it, and it sorts last)


def _column(roles: list[str], role: str, table: HitTable, option: str) -> int:
    """The column of ``role``; the score's is the first printed score, else
    (a table of bit scores and E-values) the bit scores."""
    if role in roles:
        return roles.index(role)
    if role == "score" and BITS in roles:
        return roles.index(BITS)
    if role == EVALUE:
        raise DslcError(f"{option}: the printed map results over "
                        f"{' x '.join(a.name for a in table.axes) or 'nothing'} have no E-value "
                        "column", hint="print evalue(scores, queries, db, blosum62, 11, 1) too")
    raise DslcError(f"{option}: the printed map results have no score column")


def _num(v) -> float:
    if v is None:
        return math.nan
    if isinstance(v, Prob):
        return v.p
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DslcError(f"cannot compare a {type(v).__name__} value with a number "
                        "(filter and sort a column of numbers)")
    return float(v)


def _rank(table: HitTable, roles: list[str], how: Shape) -> np.ndarray | None:
    """Each task's key, best smallest: the named column's (E-values as they
    are, others negated, an axis by its record names' alphabetical rank), or by
    default the E-value column's, else, when ``--top`` or ``--top-total`` asks
    for the best rows, the score column's. None: the rows stay in task order."""
    axis_keys, col_keys = table.keys()
    if how.sort is None:
        if EVALUE in roles:
            return _numbers(table, roles.index(EVALUE))
        if how.top is None and how.top_total is None:
            return None
        k = _column(roles, "score", table, "--top")
        return -_numbers(table, k)
    if how.sort in col_keys:
        k = col_keys.index(how.sort)
        return (1.0 if roles[k] == EVALUE else -1.0) * _numbers(table, k)
    if how.sort in axis_keys:
        k = axis_keys.index(how.sort)
        shape = table.columns[0][1].values.shape
        labels = _labels(table.axes[k], shape[k])
        rank = {x: r for r, x in enumerate(sorted(set(labels)))}
        per = np.array([rank[x] for x in labels], dtype=np.int64)
        return per[np.unravel_index(np.arange(table.size()), shape)[k]]
    raise DslcError(f"--sort: no column '{how.sort}'",
                    hint="columns: " + ", ".join(axis_keys + col_keys))


def check_shape(groups: list, how: Shape) -> None:
    """A --sort naming no column of any table is an error (one naming a column of
    some tables sorts those); so is shaping when nothing printed is a hit table."""
    tables = [g for g in groups if isinstance(g, HitTable)]
    if how.active and not tables:
        raise DslcError("--sort, --top, --top-total, --min-score, --max-evalue, --columns and "
                        "--align shape printed map results, and the script prints none")
    if how.align and not any(_traced(t) for t in tables):
        raise DslcError("--align: no printed map result is a map the script ran",
                        hint="print the result of map(f, ...) itself")
    if how.sort is None:
        return
    known = [k for t in tables for part in t.keys() for k in part]
    if how.sort not in known:
        raise DslcError(f"--sort: no column '{how.sort}'", hint="columns: " + ", ".join(known))


def _columns(table: HitTable, how: Shape) -> tuple:
    """The table's printed columns: ``--columns``', else its own (and with
    --align, where one of its columns was computed by a map of the script,
    the alignment's)."""
    if how.columns is not None:
        cols = hc.chosen_columns(table, how.columns, how.align)
        if hc.needs_alignment(cols) and _traced(table) is None:
            names = [c.name for c in cols if c.kind == "aligned"]
            raise DslcError(f"--columns {names[0]}: the alignment of a row needs a printed "
                            "map result of a map the script ran",
                            hint="print the result of map(f, ...) itself")
        return cols
    return hc.default_columns(table, how.align and _traced(table) is not None)


def _shaped(table: HitTable, how: Shape, cols: tuple) -> list:
    """The rows printed (:func:`_own_ids`), each with its alignment last where a
    column needs it (else None)."""
    rows = table.indexed_rows(_own_ids(table, how))
    if not hc.needs_alignment(cols):
        return [(row, None) for row in rows]
    traced = _traced(table)
    skipped = absent(traced.values).ravel()  # (a task its map's where skipped: no alignment)
    ks = [k for _, _, k in rows if not skipped[k]]
    aligned = dict(zip(ks, traced.tasks.alignments(ks)))
    return [(row, aligned.get(row[2])) for row in rows]


def _own_ids(table: HitTable, how: Shape) -> np.ndarray | None:
    """:func:`shape_ids`, a --sort naming another table's column left out (it
    sorts that table, not this one)."""
    axis_keys, col_keys = table.keys()
    if how.sort is not None and how.sort not in axis_keys + col_keys:
        how = Shape(None, how.top, how.min_score, how.max_evalue, how.align, how.top_total)
    return shape_ids(table, how)


def _traced(table: HitTable):
    """The table's first column a map of the script computed (its tasks can be
    traced), or None."""
    return next((r for _, r in table.columns if r.tasks is not None), None)


# ------------------------------------------------------------------ TSV
def render_tsv(printed: list[tuple[str, object]], how: Shape = Shape()) -> str:
    """One TSV table per group of map results (a header line unless ``how``
    says none, then a row per task), a whole table of two axes as a TSV block
    (dslc.runtime.table_tsv), other printed values as ``# `` lines of their text
    form."""
    from dslc.runtime.render import render_text
    from dslc.runtime.table_tsv import is_tsv_table, table_tsv

    groups = group(printed)
    check_shape(groups, how)
    blocks = []
    for g in groups:
        if isinstance(g, HitTable):  # a blank line before each table but a first block
            notes = _notes(g) if how.with_header() else ""
            blocks.append(("\n" if blocks else "") + notes + _tsv_table(g, how))
        elif is_tsv_table(g[1]):  # a whole table of two axes: a TSV block of its own
            blocks.append(("\n" if blocks else "") + table_tsv(*g))
        else:
            blocks.append("\n".join("# " + line for line in render_text([g]).splitlines()))
    return "\n".join(blocks)


def _notes(table: HitTable) -> str:
    """A ``# column: note`` line per column that carries a note (the statistics an
    E-value column was made with), before the table's header line. They come and go
    with the header: a table without one (``--columns blast``, ``--no-header``) is
    read by another program, which takes every line for a row."""
    _, col_keys = table.keys()
    return "".join(f"# {_field(k)}: {_field(r.note)}\n"
                   for k, (_, r) in zip(col_keys, table.columns) if getattr(r, "note", None))


def _tsv_table(table: HitTable, how: Shape) -> str:
    cols = _columns(table, how)
    head = "\t".join(_field(h) for h in hc.header(cols, table))
    if not how.with_header():
        head = None
    if hc.plain(cols, table):
        fast = tsv_text(table, head, _field, _own_ids(table, how))
        if fast is not None:
            return fast
    lines = [] if head is None else [head]
    for row, aligned in _shaped(table, how, cols):
        cells = []
        for c, v in zip(cols, hc.cells(cols, table, row, aligned)):
            cells.extend(_tsv_cell(v) if c.kind == "value" else [_field(hc.tsv_cell(c, v))])
        lines.append("\t".join(cells))
    return "\n".join(lines)


# ------------------------------------------------------------------ JSON lines
def render_jsonl(printed: list[tuple[str, object]], how: Shape = Shape()) -> str:
    """One JSON object per line: a row of a hit table ``{column: value, ...}``
    (the columns TSV prints, a probability as ``{"prob": p, "log": l}``), any
    other printed value ``{"print": name, "value": v}``."""
    from dslc.runtime.render import to_json_value

    groups = group(printed)
    check_shape(groups, how)
    lines = []
    for g in groups:
        if not isinstance(g, HitTable):
            lines.append(_dump({"print": g[0], "value": to_json_value(g[1])}))
            continue
        cols = _columns(g, how)
        plain = hc.plain(cols, g)
        fast = _jsonl_rows(g) if plain and _own_ids(g, how) is None else None
        if fast is not None:
            lines.extend(fast)
            continue
        for row, aligned in _shaped(g, how, cols):
            values = hc.cells(cols, g, row, aligned)
            lines.append(_dump({c.name: to_json_value(v) for c, v in zip(cols, values)}))
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
