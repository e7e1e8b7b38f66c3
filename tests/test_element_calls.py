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


def test_explain_says_on_demand(capsys, write_bio):
    from tests.cli.test_errors import run_cli

    p = write_bio("""\
        const src = [0, 0, 1, 2, 1]
        const wt = [0, 4, 1, 2, 7]

        int dist(int e)
          | e == 0 = 0
          | otherwise = dist(src[e]) + wt[e]

        print dist(4)
        """)
    code, out, _ = run_cli(capsys, "explain", str(p))
    assert code == 0 and "NOT COMPILED" not in out, out
    assert "dist(?)" in out and "on demand" in out, out
