"""Declared ranges whose bounds are related (``k in 0 ... n``, ``i in 0 ... n - 1``)
and calls that move one parameter into another's dimension (Floyd-Warshall's
``d(k - 1, k - 1, j)``): the compiled backends prove those calls inside from what
the extents are to each other (dslc.deps.ranges.bound_relations) and compile the
table and its reader whole. Drawn programs (tests/generators.py,
``crossed_recurrences``) against their independent meaning and the interpreter on
every backend, under ``DSLC_STRICT_COMPILE=1`` on the compiled ones."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.generators import crossed_recurrences, outcome, strict_outcome


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(rec=crossed_recurrences())
def test_crossed_calls_inside_related_ranges(backend, rec):
    src, want = rec.source(), rec.evaluate()
    assert outcome(src, "interp") == want, src
    assert strict_outcome(src, backend) == want, src
