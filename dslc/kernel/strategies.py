"""What a strategy is, below code generation: its record, the passes over a task's
body and over its launch, and the functions that apply them.

A strategy (:class:`Strategy`) is a frozen record: its ``name`` (the string a
backend's Decision records carry, dslc.cpu.decision), the backend that chooses it,
the function that builds the task's body (its builder, in dslc.emit), the passes
over that body (kernel.body) and over its launch (kernel.ir, kernel.launch), each
with one line saying what it does, and where the task's working storage lives.
The table of every strategy is dslc.emit.strategies: it names the builders, which
live a layer above this one; the passes and the record live here, below them, so
a builder applies the passes of the row it is given.

The storage layout is data, not a pass: a CUDA generator records each table's
dimensions (``gen.storage``) and indexes a cell through its ``cell_ref`` with the
task innermost (``T[slot, i, task]``, task-per-thread: a warp's threads touch
neighbouring words) or outermost (``T[task, slot, i]``, task-per-block: a block's
threads share one task's rows); the launch allocates those shapes
(dslc.cuda.records ``storage_records`` records them). ``Strategy.layout`` says which.

A strategy's passes run through :func:`lower` (a task's body) and
:func:`launch_passes` (its launch) only, so no backend applies one by hand; both
verify the IR before and after each pass (kernel.verify). A pass marked
``functions`` runs over the strategy's device functions too (the register tile's
``_tile_*`` functions, built by its generator beside the task), each verified
with its own parameters; the others run over the task alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from dslc.errors import InternalError
from dslc.kernel import launch, value_type
from dslc.kernel.failure_flags import Facts, failure_flags, functions_hold_checks
from dslc.kernel.guards import specialise
from dslc.kernel.lane_groups import lane_groups
from dslc.kernel.per_block import per_block
from dslc.kernel.profiles import profiled
from dslc.kernel.register_tile import scalar_replace
from dslc.kernel.strip_mine import strip_mine


@dataclass(frozen=True)
class Pass:
    """One pass: its name, the function (``run(ir)``, or ``run(ir, facts)`` where
    ``facts`` is set: it needs what the generator knows, failure_flags.Facts; or
    ``run(ir, given)`` where ``needs`` names the input :func:`lower` is given for
    it) and what it does, in one line. ``functions``: it runs over the strategy's
    device functions too, not the task alone. ``binds``: its input names variables
    (``binds``) free in the body before the pass, which the pass binds."""

    name: str
    run: Callable
    does: str
    facts: bool = False
    needs: str = ""
    functions: bool = False
    binds: bool = False


@dataclass(frozen=True)
class Strategy:
    """``key``: unique in the table (two strategies may share a Decision ``name``:
    register tiling is task-per-thread with tile ``rows``). ``build``: the builder,
    ``build(strategy, program, plan, *options)`` -> the task's module as kernel IR
    records (emit.built ``Built``: ``module()``, and ``generate()`` its text), given
    its own row so that it applies the row's passes (None: no generated code)."""

    key: str
    name: str
    backend: str  # "cpu" | "cuda"
    build: Callable | None
    layout: str  # where the task's tables live (data, not a pass)
    body: tuple[Pass, ...] = ()
    launch: tuple[Pass, ...] = ()
    note: str = ""


# ------------------------------------------------------------------ passes
PER_BLOCK = Pass(
    "task per block", per_block,
    "a partition's outermost parallel loops strided over the block's threads, a cell "
    "outside them run by thread 0, a barrier after every partition")
FAILURE_FLAGS = Pass(
    "failure flags", failure_flags,
    "where the task holds a check: its flag _F[tid] cleared first, its value returned "
    "through the flag (NaN when set: the task is re-run on the CPU)", facts=True)
THREAD_PER_TASK = Pass(
    "thread per task", launch.thread_per_task,
    "the launch's tasks loop becomes the thread's number in the grid, tested against "
    "the number of tasks")
BLOCK_PER_TASK = Pass(
    "block per task", launch.block_per_task,
    "the launch's tasks loop becomes the block's number; every thread runs the task, "
    "thread 0 stores its value")
STRIP_MINE = Pass(
    "strip-mine", strip_mine,
    "each tile's stream of columns built around one column's rows: register and boundary "
    "shifts, boundary loads a column ahead, hoisted reads of the column, boundary stores",
    needs="tile", functions=True)
REGISTER_TILE = Pass(
    "register tile", scalar_replace,
    "each read of a table in the tile (its distances back) replaced by the register "
    "holding it: a row of this tile, or of the previous tile's boundary rows",
    needs="tile", functions=True)
LANE_GROUPS = Pass(
    "lane groups", lane_groups,
    "every cell, and the pack's initial values and result, in a loop over the pack's "
    "lanes; the consecutive cells of one point share one loop", needs="lanes", binds=True)
PROFILES = Pass(
    "score profiles", profiled,
    "a model read at a shared operand's symbol and a lane's symbol, M[s[x], t[y, l]], "
    "read from a profile built once per pack, P[s[x], y, l]", needs="profiles")
GUARDS = Pass(
    "guard specialisation", specialise,
    "each guard the box recorded on a cell's code decides (kernel.boxes) replaced by the "
    "branch it takes; the others stay, tested at run time", functions=True)


def _value_type(stmts, given) -> tuple:
    """kernel.value_type's pass, ``given`` ``(ValueType, float64 infinity, tables)``."""
    vt, inf, tables = given
    return value_type.typed(stmts, vt, inf, tables)


VALUE_TYPE = Pass(
    "value type", _value_type,
    "emit.precision's decision made concrete: infinities, conversions and zeros in "
    "float32 or float64", needs="value", functions=True)
# the launches' passes, one list per kind of launch (emit.strategies' rows name them;
# the CPU's batch, cpu.modules, reads its own without the table of builders)
CPU_LAUNCH: tuple[Pass, ...] = ()  # the tasks loop stays (threads run chunks of it)
THREAD_LAUNCH = (THREAD_PER_TASK,)
BLOCK_LAUNCH = (BLOCK_PER_TASK,)
# (launch.place: arguments dslc.cuda.placement puts in shared or constant memory are
# copied there by the block first; applied before a CUDA map's launch passes where
# any argument is placed, see launch_passes)

# Not yet in the strategies' pass lists:
#   the register tile's rows: its generator still builds each row's cells (their box,
#   hoisted reads, the requested cell's capture), the variants' tests and the peeled head,
#   and emits, where reads are hoisted out of the stream, only the guards kernel.boxes
#   leaves live; STRIP_MINE builds the loops around them, REGISTER_TILE does the scalar
#   replacement, GUARDS the rest.

def lower(s: Strategy, body, target: str, known, facts: Facts = Facts(),
          functions: tuple = (), **given) -> None:
    """Strategy ``s``'s passes applied to ``body`` (emit.pyexpr ``Lines``) in order,
    verified before and after each (``known``: the task's parameters); a pass marked
    ``functions`` also to each of ``functions`` (``(Lines, parameters)`` pairs: the
    strategy's device functions). ``given``: the inputs passes name by ``needs``
    (``value``: the value type's, see :func:`_value_type`; ``tile``: the register
    tile's shape, kernel.register_tile.Tile; ``lanes``: the packs' lane loop,
    kernel.lane_groups.Lanes)."""
    for p in s.body:
        if p.needs and not p.facts and p.needs not in given:
            raise InternalError(f"pass {p.name!r} needs {p.needs!r}, not given")
    free = [n for p in s.body if p.binds for n in given[p.needs].binds]
    for p in s.body:
        run = p.run
        if p.facts or p.needs:
            arg = _with_functions(facts, functions) if p.facts else given[p.needs]
            run = (lambda stmts, p=p, arg=arg: p.run(stmts, arg))
        before = _with(known, free)
        if p.binds:
            free = [n for n in free if n not in given[p.needs].binds]
        body.apply(run, target, before, after=_with(known, free))
        for fn, params in functions if p.functions else ():
            fn.apply(run, target, params)


def _with_functions(facts: Facts, functions: tuple) -> Facts:
    """``facts`` with whether the device functions hold a check, read off their
    records as they stand when the pass runs (the task calls them: a check they set
    must reach the task's flag)."""
    return replace(facts, functions=functions_hold_checks(functions))


def _with(known, free: list):
    """The task's parameters ``known`` and the names still ``free`` in its body (a
    later pass binds them); None (names not checked) stays None."""
    return None if known is None else [*known, *free]


def launch_passes(passes: tuple[Pass, ...], placed: dict | None = None) -> tuple:
    """The passes over a map's launch (kernel.launch ``apply``): the arguments
    ``placed`` in shared or constant memory first, then ``passes`` (a strategy's
    ``launch``)."""
    return ((launch.place(placed),) if placed else ()) + tuple(p.run for p in passes)
