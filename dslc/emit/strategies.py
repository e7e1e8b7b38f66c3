"""Every strategy the backends choose, in one table: the function that builds its
task's code and the passes it applies, in order.

A row is a kernel.strategies ``Strategy`` record: its key, the name its Decision
records carry, its backend, its builder (a function of dslc.emit, imported here),
where the task's working storage lives and the passes over its body and its
launch. A builder is given its own row (:func:`build`), whose passes it applies
(kernel.strategies ``lower``): the table is the one place that says which builder
and which passes make a strategy. Adding a strategy is a builder and a row here.
"""

from __future__ import annotations

from dslc.emit import blocks, cpu, cuda, packs, tiles, walk, wavefront
from dslc.kernel.strategies import (BLOCK_LAUNCH, CPU_LAUNCH, FAILURE_FLAGS, GUARDS,
                                    LANE_GROUPS, PER_BLOCK, PROFILES, REGISTER_TILE, STRIP_MINE,
                                    THREAD_LAUNCH, VALUE_TYPE, Strategy)
# strategies, as Decision records (and explain) name them
from dslc.lang.strategy_names import (CPU_PACKS, CPU_PLAIN, INTERPRETER, TASK_PER_BLOCK,
                                      TASK_PER_THREAD, WHOLE_GPU)

_TASK_INNERMOST = "per-task storage from the launch, task innermost: T[slot, i, task]"

STRATEGIES = (
    Strategy("interpreter", INTERPRETER, "cpu", None, "python values",
             note="the specification itself: what no compiled strategy takes"),
    Strategy("cpu plain", CPU_PLAIN, "cpu", cpu.build_task,
             "tables the task allocates itself", body=(), launch=CPU_LAUNCH,
             note="a check raises: the CPU needs no failure flag"),
    Strategy("cpu task groups", CPU_PACKS, "cpu", packs.build_packs,
             "scratch made once per core for a pack of tasks, lane innermost: T[slot, i, lane]",
             # (value type: float32, float32 checked, float64, int16)
             body=(LANE_GROUPS, PROFILES, VALUE_TYPE),
             note="a check is refused (a padded lane could not report it); its own "
                  "launch: a pack of tasks per call of ``lanes``"),
    Strategy("cuda task-per-thread", TASK_PER_THREAD, "cuda", cuda.build_task_per_thread,
             _TASK_INNERMOST, body=(VALUE_TYPE, FAILURE_FLAGS), launch=THREAD_LAUNCH),
    Strategy("cuda register-tiled", TASK_PER_THREAD, "cuda", tiles.build_tiles,
             _TASK_INNERMOST + ", and the tile's boundary rows",
             # (its value type: float32 or float64)
             body=(STRIP_MINE, REGISTER_TILE, GUARDS, VALUE_TYPE, FAILURE_FLAGS),
             launch=THREAD_LAUNCH,
             note="the Decision record's ``rows`` is set"),
    Strategy("cuda task-per-block", TASK_PER_BLOCK, "cuda", blocks.build_task_per_block,
             "per-task storage from the launch, task outermost: T[task, slot, i]",
             body=(VALUE_TYPE, PER_BLOCK, FAILURE_FLAGS), launch=BLOCK_LAUNCH),
    Strategy("cuda whole-GPU wavefront", WHOLE_GPU, "cuda", wavefront.build_wavefront,
             "one problem's tables in global memory",
             note="a kernel (or a cooperative launch) per partition, built by its builder; "
                  "a check is refused (no task to re-run)"),
    Strategy("cpu traceback walk", CPU_PLAIN, "cpu", walk.build_walk,
             "the tables the plain task filled, read in place; the steps in arrays the "
             "caller keeps",
             note="a derivation's steps from a cell to its end in one call (dslc.trace.jit), "
                  "with the plain task's expressions; no Decision chooses it"),
)

BY_KEY = {s.key: s for s in STRATEGIES}
NAMES = frozenset(s.name for s in STRATEGIES)  # (dslc.lang.strategy_names.NAMES: a test)


def strategy(key: str) -> Strategy:
    return BY_KEY[key]


def build(s: Strategy, program, plan, *options, **named):
    """Strategy ``s``'s task of ``plan``, built (``options``: its builder's)."""
    return s.build(s, program, plan, *options, **named)


def of_decision(backend: str, name: str, tiled: bool = False) -> Strategy:
    """The strategy a Decision record names (``tiled``: its tile ``rows`` are set)."""
    found = [s for s in STRATEGIES if s.backend == backend and s.name == name] or \
        [s for s in STRATEGIES if s.name == name]
    if len(found) > 1:
        found = [s for s in found if (s.key == "cuda register-tiled") == tiled]
    return found[0]


def passes(s: Strategy) -> str:
    """The strategy's passes in order, for people (explain): "" where it has none."""
    parts = [", ".join(p.name for p in s.body), ", ".join(p.name for p in s.launch)]
    return "; ".join(f"{what}: {names}" for what, names in zip(("task", "launch"), parts)
                     if names)


def table() -> list[str]:
    """The table as text: a strategy a line, then its passes, one line each."""
    out = []
    for s in STRATEGIES:
        built = f"{s.build.__module__}.{s.build.__qualname__}" if s.build else \
            "no generated code"
        out.append(f"{s.key} ({s.backend}, decision {s.name!r}): {built}; storage: {s.layout}")
        out += [f"  body pass {p.name}: {p.does}" for p in s.body]
        out += [f"  launch pass {p.name}: {p.does}" for p in s.launch]
        if s.note:
            out.append(f"  ({s.note})")
    return out
