"""The run's settings, in one table and one object: every ``DSLC_*`` environment
variable, and the ``NUMBA_*`` ones dslc itself reads.

Everything in dslc reads them here (:func:`choice`, :func:`number`, :func:`text`);
nothing else reads the environment. The command line puts its own in the same
object (``--setting DSLC_NAME=VALUE``, :func:`use`): a value given there wins over the
environment's. The command line checks them all first (:func:`check_all`): a
mistyped ``DSLC_CUDA_STRATEGY`` is one clear error even on a run that would
never read it, rather than a setting silently ignored.

A setting marked ``code`` in :data:`CODE` can change the code generated for an
entry or how it runs (lanes or not, the GPU strategy, tile and block sizes,
placements, the simulator); each is a field of :class:`dslc.options.CompileOptions`,
built from these settings where work enters dslc and folded whole into every cache key
(dslc.store.key), so a cached plan never answers for other settings. The others decide where
things go (the cache directory), what is refused (the size limits), or which
backend runs and in what batches (every backend gives the interpreter's value):
no cached code depends on them.
"""

from __future__ import annotations

import os
import re

from dslc.errors import DslcError
from dslc import numtext

# name -> (default, {value: what it does})
CHOICES: dict[str, tuple[str, dict[str, str]]] = {
    "DSLC_LANES": ("1", {"1": "packs for maps", "0": "one task per call"}),
    "DSLC_NARROW": ("1", {"1": "int8, else int16 packs where emit.narrow proves them exact",
                          "16": "int16 packs at the narrowest",
                          "0": "packs in float32 at the narrowest"}),
    "DSLC_CUDA_STRATEGY": ("auto", {"auto": "", "block": "a block per task",
                                    "thread": "a thread per task"}),
    "DSLC_CUDA_LANES": ("", {"1": "a thread per point", "32": "a warp per point"}),
    "DSLC_CUDA_COOP": ("1", {"1": "cooperative launches where possible",
                             "0": "a launch per partition"}),
    "DSLC_TRACE_FILL": ("threads", {"threads": "a traceback's tables filled on this process's "
                                                "threads", "process": "in a process of its own"}),
    "DSLC_AUTO_AHEAD": ("1", {"1": "compile a map's kernel ahead for the next run",
                              "0": "never"}),
    "DSLC_STRICT_RESIDUES": ("0", {"0": "a residue an alphabet declares a stand-in for "
                                        "(protein's U, O, J as X) is read as it, with a warning",
                                   "1": "refused, as any symbol outside the alphabet"}),
    "DSLC_STRICT_COMPILE": ("0", {"0": "what the CPU backend cannot compile runs on the "
                                       "interpreter, and dslc explain and -v say so",
                                  "1": "refused: one error naming the function and why"}),
    "DSLC_VERIFY_IR": ("0", {"0": "", "1": "check the typed IR and each loop nest as they are "
                                           "built (the tests' setting; an InternalError names a "
                                           "broken invariant)"}),
}

# name -> the least value it takes (the default is the reader's: some are computed)
NUMBERS: dict[str, int] = {
    "DSLC_CUDA_TILE": 1, "DSLC_CUDA_BLOCK": 1, "DSLC_CUDA_WHOLE": 0,
    "DSLC_CUDA_HYBRID_TASKS": 0, "DSLC_CUDA_PIPELINE": 0, "DSLC_CUDA_SCRATCH_MB": 0,
    "DSLC_AUTO_GPU_CELLS": 0,
    "DSLC_MAX_LOAD_BYTES": 1, "DSLC_MAX_RECORD_RESIDUES": 1, "DSLC_MAX_TABLE_BYTES": 1,
    "DSLC_CACHE_MAX_MB": 1,  # the cache directory's size cap (dslc.store.disk)
    "DSLC_MAX_SCRIPT_BYTES": 1, "DSLC_FIFO_WAIT_SECONDS": 1,  # (dslc.lang.limits)
}

# free text, checked by their readers (a path; a list of placements)
TEXTS: tuple[str, ...] = ("DSLC_CACHE_DIR", "DSLC_CUDA_PLACE")

# Numba's and CUDA's own, read where dslc must know what Numba or the driver will do;
# the command line cannot set them (they are read when Numba and the driver start)
NUMBA: tuple[str, ...] = ("NUMBA_ENABLE_CUDASIM", "NUMBA_CUDA_DRIVER", "CUDA_VISIBLE_DEVICES")

# the settings that can change generated code or how it runs: folded into every cache key
CODE: frozenset[str] = frozenset({
    "DSLC_LANES", "DSLC_NARROW", "DSLC_CUDA_STRATEGY", "DSLC_CUDA_LANES", "DSLC_CUDA_COOP", "DSLC_CUDA_TILE",
    "DSLC_CUDA_BLOCK", "DSLC_CUDA_WHOLE", "DSLC_CUDA_HYBRID_TASKS", "DSLC_CUDA_PLACE",
    "NUMBA_ENABLE_CUDASIM",
})

NAMES: tuple[str, ...] = (*CHOICES, *NUMBERS, *TEXTS, *NUMBA)
_KNOWN = frozenset(NAMES)

_OPTIONS: dict[str, str] = {}  # given on the command line (--set), over the environment


def use(options: dict[str, str]) -> None:
    """Settings given on the command line, for the rest of the process; a name
    that is no setting (or one of Numba's) is the user's mistake."""
    for name, value in options.items():
        if name not in NAMES or name in NUMBA:
            known = ", ".join(n for n in NAMES if n not in NUMBA)
            raise DslcError(f"--setting {name}=...: no such setting", hint=f"settings: {known}")
        _OPTIONS[name] = value


def environment() -> dict[str, str]:
    """The environment a child process of this run gets: this one's, with the
    settings given on the command line in it (so the child reads what we read)."""
    return {**os.environ, **{k: v for k, v in _OPTIONS.items() if v is not None}}


def text(name: str) -> str:
    """The raw text of a setting, stripped ("" where unset): the command line's,
    else the environment's. The one place dslc reads the environment."""
    if name not in _KNOWN:
        raise KeyError(name)  # a reader asking for a setting the table lacks: a bug
    given = _OPTIONS.get(name)
    return (given if given is not None else os.environ.get(name, "")).strip()


MALLOC_TUNING = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_ARENA_MAX",
                 "GLIBC_TUNABLES")


def malloc_tuned() -> bool:
    """Did the user tune glibc's malloc through its environment variables? (Not
    dslc settings: glibc reads them when the process starts; dslc.malloc leaves
    malloc alone where they are set.)"""
    return any(v in os.environ for v in MALLOC_TUNING)


def is_set(name: str) -> bool:
    return text(name) != ""


def simulated() -> bool:
    """Does CUDA run in Numba's simulator (``NUMBA_ENABLE_CUDASIM=1``)?"""
    return text("NUMBA_ENABLE_CUDASIM") == "1"


def choice(name: str) -> str:
    """The value of a fixed-choice setting, its default where unset; any other
    value is one clear error naming the setting and the values it takes."""
    default, values = CHOICES[name]
    said = [f"{v} ({what})" if what else v for v, what in values.items()]
    said = ", ".join(said[:-1]) + f" or {said[-1]}" if len(said) > 1 else said[0]
    return _parsed(name, default, lambda t: t if t in values else None, said)


def number(name: str, default: int) -> int:
    """A whole-number setting, ``default`` where unset; anything else (or less
    than its least value) is the user's mistake, one line, not a traceback."""
    least = NUMBERS[name]

    def whole(t: str) -> int | None:
        # ASCII digits only, grouped by '_' as Python writes them ('1_000'), never
        # converted past 64 bits (dslc.numtext): Python's int() also takes '１２',
        # and raises on 5,000 digits
        t = t.strip()
        grouped = re.fullmatch(r"[+-]?[0-9]+(?:_[0-9]+)*", t)
        value = numtext.int_of(t.replace("_", "")) if grouped else None
        return value if value is not None and value >= least else None

    return _parsed(name, default, whole, f"a whole number of at least {least}")


def _parsed(name: str, default, parse, accepted: str):
    raw = text(name)
    if not raw:
        return default
    value = parse(raw)
    if value is None:
        where = "--setting " if name in _OPTIONS else ""
        raise DslcError(f"{where}{name}: {numtext.shown(raw)!r} is not {accepted}")
    return value


def verify_ir() -> bool:
    """Whether each stage's IR is verified as it is built (``DSLC_VERIFY_IR=1``):
    the stages' verifiers (dslc.check.verify, dslc.poly.verify) cost a walk over the
    IR, which the tests pay and a user's run need not."""
    return choice("DSLC_VERIFY_IR") == "1"


def check_all() -> None:
    """Every setting in the tables is unset or valid, or one DslcError says which is not."""
    for name in CHOICES:
        choice(name)
    for name in NUMBERS:
        number(name, 0)

