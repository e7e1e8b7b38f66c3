"""The interpreter as a backend: the reference every other backend is tested against.

A backend answers three questions for the script runner, all with arguments
already bound by :mod:`dslc.runtime.binding`:

* ``value(func, args)``: one value (a non-recursive function, or one cell);
* ``table(func, calling_args)``: the whole table, as a numpy array;
* ``map(func, tasks)``: one value per task; a recursive function contributes
  its final cell (every recursive parameter at its maximum).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from dslc.lang import types as T
from dslc.errors import DslcError
from dslc.interp.compile import Interpreter
from dslc.interp.tables import Task, demand
from dslc.lang.limits import TABLE_CELL_BYTES, check_fits, max_table_bytes


class InterpBackend:
    name = "interp"

    def __init__(self, program, globals_: dict, options=None):
        self.program = program
        self.options = options  # (the specification compiles nothing: kept for the protocol)
        self.interp = Interpreter(program, globals_)

    def value(self, func: str, args: dict, span, description: str = ""):
        cf = self.interp.functions[func]
        task = Task(description)
        env = dict(args)
        env["$task"] = task
        if not cf.is_table:
            return cf.run(env)
        rec = tuple(args[n] for n in cf.rec_names)
        cenv = {n: args[n] for n in cf.calling_names}
        cenv["$task"] = task
        table = self.interp.table_for(task, cf, cenv, rec, span)
        table.check_domain(rec, span, f"{func}(...)")
        return demand(table, rec)

    def table(self, func: str, calling: dict, span, description: str = "") -> np.ndarray:
        self.check_table_fits(func, calling, span)
        cf = self.interp.functions[func]
        task = Task(description)
        cenv = dict(calling)
        cenv["$task"] = task
        table = self.interp.table_for(task, cf, cenv, None, span)
        out = np.empty(tuple(e + 1 for e in table.extents), dtype=object)
        for point in itertools.product(*(range(e + 1) for e in table.extents)):
            if table.inside(point):  # cells outside a declared range stay None
                out[point] = demand(table, point)
        return out

    def check_table_fits(self, func: str, calling: dict, span) -> None:
        """Refuse a whole table the machine cannot hold before any backend
        allocates it (``DSLC_MAX_TABLE_BYTES``), saying how to ask for its final
        cell instead: a single call runs in window storage where it can."""
        cf = self.interp.functions[func]
        extents = self.interp.extents(cf, calling, None, span)
        needed = math.prod(e + 1 for e in extents) * TABLE_CELL_BYTES
        if needed <= max_table_bytes():
            return  # (the refusal's text is made only for a table refused: a search's top
            # hits ask this once a hit, and the call it names took most of the check)
        shape = " x ".join(f"{e + 1:,}" for e in extents)
        check_fits(needed, f"the whole table of {func} ({shape} cells)", span,
                   f"ask for the final cell alone, {final_call(cf.tf, self.program, extents)} "
                   f"(in a function: {final_call(cf.tf, self.program)}), which keeps only a "
                   "window of the table")

    def final_cell(self, func: str, args: dict, span, description: str = ""):
        """The cell with every recursive parameter at its maximum (``int`` ones at
        the value given for them)."""
        cf = self.interp.functions[func]
        task = Task(description)
        cenv = {n: args[n] for n in cf.calling_names}
        cenv["$task"] = task
        rec = tuple(args.get(p.name) for p in cf.tf.rec_params)
        table = self.interp.table_for(task, cf, cenv, rec, span)
        table.check_domain(table.extents, span, f"{func}(...)")
        return demand(table, table.extents)

    def map(self, func: str, tasks: list[dict], span, progress=None) -> list:
        cf = self.interp.functions[func]
        out = []
        for k, args in enumerate(tasks):
            try:
                if cf.is_table:
                    out.append(self.final_cell(func, args, span, f"task {k + 1}"))
                else:
                    out.append(self.value(func, args, span, f"task {k + 1}"))
            except DslcError as e:
                raise TaskError(e, k, args) from None
            if progress is not None:
                progress(k + 1)
        return out


def final_call(tf, program, extents: tuple | None = None) -> str:
    """``f(s, t, len(s), len(t))``: the call of ``tf`` asking for its final
    cell; with the table's ``extents``, as a script writes it: ``f(s, t, 9, 7)``."""
    args = []
    for p in tf.params:
        t = p.type
        if not p.recursive:
            args.append(p.name)
        elif extents is not None:
            args.append(str(extents[tf.rec_params.index(p)]))
        elif isinstance(t, T.IndexT):
            args.append(f"len({t.seq})")
        elif isinstance(t, T.SymT) and t.alpha.kind == "named":
            args.append(f"'{program.alphabets[t.alpha.name].symbols[-1]}'")
        else:
            args.append(f"<last {p.name}>")
    return f"{tf.name}({', '.join(args)})"


class TaskError(DslcError):
    """An error in task ``k`` (from 0) of a map, named in the message by its
    number and arguments. A backend that re-runs only some tasks of a map (one
    model's, or those a GPU kernel left) renumbers it (:func:`in_map`), so the
    message is the one a run of the whole map gives."""

    def __init__(self, error: DslcError, k: int, args: dict):
        names = [f"{n}={getattr(v, 'name', v)!s}" for n, v in args.items()
                 if not n.startswith("$") and (hasattr(v, "name") or isinstance(v, (int, float)))]
        where = f"in map task {k + 1}" + (f" ({', '.join(names[:4])})" if names else "")
        super().__init__(f"{error.message} [{where}]", error.span, error.hint)
        self.error, self.k, self.task_args = error, k, args


def in_map(run, numbers):
    """``run()``, a map over some tasks of a larger map, whose errors name each
    task by its number in the larger map (``numbers[k]`` for task ``k``)."""
    try:
        return run()
    except TaskError as e:
        raise TaskError(e.error, int(numbers[e.k]), e.task_args) from None
