"""The GPU failure flags as a pass over a task's body (kernel.body).

A kernel cannot raise: on a device each check helper that can fail takes the
task's failure flag (``_F[tid]``, per-task storage the launch passes) and sets it
instead (targets.runtime, emit.cuda). The task therefore clears its flag first
(launch storage is not initialised) and returns its value through
``_result_f`` (or ``_tresultK_f`` for a tuple of ``K`` components), which gives
NaN when the flag is set, so that the backend re-runs exactly the flagged tasks
on the CPU, which reports the error by position.

Whether the body holds a check is read off its records: a call of a runtime
helper that can fail is an ``ir.Helper`` marked ``flagged`` by the device's
printer from the helpers' table (targets.runtime ``Helper.fails``). Checks a
generator still spells as text (inside ``Line`` statements and ``Text`` leaves,
and in the generated functions the task calls) are known only to the printers'
record of the helpers they spelled; the generator passes that as
``Facts.checks`` (docs/architecture.md, "Strategies", lists what is still text).
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.errors import NotCompilable
from dslc.kernel import body as kb
from dslc.kernel import ir

FLAG = "_F"  # the task's failure flag: per-task storage, indexed by the task
# the task's first statement where it holds a check: its flag cleared
CLEAR = ir.Store(ir.Load(FLAG, (ir.Name("tid"),), "global"), ir.Const(0))


@dataclass(frozen=True)
class Facts:
    """What a generator knows of its task that the body's records do not hold yet,
    for the passes that need it: the value its final ``return`` gives (the
    generator's record, never read back from the line), the number of
    components of a tuple result (None: a number), and whether a check was
    spelled as text anywhere in the task or the functions it calls."""

    result: str | None = None
    width: int | None = None
    checks: bool = False


def statement_exprs(s):
    """The expression records statement ``s`` holds itself (not its body's):
    an assignment's value, a store's target and value, a loop's bounds, an
    ``if``'s condition (bounds and conditions still spelled as text left out)."""
    match s:
        case ir.Assign(value=v):
            found = (v,)
        case ir.Store(target=t, value=v):
            found = (t, v)
        case kb.Loop(over=over):
            found = over
        case kb.If(cond=c):
            found = (c,)
        case _:
            found = ()
    return tuple(x for x in found if not isinstance(x, str))


def holds_checks(stmts) -> bool:
    """Does any statement of ``stmts`` (at any depth) call a check helper that
    flags the task (an ``ir.Helper`` marked ``flagged``)?"""
    for s in stmts:
        for e in statement_exprs(s):
            if any(isinstance(x, ir.Helper) and x.flagged for x in ir.exprs(e)):
                return True
        if any(holds_checks(b) for b in kb.children(s)):
            return True
    return False


def flagged(stmts, facts: Facts) -> bool:
    """Does the task take a failure flag: a check in its records or in its text?"""
    return facts.checks or holds_checks(stmts)


def failure_flags(stmts: tuple, facts: Facts) -> tuple:
    """``stmts`` with the task's failure flag cleared first and its final return
    given through the flag, where the task holds a check (else unchanged)."""
    stmts = tuple(stmts)
    if not flagged(stmts, facts):
        return stmts
    if facts.result is None or not stmts or stmts[-1] != kb.Line(f"return {facts.result}"):
        raise NotCompilable("a task without a final return")
    through = "_result_f" if facts.width is None else f"_tresult{facts.width}_f"
    returned = kb.Line(f"return {through}({FLAG}, tid, {facts.result})")
    return (CLEAR,) + stmts[:-1] + (returned,)
