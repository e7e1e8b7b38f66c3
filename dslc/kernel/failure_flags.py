"""The GPU failure flags as a pass over a task's body (kernel.body).

A kernel cannot raise: on a device each check helper that can fail takes the
task's failure flag (``_F[tid]``, per-task storage the launch passes) and sets it
instead (targets.runtime, emit.cuda). The task therefore clears its flag first
(launch storage is not initialised) and returns its value through
``_result_f`` (or ``_tresultK_f`` for a tuple of ``K`` components), which gives
NaN when the flag is set, so that the backend re-runs exactly the flagged tasks
on the CPU, which reports the error by position.

Whether the body holds a check is read off its records alone: a call of a runtime
helper that can fail is an ``ir.Helper`` marked ``flagged`` by the device's printer
from the helpers' table (targets.runtime ``Helper.fails``), a call of a generated
function that holds one an ``ir.Call`` marked ``flagged``; the value returned is
the task's final ``kb.Return`` record. A generator that still spelled a check as
text would leave it unseen: emit.cuda refuses such a task (its printers' record of
the helpers spelled, ``Printer.fails()``, disagreeing with the records).
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.errors import NotCompilable
from dslc.kernel import body as kb
from dslc.kernel import ir, walk

FLAG = "_F"  # the task's failure flag: per-task storage, indexed by the task
# the task's first statement where it holds a check: its flag cleared
CLEAR = ir.Store(ir.Load(FLAG, (ir.Name("tid"),), "global"), ir.Const(0))


@dataclass(frozen=True)
class Facts:
    """What a generator knows of its task that the body's records do not hold, for
    the passes that need it: the number of components of a tuple result (None: a
    number), which names the helper the value is returned through; whether the
    task's device functions hold a check (``functions``: lower() reads it off their
    records, so a check set only inside a tile function is still returned through the
    flag)."""

    width: int | None = None
    # the strategy's device functions (the register tile's, which only the task calls)
    # hold a check: read off their records by kernel.strategies.lower() when the pass runs
    functions: bool = False


def _flags(x) -> bool:
    """Does expression ``x`` itself take the task's flag: a check helper that flags
    it, or a call of a generated function holding one (``flagged``)?"""
    return isinstance(x, (ir.Helper, ir.Call)) and x.flagged


def holds_checks(stmts) -> bool:
    """Does any statement of ``stmts`` (at any depth) call a check helper that
    flags the task (an ``ir.Helper`` marked ``flagged``), or a generated function
    that holds one (an ``ir.Call`` marked ``flagged``)? (Read through kernel.walk:
    every expression a statement holds, bounds and conditions spelled as text
    left out.)"""
    return bool(walk.leaves(stmts, _flags))


def functions_hold_checks(functions) -> bool:
    """Does any of a strategy's device functions (``(Lines, parameters)`` pairs, the
    register tile's) hold a check? Their calls are not marked ``flagged`` (the tile
    functions take the flag among their own parameters), so the task learns it here."""
    return any(holds_checks(fn.stmts) for fn, _ in functions)


def failure_flags(stmts: tuple, facts: Facts) -> tuple:
    """``stmts`` with the task's failure flag cleared first and its final return
    (a ``kb.Return`` record) given through the flag, where the task holds a check
    (else unchanged), or where a device function it calls does (``facts.functions``)."""
    stmts = tuple(stmts)
    if not (facts.functions or holds_checks(stmts)):
        return stmts
    if not stmts or not isinstance(stmts[-1], kb.Return):
        raise NotCompilable("a task without a final return")
    through = "_result" if facts.width is None else f"_tresult{facts.width}"
    returned = kb.Return(ir.Helper(through, (stmts[-1].value,), flagged=True))
    return (CLEAR,) + stmts[:-1] + (returned,)
