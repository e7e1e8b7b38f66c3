"""A recursive argument that is an element of a constant array (``dist(src[e])``,
parent pointers pointing up or down the index order) is ordered by no affine
schedule: compiled backends evaluate its cells on demand, in the order the
array's values give, as the interpreter does. Drawn programs (tests/generators.py,
``pointer_recurrences``) against their independent meaning and the interpreter on
every backend, under ``DSLC_STRICT_COMPILE=1`` on the compiled ones."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.generators import pointer_recurrences, outcome, strict_outcome


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(rec=pointer_recurrences())
def test_array_element_calls_on_demand(backend, rec):
    src, want = rec.source(), rec.evaluate()
    assert outcome(src, "interp") == want, src
    assert strict_outcome(src, backend) == want, src
