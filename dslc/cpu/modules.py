"""Loading generated code, cached on disk, and running batches of tasks.

Generated source is written to the cache directory (``$DSLC_CACHE_DIR``, default
``~/.cache/dslc``; dslc.store.disk) under the hash of its text and imported from
there, so Numba's own on-disk cache (``cache=True``) applies: a second run of
the same script finds both the source and the machine code and compiles nothing.
What runs is always the text dslc generated or verified, never what a file says.
"""

from __future__ import annotations

import hashlib
import json
import sys
import types

import numpy as np

from dslc.store.disk import (cache_dir, digest, guard_numba_caches, is_digest, read_entry,
                             read_module, write_entry)
from dslc import timings
from dslc.cpu.convert import convert
from dslc.cpu.threads import run_chunks
from dslc.targets.printer import ThreadedPrinter
from dslc.kernel import launch
from dslc.store.key import program_key
from dslc.kernel.ir import TASK_ROLES, TaskArg
from dslc.kernel.strategies import CPU_LAUNCH, launch_passes
from dslc.lang.batch import TaskBatch
from dslc.lang.values import Sequence

_LOADED: dict[str, object] = {}


def load(source: str):
    """The module of generated ``source``. It is compiled from ``source`` itself
    (the file is only where Numba keeps its cache), after making sure the entry
    holds exactly that text."""
    key = digest(source)
    mod = _LOADED.get(key)
    if mod is not None:
        return mod
    if read_module(key) != source:  # absent or damaged: written afresh
        path = write_entry(f"dslc_{key}.py", source)
    else:
        path = cache_dir() / f"dslc_{key}.py"
    name = f"dslc_generated_{key}"
    mod = types.ModuleType(name)
    mod.__file__ = str(path)
    mod._dslc_source = source
    sys.modules[name] = mod
    # Python adds __warningregistry__ to a module's globals the first time code in it
    # warns (numpy's "invalid value" on inf - inf, before the check reports it); in
    # Numba's CUDA simulator another thread of the block may be iterating those globals
    # then (it swaps the module's `cuda` per call), which fails with "dictionary changed
    # size during iteration". The registry made here, the globals never change size.
    mod.__dict__["__warningregistry__"] = {}
    exec(compile(source, str(path), "exec"), mod.__dict__)
    guard_numba_caches(mod.__dict__)
    _LOADED[key] = mod
    return mod


def plan_key(program, func: str, kind: str, request, scope: dict, target: str = "cpu", *,
             options) -> str:
    """What decides a task's generated code: the program (its AST, constants and
    extensions' compiled forms), the entry, the shapes of the arguments (lengths
    decide the schedule), with what every cache key holds (dslc.store.key: the
    installed compiler's files, the target, the CompileOptions ``options``)."""
    shapes = tuple((n, len(v) if isinstance(v, Sequence) else type(v).__name__)
                   for n, v in sorted(scope.items()))
    return program_key(target, program, func, kind, request, shapes, options=options)


VALUES = ("float64", "float32", "float32c")  # a plan's value types (dslc.cpu.decision)


PLAN_FORMAT = 2  # 2: the task's arguments as records (kernel.ir.TaskArg), no longer names


def cached_plan(key: str):
    """(source, args, windows, values) stored under ``key``: ``args`` the task's
    arguments (kernel.ir.TaskArg), ``values`` the value type its code was generated
    for (``VALUES``), kept with the plan so that nothing has to be read back out of
    the source; an empty source records that nothing could be generated. None
    where there is no plan or it fails a check: its format, its checksum (an
    edited plan, swapped arguments), its fields' forms (a module is named by a
    digest, never a path) or its module's hash."""
    try:
        data = json.loads(read_entry(f"plan_{key}.json") or "")
        plan = data["plan"]
        if data["check"] != _plan_check(key, plan) or not _well_formed(plan):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if plan["source"] == "":
        return "", [], (), plan["values"]
    source = read_module(plan["source"])
    if source is None:
        return None
    return (source, [_arg_from_json(a) for a in plan["args"]], tuple(plan["windows"]),
            plan["values"])


def store_plan(key: str, source: str, args: list[TaskArg], windows: tuple,
               values: str = "float64") -> None:
    plan = {"format": PLAN_FORMAT, "source": digest(source) if source else "",
            "args": [_arg_json(a) for a in args], "windows": list(windows), "values": values}
    write_entry(f"plan_{key}.json",
                json.dumps({"plan": plan, "check": _plan_check(key, plan)}))


def _arg_json(a: TaskArg) -> dict:
    of = list(a.of) if isinstance(a.of, tuple) else a.of
    return {"name": a.name, "role": a.role, "of": of, "dtype": a.dtype}


def _arg_from_json(d: dict) -> TaskArg:
    of = tuple(d["of"]) if isinstance(d["of"], list) else d["of"]
    return TaskArg(d["name"], d["role"], of, d["dtype"])


def _plan_check(key: str, plan: dict) -> str:
    """A digest binding a plan to its key, so a plan edited or moved to another
    key's name is found out."""
    return hashlib.sha256(json.dumps([key, plan], sort_keys=True).encode()).hexdigest()


def _well_formed(plan: dict) -> bool:
    return (plan["format"] == PLAN_FORMAT
            and (plan["source"] == "" or is_digest(plan["source"]))
            and isinstance(plan["args"], list)
            and all(_well_formed_arg(a) for a in plan["args"])
            and isinstance(plan["windows"], list)
            and all(w is None or type(w) is int for w in plan["windows"])
            and plan["values"] in VALUES)


def _well_formed_arg(a) -> bool:
    """A stored task argument: a dict of exactly a record's fields, of their forms."""
    if not isinstance(a, dict) or set(a) != {"name", "role", "of", "dtype"}:
        return False
    of = a["of"]
    return (isinstance(a["name"], str) and a["name"].isidentifier()
            and a["role"] in TASK_ROLES and isinstance(a["dtype"], str)
            and (type(of) in (str, int)
                 or (isinstance(of, list) and all(isinstance(x, str) for x in of))))


def batch_source(args: list[TaskArg], travel: dict[str, str], width: int | None = None) -> str:
    """A loop calling ``task`` once per task of ``order`` (a tuple result of
    ``width`` components fills the task's row of ``out``): the launch of
    kernel.launch with the CPU's passes, serial and without the GIL, run on
    threads over slices of ``order`` (dslc.cpu.threads)."""
    k = launch.apply(launch.tasks("cpu", args, travel, width=width),
                     launch_passes(CPU_LAUNCH))
    return ThreadedPrinter().kernel(k)


def pack(args: list[TaskArg], travel: dict[str, str], batch: TaskBatch, backend, windows,
         f, ids: np.ndarray | None = None) -> list:
    """The host arrays of the tasks ``ids`` (all by default) of a batch of entry
    ``f``, in the order of :func:`packed_call`'s parameters. A sequence travels
    as its column's whole packed buffer (not copied) with each task's start and
    length; numbers as one array, each distinct value converted once."""
    registry = backend.program.registry
    arrays = []
    for a in args:
        if travel[a.name] == "cseq":
            arrays += list(batch.seq_rows(a.of, ids))
        elif travel[a.name] == "scalar" and a.role == "cell":
            arrays.append(backend.final_column(f, batch, a.of, ids))
        elif travel[a.name] == "scalar":
            arrays.append(batch.column(a.of, lambda v: convert(v, registry), ids))
        else:
            arrays.append(backend.arg_value(a, batch.first, windows, None))
    return arrays


def argument_travel(args: list[TaskArg], batch: TaskBatch) -> dict[str, str]:
    """How each task argument travels, by name: ``cseq`` (a sequence column),
    ``scalar`` (one value per task) or ``shared`` (one value for all: the query
    of a database search, a matrix)."""
    travel = {}
    for a in args:
        if a.role == "argument":
            travel[a.name] = "shared" if a.of in batch.shared else \
                "cseq" if batch.is_seq(a.of) else "scalar"
        elif a.role == "cell":
            travel[a.name] = "scalar"
        else:
            travel[a.name] = "shared"
    return travel


def batch_function(module, args: list[TaskArg], batch: TaskBatch, backend):
    """A callable running every task of a batch through a generated batch loop."""
    travel = argument_travel(args, batch)
    src = module.__dict__.get("_batch_src")
    width = getattr(module, "RESULT_WIDTH", None)  # a tuple result's components
    bsrc = batch_source(args, travel, width)
    batch_mod = load(module_text(module) + "\n" + bsrc) if src != bsrc else module

    def run(batch, windows, f):
        arrays = pack(args, travel, batch, backend, windows, f)
        # a task that stops on a check leaves its slot NaN: the backend re-runs NaN
        # tasks on the interpreter (which reports the error)
        out = np.full(len(batch) if width is None else (len(batch), width), np.nan)
        order = batch.order  # largest first: threads take chunks of it as they free up
        with timings.computing():
            run_chunks(len(order), lambda a, b: batch_mod.batch(order[a:b], *arrays, out))
        return out
    return run


def module_text(module) -> str:
    """The generated source a loaded module was made from (kept in memory: the
    file could have changed since)."""
    return module._dslc_source
