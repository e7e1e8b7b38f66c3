"""A traceback's tables filled in a process of its own (dslc.runtime.fill_process,
``DSLC_TRACE_FILL=process``): the derivations are those the run's own threads give
and the interpreter's; until the child is ready, or once it is gone, the parent
fills them itself; a segment the parent still reads is never written again."""

from __future__ import annotations

import time

import numpy as np
import pytest

import dslc
from dslc import settings
from dslc.runtime import fill_process
from tests.conftest import EXAMPLES

CALLS = [("blosum62", 10, 1, q, r) for q, r in [
    ("MKVLAAGIVGLLLAGCSSHKEE", "HKKLTIENCPVHELEDEIEKE"),
    ("HKKLTIENCPVHELEDEIEKE", "MKVLAAGIVGLLLAG"),
    ("MKVLAAGIVGLL", "MKVLAAGIVGLLLAGCSSHKEEAAGIV"),
    ("WWHKKLTIENCPV", "MKVLAAGIVGLLLAGCSSHKEE"),
    ("GCSSHKEEAAGIVHKKL", "LTIENCPVHELEDE")]]


@pytest.fixture
def process_fill():
    settings.use({"DSLC_TRACE_FILL": "process"})
    try:
        yield
    finally:
        settings._OPTIONS.pop("DSLC_TRACE_FILL", None)


def _ready(fills, seconds: float = 180.0) -> None:
    end = time.monotonic() + seconds
    while not fills.ready():
        assert fills.why == "", fills.why
        assert time.monotonic() < end, "the fill process never said it was ready"
        time.sleep(0.05)


def test_the_process_is_not_started_by_default():
    prog = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="cpu")
    prog.traces("sw", CALLS[:2])
    assert prog._trace_runner.fills is None


def test_tables_filled_in_a_process_give_the_same_derivations(process_fill):
    path = str(EXAMPLES / "smith_waterman.bio")
    cpu, interp = dslc.compile(path, backend="cpu"), dslc.compile(path, backend="interp")
    first = cpu.traces("sw", CALLS[:2])  # the child starts: these are filled here
    fills = cpu._trace_runner.fills
    assert fills is not None and fills.filled == 0
    _ready(fills)
    runner = cpu._trace_runner
    runner.chunk = 2  # several chunks: both segments, each written again
    got = [cpu.traces("sw", CALLS)]
    mapped = fills.mapped
    got += [cpu.traces("sw", CALLS) for _ in range(2)]
    assert fills.filled == 3 * 4  # chunks of 2, 2 and 1 (one call's walk fills its own)
    assert fills.mapped == mapped  # segments read and released are written again
    want = [interp.trace("sw", *c) for c in CALLS]
    for derivations in got:
        assert [d.steps for d in derivations] == [d.steps for d in want]
        assert [str(cpu.align(d)) for d in derivations] == [str(interp.align(d)) for d in want]
    assert [d.steps for d in first] == [d.steps for d in want[:2]]


def test_a_child_that_is_gone_leaves_the_fill_to_the_parent(process_fill):
    cpu = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="cpu")
    cpu.traces("sw", CALLS[:2])
    fills = cpu._trace_runner.fills
    _ready(fills)
    fills._process.kill()
    fills._process.wait()
    got = cpu.traces("sw", CALLS)
    assert fills.ready() is False and fills.why
    interp = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="interp")
    assert [d.steps for d in got] == [interp.trace("sw", *c).steps for c in CALLS]


def test_a_segment_still_read_is_not_written_again(process_fill):
    """Arrays the parent still holds over a segment keep their numbers: the child
    writes the next chunk for that segment into a new one."""
    cpu = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="cpu")
    cpu.traces("sw", CALLS[:2])
    runner = cpu._trace_runner
    fills = runner.fills
    _ready(fills)
    bound = [runner._opened("sw", *_bound(cpu, c)) for c in CALLS]
    callings = [{n: t.env[n] for n in t.func.calling_names} for t in bound]
    held = fills.tables("h", callings[:2], None, runner.tracer.reads)
    kept = [{n: t.raw.copy() for n, t in got.items()} for got in held]
    for _ in range(2 * fill_process.SEGMENTS):
        assert fills.tables("h", callings[2:], None, runner.tracer.reads) is not None
    for got, copy in zip(held, kept):
        for name, numbers in got.items():
            assert np.array_equal(numbers.raw, copy[name])


def _bound(cpu, call):
    from dslc.api import _trace_call

    bound, final = _trace_call(cpu, "sw", call)
    return bound, None, final
