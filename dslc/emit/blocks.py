"""Task-per-block (thesis §5.5.1.2): one block of threads sweeps one task.

The same loop nest as the CPU backend and task-per-thread, with two changes:
the outermost parallel loops inside a partition are strided by the thread's
index in its block, so the block's threads share the partition's points, and
every partition ends with a block barrier (``cuda.syncthreads``), because the
next partition reads what this one wrote. Points of one partition never read
each other (the schedule is legal, and calls within a partition must be to
the same point, which the same thread computes), so nothing else needs
ordering. A point outside the strided loop (a boundary piece of a partition,
or a lone cell before the sweep) is computed by thread 0; outside any
partition a barrier follows it.

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

from dslc.emit.cpu import fused_init, fused_step
from dslc.emit.cuda import CudaGenerator
from dslc.emit.pyexpr import Lines, NotCompilable
from dslc.poly import loopir as L


class BlockGenerator(CudaGenerator):
    """Task-per-block: ``task(..., tid)`` run by every thread of block ``tid``
    (the launch: ``emit.cuda.kernel_source(..., per_block=True)``)."""

    TUPLES = "the task-per-block kernel"  # tuples: the plain generator (emit.tuples)

    def __init__(self, program, plan, block: int):
        super().__init__(program, plan)
        if any(g.runtime_order for g in plan.groups):
            raise NotCompilable("a partition swept until done (its count is per thread)")
        if any(not g.schedule.same_point_order for g in plan.groups):
            raise NotCompilable("calls inside a partition to other points (threads would race)")
        self.block = block
        self.strided = 0  # depth of strided loops around the code being generated
        self.in_partition = False
        self.shared_out: set[int] = set()  # ids of the loops strided by thread

    def cell_ref(self, func: str, index: list[str]) -> str:
        return f"T_{func}[{', '.join(['tid'] + index)}]"

    # ------------------------------------------------------------------ loops
    def _statement(self, b, node, cells, g, gi, in_partition, retried):
        strides = self._strides(node, in_partition) and not self.strided
        if strides:
            self.shared_out.add(id(node))
        self.strided += strides
        self.in_partition = in_partition
        super()._statement(b, node, cells, g, gi, in_partition, retried)
        self.strided -= strides

    @staticmethod
    def _strides(node, in_partition: bool) -> bool:
        """The outermost parallel loops inside a partition are shared out."""
        return isinstance(node, L.For) and node.kind == "parallel" and in_partition

    def loop_header(self, node, in_partition: bool) -> str:
        if id(node) not in self.shared_out:
            return super().loop_header(node, in_partition)
        lo, hi, step = node.lower.to_python(), node.upper.to_python(), node.step
        return (f"for {node.var} in range({lo} + cuda.threadIdx.x * {step}, {hi} + 1, "
                f"{step} * cuda.blockDim.x):")

    def after_partition(self, b: Lines) -> None:
        b.emit("cuda.syncthreads()")

    def compute(self, b: Lines, point: list[str], cell: Lines) -> None:
        if self.strided:
            b.lines.extend(cell.lines)
            return
        one = b.child()
        one.lines.extend(cell.lines)
        b.nest("if cuda.threadIdx.x == 0:", one)
        if not self.in_partition:  # inside one, the partition's barrier will do
            b.emit("cuda.syncthreads()")

    # ------------------------------------------------------------------ results
    def extent_lines(self) -> list[str]:
        lines = super().extent_lines()
        if self.plan.kind == "cell":
            lines.append("_rs = cuda.shared.array(1, np.float64)")
        return lines

    def capture(self, b, xs, val):
        cond = " and ".join(f"{x} == q_{i}" for i, x in enumerate(xs))
        inner = b.child()
        inner.emit(f"_rs[0] = {val}")
        b.nest(f"if {cond}:", inner)

    def after_sweep(self, b: Lines) -> None:
        """Partial reductions of every thread combined, in thread order; the
        captured cell read by all."""
        b.emit("cuda.syncthreads()")
        for k, fu in enumerate(self.plan.fused):
            b.emit(f"_p{k} = cuda.shared.array({self.block}, np.float64)")
            b.emit(f"_p{k}[cuda.threadIdx.x] = acc{k}")
        if self.plan.fused:
            b.emit("cuda.syncthreads()")
        for k, fu in enumerate(self.plan.fused):
            b.emit(f"acc{k} = {fused_init(fu, self.pr)}")
            loop = b.child()
            loop.emit(f"acc{k} = {fused_step(fu, f'acc{k}', f'_p{k}[_z]', self.program, self.pr)}")
            b.nest("for _z in range(cuda.blockDim.x):", loop)
        if self.plan.kind == "cell" and self.group_of[self.plan.entry].windowed:
            b.emit("res = _rs[0]")
        if self.plan.kind == "table":
            raise NotCompilable("a whole table as a task's result")

