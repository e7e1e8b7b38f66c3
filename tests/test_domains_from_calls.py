"""The domain of an undeclared ``int`` parameter follows every call of the task,
whichever comes first: a reduction that reads ``k(0)`` before ``k(n)``, a recursion
that reaches a state above the first call's. Drawn programs (tests/generators.py,
``growing_recurrences``) against their independent meaning and the interpreter on
every backend; the one error left, an upward recursion without end, says what to
declare."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.generators import growing_recurrences, outcome, strict_outcome


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(rec=growing_recurrences())
def test_every_call_widens_the_domain(backend, rec):
    src = rec.source()
    want = rec.evaluate()
    assert outcome(src, "interp") == want, src
    assert outcome(src, backend) == want, src


KADANE = """\
const a = [-2, 1, -3, 4, -1, 2, 1, -5, 4]

int k(int i)
  | i == 0 = a[0]
  | otherwise = a[i] max (k(i - 1) + a[i])

int best(int n) = max(i in 0 ... n - 1 : k(i))

print best(9)
print k(3)
"""


def test_a_reduction_from_zero_up(backend):
    """The reduction's first call, ``k(0)``, no longer fixes the domain at 0..0."""
    assert outcome(KADANE, backend) == [6, 4]


def test_an_upward_recursion_without_end_says_what_to_declare(capsys, write_bio):
    from dslc import settings as dslc_settings
    from tests.cli.test_errors import expect_error

    p = write_bio("""\
        int f(int n)
          | n > 1000000 = 0
          | otherwise = f(n + 1) + 1
        print f(0)
        """)
    try:
        err = expect_error(capsys, p, line=3, args=("run", "--backend", "interp", "--setting",
                                                    "DSLC_MAX_TABLE_BYTES=4800"),
                           contains=("would grow the table of f", "DSLC_MAX_TABLE_BYTES",
                                     "int n in 0 ... N"))
    finally:
        dslc_settings._OPTIONS.pop("DSLC_MAX_TABLE_BYTES", None)
    assert "Traceback" not in err


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(rec=growing_recurrences())
def test_a_reader_bounds_the_table_it_reads_compiled(backend, rec):
    """On a compiled backend the reader ``r(n)`` is compiled whole: the extents of
    ``h``'s undeclared parameters are what its calls reach for that ``n``
    (dslc.plan.reach), and ``DSLC_STRICT_COMPILE=1`` finds nothing to refuse."""
    if backend == "interp":
        return
    assert strict_outcome(rec.source(), backend) == rec.evaluate(), rec.source()
