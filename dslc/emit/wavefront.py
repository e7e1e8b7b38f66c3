"""One big problem on the whole GPU (the thesis's unimplemented
task-per-multiple-blocks): partition after partition, the points of a partition
spread over every thread of the grid.

A schedule ``S(x) = a . x`` with some ``|a_k| = 1`` names each point of partition
``c`` by its other coordinates: ``x_k = a_k * (c - sum_{m != k} a_m x_m)``. A
kernel launch computes one partition: thread ``t`` of ``T`` takes the flattened
other coordinates ``t, t + T, ...``, keeps those whose ``x_k`` lies in the
domain, and computes every function of the group at that point, callees first.
Points of one partition never read each other (the schedule is legal), so the
only synchronisation needed is between partitions: on a real GPU one
cooperative launch runs every partition with a grid-wide barrier between them
(``all_<group>``); in the simulator, or where a cooperative launch is refused,
the host launches the partitions in order (``part_<group>``). Storage (whole tables, or the rotating window) lives in
global memory; fused reductions of the entry accumulate with atomics (``max``,
``min``, ``sum`` of ints and floats), the requested cell is captured by the
thread that computes it. The entry's own body then runs on the host over the
accumulators and any tables it reads.

Only plans whose checks were all proved away compile here (a task-per-thread kernel
flags a failed check and the CPU re-runs that task; here there is no task to re-run).
"""

from __future__ import annotations

import math

from dslc.check import types as T
from dslc.emit.cpu import CpuGenerator, _FusedEmitter, fused_init
from dslc.emit.cuda import CHECKS, HEADER, to_device
from dslc.emit.pyexpr import RUNTIME_HELPERS, Block, NotCompilable
from dslc.emit.plan import TaskPlan

_ATOMIC = {"max": "cuda.atomic.max", "min": "cuda.atomic.min", "sum": "cuda.atomic.add"}


def eliminated(coeffs) -> int:
    """The coordinate recomputed from the partition (the last with |a_k| = 1)."""
    k = next((k for k in reversed(range(len(coeffs))) if abs(coeffs[k]) == 1), None)
    if k is None:
        raise NotCompilable("no schedule coefficient of magnitude 1")
    return k


class WavefrontGenerator(CpuGenerator):
    """Kernels ``part_<group>(<args>, <storage>, <accumulators>, res, c0)`` (one
    partition) and ``all_<group>(..., first, count)`` (every partition, grid
    sync between them), and a host function ``final(<args>, <storage>,
    <accumulators>)``."""

    def __init__(self, program, plan: TaskPlan):
        super().__init__(program, plan)
        self.storage: list[tuple[str, list[str]]] = []
        for fu in plan.fused:
            if fu.type == T.PROB or fu.op not in _ATOMIC:
                raise NotCompilable("a fused reduction with no atomic update")

    def allocate(self, b, func, dims):
        self.storage.append((func, dims))

    def fuse(self, b, k, fu, xs, val):
        conds = " and ".join(f"lo{k}_{i} <= {x} <= hi{k}_{i}" for i, x in enumerate(xs))
        inner = b.child()
        inner.emit(f"{_ATOMIC[fu.op]}(acc{k}, 0, {val})")
        b.nest(f"if {conds}:", inner)

    def capture(self, b, xs, val):
        cond = " and ".join(f"{x} == q_{i}" for i, x in enumerate(xs))
        inner = b.child()
        inner.emit(f"res[0] = {val}")
        b.nest(f"if {cond}:", inner)

    # ------------------------------------------------------------------ source
    def generate(self) -> tuple[str, str, list[str]]:
        """(device module source, host module source, argument names)."""
        plan = self.plan
        head = Block(self.extent_lines())
        fused_by_func: dict[str, list] = {}
        entry_em = self.emitter(self.task_names(self.program.functions[plan.entry]), set())
        for k, fu in enumerate(plan.fused):
            for i, (lo, hi) in enumerate(fu.bounds):
                head.emit(f"lo{k}_{i} = {entry_em.as_int(lo, head)}")
                head.emit(f"hi{k}_{i} = {entry_em.as_int(hi, head)}")
            fused_by_func.setdefault(fu.func, []).append((k, fu))
        stores = []
        for gi, g in enumerate(plan.groups):  # every group's storage first: each kernel takes all
            stores.append(Block([], head.counter))
            self._storage(stores[-1], gi, g)
        kernels = [self._kernel(gi, g, head, stores[gi], fused_by_func)
                   for gi, g in enumerate(plan.groups)]
        args = self.argnames()
        own = "\n".join([*self.helpers.values(), *kernels])
        if any(c in own for c in CHECKS):
            raise NotCompilable("a run-time check the kernel could not report")
        device = "\n".join([HEADER, to_device(RUNTIME_HELPERS), to_device(
            "\n".join(self.helpers.values()))] + kernels)
        return device, self._final(args, head), args

    def _kernel(self, gi, g, head: Block, store: Block, fused_by_func) -> str:
        coeffs = g.schedule.coeffs
        k = eliminated(coeffs)
        f0 = g.functions[0]
        ext = g.extents.names[f0]
        body = Block([], head.counter)
        others = [m for m in range(len(coeffs)) if m != k]
        rest = "idx"
        for m in others:
            body.emit(f"p{m} = {rest} % ({ext[m]} + 1)")
            body.emit(f"{rest} = {rest} // ({ext[m]} + 1)")
        total = " - ".join(["c0"] + [f"{coeffs[m]} * p{m}" for m in others if coeffs[m]])
        body.emit(f"p{k} = {coeffs[k]} * ({total})")
        point = body.child()
        order = [f for f in g.schedule.order if f in g.functions]
        for f in order:
            for m, p in enumerate(self.program.functions[f].rec_params):
                point.emit(f"x_{p.name} = p{m}")
            point.lines.extend(self._cell(f, fused_by_func.get(f, [])).lines)
        body.nest(f"if 0 <= p{k} <= {ext[k]}:", point)
        slots = [f"slot_{f}_{d} = (c0 - {d} - tmin_{f}) % W_{gi}"
                 for f in g.functions for d in sorted(self.slots.get(f, ()))]
        span = " * ".join(f"({ext[m]} + 1)" for m in others) or "1"
        sweep = Block([], head.counter)  # one partition's points over the grid
        sweep.lines.extend(slots)
        inner = sweep.child()
        inner.emit("idx = it")
        inner.lines.extend(body.lines)
        sweep.nest(f"for it in range(idx0, {span}, nth):", inner)
        start = ["idx0 = cuda.grid(1)", "nth = cuda.gridsize(1)", *head.lines, *store.lines]
        params = self.argnames() + [f"T_{f}" for f, _ in self.storage] + \
            [f"acc{k}" for k in range(len(self.plan.fused))] + ["res"]
        one = Block(list(start), head.counter)
        one.lines.extend(sweep.lines)
        # every partition in one launch, the grid synchronised between them
        # (a cooperative launch: real GPUs only, the simulator has no grid sync)
        every = Block(["grid = cuda.cg.this_grid()", *start], head.counter)
        step = every.child()
        step.lines.extend(sweep.lines)
        step.emit("grid.sync()")
        every.nest("for c0 in range(first, first + count):", step)
        return to_device(
            f"@cuda.jit\ndef part_{gi}({', '.join(params + ['c0'])}):\n{one.render(1)}\n\n\n"
            f"@cuda.jit\ndef all_{gi}({', '.join(params + ['first', 'count'])}):\n"
            f"{every.render(1)}\n")

    def points(self, gi: int) -> str:
        """How many coordinate tuples a partition kernel of group ``gi`` walks."""
        g = self.plan.groups[gi]
        k = eliminated(g.schedule.coeffs)
        ext = g.extents.names[g.functions[0]]
        return " * ".join(f"({ext[m]} + 1)" for m in range(len(ext)) if m != k) or "1"

    def _final(self, args: list[str], head: Block) -> str:
        """The host side after the sweep: the entry's value from the accumulators
        and the tables it reads (kinds ``cell`` and ``table`` need nothing)."""
        plan = self.plan
        b = Block(list(head.lines), head.counter)
        if plan.kind == "value":
            f = self.program.functions[plan.entry]
            fused = {id(fu.node): f"acc{k}[0]" for k, fu in enumerate(plan.fused)}
            em = _FusedEmitter(self.task_names(f), self.program.consts, set(),
                               self.program.alphabets, fused)
            self.current = None
            b.emit(f"return {self._guards(f, em, b)}")
        else:
            b.emit("return 0.0")
        params = args + [f"T_{f}" for f, _ in self.storage] + \
            [f"acc{k}" for k in range(len(plan.fused))]
        from dslc.emit.cpu import DOMAIN_HELPER
        from dslc.emit.cpu import HEADER as CPU_HEADER
        return "\n".join([CPU_HEADER, RUNTIME_HELPERS, DOMAIN_HELPER,
                          *[h for h in self.helpers.values()],
                          f"@numba.njit(cache=True)\ndef final({', '.join(params)}):\n"
                          f"{b.render(1)}\n"])

    def initial(self, k: int) -> float:
        """The start value of accumulator ``k``."""
        v = fused_init(self.plan.fused[k])
        return {"-np.inf": -math.inf, "np.inf": math.inf}.get(v, 0.0)
