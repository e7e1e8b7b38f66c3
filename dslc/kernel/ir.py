"""The kernel IR: a launch (the function that hands a map's tasks to the generated
``task``) as typed, frozen data, printed per target (targets.printer).

A map runs one generated ``task`` per task. Around it, each target needs a launch:
a ``prange`` loop on the CPU, a kernel whose threads (or blocks) take the tasks on a
GPU, with model arrays copied into shared memory behind a barrier or compiled in as
constants. These are built here as a kernel (parameters as typed records: what each
is for, how it is packed, its element type) and turned into text by the target's
printer; strategies are passes over the kernel (kernel.launch), and the verifier
(kernel.verify) runs after every pass.

Expressions: ``Name``, ``Const``, ``Index`` (a load, or a slice when an index is a
``Slice``), ``Bin``, ``Call``, ``Thread`` (the GPU's thread and block numbers).
Statements: ``Assign``, ``Store`` (into an array in the memory space of its
declaration), ``If``, ``Tasks`` (the loop over tasks: parallel on the CPU),
``Strided`` (a loop whose iterations are spread over a block's threads),
``Barrier`` (every thread of a block), ``Shared`` and ``ConstArray`` (arrays in
shared and constant memory). The task's own statements are kernel.body records,
their expressions still text (emit/).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


# ------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Name:
    id: str


@dataclass(frozen=True)
class Const:
    value: int


@dataclass(frozen=True)
class Slice:
    lo: "Expr"
    hi: "Expr"


@dataclass(frozen=True)
class Index:
    base: "Expr"
    index: tuple  # of Expr (a Slice takes a contiguous part)


@dataclass(frozen=True)
class Bin:
    op: str  # + - * // % <
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Call:
    fn: str  # a function of the module (the generated task)
    args: tuple


@dataclass(frozen=True)
class Length:
    """The number of elements of a one-dimensional array."""

    of: "Expr"


@dataclass(frozen=True)
class Thread:
    """The GPU's numbering: ``global`` (the thread in the grid), ``block`` (the
    block in the grid), ``thread`` (the thread in its block), ``width`` (threads
    per block)."""

    what: str


Expr = Union[Name, Const, Slice, Index, Bin, Call, Length, Thread]

THREAD = ("global", "block", "thread", "width")


# ------------------------------------------------------------------ statements
@dataclass(frozen=True)
class Assign:
    target: str
    value: Expr


@dataclass(frozen=True)
class Store:
    target: Index
    value: Expr


@dataclass(frozen=True)
class If:
    cond: Expr
    body: tuple


@dataclass(frozen=True)
class Tasks:
    """``for var in 0 .. count - 1`` over tasks: one per iteration, in parallel
    on the CPU (``prange``)."""

    var: str
    count: Expr
    body: tuple
    parallel: bool = True


@dataclass(frozen=True)
class Strided:
    """``var`` over ``0 .. count - 1``, the iterations spread over the threads of a
    block (each thread from its number in the block, by the block's width)."""

    var: str
    count: int
    body: tuple


@dataclass(frozen=True)
class Barrier:
    """Every thread of the block waits here (a GPU's ``syncthreads``)."""


@dataclass(frozen=True)
class Shared:
    """An array in the block's shared memory."""

    name: str
    shape: tuple
    dtype: str


@dataclass(frozen=True)
class ConstArray:
    """An array in constant memory, its values compiled into the module (held at
    module level as ``values``)."""

    name: str
    values: str
    data: bytes
    shape: tuple
    dtype: str


Stmt = Union[Assign, Store, If, Tasks, Strided, Barrier, Shared, ConstArray]


# ------------------------------------------------------------------ kernels
@dataclass(frozen=True)
class Param:
    """A parameter of a launch: ``role`` says what it holds (``order``: the tasks in
    the order they run; ``buffer``, ``starts``, ``lengths``, ``offsets``: a
    sequence column; ``values``: one value per task; ``shared``: one value for all
    tasks; ``bases``: the block-interleaved column's base per block; ``storage``:
    per-task tables; ``result``: one value (or row) per task), ``of`` the task
    argument it carries, ``dtype`` its elements (``any`` where the task decides)."""

    name: str
    role: str
    of: str = ""
    dtype: str = "any"


ROLES = ("order", "buffer", "starts", "lengths", "offsets", "values", "shared", "bases",
         "storage", "result")


@dataclass(frozen=True)
class TaskArg:
    """A parameter of the generated ``task``, as the generator made it: ``name`` as
    printed in the code (for people only: nothing parses it), ``role`` what it
    holds, ``of`` what of the source it comes from, ``dtype`` its elements
    (``any`` where the value's own type decides). Backends bind, pack and place
    arguments by role and ``of``.

    Roles (``of``): ``argument`` (a parameter of the entry: its name), ``global``
    (a global the task reads: its name), ``layout`` (an array of an extension
    type's device layout: ``(array, model)``, the model an argument or a global),
    ``window`` (a windowed group's depth: the group's number), ``cell`` (a
    coordinate of the cell asked for: its dimension), ``length`` (an argument
    sequence's length per task: the argument), ``base`` (an interleaved sequence's
    first position for the task's thread block: the argument), ``thread`` (the
    GPU thread's number in its thread block: nothing)."""

    name: str
    role: str
    of: str | int | tuple = ""
    dtype: str = "any"


TASK_ROLES = ("argument", "global", "layout", "window", "cell", "length", "base", "thread")


@dataclass(frozen=True)
class Kernel:
    """A launch for ``target`` (``cpu``: one call runs every task; ``cuda``: one
    thread, or one block, per task)."""

    name: str
    target: str
    params: tuple  # of Param
    body: tuple  # of Stmt
    module: tuple = ("task",)  # names the module defines (the task, its constants)

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


def walk(stmts):
    """Every statement, depth first."""
    for s in stmts:
        yield s
        body = getattr(s, "body", None)
        if body is not None:
            yield from walk(body)


def exprs(e):
    """``e`` and its subexpressions."""
    yield e
    match e:
        case Slice(lo=a, hi=b) | Bin(left=a, right=b):
            yield from exprs(a)
            yield from exprs(b)
        case Index(base=base, index=idx):
            yield from exprs(base)
            for i in idx:
                yield from exprs(i)
        case Call(args=args):
            for a in args:
                yield from exprs(a)
        case Length(of=a):
            yield from exprs(a)
