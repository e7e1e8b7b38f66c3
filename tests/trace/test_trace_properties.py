"""Random recurrences (tests/generators.py): every derivation agrees with the
generator's own meaning, and recomputed from its steps gives the cells' values."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.generators import check_derivation, dna, recurrences


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(layered=True), data=st.data())
def test_derivations_of_random_recurrences_recompute_to_their_cells(rec, data):
    seqs = tuple(data.draw(dna(6, min_len=2)) for _ in range(rec.ndim))
    lo, hi = rec.margins()
    point = tuple(data.draw(st.integers(min(m, len(s)), max(m, len(s) - h)))
                  for s, m, h in zip(seqs, lo, hi))
    check_derivation(rec, seqs, point)
