"""A traceback's tables filled in a process of its own, into shared memory.

The alignments of a search's top hits are a fill (each hit's tables, one compiled
sweep each, on a pool of threads) and the walks (the derivation read off them), and
both sides run Python around their compiled parts: the fill its binding, its tables'
records and its reads ahead (dslc.trace.ahead) around each sweep, the walks their
steps. In one process they take turns at one interpreter lock, and the hand-overs
between them were most of the alignments' time on a 16-core machine (docs/benchmarks-log.md,
"The H200, series 10"). Here the fill runs in a child process with its own lock:
it checks the program again (dslc.runtime.shipped), builds its own CPU backend and
thread pool, fills each chunk's tables with the same code the parent would run
(dslc.cpu.tables.whole_tables), and copies them into one of two shared-memory
segments, while the parent walks the chunk before. The parent reads the tables in
place (numpy arrays over its own mapping of the segment), as numbers converted cell by
cell by its own backend's readers, exactly as tables it filled itself.

The child is started with the trace runner and never waited for: until it says it is
ready (its backend built, the traced function's sweep loaded once), and whenever it
cannot answer, the parent fills in-process as before; a binding the child's sweep
stopped on is filled by the parent, whose backend says why. So the process changes
where the numbers are computed, never which.

Two segments alternate between chunks: the chunk being walked is in one while the
next is filled into the other (dslc.trace.run fills one chunk ahead). A segment is
written again only when the parent holds no array over it (its mapping's reference
count), else the child writes a new one.
"""

from __future__ import annotations

import mmap
import os
import sys
import tempfile
import threading
import weakref

import numpy as np

SEGMENTS = 2  # one walked, one filled
_ALIGN = 64
_FIRST_BYTES = 32 << 20  # a new segment's least size (grown as chunks need)
_LINUX_ADVICE = {"MADV_POPULATE_READ": 22, "MADV_POPULATE_WRITE": 23}  # (older Pythons lack them)


def started(checked, engine, base_dir: str | None) -> "FillProcess | None":
    """A fill process for traces of ``checked`` whose tables ``engine`` would fill,
    started now (not waited for), or None where there is to be none: ``engine`` is
    not the CPU backend, :func:`wanted` says no, or no process could be started (the
    parent then fills as before). The child gets one thread fewer than the run's (the
    walks keep one core) where the run has four or more."""
    if not wanted() or getattr(engine, "name", "") != "cpu" or not hasattr(engine, "tables"):
        return None
    import numba

    from dslc.runtime.shipped import Plan
    from dslc.trace.run import chunk_size

    threads = numba.get_num_threads()
    try:
        return FillProcess(Plan.of(checked, base_dir, "cpu"), engine,
                           threads - 1 if threads >= 4 else threads, room=chunk_size())
    except OSError:
        return None


def wanted() -> bool:
    """Is a fill process asked for (``DSLC_TRACE_FILL=process``)? Not by default:
    on a 2-core machine it made the alignments slower (docs/benchmarks-log.md, "Without a
    GPU"), and it has not yet been measured where it is meant to pay, a machine
    of many cores."""
    from dslc import settings

    return settings.choice("DSLC_TRACE_FILL") == "process"


class FillProcess:
    """The parent's side: :meth:`tables` as a CPU backend's ``tables``, or None
    where the child cannot answer (not ready yet, gone, or failed)."""

    def __init__(self, plan, engine, threads: int, room: int = 0):
        """``engine``: the parent's CPU backend (its readers convert the numbers);
        ``threads``: the child's fill threads; ``room``: the bindings of a chunk
        (the child makes its segments for that many at its warm-up). The child is a
        fresh interpreter (``python -m`` this module), not a fork (which would copy a
        CUDA context and the threads of this process) nor multiprocessing's spawn
        (which runs the caller's main module again: a script without a ``__main__``
        guard)."""
        import socket
        import subprocess
        from multiprocessing.connection import Connection

        from dslc import settings

        self.engine = engine
        mine, theirs = socket.socketpair()  # (pickled messages, and segments' descriptors)
        env = settings.environment()
        env["NUMBA_NUM_THREADS"] = str(max(1, threads))
        here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
        with theirs:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "dslc.runtime.fill_process", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._sock, self._conn = mine, Connection(os.dup(mine.fileno()))
        self._stop = weakref.finalize(self, _stop, self._conn, self._sock, self._process)
        self._conn.send(plan)  # (an OSError here: the child is gone already, none is used)
        self.why = ""  # why the child cannot answer, once it cannot
        self._lock = threading.Lock()  # one request at a time
        self._state = "starting"  # -> "warming" (a warm-up fill sent) -> "ready" | "gone"
        # [mmap, its refcount over nothing, bytes whose page entries are made] per segment
        self._maps: list = [None] * SEGMENTS
        self._next = 0
        self._warm: int | None = None  # the segment of the warm-up fill, once sent
        self.room = room
        self.filled = 0  # bindings the child filled (the tests ask)
        self.mapped = 0  # segments the child made and this process mapped
        self.seconds = {"fill": 0.0, "copy": 0.0}  # the child's, summed (benchmarks/trace_hits.py)

    def ready(self) -> bool:
        """Has the child said it is ready, and answered the warm-up fill
        (:meth:`tables`), without waiting for it?"""
        while self._state in ("starting", "warming") and self._conn.poll():
            reply = self._recv()
            if self._state == "starting" and reply == ("ready",):
                self._state = "warming" if self._warm is not None else "ready"
            elif self._state == "warming" and reply and reply[0] == "filled":
                self._took(self._warm, reply)
                self._state = "ready"
            else:
                self._state, self.why = "gone", str(reply and reply[-1])
        return self._state == "ready"

    def tables(self, func: str, callings: list, span, reads) -> list | None:
        """For each binding of ``callings``, ``{function: Numbers}`` as
        dslc.cpu.tables.whole_tables gives them (None: a binding the parent fills);
        None where the child cannot answer now. ``reads``: the walks' learned
        reads (dslc.trace.ahead.Reads), made ahead by the child. The first call
        made before the child is ready sends it one binding to fill as a warm-up
        (its sweep's code loaded), answered before it counts as ready."""
        with self._lock:
            if self.ready():
                return self._request(func, callings, span, reads)
            if self._state == "starting" and self._warm is None and callings:
                self._warm = self._send(func, callings[:1], span, reads)
            return None

    def _send(self, func, callings, span, reads) -> int | None:
        """The segment a fill of ``callings`` was sent for (None: not sent)."""
        k = self._next
        free = self._maps[k] is None or _unread(self._maps[k])
        room = self.room if self._state == "starting" else 0
        try:
            self._conn.send(("fill", func, callings, span, reads.learned(), k, free, room))
        except (OSError, ValueError) as e:
            self._state, self.why = "gone", str(e)
            return None
        self._next = (k + 1) % SEGMENTS
        return k

    def _request(self, func, callings, span, reads):
        """The child's answer to one fill, waited for (None: it is gone)."""
        k = self._send(func, callings, span, reads)
        reply = self._recv() if k is not None else None
        if not reply or reply[0] != "filled":
            self._state, self.why = "gone", str(reply and reply[-1])
            return None
        mm = self._took(k, reply)
        _populate(self._maps[k], _used(reply[2]), "MADV_POPULATE_READ")
        out = [None if lay is None else self._numbers(mm, lay, span) for lay in reply[2]]
        self.filled += sum(x is not None for x in out)
        return out

    def _took(self, k: int, reply: tuple):
        """Segment ``k``'s mapping here, mapped anew where the child made a new one
        (its descriptor follows the reply on the socket)."""
        import socket

        _, made, _, seconds = reply
        for part, spent in zip(("fill", "copy"), seconds):
            self.seconds[part] += spent
        if made:
            _, fds, _, _ = socket.recv_fds(self._sock, 1, len(made))
            for (j, size), fd in zip(made, fds):
                self._maps[j] = _mapped(fd, size)
                self.mapped += 1
                if j != k:  # (made ahead: its pages' entries now, not in a later chunk)
                    _populate(self._maps[j], size, "MADV_POPULATE_READ")
        return self._maps[k][0]

    def _numbers(self, mm, layout: dict, span) -> dict:
        """One binding's tables as numbers over the segment, read by this
        process's own backend (its conversions of compiled cells)."""
        from dslc.cpu.tables import reader
        from dslc.interp.tables import Numbers

        got = {}
        for name, (offset, shape, dtype, ahead) in layout.items():
            raw = np.ndarray(shape, np.dtype(dtype), buffer=mm, offset=offset)
            numbers = Numbers(raw, *reader(self.engine, name, span))
            numbers.ahead.update(ahead)
            got[name] = numbers
        return got

    def _recv(self):
        try:
            return self._conn.recv()
        except (OSError, EOFError):
            return None

    def close(self) -> None:
        """Stop the child (as when this object is collected, or this process ends)."""
        self._stop()


def _stop(conn, sock, process) -> None:
    import subprocess

    try:
        conn.send(("stop",))
    except (OSError, ValueError):
        pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    conn.close()
    sock.close()


def _mapped(fd: int, size: int) -> list:
    """``[mmap, refcount, 0]``: the child's new segment mapped here from its
    descriptor (then closed: the mapping holds the memory), the mapping's reference
    count while nothing is over it, as :func:`_unread` counts it, and the bytes
    :func:`_populate` has made page entries for."""
    try:
        entry = [mmap.mmap(fd, size, flags=mmap.MAP_SHARED), 0, 0]
    finally:
        os.close(fd)
    entry[1] = sys.getrefcount(entry[0])
    return entry


def _unread(entry: list) -> bool:
    """Does this process hold no array over the segment of ``entry`` (every numpy
    view of it holds a reference to its mapping)?"""
    return sys.getrefcount(entry[0]) <= entry[1]


def _used(layouts: list) -> int:
    """The bytes of a segment a reply's tables take (from its start)."""
    ends = [at + int(np.prod(shape)) * np.dtype(dtype).itemsize
            for lay in layouts if lay for at, shape, dtype, _ in lay.values()]
    return max(ends, default=0)


def _populate(entry: list, size: int, how: str) -> None:
    """The page entries of the first ``size`` bytes of the mapping ``entry[0]``
    made in one call, where the kernel can (Linux 5.14's ``MADV_POPULATE_*``),
    beyond the ``entry[2]`` bytes made before (even made pages cost a walk of
    their entries): a walk reads about one cell per row, a page each, and one
    fault per page cost about as much as the walk itself."""
    mm, done = entry[0], entry[2]
    size = min(size, len(mm))
    advice = getattr(mmap, how, _LINUX_ADVICE.get(how) if sys.platform == "linux" else None)
    if advice is None or size <= done:
        return
    start = done - done % mmap.PAGESIZE
    try:
        mm.madvise(advice, start, size - start)
    except OSError:
        pass  # (an older kernel: faults one page at a time, as before)
    entry[2] = size


def _anonymous(size: int) -> int:
    """A descriptor of ``size`` bytes of shared memory with no name: a segment is
    never left behind, however either process ends (Linux's ``memfd_create``;
    elsewhere a temporary file removed at once)."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("dslc-fill", os.MFD_CLOEXEC)
    else:
        fd, path = tempfile.mkstemp(prefix="dslc-fill-")
        os.unlink(path)
    try:
        os.ftruncate(fd, size)
    except OSError:
        os.close(fd)
        raise
    return fd


# ---------------------------------------------------------------- the child


def _serve(conn, sock) -> None:
    """The child's loop: get the plan, build the backend, say ready, answer fills
    until told to stop or the parent goes. A new segment's descriptor is sent
    after the reply that names it, then closed here."""
    import socket

    try:
        filler = _Filler(conn.recv())
    except Exception as e:  # noqa: BLE001 (the parent fills in-process instead)
        conn.send(("failed", f"{type(e).__name__}: {e}"))
        return
    conn.send(("ready",))
    try:
        while True:
            try:
                message = conn.recv()
            except (EOFError, OSError):
                return
            if message[0] == "stop":
                return
            try:
                made, layouts, seconds = filler.fill(*message[1:])
            except Exception as e:  # noqa: BLE001 (the parent fills in-process instead)
                conn.send(("failed", f"{type(e).__name__}: {e}"))
                continue
            conn.send(("filled", [(k, size) for k, size, _ in made], layouts, seconds))
            if made:
                socket.send_fds(sock, [b"s"], [fd for _, _, fd in made])
                for _, _, fd in made:
                    os.close(fd)
    finally:
        filler.close()


class _Filler:
    """The child's backend and segments."""

    def __init__(self, plan):
        from dslc.cpu.backend import CpuBackend
        from dslc.runtime.shipped import backend_globals, checked_again
        from dslc.trace.memory import keep_freed_memory

        keep_freed_memory()  # (as the parent's traces do: each chunk reuses the last's memory)
        checked = checked_again(plan)
        self.cpu = CpuBackend(checked, backend_globals(checked))
        self.segments: list = [None] * SEGMENTS  # [mmap, size, bytes populated] per segment

    def fill(self, func, callings, span, learned, k: int, free: bool, room: int = 0):
        """``(made, layouts, seconds)``: each binding's tables in segment ``k``
        (None: its sweep stopped, or nothing compiled), ``(segment, size,
        descriptor)`` of each segment made for it, and the wall seconds of the
        sweeps and of the copy. ``room``: where no segment is made yet, make every
        one for that many bindings like these, their pages made at once (the
        warm-up, so that the chunks after it touch no fresh memory)."""
        import time

        from dslc.cpu.tables import whole_tables
        from dslc.interp.tables import Numbers
        from dslc.trace.ahead import Reads

        reads = Reads.of(learned)
        t0 = time.perf_counter()
        filled = whole_tables(self.cpu, func, callings, span, "trace", reads.ahead)
        t1 = time.perf_counter()
        kept = [got if all(isinstance(t, Numbers) for t in got.values()) else None
                for got in filled]
        need = sum(_rounded(t.raw.nbytes) for got in kept if got for t in got.values())
        made = []
        if room and all(seg is None for seg in self.segments):
            per = need // max(1, sum(got is not None for got in kept))
            size = max(per * room * 5 // 4, need, _FIRST_BYTES)
            for j in range(SEGMENTS):
                made.append((j, size, self._new(j, size)))
                _populate(self.segments[j], size, "MADV_POPULATE_WRITE")
        elif not free or self.segments[k] is None or self.segments[k][1] < need:
            # (room for a chunk twice the first's: pages are only made as they are touched)
            size = max(need * 5 // 2, _FIRST_BYTES)
            made.append((k, size, self._new(k, size)))
        mm = self.segments[k][0]
        _populate(self.segments[k], need, "MADV_POPULATE_WRITE")
        layouts, at, copies = [], 0, []
        for got in kept:
            if got is None:
                layouts.append(None)
                continue
            lay = {}
            for name, t in got.items():
                lay[name] = (at, t.raw.shape, t.raw.dtype.str, dict(t.ahead))
                copies.append((at, t.raw))
                at += _rounded(t.raw.nbytes)
            layouts.append(lay)
        _copy(mm, copies)
        return made, layouts, (t1 - t0, time.perf_counter() - t1)

    def _new(self, k: int, size: int) -> int:
        """A new segment ``k`` of ``size`` bytes (its descriptor, for the parent);
        the old one is unmapped here (the parent keeps its own mapping for as long
        as it reads it)."""
        old = self.segments[k]
        if old is not None:
            old[0].close()
        fd = _anonymous(size)
        try:
            self.segments[k] = [mmap.mmap(fd, size, flags=mmap.MAP_SHARED), size, 0]
        except OSError:
            os.close(fd)
            raise
        return fd

    def close(self) -> None:
        for seg in self.segments:
            if seg is not None:
                seg[0].close()


def _rounded(n: int) -> int:
    """``n`` bytes rounded up to a table's alignment in a segment."""
    return -(-n // _ALIGN) * _ALIGN


def _copy(mm, copies: list) -> None:
    """Each ``(offset, array)`` copied into ``mm``, on the fill's threads (numpy
    lets the lock go while it copies)."""
    from dslc.cpu.tables import pool

    def one(item):
        at, raw = item
        np.ndarray(raw.shape, raw.dtype, buffer=mm, offset=at)[...] = raw

    list(pool().map(one, copies))


if __name__ == "__main__":  # the child: python -m dslc.runtime.fill_process FD
    from multiprocessing.connection import Connection

    import socket

    _sock = socket.socket(fileno=int(sys.argv[1]))
    _serve(Connection(os.dup(_sock.fileno())), _sock)
