"""Loading generated code, cached on disk, and running batches of tasks.

Generated source is written to ``$DSLC_CACHE_DIR`` (default ``~/.cache/dslc``)
under the hash of its text and imported from there, so Numba's own on-disk
cache (``cache=True``) applies: a second run of the same script finds both the
source and the machine code and compiles nothing.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import operator
import os
import sys
from pathlib import Path

import numba
import numpy as np

from dslc.runtime.values import Sequence

_LOADED: dict[str, object] = {}


def cache_dir() -> Path:
    d = Path(os.environ.get("DSLC_CACHE_DIR") or Path.home() / ".cache" / "dslc")
    d.mkdir(parents=True, exist_ok=True)
    return d


def load(source: str):
    key = hashlib.sha256(source.encode()).hexdigest()[:24]
    mod = _LOADED.get(key)
    if mod is not None:
        return mod
    path = cache_dir() / f"dslc_{key}.py"
    if not path.exists() or path.read_text() != source:
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(source)
        os.replace(tmp, path)
    name = f"dslc_generated_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    _LOADED[key] = mod
    return mod


_CODEGEN_HASH: list[str] = []


def _codegen_hash() -> str:
    """A digest of the compiler stages that shape generated code, so a cached
    plan never outlives a change to them."""
    if not _CODEGEN_HASH:
        root = Path(__file__).resolve().parents[1]
        h = hashlib.sha256()
        for sub in ("deps", "schedule", "poly", "emit", "cpu"):
            for f in sorted((root / sub).glob("*.py")):
                h.update(f.read_bytes())
        _CODEGEN_HASH.append(h.hexdigest())
    return _CODEGEN_HASH[0]


def plan_key(program, func: str, kind: str, request, scope: dict) -> str:
    """What decides a task's generated code: the program (its AST and constants),
    the entry and the shapes of the arguments (lengths decide the schedule)."""
    shapes = tuple((n, len(v) if isinstance(v, Sequence) else type(v).__name__)
                   for n, v in sorted(scope.items()))
    text = repr((program.ast, sorted(program.consts.items()), func, kind, request, shapes,
                 _codegen_hash(), extensions_digest(program.registry)))
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
    that nothing could be generated."""
    path = cache_dir() / f"plan_{key}.json"
    try:
        data = json.loads(path.read_text())
        if data["source"] == "":
            return "", [], ()
        source = (cache_dir() / f"dslc_{data['source']}.py").read_text()
    except (OSError, ValueError, KeyError):
        return None
    return source, data["argnames"], tuple(data["windows"])


def store_plan(key: str, source: str, argnames: list[str], windows: tuple) -> None:
    digest = hashlib.sha256(source.encode()).hexdigest()[:24] if source else ""
    path = cache_dir() / f"plan_{key}.json"
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps({"source": digest, "argnames": argnames, "windows": list(windows)}))
    os.replace(tmp, path)


def packed_call(argnames: list[str], kinds: dict[str, str],
                at: str = "k") -> tuple[list[str], list[str]]:
    """Parameters of a batch function and the arguments it passes ``task`` for
    task (or lane group) ``at``; ``kinds`` says how each argument is packed:
    ``seq`` (one buffer + offsets), ``scalar`` (an array with one value per task),
    ``shared``, or one of the block-interleaved kinds of emit.tiles."""
    params, call = [], []
    for a in argnames:
        k = kinds[a]
        if k == "iseq":  # interleaved by block (emit.tiles): the whole buffer
            params.append(f"buf_{a}")
            call.append(f"buf_{a}")
        elif k == "ibase":
            params.append(f"arr_{a}")
            call.append(f"arr_{a}[n // BLOCK]")
        elif k == "ilen":
            params.append(f"arr_{a}")
            call.append(f"arr_{a}[n]")
        elif k == "lane":
            call.append("n % BLOCK")
        elif k == "seq":
            params += [f"buf_{a}", f"off_{a}"]
            call.append(f"buf_{a}[off_{a}[{at}]:off_{a}[{at} + 1]]")
        elif k == "scalar":
            params.append(f"arr_{a}")
            call.append(f"arr_{a}[{at}]")
        else:
            params.append(a)
            call.append(a)
    return params, call


def batch_source(argnames: list[str], kinds: dict[str, str]) -> str:
    """A ``prange`` loop calling ``task`` once per task."""
    params, call = packed_call(argnames, kinds)
    return (f"@numba.njit(parallel=True, cache=True)\n"
            f"def batch(order, {', '.join(params)}, out):\n"
            f"    for n in numba.prange(len(order)):\n"
            f"        k = order[n]\n"
            f"        out[k] = task({', '.join(call)})\n")


def pack(argnames: list[str], kinds: dict[str, str], tasks: list[dict], backend, windows,
         f) -> list:
    """The host arrays of a batch of tasks of entry ``f``, in the order of
    :func:`packed_call`'s parameters."""
    from dslc.cpu.backend import convert

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
    bsrc = batch_source(argnames, kinds)
    batch_mod = load(module_text(module) + "\n" + bsrc) if src != bsrc else module

    def run(tasks, windows, f):
        arrays = pack(argnames, kinds, tasks, backend, windows, f)
        order = np.argsort([-task_size(t) for t in tasks], kind="stable").astype(np.int64)
        # a task that stops on a check leaves its slot NaN: with a chunk size set,
        # Numba does not always re-raise an exception from a worker thread, so the
        # backend re-runs NaN tasks on the interpreter (which reports the error)
        out = np.full(len(tasks), np.nan)
        # tasks are ordered largest first and handed out a few at a time, so no
        # thread is left with all the long sequences
        previous = numba.set_parallel_chunksize(2)
        try:
            batch_mod.batch(order, *arrays, out)
        finally:
            numba.set_parallel_chunksize(previous)
        return out
    return run


def task_size(task: dict) -> int:
    """How much work a task is, for ordering: its total sequence length."""
    return sum(len(v) for v in task.values() if isinstance(v, Sequence))


def module_text(module) -> str:
    """The generated source a loaded module was made from."""
    return Path(module.__file__).read_text()
