"""A map's tasks, sorted largest first, dealt so that every thread gets a share of
every size (dslc.cpu.modules.dealt).

Numba's ``prange`` on its OpenMP and workqueue layers gives each thread one
contiguous block of the iterations whatever ``set_parallel_chunksize`` says, so the
premise is tested too: if a Numba release changes how it splits a loop, the first
test says so before the second's balance can quietly go."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dslc.cpu.modules import dealt


@numba.njit(parallel=True)
def _owners(order, out):
    for n in numba.prange(len(order)):
        out[order[n]] = numba.get_thread_id()


def _static_blocks(n: int, threads: int) -> list[range]:
    """The iterations each thread takes in a static split: contiguous, the first
    ``n % threads`` blocks one longer."""
    base, extra = divmod(n, threads)
    blocks, at = [], 0
    for t in range(threads):
        size = base + (t < extra)
        blocks.append(range(at, at + size))
        at += size
    return blocks


@pytest.mark.parametrize("n", [2, 5, 16, 17, 101])
def test_a_prange_loop_gives_each_thread_one_contiguous_block(n):
    threads = numba.get_num_threads()
    if threads < 2:
        pytest.skip("one thread: nothing is split")
    previous = numba.set_parallel_chunksize(2)  # as a map's batch runs: no effect on the split
    try:
        out = np.full(n, -1, dtype=np.int64)
        _owners(np.arange(n, dtype=np.int64), out)
    finally:
        numba.set_parallel_chunksize(previous)
    if n < threads:
        assert sorted(out.tolist()) == sorted(set(out.tolist()))  # one iteration each
        return
    for block in _static_blocks(n, threads):
        assert len(set(out[list(block)].tolist())) == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 10_000), min_size=1, max_size=300), st.integers(1, 16))
def test_dealt_blocks_hold_every_task_once_and_balance_the_sizes(sizes, threads):
    costs = np.array(sorted(sizes, reverse=True), dtype=np.int64)
    order = np.argsort(-costs, kind="stable").astype(np.int64)
    got = dealt(order, threads)
    assert sorted(got.tolist()) == list(range(len(costs)))  # a permutation
    if len(costs) <= threads:
        return
    loads = [int(costs[got[list(b)]].sum()) for b in _static_blocks(len(got), threads)]
    # round-robin from largest first: two blocks differ by at most the largest task
    assert max(loads) - min(loads) <= int(costs.max())
