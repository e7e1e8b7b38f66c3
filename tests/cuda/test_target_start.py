"""Numba-CUDA's set-up on a thread (dslc.cuda.target_start): the first launch
waits for it before it loads or dispatches a kernel, and a set-up that fails
leaves the launch to make the same calls itself."""

from __future__ import annotations

import dslc
from dslc.cuda import backend as cb
from dslc.cuda import target_start
from dslc.cuda.target_start import TargetStart
from tests.reference import edit_distance

EDIT = """
define alphabet dna "ACGT"
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
    if i == 0 then j else if j == 0 then i
    else (d(i - 1, j) + 1) min (d(i, j - 1) + 1)
         min (d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1))
"""


def test_a_launch_waits_for_the_set_up_before_it_loads_a_kernel(monkeypatch):
    events = []
    monkeypatch.setattr(TargetStart, "wait", lambda self: events.append("wait"))
    load = cb.modules.load
    monkeypatch.setattr(cb.modules, "load", lambda *a, **k: events.append("load") or load(*a, **k))
    prog = dslc.compile(EDIT, backend="cuda")
    xs, ys = ["ACGT", "GA", "T"], ["AGT", "GGA"]
    got = prog.map("d", xs, ys).values.tolist()
    assert got == [[edit_distance(x, y) for y in ys] for x in xs]
    assert events and events[0] == "wait" and "load" in events


def test_a_set_up_that_fails_is_silent_and_started_once(monkeypatch):
    from numba import cuda

    def no_device():
        raise RuntimeError("no device")
    with monkeypatch.context() as m:
        m.setattr(cuda, "current_context", no_device)
        target_start._set_up()  # the error stays here: the launch reports its own
    calls = []
    monkeypatch.setattr(target_start, "_set_up", lambda: calls.append(1))
    t = TargetStart()
    t.start(), t.start(), t.wait()
    assert calls == [1]
    TargetStart().wait()  # never started: nothing to wait for
