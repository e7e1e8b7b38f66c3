"""Device memory that a map's launches on one stream reuse.

A large map runs in tens of launches, each needing its task storage, its
result row and small per-task arrays (lengths, bases). Allocated per launch,
every one of those is a ``cuMemAlloc`` and, once the launch is done, a
``cuMemFree``; Numba defers frees and then releases them in batches, and a
free waits for the whole device, so the host stopped behind the kernels it was
meant to overlap (0.6 s of a 4.5 s ten-million-task map on an H100). An
:class:`Arena` keeps one buffer per stream and hands out views of it: a
launch's arrays are carved from the start again once the stream's previous
launch has finished (:meth:`Arena.reset`, which the caller calls after
synchronising that stream). It grows only when a launch needs more than any
before it on that stream (a piece of its own for each array that does not
fit); the pieces of a launch that outgrew it stay alive until the next reset,
then become one buffer of the total size. The backend counts what the arenas
hold as free when it sizes a map's launches, so keeping them never shrinks a
later map's launches, and the arenas grow only to what one launch needs.

Why not a pool library (RMM, CuPy's pool plugged in as Numba's memory
manager): either is a large dependency for what is here a bump allocator with
one reset point, and a process-wide manager would also change how every other
array of the run is freed.
"""

from __future__ import annotations

import math

import numpy as np

ALIGN = 256  # bytes: every carved array starts on a line of its own


class Arena:
    """Views of device buffers for the launches of one stream (see the module)."""

    def __init__(self, cuda, stream):
        self._cuda = cuda
        self._stream = stream
        self._chunks: list = []  # device uint8 buffers; the last is being carved
        self._used = 0  # bytes of the last chunk handed out
        self._total = 0  # bytes handed out since the last reset, over every chunk
        self._hosts: list = []  # host arrays put since the last reset: alive until copied

    def reset(self) -> None:
        """Everything carved before may be overwritten: the stream's previous
        launch has finished. Pieces a launch outgrew become one buffer (the old
        ones let go first: Numba frees what is pending when an allocation fails)."""
        if len(self._chunks) > 1:
            need, self._chunks = self._total, []
            self._chunks = [self._new(need)]
        self._used = self._total = 0
        self._hosts = []

    @property
    def held(self) -> int:
        """Bytes of device memory this arena keeps."""
        return sum(c.size for c in self._chunks)

    def empty(self, shape, dtype):
        """A C-contiguous device array of ``shape`` and ``dtype``, contents undefined."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        dtype = np.dtype(dtype)
        size = math.prod(shape) * dtype.itemsize
        if size == 0:
            return self._cuda.device_array(shape, dtype=dtype, stream=self._stream)
        start = -(-self._used // ALIGN) * ALIGN
        if not self._chunks or start + size > self._chunks[-1].size:
            self._chunks.append(self._new(size))
            start = 0
        self._used = start + size
        self._total += size + ALIGN
        return self._chunks[-1][start:start + size].view(dtype).reshape(shape)

    def put(self, host: np.ndarray):
        """A device copy of ``host``, copied on the arena's stream (the host
        array is kept until the next reset, when the stream has run the copy)."""
        host = np.ascontiguousarray(host)
        out = self.empty(host.shape, host.dtype)
        if host.size:
            out.copy_to_device(host, stream=self._stream)
            self._hosts.append(host)
        return out

    def _new(self, size: int):
        return self._cuda.device_array(max(size, ALIGN), dtype=np.uint8, stream=self._stream)


class MapMemory:
    """What every map of a backend reuses: two streams and their arenas, a
    page-locked array the launches' values land in, and the task positions
    ``0..n-1`` on the device. A map made each anew, and allocating and freeing
    them was a tenth of a second of a million-task map whose kernel takes 0.12 s
    (H200). Held until the backend runs a whole-GPU problem, which may need the
    memory (:meth:`CudaBackend._run_whole` lets it go)."""

    def __init__(self, cuda):
        self._cuda = cuda
        self.streams = [cuda.stream(), cuda.stream()]
        self.arenas = [Arena(cuda, s) for s in self.streams]
        self._pinned = np.zeros(0)
        self._iota = None

    @property
    def held(self) -> int:
        """Bytes of device memory the arenas keep: a map may count them as free
        (its launches are carved from them)."""
        return sum(a.held for a in self.arenas)

    def pinned(self, shape) -> np.ndarray:
        """A page-locked float64 array of ``shape`` (its contents are the last
        map's: every element is written before it is read)."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        size = math.prod(shape)
        if size > self._pinned.size:
            self._pinned = self._cuda.pinned_array(max(size, 1), dtype=np.float64)
        return self._pinned[:size].reshape(shape)

    def iota(self, n: int):
        """The device array ``0, 1, ..., n - 1`` (a launch's task positions)."""
        if self._iota is None or self._iota.size < n:
            self._iota = self._cuda.to_device(np.arange(max(n, 1), dtype=np.int64))
        return self._iota[:n]
