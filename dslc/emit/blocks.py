"""Task-per-block (thesis §5.5.1.2): one block of threads sweeps one task.

The same loop nest as the CPU backend and task-per-thread, changed by a pass
over its body (kernel.per_block, listed with the strategy's other passes in its
row of emit.strategies and applied by ``emit.cuda.module_record``): the outermost parallel loops inside a
partition are strided by the thread's index in its block, so the block's
threads share the partition's points, and every partition ends with a block
barrier (``cuda.syncthreads``), because the next partition reads what this one
wrote. Points of one partition never read each other (the schedule is legal,
and calls within a partition must be to the same point, which the same thread
computes), so nothing else needs ordering. A point outside the strided loop (a
boundary piece of a partition, or a lone cell before the sweep) is computed by
thread 0; outside any partition a barrier follows it.

Each thread accumulates the fused reductions of the points it computed; at the
end the partial results meet in shared memory and are combined in thread order
(the same order on every run). The requested cell of a windowed sweep is
captured into shared memory by the thread that computes it.

Storage comes from the launch with the task *outermost* (``T[task, ...]``):
here a warp's threads work on neighbouring points of one task, so that is the
layout in which their accesses coalesce (task-per-thread wants the opposite).

When this pays (few tasks, wide partitions) is the backend's hybrid choice
(``dslc.cuda.backend``); plans that need the repeat-until-done sweep of
run-time ordered groups stay task-per-thread.
"""

from __future__ import annotations

from dataclasses import replace

from dslc.emit import cpu, cuda
from dslc.emit.built import Built
from dslc.emit.cpu import fused_init_ir, fused_step_expr, requested
from dslc.emit.pyexpr import Lines, NotCompilable
from dslc.kernel import body as kb
from dslc.kernel import ir

# the requested cell's value, kept by the thread that computes it for the block
_SHARED_RESULT = ir.Load("_rs", (ir.Const(0),), "shared")


def build_task_per_block(strategy, program, plan, block: int) -> Built:
    """Task-per-block (emit.strategies "cuda task-per-block"): every thread of a block
    of ``block`` threads runs the block's task, ``task(..., tid)`` run by every thread
    of block ``tid`` (the launch: ``emit.cuda.kernel_source`` of this strategy), a
    partition's points strided over them."""
    task = cuda.task_of(strategy, program, plan, BLOCKS, block=block)
    if any(g.runtime_order for g in plan.groups):
        raise NotCompilable("a partition swept until done (its count is per thread)")
    if any(not g.schedule.same_point_order for g in plan.groups):
        raise NotCompilable("calls inside a partition to other points (threads would race)")
    body, args = task.task_body()
    return cuda.built(task, cuda.module_record(task, args, body), args)


# ---------------------------------------------------------------- pieces
# (``self``: the task being built, an emit.cpu task)

def cell_ref(self, func: str, index: list):
    return self.element(f"T_{func}", ["tid"] + index)


def extent_lines(self) -> list:
    lines = cpu.extent_lines(self)
    if self.plan.kind == "cell":  # the requested cell, shared by the block's threads
        lines.append(kb.Alloc("_rs", ir.Const(1), "float64", space="shared"))
    return lines


def capture(self, b, xs, val):
    inner = b.child()
    inner.store(_SHARED_RESULT, val)
    b.if_(requested(xs), inner)


def after_sweep(self, b: Lines) -> None:
    """Partial reductions of every thread combined, in thread order; the
    captured cell read by all."""
    b.barrier()
    for k, fu in enumerate(self.plan.fused):
        b.alloc(f"_p{k}", ir.Const(self.block), "float64", space="shared")
        b.store(ir.Load(f"_p{k}", (ir.Thread("thread"),), "shared"), ir.Name(f"acc{k}"))
    if self.plan.fused:
        b.barrier()
    for k, fu in enumerate(self.plan.fused):
        b.assign(f"acc{k}", fused_init_ir(fu, self.pr))
        loop = b.child()
        part = ir.Load(f"_p{k}", (ir.Name("_z"),), "shared")
        loop.assign(f"acc{k}", fused_step_expr(fu, f"acc{k}", part, self.program, self.pr))
        b.loop("_z", (ir.Thread("width"),), loop)
    if self.plan.kind == "cell" and self.group_of[self.plan.entry].windowed:
        b.assign("res", _SHARED_RESULT)
    if self.plan.kind == "table":
        raise NotCompilable("a whole table as a task's result")


# the strategy's pieces (emit.cpu.Pieces): task-per-thread's, the task outermost in
# its storage; tuples are left to the plain task (emit.tuples)
BLOCKS = replace(cuda.CUDA, TUPLES="the task-per-block kernel", cell_ref=cell_ref,
                 extent_lines=extent_lines, capture=capture, after_sweep=after_sweep)
