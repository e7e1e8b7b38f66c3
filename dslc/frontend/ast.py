"""The abstract syntax tree: frozen dataclasses, every node with a Span.

Nodes are immutable so that later stages can share them freely and edit with
``dataclasses.replace``. Field names say what each child is; nothing is
positional.
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.errors import Span


class Expr:
    """Base of every expression node."""

    span: Span


@dataclass(frozen=True)
class Num(Expr):
    value: int | float
    is_float: bool
    span: Span


@dataclass(frozen=True)
class Str(Expr):
    value: str
    span: Span


@dataclass(frozen=True)
class Sym(Expr):
    """A symbol literal such as ``'A'``; its alphabet comes from context."""

    text: str
    span: Span


@dataclass(frozen=True)
class Inf(Expr):
    span: Span


@dataclass(frozen=True)
class Bool(Expr):
    value: bool
    span: Span


@dataclass(frozen=True)
class Name(Expr):
    id: str
    span: Span


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # "-" or "not"
    operand: Expr
    span: Span


@dataclass(frozen=True)
class Binary(Expr):
    """``+ - * / % max min == != < <= > >= and or``."""

    op: str
    left: Expr
    right: Expr
    span: Span


@dataclass(frozen=True)
class If(Expr):
    cond: Expr
    then: Expr
    orelse: Expr
    span: Span


@dataclass(frozen=True)
class Call(Expr):
    func: str
    args: tuple[Expr, ...]
    span: Span
    func_span: Span


@dataclass(frozen=True)
class Index(Expr):
    base: Expr
    indices: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True)
class Attr(Expr):
    base: Expr
    name: str
    span: Span


@dataclass(frozen=True)
class Range(Expr):
    """``lo ... hi``, inclusive; empty when ``lo > hi``."""

    lo: Expr
    hi: Expr
    span: Span


# ``any(v in R : c)``, ``all(v in R : c)``: reductions of bools, spelt with a name
# (they are no keywords of the contract) and typed as max/min of 0 and 1 (check.exprs)
BOOL_REDUCTIONS = ("any", "all")


@dataclass(frozen=True)
class Reduce(Expr):
    """``op(var in iterable where cond : body)`` with op in sum/min/max, or any/all."""

    op: str
    var: str
    iterable: Expr
    where: Expr | None
    body: Expr
    span: Span


@dataclass(frozen=True)
class Extremum(Expr):
    """``max(a, b, ...)`` / ``min(a, b, ...)``: the infix operators spelt as a call."""

    op: str
    args: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True)
class ArrayLit(Expr):
    """``[e1, e2, ...]``: a literal array of numbers, only as the value of a ``const``
    (an array is data fixed for the whole run, like any constant)."""

    items: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True)
class TupleLit(Expr):
    """``(e1, e2, ...)``: a tuple of two or more numbers (``(e)`` stays ``e``)."""

    items: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True)
class TypeExpr:
    """``items``: the component type names of ``tuple[int, int]`` (empty otherwise)."""

    name: str
    arg: str | None
    span: Span
    items: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.items:
            return f"{self.name}[{', '.join(self.items)}]"
        return self.name if self.arg is None else f"{self.name}[{self.arg}]"


@dataclass(frozen=True)
class Load(Expr):
    type: TypeExpr
    path: Expr
    span: Span


@dataclass(frozen=True)
class Map(Expr):
    func: str
    operands: tuple[Expr, ...]
    span: Span
    func_span: Span
    where: Expr | None = None  # map(f, A (*) B where keep): the tasks to run


# ----------------------------------------------------------------- statements


@dataclass(frozen=True)
class Param:
    """``range``: the declared ``lo ... hi`` of an ``int`` parameter (``int i in 1 ... n``).
    ``direction``: ``"decreasing"`` or ``"increasing"`` where declared (``int m decreasing``:
    every recursive call passes a smaller ``m`` than its caller's)."""

    type: TypeExpr
    name: str
    span: Span
    range: tuple[Expr, Expr] | None = None
    direction: str | None = None


@dataclass(frozen=True)
class Guard:
    cond: Expr | None  # None for ``otherwise``
    body: Expr
    span: Span


@dataclass(frozen=True)
class FuncDef:
    ret: TypeExpr
    name: str
    params: tuple[Param, ...]
    guards: tuple[Guard, ...]  # a single body is one ``otherwise`` guard
    guarded: bool
    span: Span


@dataclass(frozen=True)
class DefineAlphabet:
    """``define alphabet NAME SYMBOLS [where X = Y, ...]``: ``stand_ins`` are the
    ``(X, Y)`` pairs, a symbol outside the alphabet and the symbol of it that a
    sequence reads it as (docs/language.md, "Alphabets")."""

    name: str
    symbols: tuple[str, ...]
    span: Span
    stand_ins: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DefineBlock:
    """``define KIND NAME[ARGS] { body }``: the body belongs to an extension."""

    kind: str
    name: str
    args: tuple[str, ...]
    body: str
    body_span: Span  # where the text after ``{`` starts
    span: Span


@dataclass(frozen=True)
class ConstDef:
    name: str
    expr: Expr
    span: Span


@dataclass(frozen=True)
class ScheduleDef:
    func: str
    params: tuple[str, ...]
    expr: Expr
    span: Span


@dataclass(frozen=True)
class Print:
    expr: Expr
    span: Span


@dataclass(frozen=True)
class Assign:
    name: str
    expr: Expr
    span: Span


@dataclass(frozen=True)
class ParamDef:
    """``param NAME [= default]``: a value the user passes in (``--set``)."""

    name: str
    default: Expr | None
    span: Span


@dataclass(frozen=True)
class Import:
    """``import "file.bio"`` (``library`` False: a path, relative to the importing
    file) or ``import stdlib.hmm`` (``library`` True: ``target`` is the dotted
    name). It is replaced by the imported file's definitions (dslc.check.imports)
    before anything is checked."""

    target: str
    library: bool
    span: Span


WHOLE_ONLY = ("sum(r), max(r) and min(r) of one value fold a whole result (a map's or a "
              "table's values) and are written in script statements")


Stmt = (DefineAlphabet | DefineBlock | ConstDef | ScheduleDef | Print | Assign | FuncDef
        | ParamDef | Import)


@dataclass(frozen=True)
class Program:
    source_name: str
    stmts: tuple[Stmt, ...]
    depth: int = 0  # of the parse tree: a deep program is processed on a big stack (dslc.deep)
