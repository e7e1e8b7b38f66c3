"""The lowering driver: the one function that runs every stage after the checker.

A checked program, an entry and the run's shapes go in; what comes out is every
stage's result for that task as one frozen record: per recursive group the
dependences (:mod:`dslc.deps`), the schedule (:mod:`dslc.schedule`), the storage
and fusion decisions (:mod:`dslc.plan.task`) and the loop nest (:mod:`dslc.poly`),
and, where the caller passes a generator, the generated module as records
(dslc.kernel.module: the task's body as kernel IR), which the caller prints with its
target's printer where it needs the text (to compile it or to keep it in the disk
cache): the plan hands code generation records, never text. The backends,
``dslc explain``, ``dslc compile --emit`` and the check of user schedules all come
through here, so they see the same decisions and nothing else drives the stages.

The generator is passed in (``emit``) rather than imported: code generation is a
later layer than planning (docs/architecture.md, "Layers").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from dslc.check.tir import groups
from dslc.errors import NotCompilable
from dslc.plan.task import GroupPlan, TaskPlan, plan_task
from dslc.plan.user import user_schedules

# a generator: the task's plan -> (the module: a kernel.module.Module record, its
# arguments: kernel.ir.TaskArg records); typed loosely, the kernel IR being a later layer
Emit = Callable[[TaskPlan], tuple[object, list]]


@dataclass(frozen=True)
class Lowered:
    """Every stage's result for one entry at one run's shapes."""

    entry: str
    kind: str  # "cell" | "table" | "value"
    task: TaskPlan
    module: object = None  # the generated module (kernel.module.Module), where asked
    args: tuple = ()  # the task's arguments (kernel.ir.TaskArg), in order

    @property
    def groups(self) -> tuple[GroupPlan, ...]:
        return self.task.groups

    @property
    def graphs(self) -> tuple:
        """The dependence graph of each group (dslc.deps)."""
        return tuple(g.graph for g in self.task.groups)

    @property
    def schedules(self) -> tuple:
        """Each group's schedule (None for a group evaluated on demand)."""
        return tuple(g.schedule for g in self.task.groups)

    @property
    def nests(self) -> tuple:
        """Each group's loop nest (None for a group evaluated on demand)."""
        return tuple(g.nest for g in self.task.groups)


def lower(program, entry: str, kind: str, args: dict, request: tuple | None = None, *,
          emit: Emit | None = None, assumed: int | None = None, verify: bool = False) -> Lowered:
    """Plan ``entry`` (a ``cell``, a whole ``table`` or a ``value``) for arguments
    ``args`` (what fixes the extents: sequences, models, declared ranges' bounds)
    and ``request`` (the cell asked for, where extents come from it); ``emit``
    turns the plan into a module (records). ``assumed``: only the entry's own group, every extent
    taking this value (for a group no run has shapes for). Refusals: a DslcError for the program's own error,
    ``NotCompilable`` where the interpreter runs the entry instead. ``verify``: each
    group's loop nest is verified when it is built (the CompileOptions' ``verify_ir``)."""
    task = plan_task(program, entry, kind, args, request, user_schedules(program), assumed)
    if verify:
        task = replace(task, groups=tuple(replace(g, verify=True) for g in task.groups))
    if emit is None:
        return Lowered(entry, kind, task)
    module, args = emit(task)
    return Lowered(entry, kind, task, module, tuple(args))


# legality is decided for every extent at once; this is only where witnesses are sought first
ASSUMED_EXTENT = 10


def verify_all(program) -> None:
    """Check every user schedule against its group's dependences before the script
    runs (never trusted; legality holds for all extents, so no input is needed):
    each group with one is lowered as a table at assumed extents. A group refused
    only over calls whose offsets depend on data is planned for evaluation on
    demand; one the compiled backends cannot take (``NotCompilable``) runs on the
    interpreter, which follows no schedule."""
    wanted = user_schedules(program)
    for grp in groups(program.functions):
        if any(f in wanted for f in grp):
            try:
                lower(program, grp[0], "table", {}, assumed=ASSUMED_EXTENT)
            except NotCompilable:
                pass
