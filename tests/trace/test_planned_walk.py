"""The planned walk (dslc.trace.plan: step plans over fused expressions) and the plain
walk (``Tracer._follow``, node by node) give equal derivations, or the same error, on
random recurrences (tests/generators.py), with cells computed on demand and read off
whole filled tables under a max or min over the whole table (a search's entry)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from dslc.interp.backend import InterpBackend
from dslc.trace.run import TraceRunner
from tests.generators import dna, recurrences
from tests.trace.test_filled_tables import entry


def derive(prog, seqs, planned: bool, filled: bool):
    engine = prog._engine()  # (binds the script's globals first)
    fill = InterpBackend(prog.checked, prog._globals) if filled else None
    prog._trace_runner = TraceRunner(prog.checked, prog._globals, engine, fill,
                                     planned=planned)
    try:
        d = prog.trace("best", *seqs)
    except DslcError as e:
        return ("error", e.message)
    assert d.recompute() == [s.value for s in d.steps]
    return [(s, repr(s.seqs)) for s in d.steps]  # (sequences bound anew per call)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(max_dim=2, layered=True), op=st.sampled_from(["max", "min"]),
       filled=st.booleans(), data=st.data())
def test_planned_and_plain_walks_give_equal_derivations(rec, op, filled, data):
    seqs = tuple(data.draw(dna(5)) for _ in range(rec.ndim))
    source = rec.source() + entry(rec.ndim, op)
    prog = dslc.compile(source, backend="interp")
    planned = derive(prog, seqs, True, filled)
    assert planned == derive(prog, seqs, False, filled), source
