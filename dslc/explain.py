"""``dslc explain`` and ``dslc compile --emit python``: what the compiler chose.

The script is run once on the CPU backend so that every schedule is chosen for
the script's real inputs (the number of partitions depends on them); each
recursive group is then reported with its dependences, schedule, partitions,
window depth, order within a partition and loop nest.
"""

from __future__ import annotations

import functools

import numpy as np

from dslc import timings
from dslc.auto import AutoBackend
from dslc.check.ranges import declared
from dslc.check.tir import groups
from dslc.emit.lanes import LANES
from dslc import settings
from dslc.errors import DslcError, NotCompilable, write_user_file
from dslc.plan import lower
from dslc.plan.driver import ASSUMED_EXTENT
from dslc.plan.task import GroupPlan
from dslc.poly.pretty import render
from dslc.runtime.script import ScriptRunner


_LAST_PLANS: dict = {}  # entry -> plan of the last collect()
_LAST_LANES: dict = {}  # map entry -> how its map ran on the CPU (lanes or why not)
_LAST_AUTO: dict = {}  # entry -> where --backend auto runs it, and why (dslc.auto.Choice)
_LAST_TASKS: dict = {}  # map entry -> the tasks its maps ran (for --plot)

_LAST_COMPILE: dict = {}  # entry -> seconds planning and compiling it on the CPU

_VARIANTS = {"float32": "float32 (static bound)", "float32c": "float32 (checked per cell)",
             "float64": "float64"}


def collect(program) -> tuple[dict[str, GroupPlan], dict[str, str], dict[str, str], set]:
    """Group plans by function, generated sources by entry, interpreter
    fallbacks, and the functions the script never ran (extents of 10 assumed)."""
    collector = timings.Collector()
    runner = ScriptRunner(program.checked,
                          timings.timed(functools.partial(AutoBackend, run_gpu=False), collector),
                          program.base_dir, quiet=True, params=program.params,
                          from_text=program.params_from_text)
    engine = runner.backend.cpu  # auto's decisions recorded, everything run on the CPU
    engine.disk_cache = False  # plan afresh, so every plan can be shown
    engine.direct_scalars = False  # compile straight-line entries too, to show them
    _LAST_TASKS.clear()
    engine_ = getattr(runner.backend, "inner", runner.backend)  # under the timing wrapper
    engine_.map = _recording(engine_.map)
    runner.run()
    _LAST_AUTO.clear()
    _LAST_AUTO.update(runner.backend.decisions)
    _LAST_COMPILE.clear()
    for e in collector.entries:  # (a function called and mapped: the sum)
        _LAST_COMPILE[e.func] = _LAST_COMPILE.get(e.func, 0.0) + e.compile_s
    by_func, sources = {}, {}
    _LAST_PLANS.clear()
    _LAST_LANES.clear()
    for e, (_, _, variant) in engine.lanes.generated.items():
        _LAST_LANES[e] = {"strategy": f"lane groups of {LANES}", "values": _VARIANTS[variant]}
    for e, why in engine.lanes.fallbacks.items():
        _LAST_LANES.setdefault(e, {"strategy": "one task per call", "why": why})
    compiled = {e: (plan, source) for e, (plan, source, _) in engine.lanes.generated.items()}
    compiled.update(engine.generated)  # the scalar task's source where both exist
    for entry, (plan, source) in compiled.items():
        _LAST_PLANS[entry] = plan
        sources[entry] = source
        for g in plan.groups:
            for f in g.functions:
                by_func.setdefault(f, g)
    assumed, fallbacks = set(), dict(engine.fallbacks)
    for grp in groups(program.checked.functions):
        if grp[0] in by_func:
            continue
        assumed.update(grp)
        try:
            lowered = lower(program.checked, grp[0], "table", {}, assumed=ASSUMED_EXTENT)
        except (DslcError, NotCompilable) as e:  # the interpreter still runs it
            for f in grp:
                fallbacks.setdefault(f, e.message if isinstance(e, DslcError) else str(e))
            continue
        plan = next(g for g in lowered.groups if g.functions == grp)
        for f in grp:
            by_func[f] = plan
    return by_func, sources, fallbacks, assumed


def _recording(map_):
    """``map_`` noting each map's tasks by entry, for the plot of their work."""
    def run(func, tasks, span, progress=None):
        _LAST_TASKS.setdefault(func, []).extend(tasks)
        return map_(func, tasks, span, progress)
    return run


def cuda_report(program, by_func: dict, entries: dict) -> dict:
    """What the CUDA backend would do with each entry the script ran: its
    strategy, launch sizes and storage placement, or why it stays on the CPU."""
    from dslc.emit.cuda import CudaGenerator, storage_role
    from dslc.emit.precision import float32_info
    from dslc.emit.pyexpr import NotCompilable
    from dslc.emit.tiles import TiledGenerator

    from dslc.cuda.launch import block_threads

    block, block_why = block_threads(False, None)
    scratch = settings.text("DSLC_CUDA_SCRATCH_MB") or "half the device's free memory, at least 4096"
    out = {}
    for entry, plan in entries.items():
        tile = None
        try:
            gen = tile = TiledGenerator(program.checked, plan)
            gen.generate()
        except NotCompilable as e:
            untiled = str(e)
            try:
                gen = CudaGenerator(program.checked, plan)
                gen.generate()
            except NotCompilable as e:
                out[entry] = {"strategy": "cpu", "why": f"not compiled for the device: {e}"}
                continue
        info = float32_info(program.checked, plan)
        out[entry] = {
            "strategy": "task-per-thread",
            "why": "map tasks are independent: one thread sweeps one task's table",
            "register_tile": ({"rows": tile.rows, "rows_source": "DSLC_CUDA_TILE (default 32)",
                               "tiled_dimension": "a dimension whose sequence every task "
                                                  "shares (the query), else the first",
                               "why": "dependences are uniform steps back in two dimensions: "
                                      "rows of a tile live in registers, only its last rows "
                                      "go to memory (the dimension shared by every task "
                                      "is tiled)"}
                              if tile is not None else {"rows": None, "why": untiled}),
            "values": ("float32 where the static bound holds for the map's numbers, else float64"
                       if tile is not None and info is not None and info.linear else "float64"),
            "block": block, "block_source": f"{block_why}; DSLC_CUDA_BLOCK overrides",
            "grid": ("one thread per task, every task of a launch in one grid (no cap: "
                     "larger grids were never slower; launches are cut only to fit the "
                     "scratch memory and, beyond DSLC_CUDA_PIPELINE tasks, so that packing "
                     "overlaps the kernels)"),
            "scratch_mb_per_launch": scratch,
            "storage": {f: {"memory": "global",
                            "shape": dims + ["tasks"],
                            "why": ("the tile's boundary rows (double-buffered); "
                                    if tile is not None and storage_role(f) is None else
                                    f"{storage_role(f)}; " if storage_role(f) else "") +
                                   "task innermost, so a warp's accesses coalesce"}
                        for f, dims in gen.storage},
            "placement": ("model arrays every task shares (a substitution matrix, HMM "
                          "tables): shared memory when they fit (16 KiB each, 32 KiB per "
                          "block), copied there once per block; else global. Sequences: "
                          "global, interleaved by block so a warp's reads coalesce. "
                          "DSLC_CUDA_PLACE=name:shared|global overrides"),
            "specialised": ("tiles run code specialised to where they lie: guards decided "
                            "by each row's box, the first columns peeled, stream-invariant "
                            "sequence reads hoisted, the next column's loads issued early"
                            if tile is not None else None),
            "hybrid": _hybrid_text(program, plan),
            "single_calls": _tuples_on_the_cpu(program, entry) or (
                             "a call or table of at least DSLC_CUDA_WHOLE cells (default "
                             "1,000,000) runs as one problem on the whole GPU: partitions in "
                             "order (one cooperative launch with grid sync on a real GPU), the "
                             "points of a partition over all threads (a warp per point where a "
                             "cell reduces over a range and a thread per point would leave the "
                             "GPU idle; DSLC_CUDA_LANES=1|32); smaller ones on the CPU"),
        }
    return out


def _tuples_on_the_cpu(program, entry: str) -> str | None:
    """Where single calls of an entry holding tuples run (emit.tuples: the
    whole-problem kernel leaves them to the CPU backend's compiled code)."""
    from dslc.emit.tuples import tuple_type

    found = tuple_type(program.checked, entry)
    if found is None:
        return None
    return (f"on the CPU backend's compiled code, whatever their size: {entry} uses tuple "
            f"values ({found}), which the whole-problem kernel does not hold")


def _hybrid_text(program, plan) -> str:
    """When a map of this entry would run one block per task instead."""
    from dslc.cuda.backend import HYBRID_TASKS, WIDE, partition_width
    from dslc.cuda.launch import block_threads
    from dslc.emit.blocks import BlockGenerator
    from dslc.emit.pyexpr import NotCompilable

    width = partition_width(plan)
    if width is None or width < WIDE:
        return (f"one thread per task at any count (partitions average "
                f"{0 if width is None else width:.0f} points, fewer than {WIDE})")
    try:
        BlockGenerator(program.checked, plan, 128).generate()
    except NotCompilable as e:
        return f"one thread per task at any count (no task-per-block: {e})"
    threads, why = block_threads(True, width)
    return (f"one block per task for maps of fewer than DSLC_CUDA_HYBRID_TASKS (default "
            f"{HYBRID_TASKS:,}) tasks on a GPU (partitions average {width:.0f} points at "
            f"these extents), {threads} threads per block ({why}); "
            f"DSLC_CUDA_STRATEGY=block|thread forces one")


def report(program, backend: str = "cpu") -> dict:
    by_func, _, fallbacks, assumed = collect(program)
    out = {}
    for f, g in by_func.items():
        deps = [_dependence(d) for d in g.graph.deps if d.caller == f]
        if g.on_demand:
            out[f] = _demand_report(g, f, deps, f in assumed)
            continue
        out[f] = {
            "group": list(g.functions),
            "schedule": g.schedule.of(f),
            "padded": _padded_point(g.schedule, f),
            "partitions": g.schedule.partitions,
            "window": g.schedule.window if g.windowed else None,
            "storage": "window" if g.windowed else "table",
            "order": list(g.schedule.order),
            "extents": {n: g.extents.values[n] for n in g.extents.names[f]},
            "extents_assumed": f in assumed,
            "dependences": deps,
            "loops": render(_swept_nest(program, g)),
        }
    if fallbacks:
        out["_interpreted"] = fallbacks
    if _LAST_LANES:
        out["_maps"] = dict(_LAST_LANES)
    if _LAST_COMPILE:
        out["_compile_s"] = {e: round(v, 3) for e, v in _LAST_COMPILE.items()}
    if _LAST_AUTO:
        out["_auto"] = {e: {"backend": c.backend, "why": c.reason, "cells": c.cells,
                            "kernel_cached": c.kernel_cached, "predicted_cpu_s": c.cpu_s,
                            "predicted_gpu_s": c.gpu_s} for e, c in _LAST_AUTO.items()}
    if backend == "cuda":
        out["_cuda"] = cuda_report(program, by_func, _LAST_PLANS)
        for e, c in out["_cuda"].items():
            if e in _LAST_AUTO and c["strategy"] != "cpu":
                c["kernel"] = ("cached by an earlier run" if _LAST_AUTO[e].kernel_cached else
                               "compiled at its first launch (not cached)")
    return out


def _dependence(d) -> dict:
    """One call as explain shows it; an argument bounded only by a declared direction
    is listed under ``declared`` (the schedule relies on it), not as a range."""
    mine = {v for v, _, _ in d.declared}
    out = {"caller": d.caller, "callee": d.callee,
           "args": [str(a) if a is not None else "?" for a in d.args],
           "ranged": [{"var": r.name, "lo": None if r.lo is None else str(r.lo),
                       "hi": None if r.hi is None else str(r.hi)}
                      for r in d.ranged if r.name not in mine]}
    if d.declared:
        out["declared"] = [{"var": v, "param": p, "direction": w} for v, p, w in d.declared]
    return out


def _dependence_text(d: dict) -> str:
    rng = "".join(f", {x['var']} in {x['lo']} .. {x['hi']}" for x in d["ranged"])
    rng += "".join(f", {x['var']} {'<' if x['direction'] == 'decreasing' else '>'} "
                   f"{x['param']}" for x in d.get("declared", ()))
    return f"    -> {d['callee']}({', '.join(d['args'])}){rng}"


def _declared_text(grp: tuple, rep: dict) -> list[str]:
    """What the group's schedule assumes and nobody proved: the declared directions."""
    said = dict.fromkeys(f"'{x['param']} {x['direction']}' of {d['callee']}"
                         for g in grp for d in rep[g]["dependences"]
                         for x in d.get("declared", ()))
    if not said:
        return []
    return [f"  relies on the declaration{'s' if len(said) > 1 else ''} {', '.join(said)} "
            "(not proved: checked at run time on every call)"]


def _swept_nest(program, g: GroupPlan):
    """The nest a group with declared int ranges sweeps (its polyhedron, not the
    box); other groups are shown over their boxes."""
    if not any(declared(program.checked.functions[f]) for f in g.functions):
        return g.box_nest
    return g.nest


def _demand_report(g: GroupPlan, f: str, deps: list, assumed: bool) -> dict:
    """A group evaluated on demand: no schedule, no loops; why, and its storage."""
    return {
        "group": list(g.functions),
        "strategy": "demand",
        "why": g.reason,
        "schedule": None,
        "partitions": None,
        "window": None,
        "storage": "table",
        "order": [],
        "extents": {n: g.extents.values[n] for n in g.extents.names[f]},
        "extents_assumed": assumed,
        "dependences": deps,
        "loops": None,
    }


def _demand_text(grp: tuple, rep: dict) -> list[str]:
    lines = [f"group {', '.join(grp)}"]
    for g in grp:
        lines.append(f"  {g}: evaluated on demand (no schedule)")
        lines.extend(_dependence_text(d) for d in rep[g]["dependences"])
    r = rep[grp[0]]
    lines.append(f"  why: {r['why']}")
    lines.extend(_declared_text(grp, rep))
    lines.append("  storage: table, with a state per cell (not computed, on the stack, done)"
                 + ("  (extents assumed 10: the script never calls it)"
                    if r["extents_assumed"] else ""))
    lines.append("  order: found at run time: a cell runs when first needed, the cells it "
                 "needs pushed first on an explicit stack (a cell needed while on the stack "
                 "is a cycle, reported by the interpreter)")
    return lines


def _padded_point(sched, f: str) -> str | None:
    """``(0, j)``: where a function with fewer recursive parameters than its
    group has positions sits in the group's space (None for the others)."""
    emb = sched.embedding
    own = emb.of(f)
    if len(own) == emb.n:
        return None
    names = dict(zip(own, sched.param_names(f)))
    return f"({', '.join(names.get(k, '0') for k in range(emb.n))})"


def render_text(rep: dict) -> str:
    lines, seen = [], set()
    for f, r in rep.items():
        if f.startswith("_"):
            continue
        grp = tuple(r["group"])
        if grp in seen:
            continue
        seen.add(grp)
        if r.get("strategy") == "demand":
            lines.extend(_demand_text(grp, rep))
            continue
        lines.append(f"group {', '.join(grp)}")
        for g in grp:
            rg = rep[g]
            sched = " + ".join(f"{c}*{p}" if c != 1 else p for p, c in rg["schedule"].items() if c)
            pad = (f"  (padded to {g}{rg['padded']}: its other dimensions are 0)"
                   if rg.get("padded") else "")
            lines.append(f"  {g}: S = {sched or '0'}{pad}")
            lines.extend(_dependence_text(d) for d in rg["dependences"])
        lines.extend(_declared_text(grp, rep))
        lines.append(f"  partitions: {r['partitions']}"
                     + ("  (extents assumed 10: the script never calls it)"
                        if r["extents_assumed"] else ""))
        lines.append(f"  storage: {r['storage']}"
                     + (f", window {r['window']}" if r["storage"] == "window" else ""))
        lines.append(f"  order in a partition: {', '.join(r['order'])}")
        lines.append("  loops:")
        lines.extend("    " + ln for ln in r["loops"].splitlines())
    for f, why in rep.get("_interpreted", {}).items():
        lines.append(f"{f}: runs on the interpreter ({why})")
    for entry, m in rep.get("_maps", {}).items():
        detail = m.get("values") or m.get("why")
        lines.append(f"map over {entry} on the CPU: {m['strategy']} ({detail})")
    for entry, secs in rep.get("_compile_s", {}).items():
        lines.append(f"{entry}: {secs:.3f} s planning and compiling on the CPU "
                     "(plans made afresh; machine code may come from Numba's cache)")
    for entry, c in rep.get("_auto", {}).items():
        lines.append(f"--backend auto runs {entry} on the {c['backend'].upper()} ({c['why']})")
    for entry, c in rep.get("_cuda", {}).items():
        lines.append(f"cuda, entry {entry}: {c['strategy']} ({c['why']})")
        if c["strategy"] != "cpu":
            lines.append(f"  block {c['block']} threads ({c['block_source']}); scratch up to "
                         f"{c['scratch_mb_per_launch']} MB per launch (tasks beyond it run in "
                         "further launches)")
            lines.append(f"  grid: {c['grid']}")
            if "kernel" in c:
                lines.append(f"  kernel: {c['kernel']}")
            t = c["register_tile"]
            lines.append(f"  register tile: {t['rows']} rows ({t['why']})" if t["rows"] else
                         f"  register tile: none ({t['why']})")
            lines.append(f"  values: {c['values']}")
            lines.append(f"  placement: {c['placement']}")
            lines.append(f"  hybrid: {c['hybrid']}")
            if c.get("specialised"):
                lines.append(f"  specialised: {c['specialised']}")
            lines.append(f"  single calls: {c['single_calls']}")
            for f, st in c["storage"].items():
                lines.append(f"  {f}: {st['memory']} memory, [{', '.join(st['shape'])}] "
                             f"({st['why']})")
    return "\n".join(lines)


def plot(program, rep: dict, func: str | None, path: str) -> str:
    """A PNG of a recursive function's domain coloured by partition, with its
    dependences, and for a function a map ran, its tasks' work (dslc.plot)."""
    from dslc import plot as drawing

    cands = [f for f, r in rep.items() if not f.startswith("_") and r["schedule"]]
    if not cands:
        raise DslcError("--plot: nothing to plot: the script has no recursive function, so no domain to draw")
    if func is not None and func not in cands:
        raise DslcError(f"--plot: '{func}' has no domain to draw (it is not a recursive "
                        "function of the script)", hint="recursive functions: " + ", ".join(cands))
    f = func if func is not None else cands[0]
    drawing.draw(program, rep, f, _map_tasks(program, f), path)
    return f


def _map_tasks(program, func: str) -> list[dict]:
    """The tasks of the maps the script ran whose entry is ``func`` or calls it."""
    from dslc.check.tir import reachable

    fs = program.checked.functions
    return [t for entry, tasks in _LAST_TASKS.items()
            if func in {g.name for g in reachable(fs, entry)} for t in tasks]


def kernels(program) -> str:
    """``dslc compile F --emit kernel``: the kernel IR (dslc.kernel) of the launch
    of every map the script ran, on the CPU and as a GPU thread-per-task kernel,
    with the arguments travelling as they did in the run."""
    from dslc.cpu.modules import argument_kinds
    from dslc.emit.cpu import CpuGenerator
    from dslc.emit.cuda import CudaGenerator, launch_kernel
    from dslc.kernel import launch
    from dslc.kernel.show import show
    from dslc.lang.batch import TaskBatch

    collect(program)
    out = []
    for entry, tasks in _LAST_TASKS.items():
        plan = _LAST_PLANS.get(entry)
        if plan is None:
            out.append(f"# map over {entry}: runs on the interpreter (no kernel)")
            continue
        cpu = CpuGenerator(program.checked, plan)
        _, argnames = cpu.generate()
        kinds = argument_kinds(argnames, TaskBatch.of(tasks))
        width = cpu.result_width()
        out.append(f"# map over {entry}, {len(tasks)} tasks")
        out.append(show(launch.apply(launch.tasks("cpu", argnames, kinds, width=width),
                                     launch.CPU)))
        try:
            gpu = CudaGenerator(program.checked, plan)
            gpu.generate()
        except NotCompilable as e:
            out.append(f"# {entry} on a GPU: not compiled ({e})")
            continue
        storage = [f for f, _ in gpu.storage]
        out.append(show(launch_kernel(argnames, kinds, storage, width=width)))
    if not out:
        out.append("# the script runs no map: no launch kernel")
    return "\n\n".join(out)
