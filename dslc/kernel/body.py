"""The kernel IR of a task's body: its statements as a tree of frozen records.

The generators (dslc.emit) build the body of the generated ``task`` (and of the
functions around it) through ``emit.pyexpr.Lines``, which records statements here:
loops with their kind, ``if``/``else``, barriers, the code one thread of a block
runs, a point's coordinates and a cell's code. What is read off a body (how deep
its statements and loops nest, where a partition's points are, which lane loop
holds which point) is read off this tree, never off the text; the text is made in
one place, the target's printer (``targets.printer.body_text``).

Simple statements are kernel.ir records where a generator builds them so: ``Assign``
(a local), ``Store`` (an element of a table, a ``Load`` with its memory space),
``Atomic`` (a GPU's indivisible update of an element other threads share), and here
``Return``, ``Eval`` (a check evaluated for its effect), ``Augment`` (``n += 1``),
``Break``, ``Alloc`` (a new
array in a memory space) and ``Barrier`` (a block's, or a cooperative kernel's grid's);
their
expressions are kernel.ir expressions (``ExprEmitter`` makes them), with ``Text``
leaves where a generator still composes text. A ``Line`` is a statement still spelled
as text, and a loop's bounds and an ``if``'s condition are an expression or text
(what is still text is listed in docs/architecture.md).

Loop kinds: ``sequential``, ``parallel`` (iterations independent: the loop nest's
parallel loops), ``lanes`` (the CPU packs' loop over SIMD lanes), ``strided`` (the
iterations spread over a block's threads: ``over`` is ``(lo, end, step)`` as for
one thread, the printer adds the thread's offset and stride) and ``while``
(``over`` is its condition alone).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dslc.kernel.ir import Assign, Atomic, Store

LOOP_KINDS = ("sequential", "parallel", "lanes", "strided", "while")

# The deepest a body's statements may nest (indentation levels inside a statement's
# body) and the most loops nested: Python refuses source nested 100 levels or 20
# loops deep (emit.pyexpr refuses to generate past these).
MAX_INDENT = 60
MAX_LOOPS = 15


def _levels(stmts) -> int:
    return max((s.levels for s in stmts), default=0)


def _loops(stmts) -> int:
    return max((s.loops for s in stmts), default=0)


@dataclass(frozen=True)
class Line:
    """A simple statement, spelled by the target's expression printer."""

    text: str
    levels = 1  # indentation levels its text takes
    loops = 0  # loops nested in it


@dataclass(frozen=True)
class Return:
    """``return value``: the task's (or a function's) value, an expression record
    (a pass reads what is returned off the record, never off text)."""

    value: object
    levels = 1
    loops = 0


@dataclass(frozen=True)
class Eval:
    """An expression evaluated for its effect alone: a check (a runtime helper call
    that stops the task, or flags it on a device) with no value to keep.
    ``comment``: printed after it, for people reading the generated code."""

    value: object
    comment: str = ""
    levels = 1
    loops = 0


AUGMENT_OPS = ("+", "-")


@dataclass(frozen=True)
class Augment:
    """``name op= value``: a local updated in place (a counter: ``_sp += 1``). It
    reads ``name``, so the verifier asks that ``name`` be defined before it."""

    name: str
    op: str  # + -
    value: object
    levels = 1
    loops = 0


@dataclass(frozen=True)
class Break:
    """Leave the innermost loop (a failed check that does not stop a GPU task)."""

    levels = 1
    loops = 0


ALLOC_SPACES = ("local", "shared")
ALLOC_FILLS = ("zeros", "empty")


@dataclass(frozen=True)
class Alloc:
    """``name``: a new array of ``dtype`` (a numpy type's name) in memory ``space``
    (``local``: the task's own, filled per ``fill``; ``shared``: the block's, GPU code
    only, never filled). ``shape``: one expression (one dimension), or a tuple of them
    (printed ``(a, b)``, or ``(a, b,)`` where ``comma``)."""

    name: str
    shape: object
    dtype: str
    fill: str = "zeros"
    space: str = "local"
    comma: bool = False
    levels = 1
    loops = 0


BARRIER_SCOPES = ("block", "grid")


@dataclass(frozen=True)
class Barrier:
    """Every thread of the block (``scope`` ``block``: a GPU's ``syncthreads``) or
    of the grid (``grid``: a cooperative launch's grid sync, through the grid
    group held by local ``group``, an ``Assign`` of ``ir.GridGroup``) waits here."""

    scope: str = "block"
    group: str = ""
    levels = 1
    loops = 0


@dataclass(frozen=True)
class _Block:
    """A statement holding a body: how deep the body nests is computed once, when
    the record is made (the tree is built bottom up), so a generator asking after
    each nesting costs no walk of the tree. What a kind of block adds around its
    bodies (:func:`children`) is data of its class: ``adds_levels`` of indentation
    (an empty body then prints ``pass``: one level) and ``adds_loops`` loops."""

    body: tuple
    levels: int = field(init=False, compare=False, repr=False)
    loops: int = field(init=False, compare=False, repr=False)
    adds_levels = 1
    adds_loops = 0

    def __post_init__(self):
        bodies = children(self)
        inner = max(max(1, _levels(b)) if self.adds_levels else _levels(b) for b in bodies)
        object.__setattr__(self, "levels", self.adds_levels + inner)
        object.__setattr__(self, "loops", self.adds_loops + max(_loops(b) for b in bodies))


@dataclass(frozen=True)
class Loop(_Block):
    """``for var in range(*over)`` (``while over[0]`` for kind ``while``).
    ``partition``: the loop over a schedule's partitions (its iterations run one
    after another; the points of one iteration do not read each other);
    ``point``: a ``lanes`` loop's point (its coordinate assignments), so that the
    next cells of the same point join it."""

    kind: str = "sequential"
    var: str = ""
    over: tuple = ()
    partition: bool = False
    point: tuple | None = None
    adds_loops = 1


@dataclass(frozen=True)
class If(_Block):
    """``if cond: body`` with an optional ``else`` (``orelse``, None for none);
    ``chained``: printed ``elif`` where it is the whole ``else`` of another;
    ``guard``: the typed-IR condition (check.tir) of the function's guard it
    tests, where it is one, so the guard pass (kernel.guards) can decide it
    over a box of points."""

    cond: str = ""
    orelse: tuple | None = None
    chained: bool = False
    guard: object = None

    def with_else(self, orelse: tuple) -> "If":
        """This ``if`` with ``orelse`` as its ``else`` (or that of its last ``elif``)."""
        if self.orelse is None:
            return If(self.body, self.cond, tuple(orelse), self.chained, self.guard)
        last = self.orelse[0] if len(self.orelse) == 1 else None
        if not (isinstance(last, If) and last.chained):
            raise ValueError("an else after an else")
        return If(self.body, self.cond, (last.with_else(orelse),), self.chained, self.guard)


@dataclass(frozen=True)
class OneThread(_Block):
    """Code thread 0 of the block runs alone (the others pass it)."""


@dataclass(frozen=True)
class _Group(_Block):
    """Statements printed as they are, at the same indentation: a record of what
    they are, for passes."""

    adds_levels = 0


@dataclass(frozen=True)
class Point(_Group):
    """The assignments of a point's coordinates (``body``: Lines) before its cells."""


@dataclass(frozen=True)
class Cell(_Group):
    """The code of one cell at its point of the loop nest. ``box``: where the
    generator knows it, the interval of each recursive parameter over the points
    this code runs at (``((name, (lo, hi)), ...)``, ends may be infinite): the
    guard pass (kernel.guards) decides the guards it settles."""

    box: tuple | None = None


Stmt = (Line | Assign | Store | Atomic | Return | Eval | Augment | Break | Alloc | Barrier | Loop
        | If | OneThread | Point | Cell)


def levels(stmts) -> int:
    """Indentation levels the statements' text takes (0 for none)."""
    return _levels(stmts)


def loops(stmts) -> int:
    """The most loops nested in the statements."""
    return _loops(stmts)


def children(s) -> tuple:
    """The bodies directly in statement ``s`` (an ``if``'s ``else`` too)."""
    if isinstance(s, If) and s.orelse is not None:
        return (s.body, s.orelse)
    return (s.body,) if isinstance(s, _Block) else ()
