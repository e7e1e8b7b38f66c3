"""Tracing calls: tasks whose tables a backend fills, then the walks.

A traceback is asked for a few selected calls (the top hits of a search), never for a
whole map, so a search pays nothing for it. Each call is an ordinary interpreter task;
with a compiled backend, each table the walk opens is first filled whole by that
backend, so the walk only re-evaluates the bodies of the cells it visits; with the
interpreter, cells are computed on demand as usual. Either way each visited cell's
value is checked against its body (:mod:`dslc.trace.derive`).

A backend with ``tables`` (the CPU's, dslc.cpu.tables) fills a table and the others
its sweep computes in one call, as numbers converted cell by cell when read; and the
calls traced together (:meth:`TraceRunner.traces`) have their first tables filled in
one such call: each call's walk is first run up to the first table it opens (which
is where a search's entry, ``max(i ... : max(j ... : h(i, j)))``, starts), those
tables are filled together, then the walks run on them. Many calls are traced a chunk
at a time, and each walk's tables are released once its derivation is made (its
steps hold every value they read), so that the memory of one chunk's tables is
reused by a later one (:mod:`dslc.trace.memory`) instead of all tables being held;
the next chunk's tables are filled while this chunk's walks run.
"""

from __future__ import annotations

import concurrent.futures
import threading

from dslc import deep, workers
from dslc.errors import DslcError, InternalError
from dslc.interp.compile import Interpreter, hkeys
from dslc.interp.tables import Numbers, Task
from dslc.trace.collector import collector_paused
from dslc.trace.derive import Derivation, Tracer
from dslc.trace.fused import FusedInterpreter
from dslc.trace.memory import keep_freed_memory


class _Opened(Exception):
    """The first table a walk opens (the walk up to it only asked which one)."""

    def __init__(self, table):
        self.table = table


class TraceRunner:
    """Traces calls of one program; ``engine`` (any backend, or None) fills tables."""

    def __init__(self, program, globals_: dict, engine=None, fill_with=None,
                 planned: bool = True, compiled: bool = True, fills=None):
        """``fill_with``: the backend that fills each table whole, by default
        ``engine`` (:func:`_filler_of`: the run's CPU backend, none for the
        interpreter, which computes cells on demand faster than whole tables); the
        tests fill with the interpreter to compare
        reading filled tables with computing cells on demand, without compiling.
        ``planned``: walks by step plans (:mod:`dslc.trace.plan`), else the plain walk;
        ``compiled``: with step plans, a path over tables the CPU backend filled is
        walked by compiled code where its shape allows (:mod:`dslc.trace.jit`);
        ``fills``: where a chunk's tables may be filled instead of by ``tables`` here
        (dslc.runtime.fill_process: a process of its own), None where it cannot."""
        if globals_ is None:  # (a caller that asked before the script's globals were bound)
            raise InternalError("a trace runner made without the script's globals")
        self.program = program
        self.chunk = 0  # calls traced together (:meth:`traces`); 0: :func:`chunk_size`
        self.engine_of = engine
        self.engine = fill_with or _filler_of(engine)
        self.fills = fills
        self.tracer = Tracer((FusedInterpreter if planned else Interpreter)(program, globals_),
                             planned)
        # held around each call of the backend that plans or fills (a fill ahead runs on
        # a thread of its own while the walks here may plan a compiled walk or fill a table)
        self.backend_lock = threading.Lock()
        if planned and compiled and hasattr(self.engine, "_table_plan_scope"):
            from dslc.trace.jit import Walks

            self.tracer.walks = Walks(self.tracer, self.engine)
            self.tracer.walks.lock = self.backend_lock

    def trace(self, func: str, args: dict, span, final: bool = False) -> Derivation:
        """The derivation of ``func`` at ``args`` (bound, as a backend's ``value``
        takes them); ``final``: the recursive arguments are a map's (the final cell)."""
        if self.engine is not None:
            keep_freed_memory()
        with collector_paused():
            return self._walked(func, args, span, final, {})

    def traces(self, func: str, calls: list, span) -> list[Derivation]:
        """The derivations of ``func`` at each ``(args, final)`` of ``calls``
        (as :meth:`trace`), in chunks of ``chunk`` calls (default :func:`chunk_size`,
        the first chunk then half of it: :func:`_parts`):
        the first table of every walk of a chunk filled in one backend call, and each
        walk's tables released once it is walked, so that a later chunk's fill
        reuses their memory instead of touching fresh pages. The next chunk's tables
        are filled while this chunk's walks run (:meth:`_fill_ahead`): the sweeps on
        the backend's threads, the walks here."""
        filled = hasattr(self.engine, "tables")  # (without a fill: one chunk)
        size = max(1, self.chunk or (chunk_size() if filled else len(calls)))
        first = max(2, size // 2) if filled and not self.chunk else size
        parts = _parts(calls, size, first)
        out: list = []
        if self.engine is not None:
            keep_freed_memory()
        with collector_paused():
            pending = self._fill_ahead(func, parts[0], span) if parts else None
            try:
                for n, part in enumerate(parts):
                    ready = self._fill_wait(pending)
                    pending = self._fill_ahead(func, parts[n + 1], span) \
                        if n + 1 < len(parts) else None
                    for (args, final), got in zip(part, ready):
                        out.append(self._walked(func, args, span, final, got))
                        got.clear()  # (the sweep's tables this walk never opened)
            finally:
                if pending is not None:  # (a walk failed: the fill ahead ends first)
                    pending.wait()
        return out

    def _fill_ahead(self, func, calls, span) -> "_Ahead":
        """:meth:`_first_tables` of ``calls`` started: the walks up to their first
        tables now, the fill on a thread of its own (:func:`_ahead_thread`), whose
        sweeps run on the backend's threads; its result (or its error) is taken
        by :meth:`_fill_wait`, after the walks of the chunk before it, where it was
        taken before the fill ran ahead. Without a backend that fills tables
        together, or in a deeply nested program's thread (whose large stack the
        backend's planning and fallbacks may need: dslc.deep), everything is done
        at once as before."""
        if getattr(self.engine, "tables", None) is None or len(calls) < 2 \
                or deep.in_deep_thread():
            return _Ahead.done(lambda: self._first_tables(func, calls, span))
        try:
            opened = [self._opened(func, args, span, final) for args, final in calls]
        except BaseException as e:  # noqa: BLE001 (raised by _fill_wait, in order)
            return _Ahead.failed(e)
        return _Ahead(_ahead_thread().submit(self._fill, opened, span))

    @staticmethod
    def _fill_wait(pending: "_Ahead") -> list[dict]:
        """The tables of :meth:`_fill_ahead` (its error, if it had one)."""
        return pending.result()

    def _first_tables(self, func, calls, span) -> list[dict]:
        """For each call, the tables its walk's first table's sweep fills (keyed as
        the task keeps them), all filled by one call of the backend's ``tables``."""
        tables = getattr(self.engine, "tables", None)
        if tables is None or len(calls) < 2:
            return [{} for _ in calls]
        return self._fill([self._opened(func, args, span, final) for args, final in calls],
                          span)

    def _fill(self, opened: list, span) -> list[dict]:
        """The tables of each first table in ``opened`` (None: none to fill) and the
        others of its sweep, one backend call per function."""
        out = [{} for _ in opened]
        by_func: dict = {}
        for k, t in enumerate(opened):
            if t is not None:
                by_func.setdefault(t.func.name, []).append(k)
        for name, ks in by_func.items():
            callings = [_calling(opened[k]) for k in ks]
            for k, calling, got in zip(ks, callings, self._tables(name, callings, span)):
                out[k] = _keyed(self.tracer.interp, calling, got)
        return out

    def _tables(self, name: str, callings: list, span) -> list[dict]:
        """The backend's ``tables`` of ``callings``: those ``fills`` gives, the
        others (all of them where it gives none) filled here."""
        given = None if self.fills is None else \
            self.fills.tables(name, callings, span, self.tracer.reads)
        given = given or [None] * len(callings)
        missing = [c for c, got in zip(callings, given) if got is None]
        if not missing:
            return given
        with self.backend_lock:
            here = iter(self.engine.tables(name, missing, span, "trace",
                                           self.tracer.reads.ahead))
        return [got if got is not None else next(here) for got in given]

    def _walked(self, func, args, span, final, ready: dict) -> Derivation:
        """The derivation of one call, its tables released once it is made: its
        steps hold every value they read, so it needs no table any more."""
        task = Task(f"trace of {func}")
        try:
            return self._derive(func, args, span, final, self._filler(span, ready), task)
        finally:
            release(task)

    def _derive(self, func, args, span, final, fill, task=None) -> Derivation:
        interp = self.tracer.interp
        cf = interp.functions[func]
        task = task or Task(f"trace of {func}")
        task.fill = fill
        if not cf.is_table:
            env = dict(args)
            env["$task"] = task
            return self.tracer.derive(func, env)
        cenv = {n: args[n] for n in cf.calling_names}
        cenv["$task"] = task
        rec = tuple(args.get(n) for n in cf.rec_names)
        table = interp.table_for(task, cf, cenv, rec, span)
        if final:
            rec = table.extents
        table.check_domain(rec, span, f"{func}(...)")
        return self.tracer.derive(func, cenv, table, rec)

    def _opened(self, func, args, span, final):
        """The first table ``func``'s walk at ``args`` opens that a backend fills, or None."""
        def stop(table):
            raise _Opened(table if _fillable(table) else None)
        try:
            self._derive(func, args, span, final, stop)
        except _Opened as e:
            return e.table
        return None

    def _filler(self, span, ready: dict):
        """``Task.fill``: a new table's cells from ``ready`` (filled with others), or
        from the backend now (with the other tables of its sweep, kept in ``ready``
        for when the walk opens them)."""
        engine = self.engine
        if engine is None:
            return None
        tables = getattr(engine, "tables", None)
        interp = self.tracer.interp
        lock = self.backend_lock
        reads_ahead = self.tracer.reads.ahead

        def fill(table) -> None:
            if not _fillable(table):
                return  # huge, or extents from a first call: computed on demand
            key = _key(interp, table.func.name, table.env)
            if key not in ready:
                calling = _calling(table)
                try:
                    with lock:
                        if tables is None:
                            got = {table.func.name: engine.table(table.func.name, calling,
                                                                 span, "trace")}
                        else:
                            got = tables(table.func.name, [calling], span, "trace",
                                         reads_ahead)[0]
                except DslcError:
                    return  # the interpreter computes the cells it needs, and says why not
                ready.update(_keyed(interp, calling, got))
            _give(table, ready.pop(key))
        return fill


class _Ahead:
    """A chunk's fill under way (a future), or done or failed at once."""

    def __init__(self, future=None, value=None, error=None):
        self._future, self._value, self._error = future, value, error

    @classmethod
    def done(cls, make) -> "_Ahead":
        try:
            return cls(value=make())
        except BaseException as e:  # noqa: BLE001 (raised when the result is taken)
            return cls.failed(e)

    @classmethod
    def failed(cls, error: BaseException) -> "_Ahead":
        return cls(error=error)

    def result(self):
        if self._future is not None:
            return self._future.result()
        if self._error is not None:
            raise self._error
        return self._value

    def wait(self) -> None:
        """Until the fill has ended, its result and error dropped."""
        if self._future is not None:
            concurrent.futures.wait([self._future])


def _ahead_thread():
    """One thread that runs the fills ahead, one at a time (started once per process,
    :mod:`dslc.workers`)."""
    return workers.pool("ahead", 1)


def _parts(calls: list, size: int, first: int) -> list[list]:
    """``calls`` in chunks of ``size``, the first of ``first``: nothing is walked
    while the first chunk fills, so by default it is half a chunk (one sweep per
    thread), and the walks start after one sweep's time instead of two."""
    head = [calls[:first]] if calls else []
    return head + [calls[at: at + size] for at in range(first, len(calls), size)]


def chunk_size() -> int:
    """Calls traced together (:meth:`TraceRunner.traces`): twice the sweeps the
    backend runs at once (its threads), at least 8, so that sweeps of unequal tables
    keep every thread busy while the chunk's tables, held until they are walked,
    stay a few times the threads' worth of memory, reused chunk after chunk."""
    import numba

    return max(8, 2 * numba.get_num_threads())


def release(task) -> None:
    """Drop the numbers of ``task``'s tables (and of the tables filled with them that
    were never opened): the cells already read stay, and any other cell read later
    is computed by the interpreter on demand, as in a table no backend filled."""
    task.fill = None
    for table in task.tables.values():
        if table.numbers is not None:
            table.numbers, table.whole = None, False


def _filler_of(engine):
    """The backend that fills a traceback's tables for a run on ``engine``: the
    run's CPU backend (``engine`` itself, or the CPU backend a CUDA or ``auto``
    backend keeps as ``cpu``), whose sweeps run the hits side by side on the host's
    threads and whose tables the compiled walks read (dslc.cpu.tables,
    dslc.trace.jit); none for the interpreter, which computes cells on demand."""
    if engine is None or getattr(engine, "name", "") == "interp":
        return None
    cpu = getattr(engine, "cpu", None)
    return cpu if cpu is not None else engine


def _fillable(table) -> bool:
    return table.dense and not table.func.tf.first_call_params


def _calling(table) -> dict:
    return {n: table.env[n] for n in table.func.calling_names}


def _key(interp, func: str, env: dict):
    """The key a task keeps ``func``'s table under for the calling values in ``env``
    (``Interpreter.table_for``'s)."""
    return (func, hkeys(env, interp.functions[func].calling_names))


def _keyed(interp, calling: dict, got: dict) -> dict:
    """The tables of one sweep keyed as the task keeps them: each function's with
    the calling values of the one filled (a sweep's tables share its binding)."""
    return {_key(interp, n, calling): t for n, t in got.items()
            if all(c in calling for c in interp.functions[n].calling_names)}


def _give(table, whole) -> None:
    """A table's cells from a backend: numbers read when the walk reads them, or the
    interpreter's values (None: outside declared ranges)."""
    if isinstance(whole, Numbers):
        table.give_numbers(whole)
    else:
        table._dense[...] = whole
        table.whole = True
