"""Where a run's time goes: ``dslc run --timings`` and ``Program.last_timings``.

Each call, table and map the script (or the Python API) hands to a backend is
one :class:`Entry`: the backend that ran it, the seconds spent compiling (the
plan and generated code, and Numba's compile of the generated functions) and
whether that came from the cache, the seconds the machine code ran (kernel or
compute seconds) and the rest (binding, packing, transfers: host seconds).

How it is measured, without changing what runs:

* every Numba dispatcher of generated code is :func:`watch`-ed (dslc.store.disk
  wraps them as it loads a module): its ``compile`` method, which Numba calls
  on a first call with new types whether the machine code then comes from the
  disk cache or is compiled, is timed, and its cache counters say which;
* planning and generating code is timed by :func:`planning`;
* the compiled code's run by :func:`computing` (the CPU) or, for kernels whose
  launches are asynchronous, :func:`add_compute` with the device's own event
  timers (the CUDA backend);
* :class:`Timed` wraps a backend and opens one :class:`Entry` per call, table
  or map; nested calls (auto handing a map to the CPU backend) add to it.

Nothing here imports Numba: a run the interpreter answers pays nothing.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass

from dslc import runlog


@dataclass
class _Acc:
    """The running totals of the entry being timed."""

    compile_s: float = 0.0
    compiled: int = 0  # functions compiled or planned (not found in a cache)
    loaded: int = 0  # functions whose machine code came from the disk cache
    compute_s: float = 0.0
    depth: int = 0  # nested compile calls (a task inside a batch): timed once


_STACK: list[_Acc] = []


@dataclass(frozen=True)
class Entry:
    """One call, table or map and where its time went."""

    what: str  # "call", "table" or "map of N tasks"
    func: str
    backend: str  # the backend that ran it (runlog.where: with fallbacks)
    compile_s: float
    compiled_from: str  # "compiled", "cache", or "-" where nothing was loaded
    host_s: float
    compute_s: float
    total_s: float
    choice: str = ""  # --backend auto: the prediction and the choice


@dataclass(frozen=True)
class Timings:
    """A run's entries, its wall time and when it began (``time.time()``)."""

    entries: tuple[Entry, ...]
    wall_s: float
    started_at: float
    startup_s: float | None = None  # process start to the run's start (the command line)

    @property
    def compile_s(self) -> float:
        return sum(e.compile_s for e in self.entries)

    def render(self) -> str:
        """The table ``--timings`` prints."""
        head = ("what", "function", "backend", "compile s", "from", "host s", "compute s",
                "total s")
        rows = [(e.what, e.func, e.backend, f"{e.compile_s:.3f}", e.compiled_from,
                 f"{e.host_s:.3f}", f"{e.compute_s:.3f}", f"{e.total_s:.3f}")
                for e in self.entries]
        widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                 for r in [head, *rows]]
        lines += [f"auto {e.func}: {e.choice}" for e in self.entries if e.choice]
        tail = f"run: {self.wall_s:.3f} s wall, {self.compile_s:.3f} s compiling"
        if self.startup_s is not None:
            tail += f"; start-up {self.startup_s:.3f} s"
        return "\n".join(["timings:", *("  " + ln for ln in lines), "  " + tail])


class Collector:
    """The entries of one run (or one API call), in order."""

    def __init__(self):
        self.entries: list[Entry] = []
        self.started = time.perf_counter()
        self.started_at = time.time()

    def reset(self) -> None:
        self.__init__()

    def result(self, startup_s: float | None = None) -> Timings:
        return Timings(tuple(self.entries), time.perf_counter() - self.started,
                       self.started_at, startup_s)


class Timed:
    """A backend whose every call, table and map is one :class:`Entry` of
    ``collector``; everything else is the backend's own (``dslc explain`` and
    ``-v`` read its attributes through this)."""

    _OWN = ("inner", "collector")

    def __init__(self, inner, collector: Collector):
        object.__setattr__(self, "inner", inner)
        object.__setattr__(self, "collector", collector)

    def __getattr__(self, name):
        if name in self._OWN:  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __setattr__(self, name, value):
        """A setting made through the wrapper (``engine.disk_cache = False``)
        is the backend's: the wrapper only times."""
        if name in self._OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self.inner, name, value)

    def value(self, func, args, span, description=""):
        return self._timed("call", func, lambda: self.inner.value(func, args, span, description))

    def table(self, func, calling, span, description=""):
        return self._timed("table", func,
                           lambda: self.inner.table(func, calling, span, description))

    def map(self, func, tasks, span, progress=None):
        return self._timed(f"map of {len(tasks)} tasks", func,
                           lambda: self.inner.map(func, tasks, span, progress))

    def traced(self, func: str, n: int, backend: str, run):
        """``run()`` (the tracebacks and alignments of ``n`` tasks of a map of
        ``func``: ``dslc run --align``) as one entry, ``backend`` the one that filled
        their tables (the run's CPU backend, dslc.trace.run): its compile seconds
        are the walks' first use, its compute seconds the tables' sweeps (run
        beside the walks, so host seconds are what the walks and alignments added)."""
        return self._timed(f"alignments of {n} tasks", func, run, backend)

    def _timed(self, what: str, func: str, run, backend: str | None = None):
        if _STACK:  # a call inside another's timing (a backend calling itself)
            return run()
        acc = _Acc()
        _STACK.append(acc)
        t0 = time.perf_counter()
        try:
            return run()
        finally:
            total = time.perf_counter() - t0
            _STACK.pop()
            self.collector.entries.append(self._entry(what, func, acc, total, backend))

    def _entry(self, what: str, func: str, acc: _Acc, total: float,
               backend: str | None = None) -> Entry:
        source = "compiled" if acc.compiled else "cache" if acc.loaded else "-"
        if backend is not None:  # (work the entry's own backend did not choose: no decision)
            decision = None
        else:
            decision = getattr(self.inner, "decisions", {}).get(func)
            backend = runlog.where(getattr(self.inner, "ran_on", lambda f: self.inner)(func),
                                   func)
        return Entry(what, func, backend, acc.compile_s, source,
                     max(0.0, total - acc.compile_s - acc.compute_s), acc.compute_s, total,
                     decision.reason if decision is not None else "")


def timed(make_backend, collector: Collector):
    """``make_backend`` (``(program, globals) -> backend``) whose backends are
    :class:`Timed` into ``collector``."""
    return lambda program, globals_: Timed(make_backend(program, globals_), collector)


def watch(dispatcher) -> None:
    """Time the compiles of a Numba dispatcher (CPU or CUDA) of generated code."""
    inner = getattr(dispatcher, "compile", None)
    if inner is None or getattr(dispatcher, "_dslc_watched", False) or \
            not hasattr(dispatcher, "_cache_misses"):
        return

    def compile(sig):
        if not _STACK:
            return inner(sig)
        acc = _STACK[-1]
        misses = sum(dispatcher._cache_misses.values())
        hits = sum(dispatcher._cache_hits.values())
        acc.depth += 1
        t0 = time.perf_counter()
        try:
            return inner(sig)
        finally:
            acc.depth -= 1
            if acc.depth == 0:
                acc.compile_s += time.perf_counter() - t0
            acc.compiled += sum(dispatcher._cache_misses.values()) > misses
            acc.loaded += sum(dispatcher._cache_hits.values()) > hits

    dispatcher.compile = compile
    dispatcher._dslc_watched = True


@contextlib.contextmanager
def planning():
    """Planning and generating code: compile time, never cached."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        if _STACK and _STACK[-1].depth == 0:
            _STACK[-1].compile_s += time.perf_counter() - t0
            _STACK[-1].compiled += 1


@contextlib.contextmanager
def computing():
    """Compiled code running on the host; a compile on its first call is not
    counted twice (it is compile time)."""
    acc = _STACK[-1] if _STACK else None
    before = acc.compile_s if acc is not None else 0.0
    t0 = time.perf_counter()
    try:
        yield
    finally:
        if acc is not None:
            acc.compute_s += max(0.0, time.perf_counter() - t0 - (acc.compile_s - before))


def add_compute(seconds: float) -> None:
    """Kernel seconds measured by the device (CUDA events)."""
    if _STACK:
        _STACK[-1].compute_s += seconds


def add_compile(seconds: float) -> None:
    """Compile seconds measured around a call that compiles on first use (a CUDA
    kernel's JIT at its first launch, dslc.cuda.backend)."""
    if _STACK and seconds > 0:
        _STACK[-1].compile_s += seconds


def process_start() -> float | None:
    """When this process started (``time.time()``), where the system says (Linux)."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return time.time() - uptime + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def startup_seconds(started_at: float) -> float | None:
    """Seconds from the process's start to ``started_at``."""
    begun = process_start()
    return None if begun is None else max(0.0, started_at - begun)
