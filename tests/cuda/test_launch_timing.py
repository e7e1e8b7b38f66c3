"""Kernel seconds from launch events: overlapping launches counted once."""

from hypothesis import given, settings, strategies as st

from dslc.cuda.backend import busy_seconds


class _Event:
    """A recorded event at ``ms`` milliseconds (what elapsed_time needs)."""

    def __init__(self, ms: float):
        self.ms = ms

    def elapsed_time(self, later: "_Event") -> float:
        return later.ms - self.ms


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(0, 20)), min_size=1, max_size=8))
def test_busy_seconds_is_the_union_of_the_launch_spans(spans):
    timers = [(_Event(a), _Event(a + n)) for a, n in spans]
    timers.sort(key=lambda t: t[0].ms)  # launches are timed in the order they are made
    covered = {ms for a, n in spans for ms in range(a, a + n)}  # whole milliseconds
    assert abs(busy_seconds(timers) - len(covered) / 1e3) < 1e-9


def test_no_launch_no_seconds():
    assert busy_seconds([]) == 0.0
