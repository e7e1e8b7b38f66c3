"""Randomly generated recurrences: every backend equals the generator's own
direct evaluation (an oracle independent of dslc)."""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from tests.generators import (DIMS, check_layered, check_ranged, dna, layered,
                              ranged_recurrences, recurrences, same_outcome, whole_table)


def _check(rec, seqs, backend):
    prog = dslc.compile(rec.source(), backend=backend)

    def run():
        table = prog.call("f0", *[x for s in seqs for x in (s,)])
        return {p: table[p] for p in itertools.product(*(range(len(s) + 1) for s in seqs))}

    same_outcome(run, lambda: whole_table(rec, seqs), (rec.source(), seqs))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(layered=True), data=st.data())
def test_interpreter_matches_direct_evaluation(rec, data):
    seqs = tuple(data.draw(dna(5)) for _ in range(rec.ndim))
    _check(rec, seqs, "interp")


@settings(max_examples=5, deadline=None)
@given(rec=recurrences())
def test_generated_source_names_its_dimensions(rec):
    src = rec.source()
    assert all(f"index[{s}] {d}" in src for s, d in zip("stu", DIMS[: rec.ndim]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=ranged_recurrences(), n=st.integers(0, 4))
def test_declared_ranges_match_direct_evaluation(rec, n):
    """Recurrences over declared int ranges (boxes, triangles, bands, bounds mixing
    the calling n with a recursive parameter): whole tables, cells and calls outside."""
    check_ranged(rec, n, "interp")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lay=layered(), s=dna(4), t=dna(4))
def test_several_groups_on_the_interpreter_match_direct_evaluation(lay, s, t):
    """Groups reading each other's tables at cells and ranges, helpers in guards and
    coordinates, a float const: the interpreter equals the generator's meaning."""
    check_layered(lay, s, t, "interp", lambda n, i, j: lay.evaluate(s, t, n, i, j))
