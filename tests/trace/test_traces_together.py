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
    fills = []
    whole_tables = dslc.cpu.tables.whole_tables

    def counted(cpu_, func, callings, span, description="", lazy=False):
        fills.append((func, len(callings)))
        return whole_tables(cpu_, func, callings, span, description, lazy)
    monkeypatch.setattr(dslc.cpu.tables, "whole_tables", counted)
    together = cpu.traces("sw", calls)
    assert fills == [("h", len(calls))]  # h, e and f of every call: one sweep each, one call
    fills.clear()
    one_by_one = [cpu.trace("sw", *c) for c in calls]
    assert fills == [("h", 1)] * len(calls)
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


def test_a_lazy_filling_gives_the_tables_of_the_eager_one():
    """``tables(..., lazy=True)``: each item, waited for alone (in any order, taken
    twice), holds the numbers the eager list holds."""
    import numpy as np

    from dslc.cpu.tables import Filling

    prog = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="cpu")
    calls = [("blosum62", 10, 1, q, r) for q, r in PAIRS]
    derivations = prog.traces("sw", calls)  # (plans the tables, as a search's hits do)
    assert len(derivations) == len(calls)
    runner = prog._trace_runner
    callings = [_calling_of(runner, c) for c in calls]
    cpu = runner.engine
    eager = cpu.tables("h", callings, None, "trace")
    lazy = cpu.tables("h", callings, None, "trace", lazy=True)
    assert isinstance(lazy, Filling) and len(lazy) == len(eager)
    for k in (2, 0, 1, 2):
        assert lazy[k].keys() == eager[k].keys()
        for name in eager[k]:
            assert np.array_equal(lazy[k][name].raw, eager[k][name].raw)


def _calling_of(runner, call) -> dict:
    """The calling arguments of ``h`` for a traced call of ``sw`` (its first table)."""
    from dslc.trace.run import _calling

    cf = runner.tracer.interp.functions["sw"]
    args = dict(zip([p.name for p in cf.tf.params], call))
    return _calling(runner._opened("sw", _bound(runner, cf, args), None, False))


def _bound(runner, cf, args):
    from dslc.runtime.binding import bind_call

    checked = runner.program
    return bind_call(checked.functions["sw"], [_value(checked, v) for v in args.values()],
                     checked, None)


def _value(checked, v):
    return checked.defined[v] if isinstance(v, str) and v in checked.defined else v
