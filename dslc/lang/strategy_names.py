"""The names of the strategies a backend can choose, as its Decision records carry them
(dslc.cpu.decision) and ``explain`` prints them.

What each strategy builds and which passes it applies is the table in
dslc.emit.strategies; the names alone live here, in the bottom layer, so that a run
that only records decisions (a small CPU run) imports no code generator.
"""

INTERPRETER = "interpreter"
CPU_PLAIN = "cpu plain"  # generated Numba code, one task per call (a map's in parallel)
CPU_PACKS = "cpu task groups"  # a map's tasks in packs swept by SIMD (dslc.cpu.packs)
TASK_PER_THREAD = "task-per-thread"  # register-tiled where ``rows`` is set
TASK_PER_BLOCK = "task-per-block"
WHOLE_GPU = "whole-GPU wavefront"  # a single large call or table

NAMES = frozenset({INTERPRETER, CPU_PLAIN, CPU_PACKS, TASK_PER_THREAD, TASK_PER_BLOCK,
                   WHOLE_GPU})
