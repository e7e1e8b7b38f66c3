"""CUDA code generation, task-per-thread (thesis §5.5.1.1).

The same task plan and loop nest as the CPU backend, compiled as a device
function; one thread runs one task's sweep. Storage is allocated by the host
for the whole launch with the task as the innermost dimension
(``T[slot, i, task]``), so neighbouring threads touch neighbouring words and
every window access coalesces.

Checks isl could not prove away stay (a recursive argument from an extension
accessor, a ``checked`` compiled form, a coercion that can fail), but a kernel
cannot raise: on the device each check helper takes the task's failure flag
(``_F[tid]``, per-task storage from the launch) and, when it fails, sets the
flag and returns a harmless value (index 0, NaN) so the thread runs on without
leaving its arrays; reads behind a check are guarded (``_ld``). A flagged task
returns NaN, and the backend re-runs exactly those tasks on the CPU, which
reports the error by position. The flag is never inferred from the value (NaN
does not survive ``max`` or comparisons). Clearing the flag and returning
through it is a pass over the task's body (kernel.failure_flags), one of the
strategy's passes (its row of emit.strategies), which
:func:`module_record` applies.

Groups ordered inside a partition at run time (silent HMM states) keep the CPU
generator's repeat-until-done sweep; its done flags and miss flag are per-task
storage too, cleared by the task itself.
"""

from __future__ import annotations

from dataclasses import replace

from dslc.kernel import ir
from dslc.kernel import launch
from dslc.kernel.module import Function, Module
from dslc.kernel.failure_flags import Facts, functions_hold_checks, holds_checks
from dslc.kernel.strategies import Strategy, launch_passes, lower
from dslc.lang import types as T
from dslc.emit.built import Built
from dslc.emit.cpu import CPU, Task, printed
from dslc.emit.loopexpr import loop_expr
from dslc.emit.pyexpr import Lines, NotCompilable, named
from dslc.targets.printer import CudaPrinter

HEADER = "import math\nimport numpy as np\nfrom numba import cuda\n"

# Per-task storage the generator adds to the tables (name -> the task's parameter).
FAIL, MISS, DONE = "_fail", "_miss", "_done_"


def storage_param(name: str) -> str:
    """The task's parameter for storage ``name``: a table ``T_f``, the failure
    flag ``_F``, the miss flag ``_M`` or the done flags ``D_f`` of table ``f``."""
    if name == FAIL:
        return "_F"
    if name == MISS:
        return "_M"
    if name.startswith(DONE):
        return "D_" + name[len(DONE):]
    return f"T_{name}"


def storage_role(name: str) -> str | None:
    """What a storage array that is not a table is for (explain), or None."""
    if name == FAIL:
        return "the task's failure flag: a check that fails sets it, the task is re-run on the CPU"
    if name == MISS:
        return "set when a cell read a same-partition cell not done yet (repeat-until-done)"
    if name.startswith(DONE):
        return f"done flags of {name[len(DONE):]}'s cells (repeat-until-done sweep)"
    return None


def task_of(strategy: Strategy, program, plan, pieces=None, **own) -> Task:
    """A task of a GPU strategy (``pieces``: default task-per-thread's, :data:`CUDA`;
    ``own``: the strategy's own state): storage comes from the launch, indexed by the
    thread's task."""
    task = Task(program, plan, strategy, CUDA if pieces is None else pieces,
                        storage=[],  # (function, loop-IR dims without the task)
                        **own)
    clash = [f for g in plan.groups for f in g.functions
             if f in (FAIL, MISS) or f.startswith(DONE)]
    if clash:
        raise NotCompilable(f"a table named {clash[0]} (a name the kernel's storage uses)")
    return task


def build_task_per_thread(strategy: Strategy, program, plan) -> Built:
    """Task-per-thread (emit.strategies "cuda task-per-thread"): the CPU's sweep as a
    device function over per-task storage from the launch; ``strategy``: the row whose
    passes the task's body is given."""
    task = task_of(strategy, program, plan)
    body, args = task.task_body()
    return built(task, module_record(task, args, body), args)


def built(task, record: Module, args: list, **more) -> Built:
    """A GPU strategy's result: its module and what the launch needs of it."""
    return Built(record, tuple(args), task.pr, task.value, tuple(task.storage),
                 width=task.result_width(), **more)


# ---------------------------------------------------------------- pieces and the module
# (``self``: the task being built, an emit.cpu task)

def printer(self):
    """Device code (targets.printer): checks flag the task instead of raising."""
    return CudaPrinter()


def cell_ref(self, func: str, index: list) -> ir.Load:
    # a tuple cell's components: the dimension before the task's (emit.tuples)
    parts = [":"] if isinstance(self.program.functions[func].ret, T.TupleT) else []
    return self.element(f"T_{func}", index + parts + ["tid"])


def allocate(self, b: Lines, func: str, dims: list) -> None:
    self.storage.append((func, dims))


def guarded_load(self, array: str, index: list, pr) -> ir.Helper:
    """A read behind a check, bounds-tested against the array itself: after a
    failed check the thread runs on, and must not leave the array (an empty
    sequence has no element 0)."""
    if not 1 <= len(index) <= 3:
        raise NotCompilable(f"a checked read of {len(index)} dimensions")
    return pr.ir_check("_ld" if len(index) == 1 else f"_ld{len(index)}", named(array),
                       *index)


def done_ref(self, func: str, index: list) -> ir.Load:
    return self.element(f"D_{func}", index + ["tid"])


def miss_ref(self) -> ir.Load:
    return self.element("_M", ["tid"])


def missing(self) -> ir.Expr:
    return self.pr.ir_check("_missing_at", ir.Name("_M"), ir.Name("tid"))


def allocate_done(self, b: Lines, func: str, dims: list) -> None:
    """Done flags in per-task storage, cleared by the task (launch storage
    is not initialised)."""
    self.storage.append((DONE + func, dims))
    zs = [b.fresh("z") for _ in dims]
    inner = b.child()
    inner.store(self.done_ref(func, zs), ir.Const(0))
    for z, d in reversed(list(zip(zs, dims))):
        outer = b.child()
        outer.loop(z, (loop_expr(d),), inner)
        inner = outer
    b.extend(inner)


def allocate_miss(self, b: Lines) -> None:
    if all(name != MISS for name, _ in self.storage):
        self.storage.append((MISS, []))


def lowering_facts(self):
    """What the strategy's passes read that the body's records do not hold
    (kernel.failure_flags): the task's tuple width."""
    return Facts(self.result_width())


def lowering_inputs(self) -> dict:
    """The inputs of the strategy's passes, by the names they need (kernel.strategies):
    the value type's (emit.precision's decision, the float64 infinity, the tables)."""
    return {"value": (self.value, self.pr.INF, self.value_tables())}


def task_params(self, args: list) -> list[str]:
    """The task's parameters: its arguments, the launch's storage, the thread's task."""
    return printed(args) + [storage_param(f) for f, _ in self.storage] + ["tid"]


def module_record(self, args: list, body: Lines, functions: tuple = (), constants: str = "",
                  inputs: dict | None = None) -> Module:
    """The task after its strategy's passes (kernel.strategies: its value type,
    kernel.value_type, among them), with the helpers it calls. A check anywhere in
    its records, in its device functions' (the register tile's) or in a generated
    function it calls: the task takes its failure flag, per-task storage from the
    launch. ``functions``: the device functions beside the task that the strategy's
    passes marked ``functions`` also lower, as ``(Lines, parameters)`` (emit.tiles: its
    tile functions); ``constants``: module-level constants the task reads (emit.tiles
    has some); ``inputs``: the passes' inputs (default :func:`lowering_inputs`)."""
    checks = holds_checks(body.stmts) or functions_hold_checks(functions)
    if self.pr.fails() and not checks:  # a check only in text: no flag would report it
        raise NotCompilable("a run-time check spelled as text, unseen by the failure flags")
    if checks:
        self.storage.append((FAIL, []))
    lower(self.strategy, body, self.TARGET, task_params(self, args),
          lowering_facts(self), functions, **(lowering_inputs(self) if inputs is None else inputs))
    if self.host_allocations:
        raise NotCompilable("allocation inside the task")
    self.verified(body, task_params(self, args))
    task = Function("task", tuple(task_params(self, args)), tuple(body.stmts))
    return Module((HEADER + constants, self.pr.library("core", flagged=checks),
                   "\n".join(self.helpers.values()), task))


# the strategy's pieces (emit.cpu.Pieces): a kernel follows the schedule (a
# demand-driven kernel: unfinished); its tables are per-task storage the launch passes
CUDA = replace(CPU, ON_DEMAND=False, TABLES="global", TARGET="cuda", printer=printer,
               cell_ref=cell_ref, allocate=allocate, guarded_load=guarded_load,
               done_ref=done_ref, miss_ref=miss_ref, missing=missing,
               allocate_done=allocate_done, allocate_miss=allocate_miss)


def kernel_source(strategy: Strategy, args: list, travel: dict[str, str], storage: list[str],
                  placed: dict | None = None, width: int | None = None) -> str:
    """The launch (kernel.launch) of ``strategy`` (a row of emit.strategies): thread
    ``n`` runs task ``order[n]`` (task-per-block: every thread of block ``n`` runs it,
    emit.blocks, and thread 0 keeps the value). Arguments ``placed`` in shared memory (dslc.cuda.placement)
    are copied there by the block first, those in constant memory are compiled in;
    the task reads the copy. A task whose result is a tuple of ``width`` components
    writes them to its row of ``out``."""
    return CudaPrinter().kernel(launch_kernel(strategy, args, travel, storage, placed, width))


def launch_kernel(strategy: Strategy, args, travel, storage, placed=None, width=None):
    """The launch as kernel IR: the tasks, the placements, then a thread or a block
    per task (the strategy's passes, kernel.launch)."""
    k = launch.tasks("cuda", args, travel, tuple(storage), width,
                     module=("task", "BLOCK"))
    return launch.apply(k, launch_passes(strategy.launch, placed))
