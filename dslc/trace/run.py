"""Tracing one call: a task whose tables a backend fills, then the walk.

A traceback is asked for a few selected calls (the top hits of a search), never for a
whole map, so a search pays nothing for it. The task is an ordinary interpreter task;
with a compiled backend, each table the walk opens is first filled whole by that
backend (``backend.table``), so the walk only re-evaluates the bodies of the cells it
visits; with the interpreter, cells are computed on demand as usual. Either way each
visited cell's value is checked against its body (:mod:`dslc.trace.derive`).
"""

from __future__ import annotations

from dslc.lang import types as T
from dslc.errors import DslcError
from dslc.interp.compile import Interpreter
from dslc.interp.tables import Task
from dslc.trace.derive import Derivation, Tracer


class TraceRunner:
    """Traces calls of one program; ``engine`` (any backend, or None) fills tables."""

    def __init__(self, program, globals_: dict, engine=None, fill_with=None):
        """``fill_with``: the backend that fills each table whole, by default
        ``engine`` unless it is the interpreter (which computes cells on demand
        faster than whole tables); the tests fill with the interpreter to compare
        reading filled tables with computing cells on demand, without compiling."""
        self.program = program
        self.engine_of = engine
        self.engine = fill_with or (engine if getattr(engine, "name", "") != "interp" else None)
        self.tracer = Tracer(Interpreter(program, globals_))

    def trace(self, func: str, args: dict, span, final: bool = False) -> Derivation:
        """The derivation of ``func`` at ``args`` (bound, as a backend's ``value``
        takes them); ``final``: the recursive arguments are a map's (the final cell)."""
        interp = self.tracer.interp
        cf = interp.functions[func]
        task = Task(f"trace of {func}")
        task.fill = self._filler(span)
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

    def _filler(self, span):
        engine = self.engine
        if engine is None:
            return None

        def fill(table) -> None:
            if table._dense is None or any(p.type == T.INT and p.range is None
                                           for p in table.func.tf.rec_params):
                return  # huge, or extents from a first call: computed on demand
            calling = {n: table.env[n] for n in table.func.calling_names}
            try:
                whole = engine.table(table.func.name, calling, span, "trace")
            except DslcError:
                return  # the interpreter computes the cells it needs, and says why not
            table._dense[...] = whole  # the same objects (None: outside declared ranges)
            table.whole = True
        return fill
