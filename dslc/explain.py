"""``dslc explain`` and ``dslc compile --emit python``: what the compiler chose.

The script is run once on the CPU backend so that every schedule is chosen for
the script's real inputs (the number of partitions depends on them); each
recursive group is then reported with its dependences, schedule, partitions,
window depth, order within a partition and loop nest. Where maps and calls
ran, and how, is each backend's decision record (dslc.cpu.decision): the CPU
backend's for what it ran, and for ``--backend cuda`` the CUDA backend's own
``decide`` over the same maps and calls; nothing here derives a strategy.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from dslc import timings
from dslc.auto import AutoBackend
from dslc.check.ranges import declared
from dslc.check.tir import groups
from dslc.cpu.decision import Decision
from dslc.errors import DslcError, NotCompilable
from dslc.plan import lower
from dslc.plan.driver import ASSUMED_EXTENT
from dslc.plan.task import GroupPlan
from dslc.poly.pretty import render
from dslc.options import CompileOptions
from dslc.runtime.script import ScriptRunner


@dataclass
class Explained:
    """What one explained run of the script did, returned by :func:`run` and read by
    every report here (nothing is kept between calls): the CPU backend that ran it
    (its decision records), its plans, where ``--backend auto`` would run each
    entry, the work it ran, its compile seconds, and what :func:`collect` gives."""

    engine: object  # the CPU backend that ran the script (its decision records)
    plans: dict = field(default_factory=dict)  # entry -> its plan
    auto: dict = field(default_factory=dict)  # entry -> where auto runs it (dslc.auto.Choice)
    tasks: dict = field(default_factory=dict)  # map entry -> the tasks its maps ran (--plot)
    work: dict = field(default_factory=dict)  # (entry, work) -> the tasks or arguments last run
    compile_s: dict = field(default_factory=dict)  # entry -> seconds planning and compiling
    by_func: dict = field(default_factory=dict)  # function -> its group's plan
    sources: dict = field(default_factory=dict)  # entry -> generated source
    fallbacks: dict = field(default_factory=dict)  # function -> why it runs on the interpreter
    assumed: set = field(default_factory=set)  # functions never run (extents of 10 assumed)


def collect(program) -> tuple[dict[str, GroupPlan], dict[str, str], dict[str, str], set]:
    """Group plans by function, generated sources by entry, interpreter
    fallbacks, and the functions the script never ran (extents of 10 assumed)."""
    done = run(program)
    return done.by_func, done.sources, done.fallbacks, done.assumed


def run(program) -> Explained:
    """Run the script once on the CPU backend, ``auto`` deciding and recording beside
    it, and return what it did."""
    collector = timings.Collector()
    runner = ScriptRunner(program.checked,
                          timings.timed(functools.partial(
                              AutoBackend, run_gpu=False,
                              options=CompileOptions.from_settings()), collector),
                          program.base_dir, quiet=True, params=program.params,
                          from_text=program.params_from_text)
    engine = runner.backend.cpu  # auto's decisions recorded, everything run on the CPU
    engine.disk_cache = False  # plan afresh, so every plan can be shown
    engine.direct_scalars = False  # compile straight-line entries too, to show them
    engine.allow_interpreter = True  # (DSLC_STRICT_COMPILE: every fall-back reported, not refused)
    done = Explained(engine)
    _record_work(getattr(runner.backend, "inner", runner.backend), done)  # (under the timing)
    runner.run()
    done.auto.update(runner.backend.decisions)
    for e in collector.entries:  # (a function called and mapped: the sum)
        done.compile_s[e.func] = done.compile_s.get(e.func, 0.0) + e.compile_s
    by_func, sources = done.by_func, done.sources
    compiled = {e: (plan, source) for e, (plan, source, _) in engine.packs.generated.items()}
    compiled.update(engine.generated)  # the scalar task's source where both exist
    for entry, (plan, source) in compiled.items():
        done.plans[entry] = plan
        sources[entry] = source
        for g in plan.groups:
            for f in g.functions:
                by_func.setdefault(f, g)
    assumed, fallbacks = done.assumed, done.fallbacks
    fallbacks.update(engine.fallbacks)
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
    return done


def _record_work(engine, done: Explained) -> None:
    """Note each map's tasks (for the plot of their work, and the CUDA backend's
    decisions) and each call's arguments, by entry, in ``done`` as ``engine`` runs them."""
    map_, value, table = engine.map, engine.value, engine.table

    def run_map(func, tasks, span, progress=None):
        done.tasks.setdefault(func, []).extend(tasks)
        done.work[(func, "map")] = tasks
        return map_(func, tasks, span, progress)

    def run_value(func, args, span, description=""):
        done.work[(func, "call")] = args
        return value(func, args, span, description)

    def run_table(func, calling, span, description=""):
        done.work[(func, "table")] = calling
        return table(func, calling, span, description)
    engine.map, engine.value, engine.table = run_map, run_value, run_table


def cuda_decisions(done: Explained) -> list:
    """The CUDA backend's decisions for the maps and calls the script ran (made
    by the backend's own :meth:`~dslc.cuda.backend.CudaBackend.decide`, its CPU
    part the backend that ran them; nothing runs on the device)."""
    from dslc.cuda.backend import CudaBackend

    engine = done.engine
    cuda = CudaBackend(engine.program, engine.globals, cpu=engine)
    return [cuda.decide(func, work, tasks) for (func, work), tasks in done.work.items()]


def report(program, backend: str = "cpu", done: Explained | None = None) -> dict:
    """What the compiler chose for the script, as ``dslc explain --format json``
    prints it (``done``: the run to report, else a run made now)."""
    done = done if done is not None else run(program)
    by_func, fallbacks, assumed = done.by_func, done.fallbacks, done.assumed
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
    out["_cpu"] = [d.to_json() for d in done.engine.decisions.values()]
    if done.compile_s:
        out["_compile_s"] = {e: round(v, 3) for e, v in done.compile_s.items()}
    if done.auto:
        out["_auto"] = {e: {"backend": c.backend, "why": c.reason, "cells": c.cells,
                            "kernel_cached": c.kernel_cached, "predicted_cpu_s": c.cpu_s,
                            "predicted_gpu_s": c.gpu_s} for e, c in done.auto.items()}
    if backend == "cuda":
        out["_cuda"] = [d.to_json() for d in cuda_decisions(done)]
        for c in out["_cuda"]:
            if c["entry"] in done.auto and c["backend"] == "cuda":
                c["kernel"] = ("cached by an earlier run" if done.auto[c["entry"]].kernel_cached
                               else "compiled at its first launch (not cached)")
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


def interpreted_banner(interpreted: dict[str, str]) -> list[str]:
    """The first lines of ``explain`` where any part of the script runs on the
    interpreter: a fall-back costs orders of magnitude, so it is said before the
    plans, not only in the line of the function concerned."""
    if not interpreted:
        return []
    n = len(interpreted)
    return [f"NOT COMPILED: {n} function{'s' if n > 1 else ''} of this script run"
            f"{'' if n > 1 else 's'} on the interpreter on the CPU backend "
            "(DSLC_STRICT_COMPILE=1 refuses instead):",
            *(f"  {f}: {why}" for f, why in interpreted.items())]


def render_text(rep: dict) -> str:
    lines, seen = interpreted_banner(rep.get("_interpreted", {})), set()
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
    for entry, secs in rep.get("_compile_s", {}).items():
        lines.append(f"{entry}: {secs:.3f} s planning and compiling on the CPU "
                     "(plans made afresh; machine code may come from Numba's cache)")
    for entry, c in rep.get("_auto", {}).items():
        lines.append(f"--backend auto runs {entry} on the {c['backend'].upper()} ({c['why']})")
    for key, title in (("_cpu", "the CPU backend's decisions, for what it ran:"),
                       ("_cuda", "the CUDA backend's decisions, for the same maps and calls:")):
        if rep.get(key):
            lines.append(title)
        for c in rep.get(key, []):
            lines.extend(Decision.from_json(c).lines())
            if "kernel" in c:
                lines.append(f"  kernel: {c['kernel']}")
    return "\n".join(lines)


def plot(program, rep: dict, func: str | None, path: str, done: Explained) -> str:
    """A PNG of a recursive function's domain coloured by partition, with its
    dependences, and for a function a map of run ``done`` ran, its tasks' work
    (dslc.plot)."""
    from dslc import plot as drawing

    cands = [f for f, r in rep.items() if not f.startswith("_") and r["schedule"]]
    if not cands:
        raise DslcError("--plot: nothing to plot: the script has no recursive function, so no domain to draw")
    if func is not None and func not in cands:
        raise DslcError(f"--plot: '{func}' has no domain to draw (it is not a recursive "
                        "function of the script)", hint="recursive functions: " + ", ".join(cands))
    f = func if func is not None else cands[0]
    drawing.draw(program, rep, f, map_tasks(done, program, f), path)
    return f


def map_tasks(done: Explained, program, func: str) -> list[dict]:
    """The tasks of the maps run ``done`` ran whose entry is ``func`` or calls it."""
    from dslc.check.tir import reachable

    fs = program.checked.functions
    return [t for entry, tasks in done.tasks.items()
            if func in {g.name for g in reachable(fs, entry)} for t in tasks]


def kernels(program, done: Explained | None = None) -> str:
    """``dslc compile F --emit kernel``: the kernel IR (dslc.kernel) of the launch
    of every map the script ran (in ``done``, else a run made now), on the CPU and as
    a GPU thread-per-task kernel, with the arguments travelling as they did in the run."""
    from dslc.cpu.modules import argument_travel
    from dslc.emit.cuda import launch_kernel
    from dslc.emit.strategies import build, strategy
    from dslc.kernel import launch
    from dslc.kernel.strategies import launch_passes
    from dslc.targets.show import show
    from dslc.lang.batch import TaskBatch

    done = done if done is not None else run(program)
    out = []
    for entry, tasks in done.tasks.items():
        plan = done.plans.get(entry)
        if plan is None:
            out.append(f"# map over {entry}: runs on the interpreter (no kernel)")
            continue
        cpu = build(strategy("cpu plain"), program.checked, plan)
        _, args = cpu.generate()
        travel = argument_travel(args, TaskBatch.of(tasks))
        width = cpu.result_width()
        out.append(f"# map over {entry}, {len(tasks)} tasks")
        out.append(show(launch.apply(launch.tasks("cpu", args, travel, width=width),
                                     launch_passes(strategy("cpu plain").launch))))
        try:
            gpu = build(strategy("cuda task-per-thread"), program.checked, plan)
            gpu.generate()
        except NotCompilable as e:
            out.append(f"# {entry} on a GPU: not compiled ({e})")
            continue
        storage = [f for f, _ in gpu.storage]
        out.append(show(launch_kernel(strategy("cuda task-per-thread"), args, travel, storage,
                                      width=width)))
    if not out:
        out.append("# the script runs no map: no launch kernel")
    return "\n\n".join(out)
