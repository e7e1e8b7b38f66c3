"""Tables, tasks and evaluation in dependency order without native recursion.

A *task* is one top-level call (or one element of a ``map``): it owns the
tables of every recursive function it touches, keyed by their calling
arguments. A cell is computed by running its function body; when the body
needs a cell that is not known yet it raises :class:`Need`, the driver pushes
that cell on an explicit stack, computes it first and retries. Evaluation thus
follows the true dependence order whatever the recursion depth (a 2,000 x
2,000 edit distance needs a stack 4,000 deep), and a cell that depends on
itself is reported instead of looping forever.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from dslc.errors import DslcError

MISSING = object()
_DENSE_LIMIT = 20_000_000  # cells; larger domains keep a sparse memo


class Need(Exception):
    """Raised by a body that needs a cell not computed yet."""

    __slots__ = ("table", "rec")

    def __init__(self, table, rec):
        self.table = table
        self.rec = rec


class Task:
    def __init__(self, description: str = ""):
        self.description = description
        self.tables: dict = {}
        self.in_loop = False
        self.fill = None  # table -> None: fills a new table's cells first (dslc.trace.run)


@dataclass(frozen=True)
class Numbers:
    """A whole table as a compiled backend computed it, read a cell at a time (a
    traceback visits a path of cells, not the table): ``raw`` its numbers (a
    tuple's components one more dimension); ``one`` a raw cell as the
    interpreter's value, MISSING where the number is not that value exactly (NaN:
    a check the code met; an int beyond 2^53); ``many`` the same of an array of
    cells, None where any has no exact value; ``exact`` whether every cell of an
    array of them has its exact value (so ``one`` converts any of them; None: not
    known, ``many`` decides); ``ahead`` what was read off ``raw`` where it was
    filled, before a walk asked (dslc.trace.ahead)."""

    raw: np.ndarray
    one: Callable
    many: Callable
    exact: Callable | None = None
    ahead: dict = field(default_factory=dict, repr=False, compare=False)


class Table:
    """The memo of one recursive function for one binding of its calling args."""

    def __init__(self, task: Task, func, env: dict, extents: tuple[int, ...]):
        self.task, self.func, self.env, self.extents = task, func, env, extents
        self.siblings: dict = {}
        self.outside = None  # declared ranges: rec -> (k, lo, hi) of the first left, or None
        self.growable: tuple[int, ...] = ()  # undeclared int dimensions (see :meth:`grow`)
        self.whole = False  # every cell given at once by a backend (dslc.trace.run)
        self.numbers: Numbers | None = None  # those cells, converted when first read
        size = 1
        for e in extents:
            size *= e + 1
        if size <= _DENSE_LIMIT:
            self._sparse = None  # ``_dense`` made when first used (``__getattr__``)
        else:
            self._dense, self._sparse = None, {}

    def __getattr__(self, name: str):
        """``_dense``, allocated on first use: a table a backend gives as numbers
        (``give_numbers``) never needs one, and a traceback opens a few per call."""
        if name != "_dense":
            raise AttributeError(name)
        self._dense = np.empty(tuple(e + 1 for e in self.extents), dtype=object)
        return self._dense

    @property
    def dense(self) -> bool:
        """Is the table small enough to be kept as an array (else a dict)?"""
        return self._sparse is None or self.numbers is not None

    def give_numbers(self, numbers: Numbers) -> None:
        """Every cell from a compiled backend's numbers, converted when first read
        and kept (a traceback reads a path of cells, not the table)."""
        self.numbers, self.whole = numbers, True
        self._dense, self._sparse = None, {}

    def check_domain(self, rec: tuple, span, call: str) -> None:
        if self.growable:
            self.grow(rec, span, call)
        check_point("recursive argument", self.func.rec_names, rec, self.extents, span, call)
        if self.outside is not None:
            bad = self.outside(rec)
            if bad is not None:
                self._refuse(*bad, rec, span, call)

    def grow(self, rec: tuple, span, call: str) -> None:
        """Widen an undeclared ``int`` dimension to a call's value above it.

        Such a parameter's domain is ``0 .. v`` for the largest ``v`` any call of the
        task reaches, whichever call comes first: a reduction that calls ``k(0)``
        before ``k(n)`` (``max(i in 0 ... n : k(i))``), a recursive call to a state
        above the first one asked for (``f(i - 1, t)`` for every ``t``). Cells already
        computed stay valid (a function's value never depends on its domain), so the
        memo is copied into a larger one; the memo grows geometrically while
        ``extents`` stays the exact domain, so a reduction over ``n`` calls costs
        ``O(n)`` copies. A table that would grow past ``DSLC_MAX_TABLE_BYTES`` is the
        one error left, and it says what to declare."""
        wanted = list(self.extents)
        for k in self.growable:
            v = rec[k]
            if type(v) is int and v > wanted[k]:
                wanted[k] = v
        if tuple(wanted) == self.extents:
            return
        _check_growth(self, tuple(wanted), span, call)
        if self.numbers is not None:
            self._from_numbers()
        self.extents = tuple(wanted)
        if self._sparse is not None:
            return  # a dict memo needs no room
        if _size(wanted) > _DENSE_LIMIT:
            self._sparse = {pt: v for pt, v in np.ndenumerate(self._dense) if v is not None}
            self._dense = None
            return
        if "_dense" not in self.__dict__ or all(w < n for w, n in zip(wanted, self._dense.shape)):
            return  # not allocated yet, or room left from an earlier growth
        room = tuple(max(w + 1, 2 * n) if k in self.growable else w + 1
                     for k, (w, n) in enumerate(zip(wanted, self._dense.shape)))
        if _size(tuple(r - 1 for r in room)) > _DENSE_LIMIT:
            room = tuple(w + 1 for w in wanted)
        dense = np.empty(room, dtype=object)
        dense[tuple(slice(0, n) for n in self._dense.shape)] = self._dense
        self._dense = dense

    def _from_numbers(self) -> None:
        """The cells a backend gave (``numbers``) as the interpreter's values in a
        memo of its own, before the table grows past them: the readers of a whole
        table (tracebacks) take ``numbers`` to cover the domain."""
        cells = {}
        for point in np.ndindex(*(e + 1 for e in self.extents)):
            v = self.get(point)
            if v is not MISSING:
                cells[point] = v
        self.numbers, self.whole, self._sparse = None, False, None
        self.__dict__.pop("_dense", None)
        if _size(self.extents) > _DENSE_LIMIT:
            self._sparse = cells
            return
        for point, v in cells.items():
            self._dense[point] = v

    def _refuse(self, k: int, lo: int, hi: int, rec: tuple, span, call: str):
        names = self.func.rec_names
        raise DslcError(
            f"recursive argument {names[k]} = {_fmt(rec[k])} is outside its domain {lo}..{hi} "
            f"in the call {call} (arguments {', '.join(_fmt(x) for x in rec)})", span)

    def inside(self, rec: tuple) -> bool:
        """Is ``rec`` (a point of the box) in the declared domain?"""
        return self.outside is None or self.outside(rec) is None

    def get(self, rec: tuple):
        if self._dense is not None:
            v = self._dense[rec]
            return MISSING if v is None else v
        v = self._sparse.get(rec, MISSING)
        return v if v is not MISSING or self.numbers is None else self._number(rec)

    def _number(self, rec: tuple):
        """A cell of ``numbers`` as the interpreter's value, kept; MISSING outside the
        declared ranges or where it has no exact value (the interpreter computes it)."""
        if self.outside is not None and self.outside(rec) is not None:
            return MISSING
        v = self.numbers.one(self.numbers.raw[rec])
        if v is not MISSING:
            self._sparse[rec] = v
        return v

    def region(self, index: tuple):
        """The cells at a numpy ``index`` (slices): the interpreter's values (None where
        one is not known), or None where ``numbers`` has no exact value for one."""
        if self.numbers is not None:
            return self.numbers.many(self.numbers.raw[index])
        return self._dense[index]

    def set(self, rec: tuple, value) -> None:
        if self._dense is not None:
            self._dense[rec] = value
        else:
            self._sparse[rec] = value


def _size(extents) -> int:
    size = 1
    for e in extents:
        size *= e + 1
    return size


def _check_growth(table: Table, wanted: tuple, span, call: str) -> None:
    """Refuse growing ``table`` past the table-size limit, naming the parameter to
    declare (an upward recursion with no end grows until it gets here)."""
    from dslc.lang.limits import TABLE_CELL_BYTES, max_table_bytes

    if _size(wanted) * TABLE_CELL_BYTES <= max_table_bytes():
        return
    names = table.func.rec_names
    k = max(table.growable, key=lambda k: wanted[k] - table.extents[k])
    raise DslcError(
        f"recursive argument {names[k]} = {wanted[k]} would grow the table of "
        f"{table.func.name} to {_size(wanted):,} cells, past DSLC_MAX_TABLE_BYTES, "
        f"in the call {call}", span,
        hint=f"declare the range of {names[k]} ('int {names[k]} in 0 ... N') where it is "
             "bounded, or check that the recursion moves it toward a base case")


def check_point(kind: str, names, values: tuple, extents: tuple, span, call: str,
                shown: tuple | None = None) -> None:
    """Each value (``kind`` ``names[k]``) inside its domain ``0..extents[k]``,
    else one error naming the call, the argument and its value: what a
    recursive call checks on every backend, and the script's index arguments
    (:func:`dslc.runtime.binding.check_index_args`) too."""
    for k, (v, e) in enumerate(zip(values, extents)):
        if not (type(v) is int and 0 <= v <= e):
            args = ", ".join(_fmt(x) for x in (values if shown is None else shown))
            raise DslcError(f"{kind} {names[k]} = {_fmt(v)} is outside its domain 0..{e} "
                            f"in the call {call} (arguments {args})", span)


def check_direction(name: str, direction: str, value, caller_value, rec: tuple, span,
                    call: str) -> None:
    """A declared direction (``int m decreasing``): the call's argument below (or
    above) the caller's value of the same parameter, else one error naming the
    call, the parameter and both values. The compiled backends assume it in their
    schedule and stop where it fails; the interpreter then says this."""
    if value < caller_value if direction == "decreasing" else value > caller_value:
        return
    rel = "below" if direction == "decreasing" else "above"
    args = ", ".join(_fmt(x) for x in rec)
    raise DslcError(f"recursive argument {name} = {_fmt(value)} is not {rel} the caller's "
                    f"{name} = {_fmt(caller_value)}, as its declaration '{name} {direction}' "
                    f"says, in the call {call} (arguments {args})", span)


def _fmt(v) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v)


def demand(table: Table, rec: tuple):
    """The value of a cell, computing whatever it depends on first."""
    task = table.task
    if task.in_loop:
        raise Need(table, rec)
    task.in_loop = True
    try:
        stack = [(table, rec)]
        on_stack = {(id(table), rec)}
        while stack:
            t, r = stack[-1]
            if t.get(r) is not MISSING:
                stack.pop()
                on_stack.discard((id(t), r))
                continue
            try:
                value = t.func.cell(t, r)
            except Need as need:
                key = (id(need.table), need.rec)
                if key in on_stack:
                    raise _cycle(stack, need) from None
                on_stack.add(key)
                stack.append((need.table, need.rec))
                continue
            t.set(r, value)
            stack.pop()
            on_stack.discard((id(t), r))
    finally:
        task.in_loop = False
    return table.get(rec)


def _cycle(stack, need) -> DslcError:
    chain = []
    for t, r in reversed(stack):
        chain.append(f"{t.func.name}({', '.join(map(str, r))})")
        if t is need.table and r == need.rec:
            break
    chain.reverse()
    chain.append(f"{need.table.func.name}({', '.join(map(str, need.rec))})")
    return DslcError("the recursion never ends: " + " needs ".join(chain),
                     need.table.func.span,
                     hint="a recursive call must move towards a base case")
