"""The kernel IR: a launch (the function that hands a map's tasks to the generated
``task``) as typed, frozen data, printed per target (targets.printer).

A map runs one generated ``task`` per task. Around it, each target needs a launch:
a loop over a chunk of the tasks on the CPU (threads take the chunks), a kernel whose
threads (or blocks) take the tasks on a GPU, with model arrays copied into shared
memory behind a barrier or compiled in as constants. These are built here as a kernel
(parameters as typed records: what each is for, how it is packed, its element type)
and turned into text by the target's printer; strategies are passes over the kernel
(kernel.launch), and the verifier (kernel.verify) runs after every pass.

Expressions: ``Name``, ``Const``, ``Index`` (a load, or a slice when an index is a
``Slice``), ``Bin``, ``Call``, ``Thread`` (the GPU's thread and block numbers); in a
task's body also ``GridGroup`` (the grid as a cooperative group), ``Paren`` (parentheses
a generator spelled), ``Tuple``, ``Chain`` (a chained comparison), ``Unary``, ``Cond``
(``a if c else b``), ``Helper`` (a call of a runtime helper, targets.runtime: spelled
per target), ``Load`` (an element of an
array in a memory space), ``WarpReduce`` (a reduction over a warp's lanes: GPU code
only) and ``Text`` (an expression a generator still spells as text: the leaf the
next step removes). An expression is not text: formatting one into a string is
refused, so no f-string can print a record by mistake.
Statements: ``Assign``, ``Store`` (into an array in the memory space of its
declaration), ``Atomic`` (an indivisible update of memory threads share: GPU code
only), ``If``, ``Tasks`` (the loop over tasks: parallel on the CPU), ``Strided`` (a
loop whose iterations are spread over a block's threads), ``Barrier`` (every thread
of a block), ``Shared`` and ``ConstArray`` (arrays in shared and constant memory).
The task's own statements are kernel.body records (``Assign``, ``Store`` and
``Atomic`` among them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


# ------------------------------------------------------------------ expressions
class _Expr:
    """An expression record: printed by a target's printer (targets.printer), never
    by ``str`` (an f-string around a record is a generator's mistake)."""

    def __str__(self):
        raise TypeError(f"a kernel IR expression formatted as text: {self!r}")



@dataclass(frozen=True)
class Name(_Expr):
    id: str


@dataclass(frozen=True)
class Const(_Expr):
    """A literal. ``text``: how the target spells it where that is not Python's own
    (an infinity: ``np.inf``, ``math.inf``, a float32 kernel's ``INF``), fixed by
    the printer of the function it is made for."""

    value: int | float | bool
    text: str = ""


@dataclass(frozen=True)
class Text(_Expr):
    """An expression a generator still composes as text (an f-string around other
    expressions): opaque to passes and the verifier. Every place that makes one is
    a ``Text(`` in dslc/emit (docs/architecture.md counts them)."""

    text: str


@dataclass(frozen=True)
class Slice(_Expr):
    lo: "Expr"
    hi: "Expr"


@dataclass(frozen=True)
class Index(_Expr):
    base: "Expr"
    index: tuple  # of Expr (a Slice takes a contiguous part)


@dataclass(frozen=True)
class Bin(_Expr):
    """A binary operation or comparison. ``paren``: printed in parentheses wherever
    it stands (a task's expressions: each operation in its own, as the generators
    spelled them), else only inside another operation (the launches)."""

    op: str  # + - * / // % < <= == != > >= and or &
    left: "Expr"
    right: "Expr"
    paren: bool = False
    # printed with only the parentheses Python's precedence needs (PRECEDENCE;
    # comparisons never chained), as the loop nest's expressions (poly.loopir)
    # and the generators' own conditions and loop bounds are spelled
    bare: bool = False


# Python's operator precedence, loosest first (what a ``bare`` Bin is printed by)
PRECEDENCE = {"or": 1, "and": 2, "not": 3, "<": 4, "<=": 4, "==": 4, "!=": 4, ">": 4,
              ">=": 4, "&": 5, "+": 6, "-": 6, "*": 7, "/": 7, "//": 7, "%": 7, "neg": 8}
COMPARISONS = frozenset(("<", "<=", "==", "!=", ">", ">="))


def bare(op: str, *operands) -> "Bin":
    """``a op b op c ...`` (left to right) as ``bare`` Bins: a generator's condition
    or bound, printed with the parentheses Python needs and no more."""
    out = operands[0]
    for x in operands[1:]:
        out = Bin(op, out, x, bare=True)
    return out


@dataclass(frozen=True)
class Chain(_Expr):
    """A chained comparison ``a <= b <= c`` (``ops`` between consecutive
    ``operands``): each operand evaluated once, printed with the parentheses a
    comparison needs and no more, as a ``bare`` Bin."""

    ops: tuple  # of comparison operators
    operands: tuple  # of Expr, one more than ops


@dataclass(frozen=True)
class Unary(_Expr):
    """``-x`` or ``not x``, in parentheses unless ``paren`` is False (a condition)."""

    op: str  # - not
    operand: "Expr"
    paren: bool = True


@dataclass(frozen=True)
class Cond(_Expr):
    """``then if cond else orelse``, in parentheses unless ``paren`` is False (an
    argument of a call)."""

    cond: "Expr"
    then: "Expr"
    orelse: "Expr"
    paren: bool = True


@dataclass(frozen=True)
class Helper(_Expr):
    """A call of runtime helper ``name`` (targets.runtime): the target's printer
    spells it (a device passes a failing helper the task's flag)."""

    name: str
    args: tuple
    flagged: bool = False  # a device's failing helper: called with the task's flag


SPACES = ("local", "global", "shared", "constant")


@dataclass(frozen=True)
class Load(_Expr):
    """Element ``index`` of array ``array`` in memory ``space`` (``local``: the
    task's own, ``global``: an argument or per-task storage, ``shared``: the
    block's, ``constant``: compiled in). As a store's target, the element written.
    ``comma``: printed with a trailing comma (``T[i,]``: a tuple index)."""

    array: str
    index: tuple  # of Expr
    space: str = "local"
    comma: bool = False


@dataclass(frozen=True)
class Call(_Expr):
    """A call of function ``fn`` of the module (the generated task, a generated
    function ``fn_<name>``, a helper the module defines). ``flagged``: a generated
    function holding a check, called on a device with the task's failure flag."""

    fn: str
    args: tuple
    flagged: bool = False


WARP_OPS = ("max", "min", "sum")
WARP = 32  # threads of a GPU warp: the widest warp reduction


@dataclass(frozen=True)
class WarpReduce(_Expr):
    """``op`` of ``value`` over ``width`` consecutive lanes of a warp (a power of two
    up to WARP), every lane holding the whole result after it: a butterfly of
    ``log2(width)`` full-mask shuffles. GPU code only; how a shuffle is spelled (a
    device's ``shfl_xor_sync``, the simulator's stand-in) is the printer's choice.
    Every lane of the group must reach it together (one control flow)."""

    op: str  # max min sum
    value: "Expr"
    width: int


@dataclass(frozen=True)
class Length(_Expr):
    """The number of elements of a one-dimensional array."""

    of: "Expr"


@dataclass(frozen=True)
class Thread(_Expr):
    """The GPU's numbering: ``global`` (the thread in the grid), ``block`` (the
    block in the grid), ``thread`` (the thread in its block), ``width`` (threads
    per block), ``grid`` (threads in the grid)."""

    what: str


@dataclass(frozen=True)
class GridGroup(_Expr):
    """The whole grid as a cooperative group, the handle a grid barrier
    (kernel.body ``Barrier`` of scope ``grid``) synchronises: only in a kernel
    launched cooperatively (every block resident at once)."""


@dataclass(frozen=True)
class Tuple(_Expr):
    """A tuple of two or more values (a tuple-typed cell's components). ``bare``:
    printed without parentheses, only as a returned value (``return a, b``: a device
    function returning several names; the verifier refuses it anywhere else)."""

    items: tuple
    bare: bool = False


@dataclass(frozen=True)
class Paren(_Expr):
    """``x`` in parentheses where a generator spelled them though precedence needs
    none (``1 * (c0)``): printing only, the same value as ``x``."""

    x: "Expr"


# The value type, named symbolically (kernel.value_type): a task whose tables may be
# computed in float32 (emit.precision) is generated with these leaves, and the value-type
# pass rewrites them to the concrete type's records before the task is printed (a
# printer refuses them, so nothing spells a value type early).
@dataclass(frozen=True)
class ValueInf(_Expr):
    """The value type's infinity (negated where ``negative``)."""

    negative: bool = False


@dataclass(frozen=True)
class ToValue(_Expr):
    """``x`` converted to the value type."""

    x: "Expr"


@dataclass(frozen=True)
class ValueZero(_Expr):
    """Zero in the value type: the start of a sum or a register."""


VALUE_LEAVES = (ValueInf, ToValue, ValueZero)

Expr = Union[Name, Const, Text, Slice, Index, Bin, Chain, Unary, Cond, Call, Helper, Load, Length,
             Thread, GridGroup, Paren, Tuple, WarpReduce, ValueInf, ToValue, ValueZero]

THREAD = ("global", "block", "thread", "width", "grid")


# ------------------------------------------------------------------ statements
@dataclass(frozen=True)
class Assign:
    """``target = value`` (in a task's body too: a local). ``target``: a name, or a
    tuple of two or more names assigned at once from a value of as many components
    (``a, b = f(...)``: the call of a device function returning several)."""

    target: str | tuple
    value: Expr
    levels = 1  # as a task body's statement (kernel.body): its text's indentation
    loops = 0

    @property
    def names(self) -> tuple:
        """The names assigned."""
        return self.target if isinstance(self.target, tuple) else (self.target,)


@dataclass(frozen=True)
class Store:
    """``target = value``: an element of an array (``Index`` in a launch, ``Load``
    with its memory space in a task's body)."""

    target: "Index | Load"
    value: Expr
    levels = 1
    loops = 0


ATOMIC_OPS = ("max", "min", "add")


@dataclass(frozen=True)
class Atomic:
    """``target = op(target, value)`` as one indivisible update of memory other
    threads share (``target``: a ``Load`` of a ``global`` or ``shared`` array):
    GPU code only (a CPU task owns its memory)."""

    op: str  # max min add
    target: Load
    value: Expr
    levels = 1
    loops = 0


@dataclass(frozen=True)
class If:
    cond: Expr
    body: tuple


@dataclass(frozen=True)
class Tasks:
    """``for var in 0 .. count - 1`` over tasks: one per iteration (on the CPU
    over a chunk of them, threads taking the chunks: dslc.cpu.threads)."""

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


def names(xs) -> "Name | Tuple":
    """Names ``xs`` as one value: the name itself, or a bare tuple of them (what a
    function returning several names returns: ``return a, b``)."""
    xs = tuple(Name(x) for x in xs)
    return xs[0] if len(xs) == 1 else Tuple(xs, bare=True)


def several(targets, value) -> "Assign":
    """``value`` assigned to ``targets`` (one name, or several at once: ``a, b =
    f(...)``)."""
    targets = tuple(targets)
    return Assign(targets[0] if len(targets) == 1 else targets, value)


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
        case Unary(operand=a):
            yield from exprs(a)
        case Cond(cond=c, then=a, orelse=b):
            for x in (c, a, b):
                yield from exprs(x)
        case Load(index=idx):
            for i in idx:
                yield from exprs(i)
        case Helper(args=args) | Tuple(items=args) | Chain(operands=args):
            for a in args:
                yield from exprs(a)
        case Index(base=base, index=idx):
            yield from exprs(base)
            for i in idx:
                yield from exprs(i)
        case Call(args=args):
            for a in args:
                yield from exprs(a)
        case Length(of=a) | WarpReduce(value=a) | ToValue(x=a) | Paren(x=a):
            yield from exprs(a)
