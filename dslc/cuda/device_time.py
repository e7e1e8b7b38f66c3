"""The device's seconds in a map's launches, told apart from the kernel's compile
at its first launch (timings and benchmarks count them separately)."""

from __future__ import annotations




LAUNCH_S = 0.05  # a kernel launch is asynchronous: a call that blocks longer compiled


def busy_seconds(timers: list) -> float:
    """Seconds the device spent in the launches timed by ``timers`` (``(began,
    ended)`` event pairs): the union of their spans, each measured from the first
    event. Launches on two streams overlap, and summing each launch's own span
    counted the overlap twice: the same ten-million-task map on an H200 read 2.0 s
    of kernels summed in one run, 1.2 s as the union in the next."""
    if not timers:
        return 0.0
    ref = timers[0][0]
    spans = sorted((ref.elapsed_time(a), ref.elapsed_time(b)) for a, b in timers)
    busy, end = 0.0, float("-inf")
    for lo, hi in spans:
        if hi > end:
            busy += hi - max(lo, end)
            end = hi
    return busy / 1e3


def launch_compile_seconds(waits: list[float], simulated: bool) -> float:
    """Of the host's seconds inside each kernel launch call, those that were the
    kernel's compile (or its load from numba-cuda's cache) at its first launch:
    a launch returns at once otherwise. The device's events around the launch
    count that wait too, so it is moved from kernel seconds to compile seconds.
    In the simulator a launch runs the kernel itself: nothing is counted."""
    if simulated:
        return 0.0
    return sum(w for w in waits if w > LAUNCH_S)
