"""Typed IR expressions -> Python source for Numba (shared by the CPU and CUDA backends).

Representation in generated code:

* *index* ints (built from recursive parameters, range variables, finite int
  literals, ``len`` and integer constants with ``+ - * %``) are int64, so they
  can index arrays;
* every other ``int`` is a float64: the language's int infinities then need no
  special case, and values are exact up to 2**53 (results beyond that are
  reported by the runtime, never wrapped);
* ``float`` is float64 and ``prob`` a float64 natural log;
* symbols are int64 codes, sequences uint8 arrays, matrices float64 arrays.

Expressions that need statements (reductions, and anything lazily evaluated
around them) are emitted into a :class:`Lines`; everything else stays a single
Python expression.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Protocol

from dslc import sdk
from dslc.check import tir
from dslc.lang import builtins
from dslc.lang import types as T
from dslc.emit import infinity
from dslc.emit import tuples
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.body import MAX_INDENT, MAX_LOOPS
from dslc.kernel.verify import verify_body
from dslc.targets.printer import Printer
from dslc.errors import InternalError
from dslc.errors import NotCompilable  # noqa: F401 (raised here; importers take it from here too)


# Python refuses source nested more than 200 parentheses, 100 indentation levels or 20
# loops deep. An expression's text is hoisted into a temporary every HOIST_HEIGHT levels
# (each level writes at most three parentheses); statements nested deeper than MAX_INDENT
# levels (an if inside an if...: conditions whose branches need statements), or more than
# MAX_LOOPS loops deep (nested reductions, with the loops around a cell), are not compiled
# (kernel.body: the depths are read off the statements' records).
HOIST_HEIGHT = 40


@dataclass
class Lines:
    """The statements of a body of generated code (kernel.body records), built in
    order; nested bodies are Lines of their own (``child``), placed by ``nest``.
    How deep statements and loops nest is read off the records; the text is the
    printer's (``render``)."""

    stmts: list = field(default_factory=list)
    counter: list = field(default_factory=lambda: [0])

    def __post_init__(self):
        self.stmts = [kb.Line(s) if isinstance(s, str) else s for s in self.stmts]

    def fresh(self, stem: str) -> str:
        self.counter[0] += 1
        return f"_{stem}{self.counter[0]}"

    def emit(self, line: str) -> None:
        """A statement still spelled as text (kernel.body.Line)."""
        self.stmts.append(kb.Line(line))

    def assign(self, name: str, value) -> None:
        """``name = value`` (a kernel IR expression; text becomes a ``Text`` leaf)."""
        self.stmts.append(ir.Assign(name, leaf(value)))

    def temporary(self, name: str, value: ir.Expr) -> None:
        """``name = value`` for a temporary an expression needs on its way (made by
        ``fresh``): an ``Assign`` like any other, which the register tile's record of
        the names its prologue assigns (emit.tiles ``_assign``) leaves out."""
        self.stmts.append(ir.Assign(name, value))

    def augment(self, name: str, op: str, value) -> None:
        """``name op= value`` (kernel.body.Augment: ``_sp += 1``)."""
        self.stmts.append(kb.Augment(name, op, leaf(value)))

    def store(self, target: ir.Load, value) -> None:
        """``target = value``: an element of an array, in its memory space."""
        self.stmts.append(ir.Store(target, leaf(value)))

    def atomic(self, op: str, target: ir.Load, value) -> None:
        """``target = op(target, value)`` as one indivisible update (GPU code)."""
        self.stmts.append(ir.Atomic(op, target, leaf(value)))

    def return_(self, value) -> None:
        """``return value`` (a kernel IR expression; text becomes a ``Text`` leaf)."""
        self.stmts.append(kb.Return(leaf(value)))

    def eval(self, value, comment: str = "") -> None:
        """``value`` evaluated for its effect alone (a check), ``comment`` after it."""
        self.stmts.append(kb.Eval(leaf(value), comment))

    def alloc(self, name: str, shape, dtype: str, fill: str = "zeros", space: str = "local",
              comma: bool = False) -> None:
        """``name``: a new array (kernel.body.Alloc; text in ``shape`` becomes leaves)."""
        shape = tuple(leaf(x) for x in shape) if isinstance(shape, (tuple, list)) else leaf(shape)
        self.stmts.append(kb.Alloc(name, shape, dtype, fill, space, comma))

    def break_(self) -> None:
        """Leave the innermost loop."""
        self.stmts.append(kb.Break())

    def child(self) -> "Lines":
        return Lines([], self.counter)

    def one(self, line: str) -> "Lines":
        """A child body of the one statement ``line`` (an ``if``'s ``return``)."""
        body = self.child()
        body.emit(line)
        return body

    def extend(self, other: "Lines") -> None:
        """``other``'s statements, moved here after these (records: nothing is lost)."""
        self.stmts.extend(other.stmts)

    def last(self):
        """The last statement, None where there is none."""
        return self.stmts[-1] if self.stmts else None

    def tail(self, n: int) -> tuple:
        """The last ``n`` statements (fewer where there are fewer)."""
        return tuple(self.stmts[-n:])

    def pop(self, n: int) -> None:
        """Take the last ``n`` statements away."""
        del self.stmts[len(self.stmts) - n:]

    def nest(self, s) -> None:
        """Statement ``s`` holding a body (a loop, an ``if``...), refused where
        Python could not compile it so deep."""
        if s.levels - 1 > MAX_INDENT:
            raise NotCompilable(f"statements nested more than {MAX_INDENT} levels deep")
        if s.loops > MAX_LOOPS:
            raise NotCompilable(f"loops nested more than {MAX_LOOPS} deep")
        self.stmts.append(s)

    def barrier(self, scope: str = "block", group: str = "") -> None:
        """Every thread of the block (or of the grid, synchronised through the grid
        group held by local ``group``) waits here."""
        self.stmts.append(kb.Barrier(scope, group))

    def apply(self, pass_, target: str, known=None, after=None) -> None:
        """These statements replaced by ``pass_`` of them (a pass over the body's
        tree for ``target``, kernel.per_block), verified before and after it
        (kernel.verify; ``known``: the function's parameters, for its check of the
        names read; ``after``: those after it where they differ, a pass binding a
        name free before it), each statement refused where it nests too deep."""
        stmts = pass_(verify_body(tuple(self.stmts), target, known))
        self.stmts = []
        for s in stmts:
            self.nest(s)
        verify_body(tuple(self.stmts), target, known if after is None else after)

    def loop(self, var: str, over: tuple, body: "Lines", kind: str = "sequential",
             **attrs) -> None:
        """``for var in range(*over)`` of ``kind`` (kernel.body.LOOP_KINDS)."""
        self.nest(kb.Loop(tuple(body.stmts), kind, var, tuple(over), **attrs))

    def while_(self, cond, body: "Lines") -> None:
        self.nest(kb.Loop(tuple(body.stmts), "while", "", (cond,)))

    def if_(self, cond, body: "Lines", guard=None) -> None:
        """``if cond`` (``guard``: the typed-IR guard it tests, kernel.body.If)."""
        self.nest(kb.If(tuple(body.stmts), cond, guard=guard))

    def elif_(self, cond, body: "Lines") -> None:
        """An ``elif`` of the ``if`` just placed."""
        self._else((kb.If(tuple(body.stmts), cond, chained=True),))

    def else_(self, body: "Lines") -> None:
        """The ``else`` of the ``if`` just placed."""
        self._else(tuple(body.stmts))

    def _else(self, orelse: tuple) -> None:
        last = self.stmts.pop() if self.stmts else None
        if not isinstance(last, kb.If):
            raise TypeError("an else with no if before it")
        self.nest(last.with_else(orelse))

    def render(self, indent: int = 0, pr: Printer | None = None) -> str:
        """The statements as ``pr`` (the CPU's by default) spells them."""
        return (pr or Printer()).task_text(self.stmts, indent)


class Names(Protocol):
    """How the generated code spells each name of the program: the interface the
    expression emitter asks (emit.cpu ``_TaskNames`` implements it, its strategy's
    pieces deciding where parameters, tables and model data live)."""

    def param(self, name: str, t: T.Type) -> str | ir.Expr:
        """A parameter of the function whose body is emitted."""

    def local(self, name: str) -> str:
        """A local variable (a ``let`` or a reduction's)."""

    def global_(self, name: str, t: T.Type) -> ir.Expr:
        """A global of the program (raise NotCompilable where it has no layout)."""

    def symbol(self, lit: tir.SymLit) -> ir.Expr:
        """A symbol literal of a run-time alphabet."""

    def table_read(self, call: tir.Call, args: list, block: Lines) -> str:
        """A read of a table's cell."""

    def call(self, call: tir.Call, args: list, block: Lines) -> ir.Expr:
        """A call of ``call.func`` with ``args`` (kernel IR expressions)."""

    def coordinates(self, call: tir.Call) -> frozenset[int]:
        """Argument positions of ``call`` that index the callee's table (its
        recursive parameters: int64 in generated code); none for a plain function."""

    def ext_index(self, e: tir.ExtIndex, base: ir.Expr, keys: list) -> ir.Expr:
        """``base[keys]`` (records) of an extension value with a device layout."""

    def ext_attr(self, e: tir.ExtAttr, block: Lines) -> ir.Expr:
        """An accessor of an extension value."""

    def layout_array(self, model: str, array: str) -> str:
        """Array ``array`` of the device layout (sdk.Layout) of the model held by
        variable ``model``: one value shared by every task (never per lane)."""

    def guarded_load(self, array, index: list) -> ir.Expr:
        """A read of ``array`` (a record, or a layout array's name as text) whose index
        (kernel IR expressions) went through a run-time check (``_chk``). Where a failed
        check stops the run (the CPU) it is a plain read; a GPU kernel keeps running
        after one, so it guards the read itself (emit.cuda)."""

    def alphabet_size(self, alpha: T.AlphaRef) -> ir.Expr:
        """The number of symbols of alphabet ``alpha``."""

    def function_name(self) -> str | None:
        """The function whose body is emitted, where one is."""

    def infinities(self):
        """The program's infinity facts (emit.infinity), None where no program is
        known: then every operation that could meet ``inf - inf`` is checked."""

    def printer(self) -> Printer:
        """How the code of this body is spelled for its target (targets.printer)."""


def is_index(e: tir.TExpr, consts: dict) -> bool:
    """Is ``e`` an always-finite integer expression (emitted as int64)?"""
    match e:
        case tir.Lit(value=v):
            return _small(v)
        case tir.Var(scope="param", type=t):
            return isinstance(t, T.IndexT)
        case tir.Var(scope="local", type=t):
            return t == T.INT
        case tir.Var(scope="global", name=n):
            return _small(consts.get(n))
        case tir.Builtin(name="len"):
            return True
        case tir.Builtin(name="code"):
            return True  # a symbol's code, already an int64
        case tir.ExtAttr(type=t, accessor=acc):
            # compiled forms of int accessors are int64 (element numbers, counts)
            return t == T.INT and isinstance(getattr(acc, "device", None), sdk.Code)
        case tir.Neg(operand=x):
            return is_index(x, consts)
        case tir.Arith(op="+" | "-" | "*" | "%", left=a, right=b):
            return is_index(a, consts) and is_index(b, consts)
    return False


INDEX_LITERAL = 2**31
EXACT_INT = 2**53  # float64 holds every int below this exactly


def _exact_int(v) -> None:
    """An int literal or constant that generated code cannot hold exactly (at
    or beyond 2^53: ``9223372036854775000``, ``2**60 - 1``) is not compiled: its
    arithmetic in float64 would round, and the interpreter computes it exactly."""
    if type(v) is int and abs(v) >= EXACT_INT:
        raise NotCompilable(f"the int {v} is beyond 2^53, where float64 rounds")


def _small(v) -> bool:
    """An int literal or constant that index arithmetic may use: int64 index
    arithmetic cannot overflow with coordinates and such numbers (a larger one,
    ``9223372036854775807 - 2``, is a value, whose result past 2^53 the
    interpreter recomputes or reports as an overflow)."""
    return type(v) is int and -INDEX_LITERAL <= v <= INDEX_LITERAL


@dataclass(frozen=True)
class Rule:
    """A strategy's own way of emitting one kind of node, composed into an
    :class:`ExprEmitter` (one emitter class serves every strategy). ``kind``: the
    node's class name in lower case (``reduce``, ``seqindex``, ``builtin``,
    ``minmax``, ``arith``, ...), or ``range_header``: the loop of a reduction over
    a range. ``emit(em, default, *node)``: the node's code, ``default`` the emitter's
    own way for the nodes the rule leaves to it (``default(*node)``)."""

    kind: str
    emit: Callable


class ExprEmitter:
    """Typed IR expressions -> kernel IR expressions (kernel.ir), spelled by the
    target's printer (``text``). What a ``Names`` method or a helper module still
    returns as text becomes a ``Text`` leaf (``leaf``). ``rules``: a strategy's own
    ways with some kinds of node (:class:`Rule`), at most one per kind."""

    def __init__(self, names: Names, consts: dict, rec_params: set[str], alphabets: dict,
                 safe_indexes: frozenset = frozenset(), rules: tuple[Rule, ...] = ()):
        self.names, self.consts, self.rec, self.alphabets = names, consts, rec_params, alphabets
        self.safe_indexes = safe_indexes  # spans of s[e] proved to lie inside s
        self.rules = {r.kind: r.emit for r in rules}
        if len(self.rules) != len(rules):
            raise InternalError("two rules for one kind of node")
        self.pr = names.printer()
        self._height = 0  # nesting of the text the innermost expr() call has written so far

    def text(self, x: ir.Expr) -> str:
        """``x`` as the target spells it (for a generator composing text around it)."""
        return self.pr.expr(x)

    def index(self, e: tir.TExpr) -> bool:
        if isinstance(e, tir.Var) and e.scope == "param" and e.name in self.rec:
            return True
        match e:
            case tir.Neg(operand=x):
                return self.index(x)
            case tir.Arith(op="+" | "-" | "*" | "%", left=a, right=b):
                return self.index(a) and self.index(b)
        return is_index(e, self.consts)

    def as_int(self, e: tir.TExpr, b: Lines) -> ir.Expr:
        """``e`` where an int64 is needed (array index, recursive argument)."""
        s = self.expr(e, b)
        return s if self.index(e) else self.pr.ir_check("_to_index", s)

    def as_value(self, e: tir.TExpr, b: Lines) -> ir.Expr:
        """``e`` as a float64 value (for int-typed values)."""
        s = self.expr(e, b)
        return self.pr.ir_value(s) if self.index(e) and e.type == T.INT else s

    # ------------------------------------------------------------------ dispatch
    def expr(self, e: tir.TExpr, b: Lines) -> ir.Expr:
        """``e`` as a kernel IR expression; statements it needs first go to ``b``.
        An expression nested HOIST_HEIGHT levels deep is computed into a
        temporary in ``b`` (which runs exactly where ``e`` is evaluated:
        conditional parts have their own blocks), so no generated line nests
        deeper than Python allows."""
        outer, self._height = self._height, 0
        x = self.emit(type(e).__name__.lower(), e, b)
        height = self._height + 1
        if height >= HOIST_HEIGHT:
            x, height = self._hoist(x, b), 0
        self._height = max(outer, height)
        return x

    def emit(self, kind: str, *node):
        """Node ``node`` of ``kind`` by the strategy's rule for it, else by the
        emitter's own method (``_kind``)."""
        own = getattr(self, "_" + kind)
        rule = self.rules.get(kind)
        return own(*node) if rule is None else rule(self, own, *node)

    def _lit(self, e, b):
        v = e.value
        _exact_int(v)
        if isinstance(v, float) and math.isinf(v):
            return self.pr.ir_inf(v < 0)
        if isinstance(v, bool) or type(v) is int:
            return ir.Const(v)
        return ir.Const(float(v))

    def _symlit(self, e, b):
        if e.type.alpha.kind == "named":
            return ir.Const(int(self.alphabets[e.type.alpha.name].code(e.text, e.span)))
        return self.names.symbol(e)

    def _strlit(self, e, b):
        raise NotCompilable("string literal inside a function")

    def _var(self, e, b):
        if e.scope == "local":
            return ir.Name(self.names.local(e.name))
        if e.scope == "global":
            c = self.consts.get(e.name)
            if isinstance(c, (int, float)):
                if isinstance(c, float) and math.isinf(c):
                    return self.pr.ir_inf(c < 0)
                _exact_int(c)
                return ir.Const(c)
            return self.names.global_(e.name, e.type)
        if e.scope == "param":
            return leaf(self.names.param(e.name, e.type))
        raise NotCompilable(f"name {e.name}")

    def _coerce(self, e, b):
        src = e.expr
        if isinstance(e.type, T.TupleT):  # int components are float64 already
            return self.expr(src, b)
        if e.type == T.FLOAT:
            return self.pr.ir_value(self.expr(src, b))
        if src.type == T.PROB:
            return self.expr(src, b)
        logs = self._literal_logs(src, b)
        if logs is not None:
            return logs
        return self.pr.ir_check("_to_log", self.pr.ir_value(self.expr(src, b)))

    def _literal_logs(self, e, b) -> ir.Expr | None:
        """A probability written as literals chosen by conditions (``if s.isstart
        then 1.0 else 0.0``) as their logs: no run-time check is left to fail
        (a negative literal keeps its error, ``_neg_prob``). None otherwise."""
        if isinstance(e, tir.Coerce) and e.type == T.FLOAT:
            return self._literal_logs(e.expr, b)
        if isinstance(e, tir.Lit) and not isinstance(e.value, bool):
            v = float(e.value)
            if v == 0:
                return self.pr.ir_inf(negative=True)
            # a negative or infinite probability: the check fails, the interpreter says why
            return ir.Const(math.log(v)) if 0 < v < math.inf else self.pr.ir_check("_neg_prob")
        if not isinstance(e, tir.Cond):
            return None
        probe = b.child()
        then, orelse = self._literal_logs(e.then, probe), self._literal_logs(e.orelse, probe)
        if then is None or orelse is None or probe.stmts:
            return None
        return ir.Cond(self.expr(e.cond, b), then, orelse)

    def _neg(self, e, b):
        return ir.Unary("-", self.expr(e.operand, b))

    def _not(self, e, b):
        return ir.Unary("not", self.expr(e.operand, b))

    def _arith(self, e, b):
        op, t = e.op, e.type
        if isinstance(t, T.TupleT):  # + component by component
            x, y = self._hoist(self.expr(e.left, b), b), self._hoist(self.expr(e.right, b), b)
            return tuples.add(len(t.items), x, y, self.pr)
        if t == T.PROB:
            x, y = self.expr(e.left, b), self.expr(e.right, b)
            if op == "+":
                return self.pr.ir_check("_logaddexp", x, y)
            return _op({"*": "+", "/": "-"}[op], x, y)
        if t == T.INT and self.index(e):
            x, y = self.expr(e.left, b), self.expr(e.right, b)
            if op == "%" and self.pr.device and not _nonzero_literal(e.right):
                return self.pr.ir_check("_imod", x, y)  # (a device's int % 0 is silent)
            return _op(op, x, y)
        x, y = self.as_value(e.left, b), self.as_value(e.right, b)
        if op == "%":
            return self.pr.ir_check("_fmod_floor", x, y)
        if op == "/" and _nonzero_literal(e.right):
            return _op("/", x, y)  # nothing to check
        if op == "/":
            return self.pr.ir_check("_div", x, y)
        if self.undefined(e):
            out = self.pr.ir_check("_undef", ir.Bin(op, x, y))
        else:
            out = _op(op, x, y)
        if t == T.INT:
            return self.exact(out, product=op == "*")
        return out

    def exact(self, value: ir.Expr, product: bool = False) -> ir.Expr:
        """An int sum, difference or product as float64 holds it, checked: past
        2^53 float64 rounds it, and a later ``%``, ``-`` or ``min`` would bring the
        wrong number back into range; the interpreter recomputes it exactly (or
        reports the overflow). A product is always checked; a sum only where the
        generator's plan is outside emit.precision's linear argument (a term reading
        two cells can double along a chain: ``g(i - 1) + g(i - 1)``), since inside
        it every value is bounded by a small multiple of the leaves. The float32
        value types drop the check (kernel.value_type): their own argument keeps
        every value exact."""
        gen = getattr(self.names, "gen", None)
        if gen is not None and not gen.REPORTS_INEXACT:
            return value  # (the whole-GPU wavefront: docs/robustness.md, "Known limits")
        if not product and gen is not None and gen.sums_bounded:
            return value
        return self.pr.ir_check("_inexact", value)

    def facts(self, e: tir.TExpr) -> infinity.Infs:
        """Which infinities ``e`` may hold (emit.infinity)."""
        found = self.names.infinities()
        if found is None:
            return infinity.ANY
        return found.expr(e, frozenset(self.rec), self.names.function_name())

    def undefined(self, e: tir.Arith) -> bool:
        """Can int/float ``e`` be ``inf - inf`` or ``0 * inf``? Then it is checked
        (``_undef``): the language makes it an error, IEEE makes it NaN."""
        return infinity.undefined(e, self.facts(e.left), self.facts(e.right))

    def _minmax(self, e, b):
        if isinstance(e.type, T.TupleT):  # lexicographic
            return tuples.combine(e.op, len(e.type.items), self.expr(e.left, b),
                                  self.expr(e.right, b), self.pr)
        if e.type == T.INT and self.index(e.left) and self.index(e.right):
            x, y = self.expr(e.left, b), self.expr(e.right, b)
        else:
            x, y = self.as_value(e.left, b), self.as_value(e.right, b)
        return ir.Call(e.op, (x, y))

    def _compare(self, e, b):
        if isinstance(e.left.type, T.TupleT):  # every component equal
            same = tuples.equal(len(e.left.type.items), self.expr(e.left, b),
                                self.expr(e.right, b))
            return same if e.op == "==" else ir.Unary("not", same)
        return _op(e.op, self.expr(e.left, b), self.expr(e.right, b))

    def _logic(self, e, b):
        left = self.expr(e.left, b)
        rb = b.child()
        right = self.expr(e.right, rb)
        if not rb.stmts:
            return _op(e.op, left, right)
        out = b.fresh("l")
        b.temporary(out, left)
        rb.temporary(out, right)
        b.if_(ir.Name(out) if e.op == "and" else ir.Unary("not", ir.Name(out), paren=False), rb)
        return ir.Name(out)

    def _cond(self, e, b):
        c = self.expr(e.cond, b)
        tb, eb = b.child(), b.child()
        then, orelse = self._branch(e.then, e.type, tb), self._branch(e.orelse, e.type, eb)
        if not tb.stmts and not eb.stmts:
            return ir.Cond(c, then, orelse)
        out = b.fresh("c")
        tb.temporary(out, then)
        eb.temporary(out, orelse)
        b.if_(c, tb)
        b.else_(eb)
        return ir.Name(out)

    def _branch(self, e, t, b):
        return self.as_value(e, b) if t == T.INT and not self.index(e) or t != T.INT else \
            self.expr(e, b)

    def _maketuple(self, e, b):
        # float() on every component: a UniTuple of float64 whatever each is computed from
        return ir.Tuple(tuple(self.pr.ir_value(self.as_value(x, b)) for x in e.items))

    def _component(self, e, b):
        return ir.Index(self.expr(e.base, b), (ir.Const(e.k),))

    def _builtin(self, e, b):
        x = e.args[0]
        if e.name == "len":
            return ir.Call("len", (self.expr(x, b),))
        if e.name == "code":
            return self.pr.ir_int64(self.expr(x, b))
        if e.name == "div":  # a value (float64), floored and checked like %
            return self.pr.ir_check("_idiv", self.as_value(x, b), self.as_value(e.args[1], b))
        if e.name == "pow":  # a value (float64), checked (lang.arith.power)
            return self.pr.ir_check("_ipow" if e.type == T.INT else "_fpow", self.as_value(x, b),
                                    self.as_value(e.args[1], b))
        if e.name == "abs":
            return ir.Call("abs", (self.expr(x, b),))
        if e.name == "float":
            return self.pr.ir_value(self.as_value(x, b))
        fn = builtins.BY_NAME[e.name]  # a function of one number (lang.builtins)
        if x.type == T.PROB and fn.of_prob == "log":
            return self.expr(x, b)  # the stored log
        v = self.as_value(x, b)
        helper = fn.helper()
        return self.pr.ir_check(helper, v) if helper else self.pr.ir_math(fn.math, v)

    def _seqindex(self, e, b):
        s = self.expr(e.seq, b)
        i = self.as_int(e.index, b)
        if e.span in self.safe_indexes:  # proved inside the sequence (see plan.task)
            return self.pr.ir_int64(ir.Index(s, (i,)))
        check = self.pr.ir_check("_chk", i, ir.Call("len", (s,)))
        return self.pr.ir_int64(self.names.guarded_load(s, [check]))

    def _extindex(self, e, b):
        if e.indexer is None and isinstance(e.base, tir.ExtAttr) \
                and isinstance(e.base.accessor.device, sdk.Code):
            # s.emission[c]: the accessor's compiled form with its keys
            return self._ext_code(e.base, e.base.accessor.device, self._keys(e, b), b, e.type)
        if e.indexer is not None and e.indexer.device_index is not None:
            base = self.expr(e.base, b) if e.indexer.device_array is not None else None
            model = e.base.name if isinstance(e.base, tir.Var) else None
            # an int element is a value here (is_index): float64, infinities included
            t = e.type if e.type != T.INT else None
            return self._render_typed(e.indexer.device_index, model, None, self._keys(e, b),
                                      base, b, t)
        keys = [self.expr(k, b) for k in e.keys]
        return self.names.ext_index(e, self.expr(e.base, b), keys)

    def _keys(self, e, b) -> list:
        return [self.as_int(k, b) if k.type == T.INT else self.expr(k, b) for k in e.keys]

    def _extattr(self, e, b):
        dev = e.accessor.device
        if isinstance(dev, sdk.Code) and not isinstance(e.type, (T.MapT, T.IterT)):
            return self._ext_code(e, dev, [], b, e.type)
        return self.names.ext_attr(e, b)

    # ------------------------------------------------------------------ compiled forms
    def _model(self, base: tir.TExpr) -> str:
        """The variable holding the model whose layout an accessor on ``base`` reads:
        the owner of an element (``h`` for ``s: state[h]``), else the value itself."""
        t = base.type
        if isinstance(t, T.ExtT) and t.owner:
            return t.owner
        if isinstance(base, tir.Var):
            return base.name
        raise NotCompilable("an accessor on a computed extension value")

    def _receiver(self, base: tir.TExpr, b: Lines) -> ir.Expr | None:
        """The receiver's element number (hoisted into a local), or None for a
        calling receiver (a model: only its arrays can be read)."""
        t = base.type
        if not (isinstance(t, T.ExtT) and t.owner):
            return None
        return self._hoist(self.expr(base, b), b)

    def _hoist(self, x: ir.Expr, b: Lines) -> ir.Expr:
        """``x``, or a temporary assigned it in ``b`` where it is more than a name."""
        if self.text(x).isidentifier():
            return x
        tmp = b.fresh("r")
        b.temporary(tmp, x)
        return ir.Name(tmp)

    def _ext_code(self, e: tir.ExtAttr, code, keys: list, b: Lines, t: T.Type) -> ir.Expr:
        recv = self._receiver(e.base, b)
        # a calling value's own device_array (VALUE: a 2-D array's g.cols) is its argument
        value = self.expr(e.base, b) if recv is None and _reads_value(code) else None
        return self._render_typed(code, self._model(e.base), recv, keys, value, b, t)

    def _render_typed(self, code, model, recv, keys, value, b, t) -> ir.Expr:
        keys = [self._hoist(k, b) for k in keys]
        x = render_code(code, self._array(model, value), recv=recv, keys=keys,
                        guarded=self.names.guarded_load, pr=self.pr)
        if isinstance(t, T.SymT) or t == T.INT:
            return self.pr.ir_int64(x)
        return x

    def _array(self, model, value):
        def array(name: str) -> str:
            if name == "":
                if value is None:
                    raise NotCompilable("VALUE in a compiled form of a type without device_array")
                return self.text(value)
            if model is None:
                raise NotCompilable("a layout array of a computed extension value")
            return self.names.layout_array(model, name)
        return array

    def _ext_iter(self, it: tir.ExtAttr, b: Lines):
        """``(lo, hi, item)`` of an iterable accessor's compiled form (sdk.Each):
        ``item`` renders the element at position ``{k}``."""
        each = it.accessor.device
        if not isinstance(each, sdk.Each):
            raise NotCompilable(f"iteration over .{it.accessor.name} (no compiled form)")
        recv = self._receiver(it.base, b)
        array = self._array(self._model(it.base), None)
        guarded = self.names.guarded_load
        lo = render_code(sdk.lift(each.lo), array, recv=recv, guarded=guarded, pr=self.pr)
        hi = render_code(sdk.lift(each.hi), array, recv=recv, guarded=guarded, pr=self.pr)
        return lo, hi, lambda k: render_code(each.item, array, recv=recv, item=k, guarded=guarded,
                                             pr=self.pr)

    def _call(self, e, b):
        args = []
        coords = self.names.coordinates(e)
        for k, a in enumerate(e.args):
            if isinstance(a.type, (T.SeqT, T.ExtT, T.StrT)) or a.type in (T.PROB, T.FLOAT, T.BOOL):
                args.append(self.expr(a, b))
            elif isinstance(a.type, T.SymT):
                args.append(self.expr(a, b))
            elif self.index(a) or k in coords:
                # a table coordinate is an int64 whatever it is computed from: an
                # int built with a helper's value (``c - w(i)``) is a float64 until
                # converted (and checked finite) here
                args.append(self.as_int(a, b))
            else:
                args.append(self.expr(a, b))
        return self.names.call(e, args, b)

    def _reduce(self, e, b):
        acc = b.fresh("acc")
        kind = e.type
        width = tuples.width(kind)
        # accumulators are float64 values (ints included: an empty max is -inf)
        if width is not None:
            init = tuples.init(e.op, width, self.pr)
        elif e.op == "sum":
            init = self.pr.ir_inf(negative=True) if kind == T.PROB else self.pr.ir_zero()
        else:
            init = self.pr.ir_inf(negative=e.op == "max")
        b.temporary(acc, init)
        var = self.names.local(e.var)
        it = e.iterable
        if isinstance(it, tir.RangeIter):
            header = self.emit("range_header", e, var, self.as_int(it.lo, b),
                               self.as_int(it.hi, b))
        elif isinstance(it, tir.AlphabetIter):
            header = (var, (self.names.alphabet_size(it.alpha),))
        elif isinstance(it, tir.ExtAttr):
            lo, hi, item = self._ext_iter(it, b)
            k = b.fresh("k")
            header = (k, (lo, hi))
            pre = item(ir.Name(k))
        else:
            raise NotCompilable("iteration over an extension iterable")
        body = b.child()
        if isinstance(it, tir.ExtAttr):
            body.temporary(var, pre)
        target = body
        if e.where is not None:
            cond = self.expr(e.where, body)
            inner = body.child()
            target = inner
        value = self.as_value(e.body, target) if kind != T.PROB else self.expr(e.body, target)
        now = ir.Name(acc)
        if width is not None:
            step = tuples.combine(e.op, width, acc, self._hoist(value, target), self.pr)
        elif e.op == "sum" and kind != T.PROB and infinity.sum_undefined(self.facts(e.body)):
            step = self.pr.ir_check("_undef", ir.Bin("+", now, value))
            step = self.exact(step) if kind == T.INT else step
        elif e.op == "sum":
            step = self.pr.ir_check("_logaddexp", now, value) if kind == T.PROB else \
                ir.Bin("+", now, value)
            step = self.exact(step) if kind == T.INT else step
        else:
            step = ir.Call(e.op, (now, value))
        target.temporary(acc, step)
        if e.where is not None:
            body.if_(cond, inner)
        b.loop(*header, body)
        return now

    def _range_header(self, e: tir.Reduce, var: str, lo: ir.Expr, hi: ir.Expr) -> tuple:
        """The loop of reduction ``e`` over ``lo .. hi`` (its variable and ``range``'s
        arguments): every value in order (a GPU kernel whose threads share a point
        strides it over them, emit.wavefront)."""
        return var, (lo, ir.Bin("+", hi, ir.Const(1)))


def plain_read(array, index: list) -> ir.Index:
    """``array[index]``: an element of ``array`` (a record, or its name as text: a
    ``Name`` where it is one), its index records."""
    return ir.Index(named(array), tuple(index))


def named(x) -> ir.Expr:
    """:func:`leaf`, but a name held as text (``x_i``, ``tid``) becomes a ``Name``,
    which the verifier sees read (a slice's ``:`` and other text stay ``Text``)."""
    return ir.Name(x) if isinstance(x, str) and x.isidentifier() else leaf(x)


def leaf(x) -> ir.Expr:
    """What a ``Names`` method or a helper module returned: a record as it is, text
    (still composed as text there) as a ``Text`` leaf."""
    return ir.Text(x) if isinstance(x, str) else x


def _op(op: str, x: ir.Expr, y: ir.Expr) -> ir.Bin:
    """A binary operation or comparison of a task's expression (in parentheses)."""
    return ir.Bin(op, x, y, paren=True)


def _nonzero_literal(e: tir.TExpr) -> bool:
    """A number literal other than 0 (dividing by it needs no check)."""
    while isinstance(e, tir.Coerce) and e.type in (T.INT, T.FLOAT):
        e = e.expr
    return isinstance(e, tir.Lit) and not isinstance(e.value, bool) \
        and isinstance(e.value, (int, float)) and e.value != 0


def render_code(code, array, recv: ir.Expr | None = None, keys=(), item: ir.Expr | None = None,
                guarded=None, pr: Printer | None = None) -> ir.Expr:
    """A compiled-form template (sdk.Code) as a kernel IR expression; ``array(name)``
    names a layout array (``""``: the value's own device_array), read as a ``global``
    ``Load`` (the task's argument). ``guarded(array, index)`` spells a load whose
    index holds a ``checked`` (Names.guarded_load); without it such loads are plain
    reads. ``pr`` spells infinities and checks for the target (targets.printer; the
    CPU's by default)."""
    pr = pr or Printer()

    def go(c) -> ir.Expr:
        match c:
            case sdk.Lit(value=v):
                if isinstance(v, float) and math.isinf(v):
                    return pr.ir_inf(v < 0)
                return ir.Const(v if isinstance(v, (bool, float)) else int(v))
            case sdk.Op(op="not", args=(a,)):
                return ir.Unary("not", go(a))
            case sdk.Op(op=op, args=(a, x)):
                return ir.Bin(op, go(a), go(x), paren=True)
            case sdk.Load(array=name, index=idx):
                index = [go(i) for i in idx]
                if guarded is not None and any(_has_check(i) for i in idx):
                    return guarded(array(name), index)
                return ir.Load(array(name), tuple(index), "global")
            case sdk.Length(array=name, axis=0):
                return ir.Call("len", (named(array(name)),))
            case sdk.Length(array=name, axis=1):  # row 0's length (sdk.Length)
                return ir.Call("len", (ir.Index(named(array(name)), (ir.Const(0),)),))
            case sdk.Slot(kind="recv"):
                if recv is None:
                    raise NotCompilable("RECV in a compiled form of a calling value's accessor")
                return recv
            case sdk.Slot(kind="item"):
                if item is None:
                    raise NotCompilable("ITEM outside an iterable's element")
                return item
            case sdk.Slot(kind="key", k=k):
                if k >= len(keys):
                    raise NotCompilable(f"key({k}) of an index with {len(keys)} keys")
                return keys[k]
            case sdk.Select(cond=cnd, then=a, orelse=x):
                return ir.Cond(go(cnd), go(a), go(x))
            case sdk.Checked(index=i, limit=n):
                return pr.ir_check("_chk", go(i), go(n))
        raise NotCompilable(f"compiled form {c!r}")
    return go(code)


def _reads_value(c) -> bool:
    """Does a compiled-form template read the value's own device_array (``VALUE``)?"""
    match c:
        case sdk.Load(array=name, index=idx):
            return name == "" or any(_reads_value(i) for i in idx)
        case sdk.Length(array=name):
            return name == ""
        case sdk.Op(args=args):
            return any(_reads_value(a) for a in args)
        case sdk.Checked(index=i, limit=n):
            return _reads_value(i) or _reads_value(n)
        case sdk.Select(cond=cnd, then=a, orelse=x):
            return _reads_value(cnd) or _reads_value(a) or _reads_value(x)
    return False


def _has_check(c) -> bool:
    """Does a compiled-form template hold a ``checked`` anywhere?"""
    match c:
        case sdk.Checked():
            return True
        case sdk.Op(args=args):
            return any(_has_check(a) for a in args)
        case sdk.Load(index=idx):
            return any(_has_check(i) for i in idx)
        case sdk.Select(cond=cnd, then=a, orelse=x):
            return _has_check(cnd) or _has_check(a) or _has_check(x)
    return False

