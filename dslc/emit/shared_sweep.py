"""A plain value entry's table sweep as a module of its own, shared by every entry
that sweeps the same tables.

Two entries over the same tables (``bits`` and ``evalue`` of
examples/hmmsearch.bio: one forward, two final expressions) generate the same
sweep and differ only in the few lines that read its cells. Numba compiles a
module's functions as a whole, so each entry's module paid for the whole sweep
again (half a minute each for that program's run-time-ordered group). Here the
sweep is the function ``sweep`` of a module whose text is the sweep alone (its
arguments, the generated helpers it calls, the tables it returns), and the
entry's ``task`` calls it: two entries with the same sweep text load the same
module (``cpu.modules.load`` keeps one per text, Numba's disk cache one per file),
so the second entry compiles only its own lines.

The entry's module embeds the sweep's text and loads it by that text, so a module
is still self-contained: what runs is what the cache's digest names, and a sweep
module missing from the disk is written again.
"""

from __future__ import annotations

import re

from dslc.emit.pyexpr import Block

_WORD = re.compile(r"[A-Za-z_]\w*")
_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*) = ", re.M)
_HELPER_CALL = re.compile(r"\bfn_(\w+)\(")


def applies(gen) -> bool:
    """Is the task a plain value entry whose sweep hands the final lines only its
    tables (no fused reduction, window or evaluation on demand)?"""
    plan = gen.plan
    return (gen.SHARED_SWEEP and plan.kind == "value" and not plan.fused
            and plan.groups and not any(g.on_demand or g.windowed for g in plan.groups))


def module_source(gen, args: list[str], body: Block, at: int) -> str | None:
    """The entry's module: ``body``'s first ``at`` lines (the extents and the sweep)
    become the shared ``sweep``; ``task`` recomputes the extents, takes the
    values the remaining lines read from ``sweep`` and runs those lines. None
    where those lines read nothing of the sweep (nothing to share)."""
    extents = gen.extent_lines()
    sweep_text = "\n".join(body.lines[:at])
    final_text = "\n".join(body.lines[at:])
    used = set(_WORD.findall(final_text))
    own = {ln.split(" = ", 1)[0] for ln in extents}
    own |= set(_ASSIGNED.findall(final_text))  # the final lines' own locals
    handed = [n for n in dict.fromkeys(_ASSIGNED.findall(sweep_text))
              if n in used and n not in own]
    if not handed:
        return None
    params = [a for a in args if a in set(_WORD.findall(sweep_text))]
    sweep = _sweep_module(gen, params, Block(list(body.lines[:at])), handed)
    task = Block(list(extents))
    task.emit(f"{_tuple(handed)} = _sweep({', '.join(params)})")
    task.lines.extend(body.lines[at:])
    return gen.module_source(args, task, prelude=(
        "from dslc.cpu.modules import load as _load\n"
        f"_SWEEP = {sweep!r}\n"
        "_sweep = _load(_SWEEP).sweep\n"))


def _sweep_module(gen, params: list[str], body: Block, handed: list[str]) -> str:
    from dslc.emit.cpu import HEADER

    body.emit(f"return {_tuple(handed)}")
    text = body.render(1)
    src = [HEADER, gen.pr.library("core", "domain")]
    src += [gen.helpers[n] for n in _helpers_called(gen.helpers, text)]
    src.append(f"{gen.pr.FUNCTION}\ndef sweep({', '.join(params)}):\n{text}\n")
    return "\n".join(src)


def _helpers_called(helpers: dict[str, str], text: str) -> list[str]:
    """The generated helpers ``text`` calls, directly or through one another, by
    name (so equal sweeps give equal modules), after the tuple helpers if any."""
    seen: set[str] = set()
    todo = list(_HELPER_CALL.findall(text))
    while todo:
        n = todo.pop()
        if n in seen or n not in helpers:
            continue
        seen.add(n)
        todo += _HELPER_CALL.findall(helpers[n])
    tuples = ["<tuples>"] if "<tuples>" in helpers else []  # the program's tuple widths
    return tuples + sorted(seen)


def _tuple(names: list[str]) -> str:
    """A tuple expression (or target) of ``names``, one name included."""
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
