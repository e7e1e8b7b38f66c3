"""Printing a result of numbers at once (dslc.runtime.cells) writes exactly what
the per-value reference path writes: JSON values, text cells, TSV and JSON-lines
fields, for random arrays of every number type with infinities, NaN, None cells,
ints near 2^53 and negative zero; and whole printed outputs (json, jsonl, tsv,
text) equal those made with the fast path switched off."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.lang.results import Axis, MapResult, TableResult, _floats_reference, to_array, wrap
from dslc.runtime import cells, digits, hits, render

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

BIG = 2**53
_FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 0.1, 1e-310, 5e-324, 1e300, -745.2, -700.0, 709.0, 710.0,
                     float(BIG), float(BIG + 2), -float(BIG), 2.0**63, -(2.0**63), 2.5, -2.5]))
_INTS = st.one_of(st.integers(-(2**63), 2**63 - 1),
                  st.integers(BIG - 3, BIG + 3), st.integers(-BIG - 3, -BIG + 3),
                  st.integers(-5, 5))
_INFS = st.sampled_from([math.inf, -math.inf])


def _cell(value_type: str):
    """What a backend leaves in a cell of ``value_type`` (numbers of the kinds
    the runtime holds)."""
    if value_type == "bool":
        return st.booleans()
    if value_type == "int":
        return st.one_of(_INTS, _INFS)
    return _FLOATS  # float, and prob (its natural log)


@st.composite
def result_arrays(draw):
    """(array, value type): a numeric array as the runtime makes it, or an object
    array of Python numbers with None cells (a table outside its declared
    ranges), in up to three dimensions."""
    value_type = draw(st.sampled_from(cells.NUMBERS))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    count = int(np.prod(shape))
    items = draw(st.lists(_cell(value_type), min_size=count, max_size=count))
    if draw(st.booleans()):  # None cells: an object array
        nones = draw(st.lists(st.booleans(), min_size=count, max_size=count))
        arr = np.empty(count, dtype=object)
        for k, (x, no) in enumerate(zip(items, nones)):
            arr[k] = None if no else x
        return arr.reshape(shape), value_type
    return to_array(items, value_type).reshape(shape), value_type


def _outcome(f):
    """What ``f()`` returns, or the type of what it raises (both paths must
    refuse alike)."""
    try:
        return f()
    except (ValueError, OverflowError, TypeError) as e:
        return type(e)


def _cells_of(arr):
    return [arr[idx] for idx in np.ndindex(arr.shape)]


def _declines(arr, value_type) -> bool:
    """Where the fast path is allowed to leave the value to the reference."""
    xs = [x for x in _cells_of(arr) if x is not None]
    floats = [float(x) for x in xs]
    if value_type == "int":
        mixed = any(isinstance(x, float) for x in xs) and arr.dtype == object
        return any(f != f or (math.isfinite(f) and abs(f) >= (BIG if mixed else 2.0**63))
                   for f in floats)
    if value_type == "prob":
        return any(f != f or f > 709.0 for f in floats)
    return False


# (fast path, the old per-value path it must equal) for whole results
_PATHS = {
    "json": (lambda arr, t: None if (f := cells.json_flat(arr, t)) is None
             else json.dumps(f.tolist()),
             lambda arr, t: json.dumps(render._nested(arr, t), allow_nan=False)),
    "text": (cells.text_cells, render.text_cells_reference),
}


@pytest.mark.parametrize("path", sorted(_PATHS))
@SETTINGS
@given(case=result_arrays())
def test_whole_results_print_as_the_reference_prints_them(path, case):
    fast_path, reference = _PATHS[path]
    arr, value_type = case
    fast = fast_path(arr, value_type)
    if fast is None:
        assert _declines(arr, value_type)
        return
    assert fast == _outcome(lambda: reference(arr, value_type))


@SETTINGS
@given(result_arrays())
def test_tsv_and_jsonl_fields_equal_the_reference(case):
    arr, value_type = case
    tsv = cells.text_cells(arr, value_type, tsv=True)
    flat = cells.json_flat(arr, value_type)
    if tsv is None or flat is None:
        assert _declines(arr, value_type)
        return
    values = [wrap(x, value_type) for x in _cells_of(arr)]
    assert tsv == ["\t".join(hits._tsv_cell(v)) for v in values]
    want = _outcome(lambda: [json.dumps(render.to_json_value(v), allow_nan=False)
                             for v in values])
    assert cells.json_texts(flat.ravel().tolist()) == want


@SETTINGS
@given(st.lists(st.one_of(_FLOATS, _INTS, _FLOATS.map(np.float64)), max_size=20))
def test_to_array_of_numbers_equals_float_of_each(values):
    fast = _outcome(lambda: to_array(values, "float"))
    slow = _outcome(lambda: _floats_reference(values))
    if isinstance(slow, type):
        assert fast is slow
        return
    assert fast.dtype == slow.dtype and fast.tobytes() == slow.tobytes()


def _off(monkeypatch):
    """The fast paths switched off (cells' and int results' digits written at
    once): every result printed value by value."""
    monkeypatch.setattr(digits, "int_cells", lambda *a, **k: None)
    for name in ("json_flat", "text_cells", "text_array"):
        monkeypatch.setattr(cells, name, lambda *a, **k: None)


NAMES = ("q1", "tab\there", "comma, space", 'quote"{brace}', "ünï", "%s")


def _printed():
    """Map results over one axis (named with braces) of awkward record names (a tab, quotes, braces,
    non-ASCII), a two-axis map and a table with None cells."""
    axis = Axis("db{0}", NAMES, lengths=(3,) * len(NAMES))
    ints = np.array([3, -1, 0, 2**53 + 1, 7, -(2**62)], dtype=np.int64)
    evals = np.array([0.5, -0.0, math.inf, 1e-320, 2.5e17, 1 / 3])
    logs = np.array([-math.inf, 0.0, -800.0, -1.5, -1e-12, -690.5])
    two = np.array([[1.0, math.inf], [-math.inf, 4.0]])
    table = np.array([[None, 1], [2, None]], dtype=object)
    return [("scores", MapResult("sw", "int", ints, (axis,))),
            ("ev", MapResult("evalue", "float", evals, (axis,))),
            ("p", MapResult("fwd", "prob", logs, (axis,))),
            ("ok", MapResult("f", "bool", ints > 0, (axis,))),
            ("grid", MapResult("sw", "int", two, (Axis("q", ("a", "b")), Axis("t")))),
            ("t", TableResult("d", "int", table, (Axis("i"), Axis("j"))))]


def _outputs():
    printed = _printed()
    return [render.render_json(printed), render.render_text(printed),
            hits.render_tsv(printed), hits.render_jsonl(printed)]


def test_printed_outputs_equal_those_printed_value_by_value(monkeypatch):
    assert all(cells.json_flat(v.values, v.value_type) is not None and cells.text_cells(
        v.values, v.value_type, tsv=True) is not None for _, v in _printed())
    fast = _outputs()
    _off(monkeypatch)
    assert fast == _outputs()


@SETTINGS
@given(st.lists(st.text(alphabet=st.sampled_from('ab, "\\\t{}ü\u2028'), max_size=6), max_size=8))
def test_record_names_encode_as_json_dumps_does(names):
    assert cells.json_strings(names) == [json.dumps(x) for x in names]


@SETTINGS
@given(st.lists(st.text(alphabet=st.sampled_from("ab\nü\t "), max_size=4), min_size=1, max_size=6))
def test_record_names_decode_as_each_name_does(names):
    from dslc.lang.records import SeqPack
    from dslc.lang.stdlib import standard_alphabets
    from dslc.lang.values import Sequence
    from dslc.lang.records import record_names

    dna = standard_alphabets()["dna"]
    pack = SeqPack.of([Sequence(n, dna, np.zeros(1, np.uint8)) for n in names], dna)
    assert record_names(pack) == tuple(names)
