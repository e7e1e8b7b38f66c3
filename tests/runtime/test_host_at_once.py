"""The host work of a large run done at once gives what the old per-value code
gave: an int result's text grid and JSON written by numpy (dslc.runtime.digits)
against the formatting of each cell; the compiled FASTA byte reader
(dslc.lang.fasta_scan) against a plain parse of random files (line widths,
blank and Windows lines, lower case, gzip); record names and a table's values
against their per-object conversions."""

from __future__ import annotations

import gzip
import json
import math

from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.errors import DslcError
from dslc.lang import fasta
from dslc.lang.records import RecordNames, SeqPack, record_names
from dslc.lang.results import Axis, MapResult, TableResult, to_array
from dslc.lang.stdlib import standard_alphabets
from dslc.runtime import cells, digits, render


SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
PROTEIN = standard_alphabets()["protein"]

_INT = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-12, 12),
                 st.sampled_from([-(2**63), 2**63 - 1, 2**32, -(2**32), 2**32 - 1, -(2**31)]))


@st.composite
def int_grids(draw):
    """An int result's values: int64, or float64 with infinities (an int map
    that reached one), 1 to 3 dimensions."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    size = int(np.prod(shape))
    if draw(st.booleans()):
        values = draw(st.lists(_INT, min_size=size, max_size=size))
        return np.array(values, dtype=np.int64).reshape(shape)
    small = st.one_of(st.integers(-(2**53), 2**53).map(float), st.sampled_from([math.inf,
                                                                                -math.inf]))
    return np.array(draw(st.lists(small, min_size=size, max_size=size))).reshape(shape)


def _axes(draw, arr) -> tuple[Axis, ...]:
    """Axes with no labels, labels (awkward, non-ASCII), numbered labels, or labels
    that are a FASTA file's record names (read from their packed bytes)."""
    out = []
    for k, n in enumerate(arr.shape):
        kind = draw(st.sampled_from(["none", "labels", "numbered", "records"]))
        labels = None if kind == "none" else tuple(
            ("" if kind == "numbered" and j == 0 else draw(st.text("ab ü%{", max_size=5)))
            for j in range(n))
        if kind == "records":
            raw = [x.encode("utf-8") for x in labels]
            ends = np.concatenate([[0], np.cumsum([len(x) for x in raw])]).astype(np.int64)
            labels = RecordNames(b"".join(raw), ends)
        out.append(Axis(f"x{k}", labels))
    return tuple(out)


def _old_grid2(arr, value_type, axes) -> str:
    """The two-dimensional grid as it was printed before: every cell's text
    (the per-value reference), right-aligned with ``str.rjust``."""
    rows, cols = arr.shape
    flat = render.text_cells_reference(arr, value_type)
    cells_ = [flat[r * cols:(r + 1) * cols] for r in range(rows)]
    rl, cl = render._labels(axes[0], rows), render._labels(axes[1], cols)
    numbered = axes[0].labels is not None and len(axes[0].labels) == rows and rl[0] == ""
    w = max([max(map(len, flat), default=0)] + [len(x) for x in cl] + [len(str(cols - 1))])
    corner = f"{axes[0].name}\\{axes[1].name}"
    rw = max([len(f"{k} {x}".strip()) for k, x in enumerate(rl)] + [len(corner)])
    lines = []
    if numbered or (axes[1].labels and len(axes[1].labels) == cols and cl[0] == ""):
        lines.append(" " * rw + "  " + " ".join(f"{k:>{w}}" for k in range(cols)))
    lines.append(f"{corner:>{rw}}  " + " ".join(x.rjust(w) for x in cl))
    for k in range(rows):
        lab = f"{k} {rl[k]}".strip() if numbered else rl[k]
        lines.append(f"{lab:>{rw}}  " + " ".join(x.rjust(w) for x in cells_[k]))
    return "\n".join(lines)


@SETTINGS
@given(st.data())
def test_int_grid_text_equals_each_cell_formatted(data):
    arr = data.draw(int_grids().filter(lambda a: a.ndim == 2))
    axes = _axes(data.draw, arr)
    assert digits.int_cells(arr, "int") is not None
    # (the heading and the body written a few cells at a time, as a wide map's are)
    at_once = data.draw(st.sampled_from([1, 2, 3, 7, 1 << 14]))
    with mock.patch.object(render, "_CELLS_AT_ONCE", at_once):
        lines = render._grid2(arr, "int", axes)
        assert "\n".join(map(render.line_text, lines)) == _old_grid2(arr, "int", axes)


@SETTINGS
@given(int_grids())
def test_int_result_json_equals_the_per_value_json(arr):
    result = MapResult("f", "int", arr, tuple(Axis(f"x{k}") for k in range(arr.ndim)))
    printed = [("m", result), ("n", 7), ("m", result)]
    want = json.dumps({"m": render._nested(arr, "int"), "n": 7,
                       "m (2)": render._nested(arr, "int")}, allow_nan=False)
    assert render.render_json(printed) == want


def test_whole_outputs_equal_those_with_every_fast_path_off(monkeypatch):
    """Text and JSON of int results (a 3-d table with infinities too) equal the
    outputs printed value by value, with this module's path and cells' off."""
    ints = np.array([[3, -1, 0], [2**53 + 1, 7, -(2**63)]], dtype=np.int64)
    cube = np.array([[[1.0, math.inf], [-math.inf, -40.0]]] * 2)
    printed = [("grid", MapResult("sw", "int", ints, (Axis("q", ("a", "é")), Axis("db")))),
               ("t", TableResult("d", "int", cube, (Axis("i"), Axis("j"), Axis("k"))))]
    fast = [render.render_text(printed), render.render_json(printed)]
    monkeypatch.setattr(digits, "int_cells", lambda *a, **k: None)
    for name in ("json_flat", "text_cells", "text_array"):
        monkeypatch.setattr(cells, name, lambda *a, **k: None)
    assert fast == [render.render_text(printed), render.render_json(printed)]


# ------------------------------------------------------------------ FASTA
_RESIDUES = "ACDEFGHIKLMNPQRSTVWYBZX*acdefghiklmnpqrstvwy"


@st.composite
def fasta_texts(draw) -> tuple[str, list[tuple[str, str]]]:
    """A FASTA text and its records (name, upper-case residues), wrapped at a
    random width, with blank lines, and Windows line ends or not."""
    records, lines = [], []
    width = draw(st.integers(1, 70))
    for k in range(draw(st.integers(1, 6))):
        name = draw(st.text("abXY_.|-09", max_size=8))
        desc = draw(st.sampled_from(["", " a description", "\tx y"]))
        seq = draw(st.text(_RESIDUES, max_size=150))
        lines.append(">" + name + (desc if name else ""))
        lines += [seq[j:j + width] for j in range(0, len(seq), width)]
        if draw(st.booleans()):
            lines.append("")
        records.append((name or f"record{k + 1}", seq.upper()))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return end.join(lines) + draw(st.sampled_from([end, ""])), records


@SETTINGS
@given(fasta_texts(), st.booleans(), st.integers(1, 300), st.booleans(), st.sampled_from([1, 3]))
def test_byte_reader_equals_a_plain_parse(tmp_path, monkeypatch, case, zipped, chunk, compiled,
                                          threads):
    """Read by the compiled pass (``compiled``) or by the same code as Python
    (what a small file gets); the compiled pass's blocks one at a time or
    several at once on threads."""
    text, want = case
    monkeypatch.setattr(fasta, "_COMPILED_FROM", -1 if compiled else 1 << 18)
    monkeypatch.setattr(fasta, "_READ_THREADS", threads)
    path = tmp_path / ("f.fa.gz" if zipped else "f.fa")
    data = text.encode()
    path.write_bytes(gzip.compress(data) if zipped else data)
    monkeypatch.setattr(fasta, "_CHUNK", chunk)
    packed = fasta._read_packed(str(path), PROTEIN, None)
    assert packed is not None  # a clean file is read by the compiled pass
    from dslc.lang.records import Records

    assert [(r.name, r.text) for r in Records(packed)] == want


@SETTINGS
@given(fasta_texts(), st.integers(0, 10**6), st.sampled_from("Jjo1#é\x01"), st.booleans(),
       st.sampled_from([1, 3]), st.integers(1, 300))
def test_a_stranger_is_reported_as_the_line_reader_reports_it(tmp_path, monkeypatch, case, at,
                                                              bad, compiled, threads, chunk):
    text, _ = case
    monkeypatch.setattr(fasta, "_COMPILED_FROM", -1 if compiled else 1 << 18)
    monkeypatch.setattr(fasta, "_READ_THREADS", threads)
    monkeypatch.setattr(fasta, "_CHUNK", chunk)
    seq_at = [k for k, line in enumerate(text.split("\n")) if line and line[0] != ">"]
    if not seq_at:
        return
    lines = text.split("\n")
    k = seq_at[at % len(seq_at)]
    col = at % (len(lines[k]) + 1)
    lines[k] = lines[k][:col] + bad + lines[k][col:]
    path = tmp_path / "bad.fa"
    path.write_bytes("\n".join(lines).encode())
    assert fasta._read_packed(str(path), PROTEIN, None) is None
    try:
        want = [(s.name, s.text) for s in fasta._read_lines(str(path), PROTEIN, None)]
    except DslcError as e:
        want = e.message
    try:
        got = [(s.name, s.text) for s in fasta.read_fasta(str(path), PROTEIN)]
    except DslcError as e:
        got = e.message
    assert got == want
    # (J, j, o: protein's stand-ins, read as X by the line reader; the rest: strangers)
    assert isinstance(got, str) == (bad not in "Jjo"), got


# ------------------------------------------------------------------ names, arrays
@SETTINGS
@given(st.lists(st.text("ab_ü|", max_size=5), min_size=1, max_size=8))
def test_record_names_equal_each_name_decoded(names):
    blobs = [n.encode() for n in names]
    ends = np.concatenate(([0], np.cumsum([len(b) for b in blobs]))).astype(np.int64)
    pack = SeqPack(PROTEIN, np.zeros(0, np.uint8), np.zeros(len(names) + 1, np.int64),
                   b"".join(blobs), ends)
    assert record_names(pack) == tuple(names)


@SETTINGS
@given(st.sampled_from([np.int64, np.int32, np.uint8, np.float64, np.float32, np.bool_]),
       st.sampled_from(["int", "float", "prob", "bool"]),
       st.lists(st.integers(-100, 100), min_size=1, max_size=12))
def test_a_tables_array_converts_as_the_list_of_its_cells(dtype, value_type, values):
    arr = np.array(values).astype(dtype)
    fast, slow = to_array(arr, value_type), to_array(list(arr.ravel()), value_type)
    assert fast.dtype == slow.dtype and fast.tobytes() == slow.tobytes()
