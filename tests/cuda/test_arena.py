"""The device memory a map's launches reuse (dslc.cuda.arena), in the simulator."""

import numpy as np
from numba import cuda

from dslc.cuda.arena import ALIGN, Arena, MapMemory


def test_a_launch_after_reset_reuses_the_arena_and_gets_its_own_values():
    arena = Arena(cuda, 0)
    a = arena.put(np.arange(10, dtype=np.int64))
    b = arena.empty((3, 4), np.float32)
    b.copy_to_device(np.ones((3, 4), dtype=np.float32))
    assert a.copy_to_host().tolist() == list(range(10))
    assert b.shape == (3, 4) and b.dtype == np.float32
    assert b.copy_to_host().tolist() == [[1.0] * 4] * 3
    held = arena.held
    arena.reset()  # one buffer of what the first launch used
    assert len(arena._chunks) == 1 and arena.held >= 10 * 8 + 12 * 4
    held = arena.held
    c = arena.put(np.arange(5, dtype=np.int64) * 7)
    d = arena.empty(6, np.float64)
    assert c.copy_to_host().tolist() == [0, 7, 14, 21, 28]
    assert d.shape == (6,)
    assert arena.held == held  # nothing allocated: the launch fitted


def test_a_larger_launch_grows_the_arena_once():
    arena = Arena(cuda, 0)
    arena.empty(100, np.uint8)
    arena.reset()
    small = arena.held
    x = arena.put(np.full(5000, 3, dtype=np.int32))  # more than the arena holds
    assert arena.held > small and x.copy_to_host().tolist() == [3] * 5000
    arena.reset()
    assert len(arena._chunks) == 1 and arena.held >= 5000 * 4 + ALIGN
    grown = arena.held
    arena.put(np.zeros(5000, dtype=np.int32))
    assert arena.held == grown


def test_map_memory_keeps_positions_and_a_pinned_array_big_enough():
    memory = MapMemory(cuda)
    assert memory.iota(5).copy_to_host().tolist() == [0, 1, 2, 3, 4]
    assert memory.iota(3).copy_to_host().tolist() == [0, 1, 2]
    assert memory.pinned((4, 2)).shape == (4, 2)
    assert memory.pinned(7).shape == (7,)
