"""Hit tables shaped on their value arrays (dslc.runtime.hits.shape_rows) give the
rows the plain reading of the options gives: every row made, filtered value by value,
the best of each query and of the table kept, sorted stably by a key per row (the
reference below). Tables of ints, floats (infinities, ties, negative zero) and
probabilities, one or two axes, a score and an E-value column, every option."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.lang.results import Axis, HitTable, MapResult, Prob
from dslc.runtime.hit_columns import role
from dslc.runtime.hits import EVALUE, Shape, _num, shape_rows


def reference(table: HitTable, how: Shape) -> list:
    """Every row, the filters, the cuts and the sorts in Python, one row at a time."""
    rows = table.indexed_rows()
    kinds = [role(n, r) for n, r in table.columns]
    score = kinds.index("score") if "score" in kinds else 0
    if how.min_score is not None:
        rows = [r for r in rows if _num(r[1][score]) >= how.min_score]
    if how.max_evalue is not None:
        k = kinds.index(EVALUE)
        rows = [r for r in rows if _num(r[1][k]) <= how.max_evalue]
    key = _key(table, kinds, score, how)
    if key is None:
        return rows
    shape = table.columns[0][1].values.shape
    width = shape[-1] if len(shape) >= 2 else None

    def query(row):
        return row[2] // width if width else 0
    if how.top is not None:
        seen: dict = {}
        kept = []
        for row in sorted(rows, key=lambda r: (query(r), key(r))):
            seen[query(row)] = seen.get(query(row), 0) + 1
            if seen[query(row)] <= how.top:
                kept.append(row)
        rows = kept
    if how.top_total is not None:
        rows = sorted(rows, key=key)[:how.top_total]
    rows = sorted(rows, key=lambda r: r[2])
    if how.sort is not None:
        return sorted(rows, key=key)
    return sorted(rows, key=lambda r: (query(r), key(r)))


def _key(table: HitTable, kinds: list, score: int, how: Shape):
    """A row's sort key, best smallest (None: task order)."""
    axis_keys, col_keys = table.keys()
    if how.sort in axis_keys:
        k = axis_keys.index(how.sort)
        return lambda row: row[0][k]
    if how.sort is not None:
        k = col_keys.index(how.sort)
    elif EVALUE in kinds:
        k = kinds.index(EVALUE)
    elif how.top is not None or how.top_total is not None:
        k = score
    else:
        return None
    sign = 1.0 if kinds[k] == EVALUE else -1.0
    return lambda row: sign * _num(row[1][k])


NUMBERS = {
    "int": st.sampled_from([0, 1, 2, 3, -5, 7, 10**15, float("inf"), float("-inf")]),
    "float": st.sampled_from([0.0, -0.0, 0.5, 1.5, -2.25, 1e-300, float("inf"), 3.0]),
    "prob": st.sampled_from([0.0, -1e-12, -0.25, -0.25, -3.5, -800.0, -900.0]),  # (logs)
}


@st.composite
def tables(draw):
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=2)))
    n = int(np.prod(shape))
    kind = draw(st.sampled_from(sorted(NUMBERS)))
    raw = draw(st.lists(NUMBERS[kind], min_size=n, max_size=n))
    finite_int = kind == "int" and all(abs(x) != float("inf") for x in raw)  # (held as int64)
    score = np.array(raw, dtype=np.int64 if finite_int else np.float64).reshape(shape)
    names = [draw(st.lists(st.sampled_from(["b", "a", "c", "a2", "é"]), min_size=m,
                           max_size=m)) for m in shape]
    axes = tuple(Axis(f"x{k}", tuple(ns)) for k, ns in enumerate(names))
    columns = [("score", MapResult("sw", kind, score, axes))]
    if draw(st.booleans()):
        ev = np.array(draw(st.lists(st.sampled_from([1e-9, 0.01, 0.01, 5.0, 10.0]),
                                    min_size=n, max_size=n))).reshape(shape)
        columns.append(("ev", MapResult(EVALUE, "float", ev, axes)))
    return HitTable(axes, tuple(columns))


@settings(max_examples=300, deadline=None)
@given(table=tables(), data=st.data())
def test_shaped_on_arrays_equals_row_by_row(table, data):
    has_ev = len(table.columns) > 1
    axis_keys, col_keys = table.keys()
    how = Shape(sort=data.draw(st.sampled_from([None, *axis_keys, *col_keys])),
                top=data.draw(st.sampled_from([None, 1, 2, 5, 100])),
                top_total=data.draw(st.sampled_from([None, 1, 3, 100])),
                min_score=data.draw(st.sampled_from([None, 0.0, 1.0, 0.25, -1e18])),
                max_evalue=data.draw(st.sampled_from([None, 0.01, 1.0])) if has_ev else None)
    got, want = shape_rows(table, how), reference(table, how)
    assert [k for *_, k in got] == [k for *_, k in want]
    assert [(names, _plain(values)) for names, values, _ in got] == \
        [(names, _plain(values)) for names, values, _ in want]


def _plain(values: tuple) -> tuple:
    return tuple(v.p if isinstance(v, Prob) else v for v in values)


def test_a_table_of_one_cell_shapes():
    """A map of no lists is one task (a 0-d result)."""
    table = HitTable((), (("score", MapResult("sw", "int", np.array(4), ())),))
    assert [k for *_, k in shape_rows(table, Shape(top=3))] == [0]
