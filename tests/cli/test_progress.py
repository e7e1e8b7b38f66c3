"""The map progress bar: only on a terminal, only after two seconds, never with --quiet."""

from __future__ import annotations

import io

import dslc
from dslc import backends
from dslc.runtime.script import ScriptRunner


class FakeTty(io.StringIO):
    def isatty(self):
        return True


def runner(stream, quiet=False):
    prog = dslc.compile("int f(int n) = n\n", backend="interp")
    return ScriptRunner(prog.checked, backends.get("interp"), None, quiet=quiet,
                        progress_stream=stream)


def test_bar_after_two_seconds_on_a_terminal(monkeypatch):
    import dslc.runtime.script as script

    clock = iter([0.0, 0.5, 3.0, 6.0])
    monkeypatch.setattr(script.time, "monotonic", lambda: next(clock))
    stream = FakeTty()
    r = runner(stream)
    update = r._progress(10)
    update(1)          # 0.5 s: nothing yet
    assert stream.getvalue() == ""
    update(5)          # 3 s: the bar appears
    assert "5/10" in stream.getvalue() and "[" in stream.getvalue()
    r._progress_done()
    assert stream.getvalue().endswith("\n")


def test_no_bar_when_not_a_terminal_or_quiet():
    assert runner(io.StringIO())._progress(10) is None
    assert runner(FakeTty(), quiet=True)._progress(10) is None
