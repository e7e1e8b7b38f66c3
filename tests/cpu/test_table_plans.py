"""A whole table is planned once for the widest binding seen (dslc.cpu.backend,
``_table_plan_scope``): tables of shorter sequences run on that plan and still equal
the generator's oracle, cell for cell (what a traceback of a search's hits relies on:
one plan for many lengths)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from tests.generators import dna, recurrences, same_outcome, whole_table

pytestmark = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                                reason="numba/islpy not installed")


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(max_dim=2, layered=True), data=st.data())
def test_tables_of_shorter_sequences_run_on_the_widest_plan(rec, data):
    wide = tuple(data.draw(dna(6, min_len=4)) for _ in range(rec.ndim))
    bindings = [wide] + [tuple(data.draw(dna(len(s))) for s in wide) for _ in range(2)]
    prog = dslc.compile(rec.source(), backend="cpu")
    engine = prog._engine()
    for seqs in bindings:
        def table(seqs=seqs):
            t = prog.call("f0", *seqs)
            return {p: t[p] for p in itertools.product(*(range(len(s) + 1) for s in seqs))}
        same_outcome(table, lambda seqs=seqs: whole_table(rec, seqs), (rec.source(), seqs))
    plans = [k for k in engine._memo if k[:2] == ("f0", "table")]
    assert len(plans) <= 1, plans
