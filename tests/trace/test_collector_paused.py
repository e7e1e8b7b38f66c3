"""Tracebacks and alignments run with Python's cyclic collector paused
(dslc.trace.collector): the pause ends as it began, also when the traceback or the
alignment fails, a caller's own disabled collector stays disabled, and the
derivations are those made with the collector running (interpreter only: no
compile)."""

from __future__ import annotations

import gc

import pytest

import dslc
from dslc.errors import DslcError
from dslc.trace import derive
from dslc.trace.collector import collector_paused
from tests.conftest import EXAMPLES

CALLS = [("blosum62", 10, 1, "MKVLAAGIVGLL", "MKVLAAGCSSHKEE"),
         ("blosum62", 10, 1, "HKKLTIENCPV", "HKKLTENCPVHE")]


@pytest.fixture
def collector():
    """The collector enabled, and left as the test found it."""
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_pause_restores_the_collector_as_it_was(collector):
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # (nested: the outer pause still holds)
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), collector_paused():
        1 / 0
    assert gc.isenabled()
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()  # a caller's disabled collector stays disabled


def test_traces_pause_the_collector_and_give_the_same_derivations(collector, monkeypatch):
    prog = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="interp")
    seen = []
    walk = derive.Tracer.derive

    def watched(self, *a, **k):
        seen.append(gc.isenabled())
        return walk(self, *a, **k)
    monkeypatch.setattr(derive.Tracer, "derive", watched)
    paused = prog.traces("sw", CALLS)
    assert seen == [False, False] and gc.isenabled()
    alignments = [str(prog.align(d)) for d in paused]
    assert gc.isenabled()
    gc.disable()
    running = prog.traces("sw", CALLS)
    assert not gc.isenabled()
    gc.enable()
    assert [d.steps for d in paused] == [d.steps for d in running]
    assert alignments == [str(prog.align(d)) for d in running]


def test_a_failed_traceback_or_alignment_ends_the_pause(collector, monkeypatch):
    prog = dslc.compile("int f(int n) = n + 1\n", backend="interp")
    with pytest.raises(DslcError):
        prog.align(prog.trace("f", 3))  # (a derivation over no sequence: no alignment)
    assert gc.isenabled()
    prog = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="interp")

    def fails(self, *a, **k):
        assert not gc.isenabled()
        raise DslcError("the walk failed")
    monkeypatch.setattr(derive.Tracer, "derive", fails)
    with pytest.raises(DslcError, match="the walk failed"):
        prog.traces("sw", CALLS)
    assert gc.isenabled()
