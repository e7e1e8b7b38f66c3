"""What a compile depends on besides the program: one frozen value, built once from the
settings where work enters dslc (the API, the command line, a backend made by name), and
handed down explicitly to every backend, generator and cache key.

Below that entry nothing reads :mod:`dslc.settings` or the environment for these
(tests/test_compile_options.py scans for it): a reader deep in a generator that consulted
the environment could change the code without changing the key it is cached under, and
two programs in one process could not be compiled under different options. Every field
takes part in every cache key (:func:`dslc.store.key.key`), so a cached plan, kernel or
walk never answers for other options. ``None`` in a field means "the reader's own
default" (a tile height, a block size, a task count), which lives beside the code that
uses it.

The settings that only steer a run (where the cache lives, size limits, tasks per launch,
the scratch budget, how a traceback's tables are filled) are not here: they change no code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompileOptions:
    lanes: bool = True  # DSLC_LANES: packs of tasks for CPU maps
    narrow: str = "1"  # DSLC_NARROW: the narrowest integer lanes a pack may take (1: int8, 16, 0: none)
    cuda_strategy: str = "auto"  # DSLC_CUDA_STRATEGY: auto, block or thread
    cuda_lanes: int | None = None  # DSLC_CUDA_LANES: 1 or 32 threads per point, or chosen
    cuda_coop: bool = True  # DSLC_CUDA_COOP: cooperative whole-GPU launches where possible
    cuda_tile: int | None = None  # DSLC_CUDA_TILE: register tile rows
    cuda_block: int | None = None  # DSLC_CUDA_BLOCK: threads per block
    cuda_whole: int = 1_000_000  # DSLC_CUDA_WHOLE: least cells of a whole-GPU problem
    cuda_hybrid_tasks: int | None = None  # DSLC_CUDA_HYBRID_TASKS: task-per-block below
    cuda_place: str = ""  # DSLC_CUDA_PLACE: placements asked for (checked where read)
    simulated: bool = False  # NUMBA_ENABLE_CUDASIM: CUDA code for Numba's simulator
    verify_ir: bool = False  # DSLC_VERIFY_IR: verify the typed IR and loop nests as built
    strict_compile: bool = False  # DSLC_STRICT_COMPILE: refuse the interpreter fall-back

    @staticmethod
    def from_settings() -> "CompileOptions":
        """The options the settings give now (the command line's over the
        environment's); a malformed setting is the user's one clear error."""
        from dslc import settings

        def number(name: str) -> int | None:
            return settings.number(name, 0) if settings.is_set(name) else None

        lanes = settings.choice("DSLC_CUDA_LANES")
        return CompileOptions(
            lanes=settings.choice("DSLC_LANES") == "1",
            narrow=settings.choice("DSLC_NARROW"),
            cuda_strategy=settings.choice("DSLC_CUDA_STRATEGY"),
            cuda_lanes=int(lanes) if lanes else None,
            cuda_coop=settings.choice("DSLC_CUDA_COOP") != "0",
            cuda_tile=number("DSLC_CUDA_TILE"),
            cuda_block=number("DSLC_CUDA_BLOCK"),
            cuda_whole=settings.number("DSLC_CUDA_WHOLE", 1_000_000),
            cuda_hybrid_tasks=number("DSLC_CUDA_HYBRID_TASKS"),
            cuda_place=settings.text("DSLC_CUDA_PLACE"),
            simulated=settings.simulated(),
            verify_ir=settings.verify_ir(),
            strict_compile=settings.choice("DSLC_STRICT_COMPILE") == "1",
        )


def given(options: CompileOptions | None) -> CompileOptions:
    """``options``, or the settings' where a backend is made outside the API (a test,
    a benchmark, a worker process that reads its own environment): the one reading of
    the settings a backend makes, at its construction, never while it compiles."""
    return options if options is not None else CompileOptions.from_settings()
