"""Tables of ``bool`` values asked for a cell (subset sum, word break): compiled
on every compiled backend, the cell coming back as the bool it stands for (the
table holds 0 and 1). Drawn programs (tests/generators.py, ``bool_recurrences``)
against their independent meaning and the interpreter on every backend, under
``DSLC_STRICT_COMPILE=1`` on the compiled ones."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.generators import bool_recurrences, outcome, strict_outcome


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(rec=bool_recurrences())
def test_a_bool_cell_compiled(backend, rec):
    src, want = rec.source(), rec.evaluate()
    assert outcome(src, "interp") == want, src
    got = strict_outcome(src, backend)
    assert got == want and all(type(v) is bool for v in got), src
