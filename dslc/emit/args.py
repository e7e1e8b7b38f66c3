"""How generated batch functions take their arguments, as text, for the launches
still written as text (the CPU's packs, cpu.packs); the others are kernel IR
(kernel.launch)."""

from __future__ import annotations

from dslc.kernel import ir
from dslc.kernel.launch import packed
from dslc.targets.printer import Printer


def packed_call(args, travel: dict[str, str],
                at: str = "k") -> tuple[list[str], list[str]]:
    """Parameters of a batch function and the arguments it passes ``task`` for
    task (or pack) ``at``, as text (kernel.launch.packed says how each
    argument travels)."""
    params, call = packed(args, travel, ir.Name(at))
    pr = Printer()
    return [p.name for p in params], [pr.expr(e) for e in call]
