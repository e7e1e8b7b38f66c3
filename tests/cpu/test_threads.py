"""Launches run on threads over chunks of a map's order (dslc.cpu.threads): every
iteration once, whatever the number of threads, and a chunk's error raised to the
caller only after every thread has stopped writing."""

from __future__ import annotations

import threading
import time

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dslc.cpu.threads import run_chunks
from dslc.targets.printer import ThreadedPrinter


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 300), st.integers(1, 6))
def test_chunks_cover_every_iteration_once(n, threads):
    seen = np.zeros(n, dtype=np.int64)
    lock = threading.Lock()

    def call(a, b):
        assert 0 <= a < b <= n
        with lock:
            seen[a:b] += 1
    run_chunks(n, call, threads)
    assert seen.tolist() == [1] * n


def test_chunks_are_handed_out_in_order():
    """The order is largest first: a chunk starting later is never taken before
    one starting earlier."""
    starts = []
    lock = threading.Lock()

    def call(a, b):
        with lock:
            starts.append(a)
    run_chunks(1000, call, 4)
    assert starts == sorted(starts)


def test_an_error_is_raised_after_every_thread_stopped():
    running = []
    lock = threading.Lock()
    done = []

    def call(a, b):
        with lock:
            running.append(a)
        if a == 0:
            raise ZeroDivisionError("first chunk")
        time.sleep(0.01)
        with lock:
            done.append(a)
    with pytest.raises(ZeroDivisionError, match="first chunk"):
        run_chunks(400, call, 3)
    settled = list(done)
    time.sleep(0.05)
    assert done == settled  # nothing still writing after the error came back
    assert len(running) < 10  # of 45 chunks: none taken once the error was seen


def test_the_launch_is_serial_and_releases_the_gil():
    pr = ThreadedPrinter()
    assert "nogil=True" in pr.KERNEL and "parallel" not in pr.KERNEL
    assert pr.tasks_loop("n", "len(order)", True) == "for n in range(len(order)):"
    assert numba.get_num_threads() >= 1
