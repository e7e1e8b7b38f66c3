"""The TSV of whole hit tables (dslc.runtime.tsv_rows) equals the row-by-row path
(hits._shaped, hits._tsv_cell) byte for byte: random tables of one to three
axes with awkward record names and columns of every number type, with the
block sizes made small so that blocks, the per-query split and the int lookup
are all taken on small tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.errors import DslcError
from dslc.lang.results import Axis, MapResult, to_array
from dslc.runtime import hits, tsv_rows
from tests.runtime.test_print_at_once import _cell, _outcome

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_NAME_CHARS = st.sampled_from('ab ,"\t\n\rü{}\u2028')
_LABEL = st.one_of(st.text(_NAME_CHARS, max_size=5), st.integers(-3, 30))


@st.composite
def _column(draw, shape: tuple):
    value_type = draw(st.sampled_from(("int", "int", "float", "prob", "bool")))
    count = int(np.prod(shape))
    cell = st.integers(-2, 3) if value_type == "int" and draw(st.booleans()) else _cell(value_type)
    items = draw(st.lists(cell, min_size=count, max_size=count))
    if draw(st.integers(0, 4)) == 0:  # None cells: an object array
        arr = np.empty(count, dtype=object)
        for k, x in enumerate(items):
            arr[k] = None if draw(st.booleans()) else x
    else:
        arr = to_array(items, value_type)
    func = "evalue" if value_type == "float" and draw(st.booleans()) else "f"
    return MapResult(func, value_type, arr.reshape(shape), ())


@st.composite
def hit_tables(draw):
    """Printed map results over the same axes (record names or none)."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    axes = tuple(Axis(draw(st.sampled_from(("q", "db", "db", "a\tb"))),
                      tuple(draw(st.lists(_LABEL, min_size=n, max_size=n)))
                      if draw(st.integers(0, 3)) else None) for n in shape)
    columns = draw(st.lists(_column(shape), min_size=1, max_size=3))
    return [(f"c{k}", MapResult(c.func, c.value_type, c.values, axes))
            for k, c in enumerate(columns)]


def _row_by_row(printed, how=hits.Shape()) -> str:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hits, "tsv_text", lambda *a: None)
        return _refused(lambda: hits.render_tsv(printed, how))


def _refused(f):
    """``_outcome``, a user error (a --sort of no column, None cells compared)
    as its message: both paths must refuse alike."""
    try:
        return _outcome(f)
    except DslcError as e:
        return e.render()


# the rows' order and cuts (by query then E-value by default; --sort across queries)
_SHAPES = st.builds(hits.Shape, sort=st.sampled_from([None, None, "c0", "q"]),
                    top=st.sampled_from([None, 1, 2]), top_total=st.sampled_from([None, 3]),
                    header=st.sampled_from([None, False]))


@SETTINGS
@given(printed=hit_tables(), block=st.integers(1, 4), long=st.integers(1, 6), how=_SHAPES)
def test_whole_table_tsv_equals_the_row_by_row_tsv(printed, block, long, how):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tsv_rows, "_BLOCK", block)
        mp.setattr(tsv_rows, "_LONG", long)
        fast = _refused(lambda: hits.render_tsv(printed, how))
    assert fast == _row_by_row(printed, how)


def test_a_search_result_takes_the_lookup_and_the_per_query_split(monkeypatch):
    """A queries x database int result (the shape of a search) is made at once
    with the scores looked up, and equals the row-by-row text."""
    monkeypatch.setattr(tsv_rows, "_LONG", 8)
    monkeypatch.setattr(tsv_rows, "_BLOCK", 5)
    scores = np.arange(80, dtype=np.int64).reshape(2, 40) % 7 - 3
    axes = (Axis("q", ("Q1", "Q\t2")), Axis("db", tuple(f"d{k} x" for k in range(40))))
    table = hits.group([("s", MapResult("sw", "int", scores, axes))])[0]
    column = tsv_rows._Column.of(table.columns[0][1], True, 40)
    assert column.lookup is not None
    fast = tsv_rows.tsv_text(table, "q\tdb\ts", hits._field)
    assert fast is not None and fast == _row_by_row([("s", table.columns[0][1])])
