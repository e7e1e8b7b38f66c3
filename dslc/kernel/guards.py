"""Guard specialisation (index-set splitting) as a pass over a task body's tree.

A generator emits every guard of a function as an ``if`` (kernel.body.If, with
the typed-IR guard it tests in ``guard``) and records, on a cell's code whose
points it knows to lie in a box of the iteration space, that box
(``kernel.body.Cell.box``). This pass decides each such ``if`` over the box with
interval arithmetic (kernel.boxes.decide): one decided true becomes its body, one
decided false its ``else``; an undecided one stays, tested at run time. Nothing
else changes, so an ``if`` outside a box or without a guard is kept as it is.
"""

from __future__ import annotations

from dataclasses import replace

from dslc.kernel.boxes import decide
from dslc.kernel import body as kb
from dslc.kernel import walk


def specialise(stmts, box: dict | None = None) -> tuple:
    """``stmts`` with the guards decided inside every recorded box dropped
    (``box``: the box the statements lie in, None outside any)."""
    def decided(s, ex):  # (kernel.walk: any other statement is walked into as it is)
        if isinstance(s, kb.Cell) and s.box is not None:
            return replace(s, body=specialise(s.body, dict(s.box)))
        return tuple(_if(s, box)) if isinstance(s, kb.If) else None
    return walk.stmts(stmts, _same, decided)


def _same(e):
    return e


def _if(s: kb.If, box: dict | None) -> list:
    """The statements an ``if`` is inside ``box``: its body or its ``else`` where
    the box decides its guard, else the ``if`` with both specialised."""
    d = None if box is None or s.guard is None else decide(s.guard, box)
    if d is True:
        return list(specialise(s.body, box))
    if d is False:  # its else, standing alone: an ``elif`` there is an ``if`` now
        return [replace(x, chained=False) if isinstance(x, kb.If) else x
                for x in specialise(s.orelse or (), box)]
    orelse = None if s.orelse is None else specialise(s.orelse, box)
    if orelse is not None and not orelse and s.orelse:
        orelse = None  # every branch of the else decided false
    elif orelse and s.orelse and len(orelse) == 1 and isinstance(orelse[0], kb.If) \
            and len(s.orelse) == 1 and s.orelse[0].chained:
        orelse = (replace(orelse[0], chained=True),)  # an elif stays one
    return [replace(s, body=specialise(s.body, box), orelse=orelse)]
