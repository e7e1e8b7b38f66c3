"""The project's own loop IR: what isl's AST builder produced, without isl.

Backends and ``dslc explain`` should not depend on islpy objects (they are
tied to an isl context, cannot be pickled or compared, and their API is
low-level), so the AST is converted once into these frozen dataclasses.
Everything is parametric in the extent names (``E_...``): one loop nest serves
every input size.

Expressions are integer (or, for guards, boolean) and render to Python source
with ``to_python()`` - with only the parentheses Python needs, so the text is
also readable in ``dslc explain`` - and can be evaluated directly by their
``eval`` method, given the variables' values (no text is evaluated).
Statements are ``For`` (inclusive bounds), ``Body``, ``Guard``
and ``Call`` (one statement instance: compute a function at a point);
:func:`execute` interprets them, which is how tests check a loop nest
without generating code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Union

# Python operator precedence, loosest first (only what the IR uses)
_SELECT, _OR, _AND, _CMP, _ADD, _MUL, _NEG, _ATOM = 0, 1, 2, 4, 6, 7, 8, 10


class Expr:
    """An integer or boolean expression over loop variables and extents."""

    prec = _ATOM

    def to_python(self) -> str:
        raise NotImplementedError

    def eval(self, env: Mapping[str, int]):
        raise NotImplementedError

    def wrap(self, prec: int) -> str:
        """Source text, parenthesised when it binds looser than ``prec`` needs."""
        s = self.to_python()
        return f"({s})" if self.prec < prec else s

    def __str__(self) -> str:
        return self.to_python()


@dataclass(frozen=True)
class Var(Expr):
    name: str

    def to_python(self) -> str:
        return self.name

    def eval(self, env):
        return env[self.name]


@dataclass(frozen=True)
class Const(Expr):
    value: int

    @property
    def prec(self) -> int:  # type: ignore[override]
        return _NEG if self.value < 0 else _ATOM

    def to_python(self) -> str:
        return str(self.value)

    def eval(self, env):
        return self.value


@dataclass(frozen=True)
class _Binary(Expr):
    left: Expr
    right: Expr
    symbol = "?"

    def to_python(self) -> str:
        # left-associative: the right operand needs parentheses at equal precedence
        return f"{self.left.wrap(self.prec)} {self.symbol} {self.right.wrap(self.prec + 1)}"


@dataclass(frozen=True)
class Add(_Binary):
    symbol, prec = "+", _ADD

    def eval(self, env):
        return self.left.eval(env) + self.right.eval(env)


@dataclass(frozen=True)
class Sub(_Binary):
    symbol, prec = "-", _ADD

    def eval(self, env):
        return self.left.eval(env) - self.right.eval(env)


@dataclass(frozen=True)
class Mul(_Binary):
    symbol, prec = "*", _MUL

    def eval(self, env):
        return self.left.eval(env) * self.right.eval(env)


@dataclass(frozen=True)
class FloorDiv(_Binary):
    """Division rounding towards minus infinity (isl's ``floord``; exact and
    non-negative divisions are special cases)."""

    symbol, prec = "//", _MUL

    def eval(self, env):
        return self.left.eval(env) // self.right.eval(env)


@dataclass(frozen=True)
class Mod(_Binary):
    """Remainder with the sign of the divisor (Python's ``%``); isl uses it only
    where that agrees with its own remainders (divisibility tests, ``>= 0``
    dividends)."""

    symbol, prec = "%", _MUL

    def eval(self, env):
        return self.left.eval(env) % self.right.eval(env)


@dataclass(frozen=True)
class Neg(Expr):
    operand: Expr
    prec = _NEG

    def to_python(self) -> str:
        return f"-{self.operand.wrap(_NEG)}"

    def eval(self, env):
        return -self.operand.eval(env)


@dataclass(frozen=True)
class Min(Expr):
    args: tuple[Expr, ...]

    def to_python(self) -> str:
        return f"min({', '.join(a.to_python() for a in self.args)})"

    def eval(self, env):
        return min(a.eval(env) for a in self.args)


@dataclass(frozen=True)
class Max(Expr):
    args: tuple[Expr, ...]

    def to_python(self) -> str:
        return f"max({', '.join(a.to_python() for a in self.args)})"

    def eval(self, env):
        return max(a.eval(env) for a in self.args)


_CMPS = {"==": lambda a, b: a == b, "<=": lambda a, b: a <= b, "<": lambda a, b: a < b,
         ">=": lambda a, b: a >= b, ">": lambda a, b: a > b}


@dataclass(frozen=True)
class Cmp(Expr):
    """``left op right`` with ``op`` one of ``== <= < >= >``."""

    op: str
    left: Expr
    right: Expr
    prec = _CMP

    def to_python(self) -> str:
        # never chain comparisons: both operands bind tighter
        return f"{self.left.wrap(_CMP + 1)} {self.op} {self.right.wrap(_CMP + 1)}"

    def eval(self, env):
        return _CMPS[self.op](self.left.eval(env), self.right.eval(env))


@dataclass(frozen=True)
class And(Expr):
    args: tuple[Expr, ...]
    prec = _AND

    def to_python(self) -> str:
        return " and ".join(a.wrap(_AND + 1) for a in self.args)

    def eval(self, env):
        return all(a.eval(env) for a in self.args)


@dataclass(frozen=True)
class Or(Expr):
    args: tuple[Expr, ...]
    prec = _OR

    def to_python(self) -> str:
        return " or ".join(a.wrap(_OR + 1) for a in self.args)

    def eval(self, env):
        return any(a.eval(env) for a in self.args)


@dataclass(frozen=True)
class Select(Expr):
    """``then if cond else orelse``."""

    cond: Expr
    then: Expr
    orelse: Expr
    prec = _SELECT

    def to_python(self) -> str:
        return (f"{self.then.wrap(_OR)} if {self.cond.wrap(_OR)} "
                f"else {self.orelse.wrap(_SELECT)}")

    def eval(self, env):
        return self.then.eval(env) if self.cond.eval(env) else self.orelse.eval(env)


# ----------------------------------------------------------------------------- statements
@dataclass(frozen=True)
class Call:
    """One statement instance: compute ``function`` at the point ``args`` (one
    expression per recursive parameter). ``piece`` is the guard piece when the
    function's domain was split by its guards (see ``dslc.poly.nest``)."""

    function: str
    args: tuple[Expr, ...]
    piece: int | None = None


@dataclass(frozen=True)
class For:
    """``for var in lower .. upper`` (inclusive) by ``step``. ``kind``:
    ``partition`` (the outermost, sequential wavefront loop), ``parallel``
    (iterations independent) or ``serial``."""

    var: str
    lower: Expr
    upper: Expr
    body: "Stmt"
    kind: str = "parallel"
    step: int = 1


@dataclass(frozen=True)
class Guard:
    cond: Expr
    body: "Stmt"
    orelse: "Stmt | None" = None


@dataclass(frozen=True)
class Body:
    """Statements run in order."""

    stmts: tuple["Stmt", ...]


Stmt = Union[For, Guard, Body, Call]


def statements(s: Stmt | None) -> tuple:
    """The statements of ``s`` in order with blocks flattened (none for None): what a
    code generator walks, a block being no code of its own."""
    if s is None:
        return ()
    if isinstance(s, Body):
        return tuple(x for st in s.stmts for x in statements(st))
    return (s,)


@dataclass(frozen=True)
class LoopNest:
    """A group's sweep: ``body`` over the extent parameters ``params``;
    ``partition_var`` is the variable of the partition loop(s)."""

    body: Stmt
    params: tuple[str, ...]
    partition_var: str


def walk(stmt: Stmt) -> Iterator[Stmt]:
    """Every statement, pre-order."""
    yield stmt
    if isinstance(stmt, Body):
        for s in stmt.stmts:
            yield from walk(s)
    elif isinstance(stmt, For):
        yield from walk(stmt.body)
    elif isinstance(stmt, Guard):
        yield from walk(stmt.body)
        if stmt.orelse is not None:
            yield from walk(stmt.orelse)


def execute(stmt: Stmt, env: dict[str, int], visit: Callable[[Call, tuple[int, ...]], None]
            ) -> None:
    """Run a loop nest: ``visit(call, point)`` for every statement instance, in
    the nest's order. ``env`` holds the extents (and receives loop variables)."""
    if isinstance(stmt, Call):
        visit(stmt, tuple(a.eval(env) for a in stmt.args))
    elif isinstance(stmt, Body):
        for s in stmt.stmts:
            execute(s, env, visit)
    elif isinstance(stmt, For):
        hi = stmt.upper.eval(env)
        v = stmt.lower.eval(env)
        while v <= hi:
            env[stmt.var] = v
            execute(stmt.body, env, visit)
            v += stmt.step
        env.pop(stmt.var, None)
    elif isinstance(stmt, Guard):
        if stmt.cond.eval(env):
            execute(stmt.body, env, visit)
        elif stmt.orelse is not None:
            execute(stmt.orelse, env, visit)
    else:
        raise TypeError(f"not a loop IR statement: {stmt!r}")


def linear(e: Expr) -> tuple | None:
    """``e`` as a normal form ``(const, ((var, coeff), ...))`` (sorted, no zero
    coefficient) where it is affine in its variables, else None: two affine
    expressions are equal for every value of their variables exactly when their
    forms are (how a generator tells that lone statements share a partition)."""
    terms: dict[str, int] = {}
    const = _linear(e, 1, terms)
    if const is None:
        return None
    return const, tuple(sorted((v, c) for v, c in terms.items() if c))


def _linear(e: Expr, scale: int, terms: dict[str, int]) -> int | None:
    """Add ``scale * e``'s variable terms to ``terms``; its constant, or None
    where ``e`` is not affine."""
    if isinstance(e, Const) and isinstance(e.value, int):
        return scale * e.value
    if isinstance(e, Var):
        terms[e.name] = terms.get(e.name, 0) + scale
        return 0
    if isinstance(e, Neg):
        return _linear(e.operand, -scale, terms)
    if isinstance(e, (Add, Sub)):
        a = _linear(e.left, scale, terms)
        b = _linear(e.right, scale if isinstance(e, Add) else -scale, terms)
        return None if a is None or b is None else a + b
    if isinstance(e, Mul):
        for k, x in ((e.left, e.right), (e.right, e.left)):
            if isinstance(k, Const) and isinstance(k.value, int):
                return _linear(x, scale * k.value, terms)
    return None
