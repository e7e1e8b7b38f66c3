"""Running a ``map`` as packs (see :mod:`dslc.emit.packs`).

Tasks are sorted by size and dealt into groups of ``PACK`` (the last group
repeats its last task), so a group's tasks have similar extents and little of
the padded sweep is wasted. The groups run a slice at a time (:func:`slices`: a few
megabytes of padded residues), and each argument is packed once per slice:

* a sequence as one ``(rows, PACK)`` uint8 buffer of padded blocks, the rows
  of group ``g`` between ``off[g]`` and ``off[g + 1]``, and the lengths;
* a number as a ``(groups, PACK)`` array;
* anything shared (a matrix) as itself.

Groups run in parallel on threads (:mod:`dslc.cpu.threads`). The variant compiled follows
:mod:`dslc.emit.precision`: float32 where the static bound holds for the run's
numbers; else float32 with a per-lane record of the largest finite magnitude
stored (tasks whose record reaches :data:`~dslc.emit.precision.LEAF` are
recomputed by the float64 scalar path); else float64.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from dslc import runlog, timings
from dslc.cpu import modules
from dslc.cpu.threads import run_chunks
from dslc.targets.printer import ThreadedPrinter
from dslc.emit.args import PACK, argument, pack_travel, packed_call
from dslc.emit import narrow
from dslc.emit.precision import LEAF, STATIC, Float32, largest
from dslc.kernel.value_type import ValueType
from dslc.lang.batch import TaskBatch
from dslc.lang.values import Sequence
from dslc.progress import in_chunks


def packs_enabled(options) -> bool:
    """Packs are the default for maps; ``DSLC_LANES=0`` (the CompileOptions'
    ``lanes``) runs one task per call (for comparison, and as a way out)."""
    return options.lanes


class PackMaps:
    """The lane path of a CPU backend's ``map``: which variant to compile (float32
    under the static or the checked argument, or float64), compiling it (plans
    and code cached on disk like the scalar path's), running it."""

    def __init__(self, backend):
        self.backend = backend
        self.generated: dict[str, tuple] = {}  # entry -> (plan, source, variant)
        self.fallbacks: dict[str, str] = {}  # entry -> why its map runs one task per call
        self._memo: dict = {}
        self._limits: dict = {}  # the last run's narrow limits by type (variant sets them)
        self.recomputed: dict[str, int] = {}  # entry -> tasks recomputed by the scalar path
        self.widened: dict[str, int] = {}  # entry -> tasks recomputed in wider lanes

    def choose(self, f, kind, widest, request, batch):
        """(:class:`PackChoice`, "") where a map of ``batch`` runs in packs,
        its value type chosen for these tasks' numbers, compiling the variant;
        else (None, why not). ``batch`` is a :class:`~dslc.lang.batch.TaskBatch`."""
        if not self.applies(batch):
            return None, (f"fewer than {PACK} tasks" if packs_enabled(self.backend.options)
                          else "DSLC_LANES=0")
        # a one-record query file is passed once as a shared query is, not padded into
        # every lane: the lanes read its residues as scalars (dslc.emit.packs)
        shared = batch.uniform
        params = f.calling_params if f.is_table else f.params
        travel = {argument(p.name).name: pack_travel(p, shared) for p in params}
        if any(pack_travel(p, shared) == "shared" and p.name not in shared for p in params):
            return None, "a model that differs between tasks"
        compiled = self.compiled(f.name, kind, widest, request, "auto", shared)
        if compiled is None:
            return None, self.fallbacks.get(f.name, "")
        module, args, windows, variant = compiled
        why = "float64: the plan's values allow no float32 (emit.precision)"
        limits, wider = None, None
        if variant == "float32":
            column, shared_value = self._accessors(f, batch, windows)
            variant = self.variant(module, args, travel, batch, column, shared_value, request)
            why = _WHY[variant]
            if variant in NARROW_TYPES:
                limits = self._limits[variant]
                wider = self._wider(f, kind, widest, request, shared, travel, variant)
            if variant != "float32":
                compiled = self.compiled(f.name, kind, widest, request, variant, shared)
                if compiled is None:
                    return None, self.fallbacks.get(f.name, "")
        return PackChoice(compiled, travel, variant, why, limits, wider), ""

    def _wider(self, f, kind, widest, request, shared, travel, variant):
        """The lanes that recompute what a narrow variant could not keep: int16's
        for int8 where its limits hold (None: the scalar path recomputes)."""
        later = NARROW_TYPES[NARROW_TYPES.index(variant) + 1:]
        for dtype in later:
            if dtype in self._limits:
                compiled = self.compiled(f.name, kind, widest, request, dtype, shared)
                if compiled is not None:
                    return PackChoice(compiled, travel, dtype, _WHY[dtype], self._limits[dtype])
        return None

    def _accessors(self, f, batch, windows):
        """``column(a, ids)``: argument ``a`` of every task (``ids``) as the scalar
        path passes it; ``shared_value(a)``: one every task shares."""
        be, first = self.backend, batch.first

        def column(a, ids=None):
            if a.role == "length":
                lens = batch.lengths[a.of]
                return lens if ids is None else lens[ids]
            if a.role == "cell":
                return be.final_column(f, batch, a.of, ids)
            return batch.column(a.of, be.convert, ids)

        def shared_value(a):
            if a.role == "argument":
                v = first[a.of]
                return v.codes if isinstance(v, Sequence) else be.convert(v)
            return be.arg_value(a, first, windows, None)
        return column, shared_value

    def run(self, f, chosen, batch, progress=None):
        """Every task's raw result, as ``chosen`` (the backend's decision, its
        ``compiled`` a :class:`PackChoice`) says; tasks whose checked float32 run
        is not trusted are recomputed by the scalar path. ``progress(done)`` is
        called as pieces of the map finish (dslc.progress)."""
        be, lane = self.backend, chosen.compiled
        raw, redo = self._lanes(f, lane, batch, progress)
        if redo and lane.wider is not None:  # (int8's: in int16 lanes first)
            self.widened[f.name] = self.widened.get(f.name, 0) + len(redo)
            wide, again = self._lanes(f, lane.wider, batch.subset(redo))
            raw[redo] = wide
            redo = [redo[k] for k in again]
        if redo:
            self.recomputed[f.name] = self.recomputed.get(f.name, 0) + len(redo)
            module, args, windows = be.compiled(f.name, chosen.kind, chosen.scope,
                                                chosen.request)
            sub = batch.subset(redo)
            raw[redo] = modules.batch_function(module, args, sub, be)(sub, windows, f)
        return raw

    def _lanes(self, f, lane, batch, progress=None):
        """(raw results, tasks to recompute) of ``batch`` in the lanes ``lane`` (a
        :class:`PackChoice`)."""
        module, args, windows, variant = lane.compiled
        column, shared_value = self._accessors(f, batch, windows)
        # a map of a group or two gains nothing from threads
        runner = PackRunner(module, args, lane.travel, _dtype(variant),
                            parallel=len(batch) > 2 * PACK, limits=lane.limits)
        return runner.run_pieces(batch, column, shared_value, progress)

    def variant(self, module, args, travel, batch, column, shared_value,
                request=None) -> str:
        """Which argument for float32 holds for this run's numbers
        (emit.precision): ``float32`` (the static bound), ``float32c`` (checked in
        the generated code) or neither (``float64``)."""
        info = Float32(*module.F32)
        arrays = []
        for a in args:
            if a.role == "argument" and travel.get(a.name) == "member":
                arrays.append(np.asarray(column(a), dtype=np.float64))
            elif a.role in ("global", "layout") or (
                    a.role == "argument" and travel.get(a.name) == "shared"
                    and not batch.is_seq(a.of)):
                arrays.append(shared_value(a))
        values = largest(arrays)
        if values is None:
            return "float64"
        extent = max(max([int(v.max()) for v in batch.lengths.values()] + [0]),
                     max(request or (0,)), module.SYM_EXTENT)
        self._limits = {}
        narrowest = self.backend.options.narrow
        if narrowest != "0":
            value_of = self._parameter_values(args, travel, batch, column, shared_value)
            for dtype in NARROW_TYPES[1:] if narrowest == "16" else NARROW_TYPES:
                lims = narrow.limits(getattr(module, "NARROW", None), arrays, values, extent,
                                     value_of, dtype)
                if lims is not None:
                    self._limits[dtype] = lims
        if self._limits:
            return next(iter(self._limits))
        if info.linear and info.static_bound(values, extent) < STATIC:
            return "float32"
        if values < LEAF and extent < LEAF:
            return "float32c"
        return "float64"

    @staticmethod
    def _parameter_values(args, travel, batch, column, shared_value):
        """``value_of(name)``: the values entry parameter ``name`` takes in the
        map's tasks, as an array (None: not a number)."""
        def value_of(name):
            for a in args:
                if a.role == "argument" and a.of == name:
                    if travel.get(a.name) == "member":
                        return np.asarray(column(a), dtype=np.float64)
                    if travel.get(a.name) == "shared" and not batch.is_seq(a.of):
                        v = shared_value(a)
                        return np.asarray(v, dtype=np.float64) if np.ndim(v) == 0 else None
            return None
        return value_of

    def compiled(self, func, kind, scope, request, variant: str, shared: frozenset):
        """(module, args, windows, variant) of an entry's lane code, or
        None. ``auto`` is float32 where :func:`float32_info` allows it (the
        static-bound variant), else float64."""
        key = (func, kind, request, variant, tuple(sorted(shared)), tuple(
            (n, len(v) if isinstance(v, Sequence) else None) for n, v in sorted(scope.items())),
            self.backend.options)
        if key not in self._memo:
            self._memo[key] = self._compile(func, kind, scope, request, variant, shared)
        return self._memo[key]

    def applies(self, tasks: list[dict]) -> bool:
        """Does a map of ``tasks`` try packs?"""
        return len(tasks) >= PACK and packs_enabled(self.backend.options)

    def plan_key(self, func, kind, scope, request, variant, shared) -> str:
        """The disk cache's key of an entry's lane plan."""
        return modules.plan_key(self.backend.program, func,
                                f"{kind}/lanes/{variant}/{','.join(sorted(shared))}",
                                request, scope, options=self.backend.options)

    def _compile(self, func, kind, scope, request, variant, shared):
        be = self.backend
        key = self.plan_key(func, kind, scope, request, variant, shared)
        hit = modules.cached_plan(key) if be.disk_cache else None
        if hit is not None:
            source, args, windows, values = hit
            if not source:
                return None
            runlog.log.info("%s (%s, lanes, %s): plan and code from the cache", func, kind, values)
            return modules.load(source), args, windows, values
        # the generators, imported where a plan is made (a cached run makes none)
        from dslc.emit.precision import float32_info
        from dslc.emit.pyexpr import NotCompilable
        from dslc.emit.strategies import build, strategy
        from dslc.kernel.value_type import ValueType
        from dslc.plan import lower
        from dslc.targets.printer import Printer

        chosen = []  # the variant the plan allows, found while generating

        def emit(plan):
            info = float32_info(be.program, plan)
            chosen.append(variant if variant != "auto" else ("float32" if info else "float64"))
            return build(strategy("cpu task groups"), be.program, plan, ValueType(chosen[0]),
                         shared, f32=info).module()

        try:
            with timings.planning():
                lowered = lower(be.program, func, kind, scope, request, emit=emit,
                                verify=be.options.verify_ir)
        except NotCompilable as e:
            self.fallbacks[func] = str(e)
            modules.store_plan(key, "", [], ())
            return None
        plan, args = lowered.task, list(lowered.args)
        source = Printer().module(lowered.module)  # (the text: to compile and to keep)
        chosen = chosen[0]
        windows = tuple(g.window for g in plan.groups)
        modules.store_plan(key, source, args, windows, chosen)
        self.generated[func] = (plan, source, chosen)
        runlog.log.info("%s (%s, lanes, %s): planned and generated", func, kind, chosen)
        return modules.load(source), args, windows, chosen


_WHY = {"float32": "float32: emit.precision's static bound holds for these tasks' numbers",
        "float32c": "float32 checked: each lane records the largest magnitude it stored; "
                    "tasks reaching the limit are recomputed in float64",
        "float64": "float64: these tasks' numbers are beyond what float32 is trusted with",
        "int16": "int16: emit.narrow proves a floor under every value and these tasks' "
                 "numbers leave room; tasks reaching the ceiling are recomputed in float64",
        "int8": "int8: emit.narrow proves a floor under every value and these tasks' "
                "numbers leave room; tasks reaching the ceiling are recomputed in int16 "
                "lanes (then float64)"}

# the narrow value types, narrowest first (emit.narrow): a map takes the first whose
# limits hold, and what it cannot keep is recomputed in the next
NARROW_TYPES = ("int8", "int16")


@dataclass(frozen=True)
class PackChoice:
    """A map's lane code: (module, args, windows, variant), how each
    argument travels (by name), the variant (``float32``, ``float32c``, ``float64``) and why."""

    compiled: tuple = field(compare=False)
    travel: dict = field(compare=False)
    variant: str
    why: str
    limits: tuple | None = None  # the narrow variant's (ceiling, lowest result): emit.narrow

    @property
    def lanes(self) -> int:
        """Tasks per pack (the module's ``LANES``: emit.narrow.lanes)."""
        return self.compiled[0].LANES
    wider: "PackChoice | None" = field(default=None, compare=False)  # recomputes (int8's)


def shared_arguments(tasks) -> frozenset:
    """The arguments every task of a map passes the same value (as the lane
    path finds them: its batch's uniform columns)."""
    return TaskBatch.of(tasks).uniform


def _dtype(variant: str) -> str:
    """The storage dtype of a variant (float32 and float32c store float32)."""
    return ValueType(variant).dtype


# Groups packed and run per call of the driver: their padded sequences are held one
# slice at a time, not for the whole map. A slice holds at most SLICE groups and, past
# SLICE_MIN of them, at most SLICE_BYTES of padded residues: 2 MB is about 370 groups of
# proteins of 350 (23 for each of 16 threads, so the wait for a slice's last group is a
# small part of it), where 2,048 groups of the longest proteins held 18 MB, the largest
# block of a CPU search's peak memory (docs/benchmarks-log.md, "The H200 (2026-12-02)").
SLICE = 2048
SLICE_MIN = 64
SLICE_BYTES = 2 << 20

class PackRunner:
    """A compiled lane module and how to feed it."""

    def __init__(self, module, args: list, travel: dict[str, str], dtype: str,
                 parallel: bool = True, limits: tuple | None = None):
        self.args, self.travel, self.dtype = args, travel, np.dtype(dtype)
        self.limits = limits  # the narrow variant's (emit.narrow.limits)
        self.lanes = module.LANES  # tasks per pack: the variant's (emit.narrow.lanes)
        as_batch = {"seq": "seq", "member": "scalar", "shared": "shared"}
        params, call = packed_call(
            args, {a.name: as_batch[self._travel(a)] for a in args}, at="g")
        scratch = ", ".join(f"sc[{k}]" for k in range(module.NSCRATCH))
        pr = ThreadedPrinter()  # groups g0 .. g1 - 1: threads take chunks of them
        src = pr.function(
            "batch", ["g0", "g1", *params, "out", "big"],
            "    for g in range(g0, g1):\n"
            f"        sc = scratch({', '.join(call)})\n"
            f"        lanes({', '.join(call)}, out[g], big[g]{', ' if scratch else ''}{scratch})",
            "KERNEL")
        self.module = modules.load(modules.module_text(module) + "\n" + src)
        self.threads = None if parallel else 1

    def _travel(self, a) -> str:
        if a.role in ("length", "cell"):
            return "member"
        return self.travel.get(a.name, "shared")

    def run_pieces(self, batch, column, shared_value, progress=None):
        """:meth:`run` over pieces of the tasks when ``progress`` watches
        (dslc.progress.in_chunks); the indexes to redo are the whole map's."""
        if progress is None:
            return self.run(batch, column, shared_value)
        redo: list[int] = []

        def piece(ids):
            def sub_column(a, sub_ids=None):
                return column(a, ids if sub_ids is None else ids[sub_ids])
            res, again = self.run(batch.subset(ids), sub_column, shared_value)
            redo.extend(int(ids[k]) for k in again)
            return res
        sizes = sum(batch.lengths.values(), np.zeros(len(batch), dtype=np.int64))
        raw = in_chunks(piece, batch, progress, sizes)
        return raw, sorted(redo)

    def run(self, batch, column, shared_value):
        """Results for every task (float64) and the indexes of tasks whose float32
        run cannot be trusted. ``column(arg, ids)`` gives an argument's value
        in tasks ``ids``, ``shared_value(arg)`` one every task shares, as
        the scalar path would pass them."""
        order = batch.order
        lanes = self.lanes
        ngroups = -(-len(batch) // lanes)
        idx = np.empty(ngroups * lanes, dtype=np.int64)
        idx[:len(order)] = order
        idx[len(order):] = order[-1]  # the last group repeats its last task
        idx = idx.reshape(ngroups, lanes)
        bounds = slices(self._padded_bytes(batch, idx))
        # groups largest first in each slice, threads taking chunks of them in that
        # order (dslc.cpu.threads)
        out = np.empty((ngroups, lanes), dtype=np.float64)
        big = np.zeros((ngroups, lanes), dtype=self.dtype)
        shared = {a.name: _in_value_type(shared_value(a), self.dtype) for a in self.args
                  if self._travel(a) == "shared"}
        for a, b in zip(bounds, bounds[1:]):
            arrays = self._arrays(batch, column, shared, idx[a:b])
            o, g = out[a:b], big[a:b]
            with timings.computing():
                run_chunks(b - a, lambda g0, g1: self.module.batch(g0, g1, *arrays, o, g),
                           self.threads)
            del arrays  # (before the next slice's are packed)
        res = np.empty(len(batch), dtype=np.float64)
        res[idx.ravel()] = out.ravel()
        if self.limits is None:
            again = big.ravel() >= LEAF
        else:
            again = narrow.untrusted(out.ravel(), big.ravel(), self.limits, self.dtype.name)
            res[idx.ravel()] = narrow.results(out.ravel(), self.dtype.name)
        redo = np.unique(idx.ravel()[again]).tolist()
        return res, redo

    def _padded_bytes(self, batch, idx: np.ndarray) -> np.ndarray:
        """The padded residues each group (a row of ``idx``) packs: its longest
        sequence of each argument that travels as one, ``PACK`` lanes of it."""
        size = np.zeros(len(idx), dtype=np.int64)
        for a in self.args:
            if self._travel(a) == "seq":
                lens = batch.seq_rows(a.of, idx.ravel())[2]
                size += lens.reshape(idx.shape).max(axis=1) * self.lanes
        return size

    def _arrays(self, batch, column, shared: dict, part: np.ndarray) -> list:
        """The arguments of the groups ``part`` (task numbers, ``(groups, PACK)``):
        their sequences padded into blocks, their numbers, and what every task
        shares."""
        arrays = []
        for a in self.args:
            k = self._travel(a)
            if k == "seq":
                arrays += _pack_seqs(*batch.seq_rows(a.of, part.ravel()), len(part))
            elif k == "member":
                dt = np.int64 if a.role in ("length", "cell") else self.dtype
                arrays.append(np.asarray(column(a, part.ravel()), dtype=dt).reshape(part.shape))
            else:
                arrays.append(shared[a.name])
        return arrays


def slices(padded: np.ndarray) -> list[int]:
    """Where the slices of groups whose padded residues are ``padded`` (in run
    order) begin, and the end: at most :data:`SLICE` groups each and, past
    :data:`SLICE_MIN`, at most :data:`SLICE_BYTES`."""
    bounds, at, n = [0], 0, len(padded)
    ends = np.cumsum(padded)
    while at < n:
        room = ends[at - 1] + SLICE_BYTES if at else SLICE_BYTES
        end = int(np.searchsorted(ends, room, side="right"))
        at = min(n, at + SLICE, max(end, at + SLICE_MIN))
        bounds.append(at)
    return bounds


def _in_value_type(v, dtype: np.dtype):
    """A shared argument in the lanes' value type where it is a float64 number or
    model array: members already travel in it (:meth:`PackRunner.run`), and a float64
    number among float32 values makes Numba do that arithmetic (and the min/max
    around it) in float64, half as many lanes per vector. Exact: both float32
    arguments of emit.precision bound every argument and model value below 2^23."""
    if dtype.kind == "i":
        return narrow.shared_value(v, dtype)
    if dtype != np.float32:
        return v
    if isinstance(v, float):
        return dtype.type(v)
    if isinstance(v, np.ndarray) and v.dtype == np.float64:
        return v.astype(dtype)
    return v


def _pack_seqs(codes: np.ndarray, starts: np.ndarray, lens: np.ndarray, ngroups: int):
    """Padded ``(length, PACK)`` blocks, one per group of ``PACK`` consecutive
    rows (task ``r``'s residues at ``codes[starts[r]:starts[r] + lens[r]]``),
    stacked, and each group's first row."""
    lanes = len(lens) // ngroups
    longest = lens.reshape(ngroups, lanes).max(axis=1)
    off = np.zeros(ngroups + 1, dtype=np.int64)
    np.cumsum(longest, out=off[1:])
    buf = np.zeros((max(int(off[-1]), 1), lanes), dtype=np.uint8)
    _fill_lanes(codes, starts, lens, off, buf)
    return [buf, off]


@numba.njit(cache=True)
def _fill_lanes(codes, starts, lens, off, buf):
    lanes = buf.shape[1]
    for r in range(len(lens)):
        g, lane = r // lanes, r % lanes
        base, at = off[g], starts[r]
        for j in range(lens[r]):
            buf[base + j, lane] = codes[at + j]
