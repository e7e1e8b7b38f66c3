"""How generated batch functions take their arguments: their names, how each reaches a
pack of tasks, and, as text, the call of the launches still written as text (the CPU's
packs, cpu.packs); the others are kernel IR (kernel.launch).

These are what generated code and the runners that call it agree on, so they live here
and not with the generators (dslc.emit.cpu, dslc.emit.packs): a run whose code is all
cached imports this module and never the generators.
"""

from __future__ import annotations

from dslc.check import tir
from dslc.kernel import ir
from dslc.kernel.ir import TaskArg
from dslc.kernel.launch import packed
from dslc.lang import types as T
from dslc.targets.printer import Printer

PACK = 16  # tasks per pack: one AVX-512 vector of float32, two of float64

_NUMERIC = (T.INT, T.FLOAT, T.PROB, T.BOOL)


def arg_name(p: str) -> str:
    return f"a_{p}"


def argument(p: str) -> TaskArg:
    """The task argument carrying the entry's parameter ``p``."""
    return TaskArg(arg_name(p), "argument", p)


def pack_travel(p: tir.TParam, shared: frozenset = frozenset()) -> str:
    """How an entry argument reaches a pack: ``seq`` (a padded
    ``(length, LANES)`` block plus the lengths), ``member`` (one number per
    member of the pack)
    or ``shared`` (one value for the whole map: a matrix, or the query every
    task is aligned with). ``shared`` names the arguments that are the same
    object in every task."""
    if p.name in shared or not (isinstance(p.type, T.SeqT) or p.type in _NUMERIC):
        return "shared"
    return "seq" if isinstance(p.type, T.SeqT) else "member"


def packed_call(args, travel: dict[str, str],
                at: str = "k") -> tuple[list[str], list[str]]:
    """Parameters of a batch function and the arguments it passes ``task`` for
    task (or pack) ``at``, as text (kernel.launch.packed says how each
    argument travels)."""
    params, call = packed(args, travel, ir.Name(at))
    pr = Printer()
    return [p.name for p in params], [pr.expr(e) for e in call]
