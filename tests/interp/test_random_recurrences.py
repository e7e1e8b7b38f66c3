"""Randomly generated recurrences: every backend equals the generator's own
direct evaluation (an oracle independent of dslc)."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from tests.generators import DIMS, dna, recurrences, same_outcome, whole_table


def _check(rec, seqs, backend):
    prog = dslc.compile(rec.source(), backend=backend)

    def run():
        table = prog.call("f0", *[x for s in seqs for x in (s,)])
        return {p: table[p] for p in itertools.product(*(range(len(s) + 1) for s in seqs))}

    same_outcome(run, lambda: whole_table(rec, seqs), (rec.source(), seqs))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(), data=st.data())
def test_interpreter_matches_direct_evaluation(rec, data):
    seqs = tuple(data.draw(dna(5)) for _ in range(rec.ndim))
    _check(rec, seqs, "interp")


@settings(max_examples=5, deadline=None)
@given(rec=recurrences())
def test_generated_source_names_its_dimensions(rec):
    src = rec.source()
    assert all(f"index[{s}] {d}" in src for s, d in zip("stu", DIMS[: rec.ndim]))
