"""Derivations read off whole filled tables (what a compiled backend gives the walk,
with a max over a whole table read as one slice) equal those computed cell by cell on
demand, on random recurrences (tests/generators.py) under a max or min over their
whole table (a search's entry point). Tables are filled by the interpreter's own
``table``, so that no Numba compile is needed."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from dslc.interp.backend import InterpBackend
from dslc.trace.run import TraceRunner
from tests.generators import dna, recurrences

SEQS, INDEXES = ("s", "t"), ("i", "j")


def entry(ndim: int, op) -> str:
    """``best``: the extreme of ``f0`` over its whole table (nested reductions):
    ``op`` over every index, or ``op[k]`` over the k-th (a list: outer first)."""
    ops = [op] * ndim if isinstance(op, str) else list(op)
    params = ", ".join(f"seq[dna] {s}" for s in SEQS[:ndim])
    body = f"f0({', '.join(INDEXES[:ndim])})"
    for s, i, o in reversed(list(zip(SEQS[:ndim], INDEXES[:ndim], ops))):
        body = f"{o}({i} in 0 ... len({s}) : {body})"
    return f"\nint best({params}) = {body}\n"


def derive(prog, seqs, filled: bool):
    if filled:
        engine = prog._engine()  # (binds the script's globals first)
        prog._trace_runner = TraceRunner(prog.checked, prog._globals, engine,
                                         InterpBackend(prog.checked, prog._globals))
    try:
        return prog.trace("best", *seqs).steps
    except DslcError as e:
        return ("error", e.message)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(max_dim=2, layered=True), op=st.sampled_from(["max", "min"]),
       data=st.data())
def test_filled_tables_give_the_on_demand_derivation(rec, op, data):
    seqs = tuple(data.draw(dna(5)) for _ in range(rec.ndim))
    source = rec.source() + entry(rec.ndim, op)
    on_demand = derive(dslc.compile(source, backend="interp"), seqs, False)
    filled = derive(dslc.compile(source, backend="interp"), seqs, True)
    assert filled == on_demand, source
