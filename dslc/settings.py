"""The DSLC_* environment settings that take a fixed set of values or a whole
number, in one table.

Each is read where it is used (:func:`choice`, or ``env_int`` for numbers), but
the command line checks them all first (:func:`check_all`): a mistyped
``DSLC_CUDA_STRATEGY`` is one clear error even on a run that would never read
it, rather than a setting silently ignored.
"""

from __future__ import annotations

from dslc.errors import env_choice, env_int

# name -> (default, {value: what it does})
CHOICES: dict[str, tuple[str, dict[str, str]]] = {
    "DSLC_LANES": ("1", {"1": "lane groups for maps", "0": "one task per call"}),
    "DSLC_CUDA_STRATEGY": ("auto", {"auto": "", "block": "a block per task",
                                    "thread": "a thread per task"}),
    "DSLC_CUDA_LANES": ("", {"1": "a thread per point", "32": "a warp per point"}),
    "DSLC_CUDA_COOP": ("1", {"1": "cooperative launches where possible",
                             "0": "a launch per partition"}),
}

# name -> the least value it takes
NUMBERS: dict[str, int] = {
    "DSLC_CUDA_TILE": 1, "DSLC_CUDA_BLOCK": 1, "DSLC_CUDA_WHOLE": 0,
    "DSLC_CUDA_HYBRID_TASKS": 0, "DSLC_CUDA_PIPELINE": 0, "DSLC_CUDA_SCRATCH_MB": 0,
    "DSLC_AUTO_GPU_CELLS": 0,
}


def choice(name: str) -> str:
    """The value of a fixed-choice setting, its default where unset."""
    default, values = CHOICES[name]
    return env_choice(name, default, values)


def check_all() -> None:
    """Every setting in the tables is unset or valid, or one DslcError says which is not."""
    for name in CHOICES:
        choice(name)
    for name, least in NUMBERS.items():
        env_int(name, 0, least)
