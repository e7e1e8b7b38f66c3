"""Whole tables for tracebacks: one sweep per traced call, the calls in parallel.

A traceback reads the cells of a few tables along one path (dslc.trace.run). The
generated ``table`` entry returns every table its sweep fills whole (``TABLES``: the
entry's group), so a traceback over a group of tables costs one sweep, not one per table; the tables
stay numbers, each cell becoming the interpreter's value when the walk reads it
(:class:`dslc.interp.tables.Numbers`), not the whole table converted. The tables of
all the calls asked for at once (a search's top hits) are filled by one call, the
sweeps on threads (the generated code releases the GIL: ``nogil``).
"""

from __future__ import annotations

import concurrent.futures
from concurrent.futures import ThreadPoolExecutor

from dslc import timings, workers
from dslc.cpu.convert import Inexact
from dslc.lang import types as T
from dslc.interp.tables import MISSING, Numbers


def whole_tables(cpu, func: str, callings: list, span, description: str = "",
                 after=None) -> list[dict]:
    """For each binding in ``callings``: ``{function: table}`` with ``func``'s whole
    table and the others of its sweep, each :class:`Numbers` or, where nothing was
    compiled or the compiled sweep stopped, the interpreter's values (the backend's
    ``table``: its answer, or its error). ``after``: given each sweep's
    ``{function: Numbers}`` on the thread that filled them, while they are in that
    core's cache (a walk's first reads made there, dslc.trace.ahead)."""
    if not callings:
        return []
    for calling in callings:
        cpu.interp.check_table_fits(func, calling, span)
        cpu._table_plan_scope(func, calling)  # every binding widens it: one plan for all
    chosen = cpu._ran(cpu.choose(func, "table", callings[0]))
    if chosen.compiled is None:
        return [{func: cpu.table(func, c, span, description)} for c in callings]
    module, argnames, windows = chosen.compiled
    names = module.TABLES
    readers = {n: reader(cpu, n, span) for n in names}

    def sweep(bound):
        try:
            raw = module.task(*bound)
        except (IndexError, ValueError, ZeroDivisionError):
            return None  # the backend's table says what stopped it
        got = {n: Numbers(r, *readers[n]) for n, r in zip(names, raw)}
        if after is not None:
            after(got)
        return got

    bound = [cpu._task_args(argnames, c, windows, None) for c in callings]  # (Python: here)
    with timings.computing():
        if len(bound) == 1:
            filled = [sweep(bound[0])]
        else:  # (waited for at once: one wake-up, where a result at a time took one each)
            threads = pool()
            futures = [threads.submit(sweep, b) for b in bound]
            concurrent.futures.wait(futures)
            filled = [f.result() for f in futures]
    return [got if got is not None else {func: cpu.table(func, c, span, description)}
            for c, got in zip(callings, filled)]


def reader(cpu, func: str, span):
    """``Numbers.one``, ``many`` and ``exact`` of ``func``'s cells: the backend's own
    conversion of compiled results, MISSING (None) where it has no exact value."""
    ret = cpu.program.functions[func].ret

    def one(x):
        try:
            return cpu.result(x, ret, span)
        except Inexact:
            return MISSING

    def many(block):
        try:
            if isinstance(ret, T.TupleT):
                return _each(block, lambda x: cpu.result(x, ret, span))
            return cpu._all_results(block, ret)
        except Inexact:
            return None

    def exact(block) -> bool:
        return not isinstance(ret, T.TupleT) and cpu.exact_results(block, ret)
    return one, many, exact


def _each(block, convert):
    """A tuple-valued block (components last) converted cell by cell."""
    import numpy as np

    out = np.empty(block.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = convert(block[idx])
    return out


def pool() -> ThreadPoolExecutor:
    """The threads the sweeps run on, started once per process and kept: a search's
    top hits are filled a chunk at a time (dslc.trace.run), and a pool made per call
    started every thread again for every chunk (16 threads x each chunk on a 16-core
    machine). As many threads as Numba's (``NUMBA_NUM_THREADS``, a setting of the run);
    the pool is :mod:`dslc.workers`'."""
    import numba

    return workers.pool("tables", max(1, numba.get_num_threads()))
