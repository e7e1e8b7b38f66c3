"""Loading generated code, cached on disk, and running batches of tasks.

Generated source is written to the cache directory (``$DSLC_CACHE_DIR``, default
``~/.cache/dslc``; dslc.cpu.cache) under the hash of its text and imported from
there, so Numba's own on-disk cache (``cache=True``) applies: a second run of
the same script finds both the source and the machine code and compiles nothing.
What runs is always the text dslc generated or verified, never what a file says.
"""

from __future__ import annotations

import hashlib
import json
import operator
import sys
import types
from pathlib import Path

import numba
import numpy as np

from dslc import settings
from dslc.cpu.cache import (cache_dir, digest, guard_numba_caches, is_digest, read_module,
                            write_entry)
from dslc import timings
from dslc.cpu.convert import convert
from dslc.emit.args import packed_call
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
    exec(compile(source, str(path), "exec"), mod.__dict__)
    guard_numba_caches(mod.__dict__)
    _LOADED[key] = mod
    return mod


_CODEGEN_HASH: list[str] = []


def _codegen_hash() -> str:
    """A digest of the compiler stages that shape generated code, so a cached
    plan never outlives a change to them."""
    if not _CODEGEN_HASH:
        root = Path(__file__).resolve().parents[1]
        h = hashlib.sha256()
        for sub in ("lang", "deps", "schedule", "poly", "plan", "emit", "cpu"):
            for f in sorted((root / sub).glob("*.py")):
                h.update(f.read_bytes())
        _CODEGEN_HASH.append(h.hexdigest())
    return _CODEGEN_HASH[0]


def plan_key(program, func: str, kind: str, request, scope: dict) -> str:
    """What decides a task's generated code: the program (its AST and constants),
    the entry, the shapes of the arguments (lengths decide the schedule) and every
    setting that can change code (dslc.settings.key)."""
    shapes = tuple((n, len(v) if isinstance(v, Sequence) else type(v).__name__)
                   for n, v in sorted(scope.items()))
    text = repr((program.ast, sorted(program.consts.items()), func, kind, request, shapes,
                 _codegen_hash(), extensions_digest(program.registry), settings.key()))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def extensions_digest(registry) -> str:
    """What of the installed extensions shapes generated code: each accessor's
    compiled form and bounds, each type's role, layout arrays (names, placement)
    and compiled size and index. An extension author who edits a compiled form
    gets new code, not a plan cached from the old one."""
    parts = [("accessor", key, repr(a.device), repr(a.bounds))
             for key, a in sorted(registry.accessors.items(), key=lambda kv: str(kv[0]))]
    parts += [("type", name, t.role, t.bracket, t.size is not None,
               repr(t.layout.arrays) if t.layout is not None else None,
               repr(t.device_size), repr(t.device_index), t.device_array is not None)
              for name, t in sorted(registry.types.items())]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def cached_plan(key: str):
    """(source, argnames, windows) stored under ``key``; an empty source records
    that nothing could be generated. None where there is no plan or it fails a
    check: its checksum (an edited plan, swapped argnames), its fields' forms
    (a module is named by a digest, never a path) or its module's hash."""
    try:
        data = json.loads((cache_dir() / f"plan_{key}.json").read_text())
        plan = data["plan"]
        if data["check"] != _plan_check(key, plan) or not _well_formed(plan):
            return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if plan["source"] == "":
        return "", [], ()
    source = read_module(plan["source"])
    if source is None:
        return None
    return source, plan["argnames"], tuple(plan["windows"])


def store_plan(key: str, source: str, argnames: list[str], windows: tuple) -> None:
    plan = {"source": digest(source) if source else "", "argnames": list(argnames),
            "windows": list(windows)}
    write_entry(f"plan_{key}.json",
                json.dumps({"plan": plan, "check": _plan_check(key, plan)}))


def _plan_check(key: str, plan: dict) -> str:
    """A digest binding a plan to its key, so a plan edited or moved to another
    key's name is found out."""
    return hashlib.sha256(json.dumps([key, plan], sort_keys=True).encode()).hexdigest()


def _well_formed(plan: dict) -> bool:
    return ((plan["source"] == "" or is_digest(plan["source"]))
            and isinstance(plan["argnames"], list)
            and all(isinstance(a, str) and a.isidentifier() for a in plan["argnames"])
            and isinstance(plan["windows"], list)
            and all(w is None or type(w) is int for w in plan["windows"]))


def batch_source(argnames: list[str], kinds: dict[str, str], width: int | None = None) -> str:
    """A ``prange`` loop calling ``task`` once per task (a tuple result of
    ``width`` components fills the task's row of ``out``)."""
    params, call = packed_call(argnames, kinds)
    task = f"task({', '.join(call)})"
    store = f"        out[k] = {task}\n" if width is None else \
        f"        v = {task}\n" + "".join(f"        out[k, {c}] = v[{c}]\n" for c in range(width))
    return (f"@numba.njit(parallel=True, cache=True)\n"
            f"def batch(order, {', '.join(params)}, out):\n"
            f"    for n in numba.prange(len(order)):\n"
            f"        k = order[n]\n"
            f"{store}")


def pack(argnames: list[str], kinds: dict[str, str], tasks: list[dict], backend, windows,
         f) -> list:
    """The host arrays of a batch of tasks of entry ``f``, in the order of
    :func:`packed_call`'s parameters."""
    registry = backend.program.registry
    arrays = []
    for a in argnames:
        kind, _, rest = a.partition("_")
        if kinds[a] == "seq":
            seqs = [t[rest].codes for t in tasks]
            offs = np.zeros(len(seqs) + 1, dtype=np.int64)
            np.cumsum([len(s) for s in seqs], out=offs[1:])
            arrays += [np.concatenate(seqs) if seqs else np.zeros(1, np.uint8), offs]
        elif kinds[a] == "scalar" and kind == "q":
            arrays.append(np.array([backend._final(f, t)[int(rest)] for t in tasks],
                                   dtype=np.int64))
        elif kinds[a] == "scalar":
            arrays.append(np.array([convert(t[rest], registry) for t in tasks]))
        else:
            arrays.append(backend.arg_value(a, tasks[0], windows, None))
    return arrays


def shared_by_all(tasks: list[dict], name: str) -> bool:
    """Whether argument ``name`` has the same value in every task (the query of
    a database search, say). A million tasks are checked in C where the values
    are one object or equal numbers of one type."""
    column = list(map(operator.itemgetter(name), tasks))
    first = column[0]
    if column.count(first) == len(column) and len(set(map(type, column))) == 1:
        return True  # Sequence has identity equality; numbers compare by value
    return all(same_value(x, first) for x in column)


def argument_kinds(argnames: list[str], tasks: list[dict],
                   shared: frozenset | None = None) -> dict[str, str]:
    """How each task argument travels: ``seq`` (packed buffer + offsets),
    ``scalar`` (one value per task) or ``shared`` (one value for all;
    ``shared`` names them where the caller has already looked)."""
    first = tasks[0]
    kinds = {}
    for a in argnames:
        kind, _, rest = a.partition("_")
        if kind == "a":
            v = first[rest]
            if (rest in shared) if shared is not None else shared_by_all(tasks, rest):
                kinds[a] = "shared"  # the query of a database search, say: passed once
            elif isinstance(v, Sequence):
                kinds[a] = "seq"
            else:
                kinds[a] = "scalar"
        elif kind == "q":
            kinds[a] = "scalar"
        else:
            kinds[a] = "shared"
    return kinds


def same_value(a, b) -> bool:
    """The same argument value (sequences by content: a query bound per task)."""
    if a is b:
        return True
    if isinstance(a, Sequence) and isinstance(b, Sequence):
        return a.alphabet is b.alphabet and np.array_equal(a.codes, b.codes)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return type(a) is type(b) and a == b
    return False


def batch_function(module, argnames: list[str], tasks: list[dict], backend):
    """A callable running every task through a generated batch loop."""
    kinds = argument_kinds(argnames, tasks)
    src = module.__dict__.get("_batch_src")
    width = getattr(module, "RESULT_WIDTH", None)  # a tuple result's components
    bsrc = batch_source(argnames, kinds, width)
    batch_mod = load(module_text(module) + "\n" + bsrc) if src != bsrc else module

    def run(tasks, windows, f):
        arrays = pack(argnames, kinds, tasks, backend, windows, f)
        order = np.argsort([-task_size(t) for t in tasks], kind="stable").astype(np.int64)
        # a task that stops on a check leaves its slot NaN: with a chunk size set,
        # Numba does not always re-raise an exception from a worker thread, so the
        # backend re-runs NaN tasks on the interpreter (which reports the error)
        out = np.full(len(tasks) if width is None else (len(tasks), width), np.nan)
        # tasks are ordered largest first and handed out a few at a time, so no
        # thread is left with all the long sequences
        previous = numba.set_parallel_chunksize(2)
        try:
            with timings.computing():
                batch_mod.batch(order, *arrays, out)
        finally:
            numba.set_parallel_chunksize(previous)
        return out
    return run


def task_size(task: dict) -> int:
    """How much work a task is, for ordering: its total sequence length."""
    return sum(len(v) for v in task.values() if isinstance(v, Sequence))


def module_text(module) -> str:
    """The generated source a loaded module was made from (kept in memory: the
    file could have changed since)."""
    return module._dslc_source
