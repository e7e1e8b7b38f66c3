"""Running a ``map`` as lane groups (see :mod:`dslc.emit.lanes`).

Tasks are sorted by size and dealt into groups of ``LANES`` (the last group
repeats its last task), so a group's tasks have similar extents and little of
the padded sweep is wasted. Each argument is packed once for all groups:

* a sequence as one ``(rows, LANES)`` uint8 buffer of padded blocks, the rows
  of group ``g`` between ``off[g]`` and ``off[g + 1]``, and the lengths;
* a number as a ``(groups, LANES)`` array;
* anything shared (a matrix) as itself.

Groups run in parallel with ``prange``. The variant compiled follows
:mod:`dslc.emit.precision`: float32 where the static bound holds for the run's
numbers; else float32 with a per-lane record of the largest finite magnitude
stored (tasks whose record reaches :data:`~dslc.emit.precision.LEAF` are
recomputed by the float64 scalar path); else float64.
"""

from __future__ import annotations


import numba
import numpy as np

from dslc import runlog, settings, timings
from dslc.cpu import modules
from dslc.emit.args import packed_call
from dslc.emit.lanes import LANES, LaneGenerator, lane_kind
from dslc.emit.precision import LEAF, STATIC, Float32, float32_info, largest
from dslc.emit.pyexpr import NotCompilable
from dslc.plan import lower
from dslc.lang.values import Sequence
from dslc.progress import in_chunks


def lanes_enabled() -> bool:
    """Lane groups are the default for maps; ``DSLC_LANES=0`` runs one task per
    call (for comparison, and as a way out)."""
    return settings.choice("DSLC_LANES") == "1"


class LaneMaps:
    """The lane path of a CPU backend's ``map``: which variant to compile (float32
    under the static or the checked argument, or float64), compiling it (plans
    and code cached on disk like the scalar path's), running it."""

    def __init__(self, backend):
        self.backend = backend
        self.generated: dict[str, tuple] = {}  # entry -> (plan, source, variant)
        self.fallbacks: dict[str, str] = {}  # entry -> why its map runs one task per call
        self._memo: dict = {}

    def run(self, f, kind, widest, request, tasks, progress=None):
        """Every task's raw result, or None where lanes do not apply; tasks whose
        checked float32 run is not trusted are recomputed by the scalar path."""
        if not self.applies(tasks):
            return None
        be = self.backend
        shared = shared_arguments(tasks)
        params = f.calling_params if f.is_table else f.params
        kinds = {f"a_{p.name}": lane_kind(p, shared) for p in params}
        if any(k == "shared" and a[2:] not in shared for a, k in kinds.items()):
            return None  # a model that differs between tasks: one task per call
        compiled = self.compiled(f.name, kind, widest, request, "auto", shared)
        if compiled is None:
            return None
        module, argnames, windows, dtype = compiled

        def value_of(a, task):
            prefix, _, rest = a.partition("_")
            if prefix == "a" and isinstance(task[rest], Sequence):
                return task[rest].codes
            if prefix == "n":
                return len(task[rest])
            if prefix == "q":
                return be._final(f, task)[int(rest)]
            if prefix == "a":
                return be.convert(task[rest])
            return be.arg_value(a, task, windows, None)

        if dtype == "float32":
            variant = self.variant(module, argnames, kinds, tasks, value_of, request)
            if variant != "float32":
                compiled = self.compiled(f.name, kind, widest, request, variant, shared)
                if compiled is None:
                    return None
                module, argnames, windows, dtype = compiled
        if dtype == "float32":
            wide = value_of

            def value_of(a, task):  # model arrays in the table type too
                v = wide(a, task)
                return v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype == np.float64 \
                    else v
        # a map of a group or two gains nothing from threads, and a parallel
        # driver costs about a second more to compile
        runner = LaneRunner(module, argnames, kinds, dtype,
                            parallel=len(tasks) > 2 * LANES)
        raw, redo = runner.run_pieces(tasks, value_of, progress)
        if redo:
            module, argnames, windows = be._compile(f.name, kind, widest, request)
            sub = [tasks[k] for k in redo]
            raw[redo] = modules.batch_function(module, argnames, sub, be)(sub, windows, f)
        return raw

    def variant(self, module, argnames, kinds, tasks, value_of, request=None) -> str:
        """Which argument for float32 holds for this run's numbers
        (emit.precision): ``float32`` (the static bound), ``float32c`` (checked in
        the generated code) or neither (``float64``)."""
        info = Float32(*module.F32)
        arrays = []
        for a in argnames:
            if a.startswith("a_") and kinds.get(a) == "lane":
                arrays.append(np.array([value_of(a, t) for t in tasks], dtype=np.float64))
            elif a.startswith("g_") or (a.startswith("a_") and kinds.get(a) == "shared"
                                         and not isinstance(tasks[0][a[2:]], Sequence)):
                arrays.append(value_of(a, tasks[0]))
        values = largest(arrays)
        if values is None:
            return "float64"
        extent = max(max(_extents(tasks)), max(request or (0,)), module.SYM_EXTENT)
        if info.linear and info.static_bound(values, extent) < STATIC:
            return "float32"
        if values < LEAF and extent < LEAF:
            return "float32c"
        return "float64"

    def compiled(self, func, kind, scope, request, variant: str, shared: frozenset):
        """(module, argnames, windows, storage dtype) of an entry's lane code, or
        None. ``auto`` is float32 where :func:`float32_info` allows it (the
        static-bound variant), else float64."""
        key = (func, kind, request, variant, tuple(sorted(shared)), tuple(
            (n, len(v) if isinstance(v, Sequence) else None) for n, v in sorted(scope.items())),
            settings.key())
        if key not in self._memo:
            self._memo[key] = self._compile(func, kind, scope, request, variant, shared)
        return self._memo[key]

    def applies(self, tasks: list[dict]) -> bool:
        """Does a map of ``tasks`` try lane groups?"""
        return len(tasks) >= LANES and lanes_enabled()

    def plan_key(self, func, kind, scope, request, variant, shared) -> str:
        """The disk cache's key of an entry's lane plan."""
        return modules.plan_key(self.backend.program, func,
                                f"{kind}/lanes/{variant}/{','.join(sorted(shared))}",
                                request, scope)

    def _compile(self, func, kind, scope, request, variant, shared):
        be = self.backend
        key = self.plan_key(func, kind, scope, request, variant, shared)
        hit = modules.cached_plan(key) if be.disk_cache else None
        if hit is not None:
            source, argnames, windows = hit
            if not source:
                return None
            dtype = "float32" if "DT = np.float32" in source else "float64"
            runlog.log.info("%s (%s, lanes, %s): plan and code from the cache", func, kind, dtype)
            return modules.load(source), argnames, windows, dtype
        chosen = []  # the variant the plan allows, found while generating

        def emit(plan):
            info = float32_info(be.program, plan)
            chosen.append(variant if variant != "auto" else ("float32" if info else "float64"))
            return LaneGenerator(be.program, plan, _dtype(chosen[0]), shared,
                                 check=chosen[0] == "float32c", f32=info).generate()

        try:
            with timings.planning():
                lowered = lower(be.program, func, kind, scope, request, emit=emit)
        except NotCompilable as e:
            self.fallbacks[func] = str(e)
            modules.store_plan(key, "", [], ())
            return None
        plan, source, argnames = lowered.task, lowered.source, list(lowered.argnames)
        chosen, dtype = chosen[0], _dtype(chosen[0])
        windows = tuple(g.window for g in plan.groups)
        modules.store_plan(key, source, argnames, windows)
        self.generated[func] = (plan, source, chosen)
        runlog.log.info("%s (%s, lanes, %s): planned and generated", func, kind, dtype)
        return modules.load(source), argnames, windows, dtype


def shared_arguments(tasks: list[dict]) -> frozenset:
    """The arguments every task of a map passes the same value."""
    return frozenset(n for n, v in tasks[0].items()
                     if all(modules.same_value(t[n], v) for t in tasks))


def _dtype(variant: str) -> str:
    """The storage dtype of a variant (float32 and float32c store float32)."""
    return "float64" if variant == "float64" else "float32"


def _extents(tasks: list[dict]):
    """Every sequence length of a map (coordinates can be values)."""
    yield 0
    for t in tasks:
        for v in t.values():
            if isinstance(v, Sequence):
                yield len(v)


class LaneRunner:
    """A compiled lane module and how to feed it."""

    def __init__(self, module, argnames: list[str], kinds: dict[str, str], dtype: str,
                 parallel: bool = True):
        self.argnames, self.kinds, self.dtype = argnames, kinds, np.dtype(dtype)
        as_batch = {"seq": "seq", "lane": "scalar", "shared": "shared"}
        params, call = packed_call(
            argnames, {a: as_batch[self._kind(a)] for a in argnames}, at="g")
        scratch = ", ".join(f"sc[{k}]" for k in range(module.NSCRATCH))
        src = (f"@numba.njit(parallel={parallel}, cache=True)\n"
               f"def batch(ngroups, {', '.join(params)}, out, big):\n"
               f"    for g in {'numba.prange' if parallel else 'range'}(ngroups):\n"
               f"        sc = scratch({', '.join(call)})\n"
               f"        lanes({', '.join(call)}, out[g], big[g]{', ' if scratch else ''}{scratch})\n")
        self.module = modules.load(modules.module_text(module) + "\n" + src)

    def _kind(self, a: str) -> str:
        if a.startswith(("n_", "q_")):
            return "lane"
        return self.kinds.get(a, "shared")

    def run_pieces(self, tasks: list[dict], value_of, progress=None):
        """:meth:`run` over pieces of the tasks when ``progress`` watches
        (runtime.progress.in_chunks); the indexes to redo are the whole map's."""
        redo: list[int] = []
        sizes = [modules.task_size(t) for t in tasks]

        def piece(ids):
            sub = [tasks[k] for k in ids]
            res, again = self.run(sub, value_of, [sizes[k] for k in ids])
            redo.extend(int(ids[k]) for k in again)
            return res
        raw = in_chunks(piece, tasks, progress, sizes)
        return raw, sorted(redo)

    def run(self, tasks: list[dict], value_of, sizes: list[int]):
        """Results for every task (float64) and the indexes of tasks whose float32
        run cannot be trusted. ``value_of(argname, task)`` gives an argument's
        value as the scalar path would pass it."""
        order = np.argsort([-s for s in sizes], kind="stable")
        ngroups = -(-len(tasks) // LANES)
        idx = np.empty((ngroups, LANES), dtype=np.int64)
        for g in range(ngroups):
            chunk = order[g * LANES:(g + 1) * LANES]
            idx[g, :len(chunk)] = chunk
            idx[g, len(chunk):] = chunk[-1]
        arrays = []
        for a in self.argnames:
            k = self._kind(a)
            if k == "seq":
                arrays += _pack_seqs([[value_of(a, tasks[i]) for i in row] for row in idx])
            elif k == "lane":
                dt = np.int64 if a.startswith(("n_", "q_")) else self.dtype
                arrays.append(np.array([[value_of(a, tasks[i]) for i in row] for row in idx],
                                       dtype=dt))
            else:
                arrays.append(value_of(a, tasks[0]))
        out = np.empty((ngroups, LANES), dtype=np.float64)
        big = np.zeros((ngroups, LANES), dtype=self.dtype)
        # groups are ordered largest first and handed out one at a time, so no
        # thread is left with all the long sequences
        previous = numba.set_parallel_chunksize(1)
        try:
            with timings.computing():
                self.module.batch(ngroups, *arrays, out, big)
        finally:
            numba.set_parallel_chunksize(previous)
        res = np.empty(len(tasks), dtype=np.float64)
        res[idx.ravel()] = out.ravel()
        redo = sorted({int(i) for i, b in zip(idx.ravel(), big.ravel()) if b >= LEAF})
        return res, redo


def _pack_seqs(rows: list[list[np.ndarray]]):
    """Padded ``(length, LANES)`` blocks, one per group, stacked."""
    lens = [max((len(s) for s in row), default=0) for row in rows]
    off = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    buf = np.zeros((max(int(off[-1]), 1), LANES), dtype=np.uint8)
    for g, row in enumerate(rows):
        base = off[g]
        for l, s in enumerate(row):
            buf[base:base + len(s), l] = s
    return [buf, off]

