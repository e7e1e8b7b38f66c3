"""Uploading a map's database while the map is still being planned.

The first map of a large packed sequence buffer (a database read from FASTA)
copies it to the device before its first launch can run: 340 MB took about
0.04 s of a 0.25 s map on an H200, and it sat on the critical path after the
map's choice and launch cuts (about 0.05 s more, all host work). Neither needs
the other, so the copy starts on a thread as soon as the map is asked for
(:meth:`Ahead.start`), and the launch that first needs the buffer waits for it
(:meth:`Ahead.take`). The copy is pageable and synchronous on that thread, and
Numba's driver calls release the interpreter lock, so the planning runs
meanwhile; the copy runs on the device's default stream, which the map's own
streams wait for.

Only buffers of at least :data:`AHEAD_BYTES` go ahead: a small one costs less
to copy than a thread, and a small map may stay on the CPU. A buffer copied
ahead by a map that then runs on the CPU stays resident for the next map of
the same buffer, as any uploaded buffer does while it lives. An error on the
thread (out of device memory) is raised where the buffer is taken, as if the
launch had copied it itself.
"""

from __future__ import annotations

import weakref
from concurrent.futures import Future

import numpy as np

from dslc import workers

AHEAD_BYTES = 32 << 20


class Ahead:
    """Copies of packed buffers under way, by the buffer's id (one thread)."""

    def __init__(self, upload):
        """``upload(codes)``: the device copy of ``codes`` (run on the thread)."""
        self._upload = upload
        self._pending: dict[int, tuple[weakref.ref, Future]] = {}

    def start(self, codes: np.ndarray) -> None:
        """Begin copying ``codes`` unless it is small or already under way."""
        if codes.nbytes < AHEAD_BYTES or self._find(codes) is not None:
            return
        key = id(codes)  # (on the process's one upload thread, dslc.workers)
        self._pending[key] = (weakref.ref(codes), workers.pool("upload", 1).submit(
            self._upload, codes))
        weakref.finalize(codes, self._pending.pop, key, None)

    def take(self, codes: np.ndarray):
        """The device copy of ``codes`` if one was started (waiting for it), else None."""
        fut = self._find(codes)
        if fut is None:
            return None
        del self._pending[id(codes)]
        return fut.result()

    def _find(self, codes: np.ndarray) -> Future | None:
        hit = self._pending.get(id(codes))
        return hit[1] if hit is not None and hit[0]() is codes else None
