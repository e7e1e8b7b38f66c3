"""Several calls traced together (``Program.traces``, a search's top hits): every
call's tables come from one backend call, each sweep filling all the tables of its
group, and the derivations are those of the calls traced one by one, and the
interpreter's (one Numba compile here)."""

from __future__ import annotations

import dslc
import dslc.cpu.tables
from tests.conftest import EXAMPLES

PAIRS = [("MKVLAAGIVGLLLAGCSSHKEE", "HKKLTIENCPVHELEDEIEKE"),
         ("HKKLTIENCPVHELEDEIEKE", "MKVLAAGIVGLLLAG"),
         ("MKVLAAGIVGLL", "MKVLAAGIVGLLLAGCSSHKEEAAGIV")]


def test_traces_together_equal_traces_one_by_one(monkeypatch):
    path = str(EXAMPLES / "smith_waterman.bio")
    cpu, interp = dslc.compile(path, backend="cpu"), dslc.compile(path, backend="interp")
    calls = [("blosum62", 10, 1, q, r) for q, r in PAIRS]
    fills = _counted_fills(monkeypatch)
    together = cpu.traces("sw", calls)
    # h, e and f of every call: one sweep each, one call
    assert [f[1:] for f in fills] == [("h", len(calls))]
    fills.clear()
    one_by_one = [cpu.trace("sw", *c) for c in calls]
    assert [f[1:] for f in fills] == [("h", 1)] * len(calls)
    want = [interp.trace("sw", *c) for c in calls]
    assert [d.steps for d in together] == [d.steps for d in one_by_one] \
        == [d.steps for d in want]
    assert [str(cpu.align(d)) for d in together] == [str(interp.align(d)) for d in want]
    assert all(d.recompute() == [s.value for s in d.steps] for d in together)


def test_cells_beyond_exact_numbers_are_the_interpreter_s():
    """Compiled tables are numbers converted as the walk reads them: a cell whose
    number is not its exact value (an int beyond 2^53) is computed by the
    interpreter instead, and the row maxima of the entry's block fall back to the
    cells' values."""
    src = ("int g(seq[dna] s, index[s] i, seq[dna] t, index[t] j)\n"
           "  | i == 0 or j == 0 = 9007199254740000\n"
           "  | otherwise = g(i - 1, j) + 1 max g(i, j - 1) + 2 max g(i - 1, j - 1)\n"
           "int best(seq[dna] s, seq[dna] t) =\n"
           "    max(i in 0 ... len(s) : max(j in 0 ... len(t) : g(i, j)))\n")
    cpu, interp = dslc.compile(src, backend="cpu"), dslc.compile(src, backend="interp")
    calls = [("ACGTACGTAC", "ACGTTGCA"), ("ACG", "TTGCAAC")]
    got, want = cpu.traces("best", calls), [interp.trace("best", *c) for c in calls]
    assert [d.value for d in got] == [9007199254740025, 9007199254740016]
    assert [d.steps for d in got] == [d.steps for d in want]


def _counted_fills(monkeypatch) -> list:
    """``(backend class, function, bindings)`` of every call of whole_tables from now."""
    fills = []
    whole_tables = dslc.cpu.tables.whole_tables

    def counted(cpu_, func, callings, span, description="", after=None):
        fills.append((type(cpu_).__name__, func, len(callings)))
        return whole_tables(cpu_, func, callings, span, description, after)
    monkeypatch.setattr(dslc.cpu.tables, "whole_tables", counted)
    return fills


def test_a_gpu_run_fills_its_traceback_tables_on_its_cpu_backend(monkeypatch):
    """The CUDA backend computes one table as one large problem: a trace of a run on
    it fills its hits' tables on its own CPU backend instead, together, and walks them
    by compiled code, as a CPU run does."""
    path = str(EXAMPLES / "smith_waterman.bio")
    gpu, interp = dslc.compile(path, backend="cuda"), dslc.compile(path, backend="interp")
    calls = [("blosum62", 10, 1, q, r) for q, r in PAIRS]
    fills = _counted_fills(monkeypatch)
    got = gpu.traces("sw", calls)
    assert fills == [("CpuBackend", "h", len(calls))]
    assert gpu._trace_runner.tracer.walks is not None  # (compiled walks, as on the CPU)
    want = [interp.trace("sw", *c) for c in calls]
    assert [d.steps for d in got] == [d.steps for d in want]
    assert [str(gpu.align(d)) for d in got] == [str(interp.align(d)) for d in want]


def test_a_trace_on_auto_fills_on_its_cpu_backend():
    """``auto`` (chosen on a GPU machine) keeps a CPU backend as the CUDA backend
    does; a trace of a run on it fills and walks there."""
    from dslc.auto import AutoBackend
    from dslc.runtime.shipped import backend_globals
    from dslc.trace.run import TraceRunner

    prog = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="cpu")
    auto = AutoBackend(prog.checked, backend_globals(prog.checked))
    runner = TraceRunner(prog.checked, backend_globals(prog.checked), auto)
    assert runner.engine is auto.cpu and runner.tracer.walks is not None
