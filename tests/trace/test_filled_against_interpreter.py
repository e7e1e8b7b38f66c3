"""Traces over tables the CPU backend filled, many calls at a time, against the
interpreter's (the specification): random recurrences under an entry that takes the
extreme of a whole table with its own outer and inner operators
(tests/trace/test_filled_tables.py's ``entry``), so that the read a
walk makes of a whole table is learned and then made where later tables are filled
(dslc.trace.ahead), and a chosen row is converted alone (dslc.trace.ahead.OneByOne); and a
program whose values float64 cannot decide (ints past 2^53), where every such
shortcut must give way to the interpreter's exact values."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from tests.generators import dna, recurrences
from tests.trace.test_compiled_walk import BIG
from tests.trace.test_filled_tables import entry


def traced(prog, func: str, calls: list, chunk: int = 0):
    """Every call's steps and text, the calls traced together (a chunk at a time,
    after one trace has taught the tracer its reads), or the error."""
    try:
        if chunk:
            prog.trace(func, *calls[0])
            prog._trace_runner.chunk = chunk
        got = prog.traces(func, calls)
    except DslcError as e:
        return ("error", e.message)
    for d in got:
        assert d.recompute() == [s.value for s in d.steps]
    return [([(s.func, s.point, s.value, s.choices, s.children) for s in d.steps], d.text())
            for d in got]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(max_dim=2, layered=True),
       ops=st.lists(st.sampled_from(["max", "min"]), min_size=2, max_size=2), data=st.data())
def test_filled_traces_of_random_recurrences_are_the_interpreters(rec, ops, data):
    calls = [tuple(data.draw(dna(7)) for _ in range(rec.ndim)) for _ in range(5)]
    source = rec.source() + entry(rec.ndim, ops)
    want = traced(dslc.compile(source, backend="interp"), "best", calls)
    assert traced(dslc.compile(source, backend="cpu"), "best", calls, chunk=2) == want, source


def test_values_float64_cannot_decide_are_traced_as_the_interpreter_does():
    calls = [(2**53 - 3, s, t) for s, t in (("ACGTA", "AGGT"), ("AAC", "ACAC"),
                                              ("GATTACA", "GCA"))]
    want = traced(dslc.compile(BIG, backend="interp"), "best", calls)
    assert traced(dslc.compile(BIG, backend="cpu"), "best", calls, chunk=2) == want
