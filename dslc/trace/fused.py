"""The interpreter's closures fused into one Python function per expression.

A closure per node makes the interpreter a one-line statement of each construct's
meaning, and a call per node per evaluation: a traceback, which evaluates every
alternative of every visited cell's body, spends most of its time in those calls.
:class:`FusedInterpreter` is the interpreter whose ``expr`` writes a node's subtree as
one Python expression and compiles it once. It adds no meaning of its own: the
operators, conversions and checks are the interpreter's own functions, called on the
same values in the same order (Python evaluates an expression's operands left to
right, as the closures call theirs); what is written out is only the plumbing the
closures do (a variable's look-up, a literal, a comparison, ``and``/``or``/``not``,
``if``, ``max``/``min``). Any other node is the interpreter's own closure, called from
the fused function (its parts fused again). A table call whose table is the caller's
``siblings`` entry reads a known cell straight from the table (``read``); anything
else (a cell not computed, a number without an exact value, a point outside the box,
declared ranges or directions, the first call) is the interpreter's call, which
computes the cell or raises the interpreter's error.
"""

from __future__ import annotations

from dslc.check import tir
from dslc.deps.extract import directed_args
from dslc.interp.compile import Interpreter, indexed, scalar_op, seq_code, shares_table, \
    span_text
from dslc.interp.tables import MISSING
from dslc.lang import types as T
from dslc.targets.printer import plain_function

_CMP = ("==", "!=", "<", "<=", ">", ">=")


class FusedInterpreter(Interpreter):
    """:class:`dslc.interp.compile.Interpreter` with fused expressions (module doc)."""

    def expr(self, e: tir.TExpr, fn):
        source = _Source(self, fn)
        text = source.text(e)
        if text == source.hole_of_root:
            return source.names[source.root_name]
        return _compiled(text, source.names) or Interpreter.expr(self, e, fn)

    def values(self, es: list, fn):
        """One function giving the list of ``es``'s values, in order (an operator
        chain's alternatives, all evaluated at every step)."""
        source = _Source(self, fn)
        texts = [source.text(e) for e in es]
        got = _compiled(f"[{', '.join(texts)}]", source.names)
        if got is None:
            closures = [self.expr(e, fn) for e in es]
            return lambda env: [c(env) for c in closures]
        return got


def _compiled(text: str, names: dict):
    """``lambda env: text`` over ``names``, or None where Python cannot compile it
    (an expression nested too deep for its parser)."""
    try:
        code = compile(plain_function("fused", ["env"], f"    return {text}"), "<fused>", "exec")
    except (RecursionError, MemoryError, SyntaxError):
        return None
    scope = dict(names)
    exec(code, scope)
    return scope["fused"]


class _Source:
    """The Python text of one expression; ``names``: the objects it refers to."""

    def __init__(self, interp: FusedInterpreter, fn):
        self.interp, self.fn = interp, fn
        self.names: dict = {}
        self.root_name = self.hole_of_root = None

    def bind(self, obj) -> str:
        name = f"_{len(self.names)}"
        self.names[name] = obj
        return name

    def text(self, e) -> str:
        match e:
            case tir.Lit():
                return self.bind(e.value)
            case tir.Var(scope="param" | "local"):
                return f"env[{e.name!r}]"
            case tir.Var(scope="global"):
                return f"{self.bind(self.interp.globals)}[{e.name!r}]"
            case tir.Compare() if e.op in _CMP:
                return f"({self.text(e.left)} {e.op} {self.text(e.right)})"
            case tir.Logic():
                return f"({self.text(e.left)} {e.op} {self.text(e.right)})"
            case tir.Not():
                return f"(not {self.text(e.operand)})"
            case tir.Cond():
                return f"({self.text(e.then)} if {self.text(e.cond)} else {self.text(e.orelse)})"
            case tir.MinMax():
                return f"{e.op}({self.text(e.left)}, {self.text(e.right)})"
            case tir.Arith() if not isinstance(e.type, T.TupleT):
                return f"{self.bind(scalar_op(e))}({self.text(e.left)}, {self.text(e.right)})"
            case tir.SeqIndex():
                return (f"{self.bind(seq_code)}({self.text(e.seq)}, {self.text(e.index)}, "
                        f"{self.bind(span_text(e.index.span))}, {self.bind(e.span)})")
            case tir.ExtIndex() if e.indexer is not None:
                keys = "".join(f", {self.text(k)}" for k in e.keys)
                return (f"{self.bind(indexed)}({self.bind(e.indexer.index_eval)}, "
                        f"{self.bind(e.span)}, {self.text(e.base)}{keys})")
            case tir.Call():
                reader = self._reader(e)
                if reader is not None:
                    rec = "".join(f"{self.text(a)}, " for a, p in
                                  zip(e.args, self._callee(e).tf.params) if p.recursive)
                    return f"{self.bind(reader)}(env, ({rec}))"
        return self._hole(e)

    def _hole(self, e) -> str:
        """The interpreter's own closure of ``e`` (its parts fused), called here."""
        name = self.bind(Interpreter.expr(self.interp, e, self.fn))
        text = f"{name}(env)"
        if self.root_name is None and len(self.names) == 1:
            self.root_name, self.hole_of_root = name, text
        return text

    def _callee(self, e: tir.Call):
        return self.interp.functions[e.func]

    def _reader(self, e: tir.Call):
        """``reader(env, rec)`` of a table call that reads its table from the caller's
        ``siblings`` (``shares_table``) and declares no direction, or None."""
        interp, fn, callee = self.interp, self.fn, self._callee(e)
        if not callee.is_table or not shares_table(e, fn, callee) or any(directed_args(
                e, fn.tf, callee.tf, fn.name in interp.group_of.get(callee.name, ()))):
            return None
        generic, name = Interpreter.expr(interp, e, fn), callee.name

        def reader(env, rec):
            cur = env.get("$table")
            table = None if cur is None else cur.siblings.get(name)
            if table is not None:
                v = read(table, rec)
                if v is not MISSING:
                    return v
            return generic(env)
        return reader


def read(table, rec: tuple):
    """A cell's value where it is known and the point is plainly inside the table's
    box, else MISSING (the caller then takes the generic route). A table of numbers
    is read straight from them (``Numbers.one``: the backend's own conversion, the
    value ``Table.get`` gives)."""
    if table.outside is not None:
        return MISSING
    for x, n in zip(rec, table.extents):
        if type(x) is not int or not 0 <= x <= n:
            return MISSING
    numbers = table.numbers
    if numbers is not None:
        return numbers.one(numbers.raw[rec])
    return table.get(rec)
