"""Type checking of expressions inside function bodies: AST -> typed IR.

Checking is bottom-up with one twist: a few literals (``'A'``, ``"ACGT"``)
only get a type from their context, so callers pass the type they expect and
comparisons look at the other operand first.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass, field

from dslc.check import links, tir, words
from dslc.lang import builtins
from dslc.lang import types as T
from dslc.check.calls import arrange, static_fits
from dslc.check.script import refuse_negation, refuse_prob_op
from dslc.check.signatures import ConstIsFloat, Signature
from dslc.errors import DslcError, Span
from dslc.frontend import ast
from dslc.lang.arith import check_literal
from dslc.sdk import Registry

# name -> number of arguments. ``div`` is integer division spelt as a call: the
# contract gives ``/`` (real division) and ``//`` (a comment) already, and a new
# keyword would break scripts that use ``div`` as a name.
# built-ins and their numbers of arguments: those typed by their own rules here, and the
# functions of one number of lang.builtins (any number in, a float out)
BUILTINS = {"len": 1, "abs": 1, "float": 1, "div": 2, "code": 1, "pow": 2,
            **{name: 1 for name in builtins.BY_NAME}}


@dataclass
class Scope:
    sig: Signature | None
    globals: dict[str, T.Type]
    sigs: dict[str, Signature]
    alphabets: dict
    reg: Registry
    locals: list[tuple[str, T.Type]] = field(default_factory=list)

    def lookup(self, name: str) -> tuple[str, T.Type] | None:
        for n, t in reversed(self.locals):
            if n == name:
                return "local", t
        if self.sig is not None:
            for n, t, _ in self.sig.params:
                if n == name:
                    return "param", t
        if name in self.globals:
            return "global", self.globals[name]
        return None

    def known_names(self) -> list[str]:
        names = [n for n, _ in self.locals] + list(self.globals) + list(self.sigs)
        if self.sig is not None:
            names += [n for n, _, _ in self.sig.params]
        return names


def coerce(te: tir.TExpr, target: T.Type, what: str, span: Span) -> tir.TExpr:
    """``te`` as a value of ``target``, inserting the implicit widening, or a
    clear error when the types do not fit."""
    src = te.type
    if src == target:
        return te
    if isinstance(target, T.Scalar) and target.name in ("int", "float", "prob") and T.is_numeric(src):
        sname = T.num_name(src)
        if sname == target.name:
            return te
        if T.numeric_join(src, target) == target:
            return tir.Coerce(te, target, te.span)
        raise DslcError(f"{what}: expected {target}, found {src}", span,
                        hint="a probability or float does not convert to an int implicitly"
                        if target == T.INT else None)
    if isinstance(target, T.IndexT) and T.is_numeric(src) and T.num_name(src) == "int":
        return te
    if isinstance(target, T.TupleT) and isinstance(src, T.TupleT) \
            and tuple_join(src, target) == target:
        return tir.Coerce(te, target, te.span)  # int components widen to float
    if isinstance(target, T.SymT) and isinstance(src, T.SymT):
        if T.same_alphabet(target.alpha, src.alpha) is False:
            raise DslcError(f"{what}: expected a symbol of {target.alpha}, found one of "
                            f"{src.alpha}", span)
        return te
    if isinstance(target, T.SeqT) and isinstance(src, (T.SeqT, T.StrT)):
        if isinstance(src, T.SeqT) and T.same_alphabet(target.alpha, src.alpha) is False:
            raise DslcError(f"{what}: expected {target}, found {src}", span)
        return te
    if isinstance(target, T.ExtT) and isinstance(src, T.ExtT) and target.name == src.name:
        if target.owner and src.owner and target.owner != src.owner:
            raise DslcError(f"{what}: a {target.name} of '{src.owner}' where one of "
                            f"'{target.owner}' is expected", span)
        return te
    raise DslcError(f"{what}: expected {target}, found {src}", span)


class ExprChecker:
    def __init__(self, scope: Scope):
        self.s = scope
        self.links: list = []  # alphabets tied by indexing (check.links)

    # ------------------------------------------------------------ entry
    def check(self, e: ast.Expr, expected: T.Type | None = None) -> tir.TExpr:
        method = getattr(self, "_" + type(e).__name__.lower())
        return method(e, expected)

    def check_as(self, e: ast.Expr, target: T.Type, what: str) -> tir.TExpr:
        return coerce(self.check(e, target), target, what, e.span)

    def boolean(self, e: ast.Expr, what: str) -> tir.TExpr:
        te = self.check(e)
        if te.type != T.BOOL:
            raise DslcError(f"{what} must be a bool, found {te.type}", e.span)
        return te

    # ------------------------------------------------------------ leaves
    def _num(self, e: ast.Num, expected):
        return tir.Lit(check_literal(e.value, e.span), T.FLOAT if e.is_float else T.INT, e.span)

    def _inf(self, e: ast.Inf, expected):
        return tir.Lit(float("inf"), T.INT, e.span)

    def _bool(self, e: ast.Bool, expected):
        return tir.Lit(e.value, T.BOOL, e.span)

    def _str(self, e: ast.Str, expected):
        return tir.StrLit(e.value, T.StrT(), e.span)

    def _sym(self, e: ast.Sym, expected):
        if not isinstance(expected, T.SymT):
            raise DslcError(f"cannot tell which alphabet the symbol '{e.text}' belongs to here",
                            e.span, hint="compare it with a symbol of a sequence, e.g. s[i] == 'A'")
        if expected.alpha.kind == "named":
            alpha = self.s.alphabets[expected.alpha.name]
            if not alpha.has(e.text):
                raise DslcError(f"'{e.text}' is not a symbol of alphabet '{alpha.name}'", e.span)
        return tir.SymLit(e.text, expected, e.span)

    def _name(self, e: ast.Name, expected):
        found = self.s.lookup(e.id)
        if found is None:
            if e.id in self.s.alphabets:
                ref = T.AlphaRef("named", e.id)
                return tir.Var(e.id, "alphabet", T.AlphabetT(ref), e.span)
            raise self.undefined(e.id, e.span)
        scope, t = found
        return tir.Var(e.id, scope, t, e.span)

    def undefined(self, name: str, span: Span) -> DslcError:
        close = difflib.get_close_matches(name, self.s.known_names(), n=1)
        return DslcError(f"undefined name '{name}'", span,
                         hint=f"did you mean '{close[0]}'?" if close else None)

    # ------------------------------------------------------------ operators
    def _unary(self, e: ast.Unary, expected):
        if e.op == "not":
            return tir.Not(self.boolean(e.operand, "the operand of 'not'"), e.span)
        x = self.check(e.operand)
        if not T.is_numeric(x.type):
            raise DslcError(f"cannot negate a {x.type}", e.span)
        if x.type == T.PROB:
            refuse_negation(e.span)
        return tir.Neg(x, T.Scalar(T.num_name(x.type)), e.span)

    def _binary(self, e: ast.Binary, expected):
        op = e.op
        if op in ("and", "or"):
            return tir.Logic(op, self.boolean(e.left, f"the left side of '{op}'"),
                             self.boolean(e.right, f"the right side of '{op}'"), e.span)
        left, right = self._operands(e)
        if op == "**":
            return power(left, right, e.span)
        if isinstance(left.type, T.TupleT) or isinstance(right.type, T.TupleT):
            return tuple_op(op, left, right, e.span)
        if op in ("==", "!="):
            return self._equality(e, left, right)
        lt, rt = left.type, right.type
        if not (T.is_numeric(lt) and T.is_numeric(rt)):
            bad = lt if not T.is_numeric(lt) else rt
            verb = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "%": "take the "
                    "remainder of", "max": "take the max of", "min": "take the min of"}.get(op)
            what = f"cannot {verb} a {lt} and a {rt}" if verb else \
                f"cannot compare a {lt} with a {rt} using '{op}'"
            raise DslcError(what, e.span if bad is None else e.span,
                            hint="symbols compare only with == and !=" if isinstance(bad, T.SymT)
                            else None)
        t = T.numeric_join(lt, rt)
        if op == "/" and t == T.INT:
            t = T.FLOAT
        if op == "%" and t != T.INT:
            raise DslcError(f"'%' needs ints, found {lt} and {rt}", e.span)
        if t == T.PROB:  # (one rule for function bodies and script statements)
            refuse_prob_op(op, T.num_name(lt), T.num_name(rt), e.span)
        left = coerce(left, t, "operand", e.left.span)
        right = coerce(right, t, "operand", e.right.span)
        if op in ("max", "min"):
            return tir.MinMax(op, left, right, t, e.span)
        if op in ("<", "<=", ">", ">="):
            return tir.Compare(op, left, right, e.span)
        return tir.Arith(op, left, right, t, e.span)

    def _operands(self, e: ast.Binary):
        """Check both sides; a symbol or string literal takes the other side's type."""
        if isinstance(e.left, (ast.Sym,)) and not isinstance(e.right, ast.Sym):
            right = self.check(e.right)
            return self.check(e.left, right.type), right
        left = self.check(e.left)
        return left, self.check(e.right, left.type)

    def _equality(self, e, left, right):
        lt, rt = left.type, right.type
        if T.is_numeric(lt) and T.is_numeric(rt):
            t = T.numeric_join(lt, rt)
            return tir.Compare(e.op, coerce(left, t, "operand", e.span),
                               coerce(right, t, "operand", e.span), e.span)
        if isinstance(lt, T.SymT) and isinstance(rt, T.SymT):
            if T.same_alphabet(lt.alpha, rt.alpha) is False:
                raise DslcError(f"cannot compare a symbol of {lt.alpha} with one of {rt.alpha}",
                                e.span)
            return tir.Compare(e.op, left, right, e.span)
        if lt == rt and (lt == T.BOOL or isinstance(lt, T.ExtT)):
            return tir.Compare(e.op, left, right, e.span)
        raise DslcError(f"cannot compare a {lt} with a {rt}", e.span)

    def _if(self, e: ast.If, expected):
        c = self.boolean(e.cond, "the condition of 'if'")
        a = self.check(e.then, expected)
        b = self.check(e.orelse, expected if not T.is_numeric(a.type) else a.type)
        t = join(a.type, b.type, e.span)
        return tir.Cond(c, coerce(a, t, "then branch", e.then.span),
                        coerce(b, t, "else branch", e.orelse.span), t, e.span)

    def _extremum(self, e: ast.Extremum, expected):
        if len(e.args) == 1:
            raise DslcError(ast.WHOLE_ONLY, e.span,
                            hint=f"in a function, write {e.op}(v in R : e) or {e.op}(a, b)")
        acc = self.check(e.args[0], expected)
        for a in e.args[1:]:
            acc = self._binary_typed(e.op, acc, self.check(a, expected), e.span)
        return acc

    def _binary_typed(self, op, left, right, span):
        if isinstance(left.type, T.TupleT) or isinstance(right.type, T.TupleT):
            return tuple_op(op, left, right, span)
        if not (T.is_numeric(left.type) and T.is_numeric(right.type)):
            raise DslcError(f"cannot take the {op} of a {left.type} and a {right.type}", span)
        t = T.numeric_join(left.type, right.type)
        return tir.MinMax(op, coerce(left, t, "operand", span), coerce(right, t, "operand", span),
                          t, span)

    # ------------------------------------------------------------ postfix
    def _index(self, e: ast.Index, expected):
        base = self.check(e.base)
        bt = base.type
        if isinstance(bt, T.TupleT):
            return component(base, e)
        if isinstance(bt, T.SeqT):
            if len(e.indices) != 1:
                raise DslcError("a sequence takes one index", e.span)
            ix = self.check_as(e.indices[0], T.INT, "sequence index")
            if words.is_word(base):
                return words.symbol(base, ix, e.span)
            return tir.SeqIndex(base, ix, T.SymT(bt.alpha), e.span)
        if isinstance(bt, T.ExtT):
            spec = self.s.reg.types.get(bt.name)
            if bt.name == words.SEQS and bt.alpha is None:
                raise DslcError(f"{_describe(base)} is a list of texts over no alphabet yet", e.span,
                                hint="pass it to a parameter seqs[A] d and read d[k] there")
            if spec is None or spec.index_keys is None:
                raise DslcError(f"a {bt} cannot be indexed", e.span)
            keys, value = spec.index_keys(bt), spec.index_value(bt)
            return self._keys(e, base, keys, value, spec)
        if isinstance(bt, T.MapT):
            return self._keys(e, base, bt.keys, bt.value, None)
        raise DslcError(f"a {bt} cannot be indexed", e.span)

    def _keys(self, e, base, keys, value, indexer):
        if len(e.indices) != len(keys):
            raise DslcError(f"{_describe(base)} takes {len(keys)} index(es), got {len(e.indices)}",
                            e.span)
        checked = tuple(self.check_as(ix, k, "index") for ix, k in zip(e.indices, keys))
        params = {n for n, _, _ in self.s.sig.params} if self.s.sig is not None else set()
        for k, c in zip(keys, checked):
            link = links.direct(k, c.type, params) or links.owner(indexer, base, c.type, params)
            if link is not None and link not in self.links:
                self.links.append(link)
        return tir.ExtIndex(indexer, base, checked, value, e.span)

    def _attr(self, e: ast.Attr, expected):
        base = self.check(e.base)
        bt = base.type
        if isinstance(bt, T.ExtT):
            acc = self.s.reg.accessors.get((bt.name, e.name))
            if acc is not None:
                # A calling value (``hmm h``) owns its own elements: its accessors see
                # the variable's name as the owner, so ``h.end`` is a ``state[h]``.
                recv = bt
                if bt.owner is None and isinstance(base, tir.Var):
                    recv = dataclasses.replace(bt, owner=base.name)
                return tir.ExtAttr(acc, base, acc.result(recv), e.span)
            names = sorted(n for (on, n) in self.s.reg.accessors if on == bt.name)
            raise DslcError(f"a {bt.name} has no '.{e.name}'", e.span,
                            hint=("it has: " + ", ".join(names)) if names else None)
        raise DslcError(f"a {bt} has no '.{e.name}'", e.span)

    def _call(self, e: ast.Call, expected):
        if e.func not in self.s.sigs and self.s.lookup(e.func) is None and e.func in BUILTINS:
            return self._builtin(e)
        sig = self.s.sigs.get(e.func)
        if sig is None:
            raise self.undefined(e.func, e.func_span)
        return self.call(sig, e.args, e.span, e.func_span)

    def call(self, sig: Signature, args, span, func_span) -> tir.TExpr:
        n, rec = len(sig.params), sig.rec_names
        if len(args) == n:
            targets, rec_only = sig.params, False
            args = arrange(sig.params, list(args), self._fits)
        elif len(args) == len(rec) and self.s.sig is not None:
            targets, rec_only = tuple(p for p in sig.params if p[2]), True
        else:
            hint = (f"pass all {n} arguments" + (f", or only the {len(rec)} recursive ones "
                    f"({', '.join(rec)}) to inherit the others by name" if rec and len(rec) < n
                    else ""))
            raise DslcError(f"{sig.name} takes {n} arguments, got {len(args)}", span, hint=hint)
        given = {}
        for (pname, ptype, _), a in zip(targets, args):
            if sig.int_const(pname) and not isinstance(a, ast.Sym) \
                    and self.check(a).type == T.FLOAT:
                raise ConstIsFloat(sig.name, pname)
            given[pname] = self.check_as(a, self._instantiate(ptype, given, sig),
                                         f"argument '{pname}' of {sig.name}")
        full = []
        for pname, ptype, _ in sig.params:
            if pname in given:
                full.append(given[pname])
                continue
            found = self.s.lookup(pname)
            if found is None or found[0] == "local":
                raise DslcError(f"{sig.name} inherits its argument '{pname}' by name, but there "
                                f"is no '{pname}' here", span,
                                hint=f"pass all {n} arguments of {sig.name} explicitly")
            v = tir.Var(pname, found[0], found[1], span)
            if sig.int_const(pname) and v.type == T.FLOAT:
                raise ConstIsFloat(sig.name, pname)
            full.append(coerce(v, ptype, f"inherited argument '{pname}' of {sig.name}", span))
        return tir.Call(sig.name, tuple(full), rec_only, sig.ret, span)

    def _fits(self, a: ast.Expr, ptype: T.Type) -> bool:
        """Whether argument ``a`` could be passed to ``ptype`` (for the order of a
        full call); a symbol literal fits any symbol parameter."""
        if isinstance(a, ast.Sym):
            return isinstance(ptype, T.SymT)
        try:
            return static_fits(self.check(a).type, ptype)
        except DslcError:
            return True

    def _instantiate(self, ptype: T.Type, given: dict, sig: Signature) -> T.Type:
        """A callee's parameter type seen from the call site: ``index[s]`` becomes a
        plain int (the domain check happens at run time)."""
        if isinstance(ptype, T.IndexT):
            return T.INT
        return ptype

    def _builtin(self, e: ast.Call):
        name, args = e.func, e.args
        if len(args) != BUILTINS[name]:
            n = BUILTINS[name]
            raise DslcError(f"{name} takes {'one argument' if n == 1 else f'{n} arguments'}, "
                            f"got {len(args)}", e.span)
        if name == "div":
            return self._div(e)
        if name == "pow":
            return power(self.check(args[0]), self.check(args[1]), e.span)
        x = self.check(args[0])
        if name == "len" and words.is_word(x):
            return words.length(x, e.span)
        if name == "len":
            if not (isinstance(x.type, (T.SeqT, T.StrT)) or is_array(x.type)
                    or isinstance(x.type, T.ExtT) and x.type.name == words.SEQS):
                raise DslcError(f"len needs a sequence or an array, found {x.type}", e.span)
            return tir.Builtin(name, (x,), T.INT, e.span)
        if name == "code":
            if not isinstance(x.type, T.SymT):
                raise DslcError(f"code needs a symbol, found {x.type}", e.span,
                                hint="code(s[i]) is the symbol's position in its alphabet")
            return tir.Builtin(name, (x,), T.INT, e.span)
        if not T.is_numeric(x.type):
            raise DslcError(f"{name} needs a number, found {x.type}", e.span)
        if name == "abs":
            if x.type == T.PROB:
                raise DslcError("abs of a probability is the probability itself", e.span)
            return tir.Builtin(name, (x,), T.Scalar(T.num_name(x.type)), e.span)
        fn = builtins.BY_NAME.get(name)
        if x.type == T.PROB and fn is not None and fn.of_prob == "log":
            return tir.Builtin(name, (x,), T.FLOAT, e.span)  # its stored log
        if x.type == T.PROB:
            raise DslcError(f"{name} of a probability is not defined; use log(p)", e.span)
        return tir.Builtin(name, (coerce(x, T.FLOAT, name, e.span),), T.FLOAT, e.span)

    def _div(self, e: ast.Call):
        """``div(a, b)``: floored integer division, the partner of ``%`` (``a ==
        div(a, b) * b + a % b``)."""
        a, b = (self.check(x) for x in e.args)
        for x, src in ((a, e.args[0]), (b, e.args[1])):
            if not (T.is_numeric(x.type) and T.num_name(x.type) == "int"):
                raise DslcError(f"div needs ints, found {x.type}", src.span,
                                hint="a / b is real division; floor it with div on ints")
        return tir.Builtin("div", (a, b), T.INT, e.span)

    # ------------------------------------------------------------ reductions
    def _reduce(self, e: ast.Reduce, expected):
        if e.op in ast.BOOL_REDUCTIONS:
            return self._bool_reduce(e)
        it = self.iterable(e.iterable)
        self.s.locals.append((e.var, it.type.elem))
        try:
            where = None if e.where is None else self.boolean(e.where, "the 'where' condition")
            body = self.check(e.body, expected)
        finally:
            self.s.locals.pop()
        if isinstance(body.type, T.TupleT):
            return tir.Reduce(e.op, e.var, it, where, body, body.type, e.span)
        if not T.is_numeric(body.type):
            raise DslcError(f"{e.op} needs numbers, found {body.type}", e.body.span)
        t = T.Scalar(T.num_name(body.type))
        return tir.Reduce(e.op, e.var, it, where, coerce(body, t, e.op, e.body.span), t, e.span)

    def _bool_reduce(self, e: ast.Reduce) -> tir.TExpr:
        """``any(v in R : c)`` is ``max(v in R : if c then 1 else 0) >= 1`` and ``all``
        the same with ``min``: an empty ``any`` is false (``-inf``), an empty ``all``
        true (``inf``), and every backend, the dependence analysis and the traceback
        take it as the reduction over ints that it is (every element is evaluated, as
        ``sum`` does)."""
        it = self.iterable(e.iterable)
        self.s.locals.append((e.var, it.type.elem))
        try:
            where = None if e.where is None else self.boolean(e.where, "the 'where' condition")
            body = self.boolean(e.body, f"the body of '{e.op}'")
        finally:
            self.s.locals.pop()
        one, zero = tir.Lit(1, T.INT, e.body.span), tir.Lit(0, T.INT, e.body.span)
        flag = tir.Cond(body, one, zero, T.INT, e.body.span)
        red = tir.Reduce("max" if e.op == "any" else "min", e.var, it, where, flag, T.INT, e.span)
        return tir.Compare(">=", red, tir.Lit(1, T.INT, e.span), e.span)

    def iterable(self, e: ast.Expr) -> tir.TExpr:
        if isinstance(e, ast.Range):
            lo = self.check_as(e.lo, T.INT, "range start")
            hi = self.check_as(e.hi, T.INT, "range end")
            return tir.RangeIter(lo, hi, T.IterT(T.INT), e.span)
        te = self.check(e)
        if isinstance(te.type, T.AlphabetT):
            return tir.AlphabetIter(te.type.alpha, T.IterT(T.SymT(te.type.alpha)), e.span)
        if isinstance(te.type, T.IterT):
            return te
        raise DslcError(f"cannot iterate over a {te.type}", e.span,
                        hint="iterate over a range a ... b, an alphabet, or an iterable accessor")

    def _tuplelit(self, e: ast.TupleLit, expected):
        items = []
        for x in e.items:
            te = self.check(x)
            if not T.is_numeric(te.type) or T.num_name(te.type) not in T.TUPLE_ITEMS:
                raise DslcError(f"a tuple holds ints and floats, not a {te.type}", x.span)
            items.append(coerce(te, T.Scalar(T.num_name(te.type)), "tuple item", x.span))
        return tir.MakeTuple(tuple(items), T.TupleT(tuple(i.type for i in items)), e.span)

    def _range(self, e: ast.Range, expected):
        raise DslcError("a range a ... b can only be iterated: sum(v in a ... b : ...)", e.span)

    def _load(self, e: ast.Load, expected):
        raise DslcError("load(...) belongs in a script statement, not inside a function", e.span)

    def _map(self, e: ast.Map, expected):
        raise DslcError("map(...) belongs in a script statement, not inside a function", e.span)


def power(base: tir.TExpr, exponent: tir.TExpr, span: Span) -> tir.TExpr:
    """``a ** b`` and ``pow(a, b)``, one builtin: an ``int`` when both are ints (the
    exponent's sign is checked when it runs), else a ``float``. A probability's power
    is refused: its log times the exponent is ``log(p) * b``, written out."""
    for x in (base, exponent):
        if not T.is_numeric(x.type) or isinstance(x.type, T.TupleT):
            raise DslcError(f"'**' needs numbers, found a {x.type}", x.span)
        if x.type == T.PROB:
            raise DslcError("'**' of a probability is not defined", x.span,
                            hint="a probability's power p ** b is exp(log(p) * b)")
    t = T.numeric_join(base.type, exponent.type)
    return tir.Builtin("pow", (coerce(base, t, "base", span), coerce(exponent, t, "exponent", span)),
                       t, span)


def is_array(t: T.Type) -> bool:
    """An array of numbers (``const w = [...]``, ``load(ints, file)``), or a 2-D one
    (``len(g)`` is its number of rows)."""
    from dslc.check.arrays import KINDS
    from dslc.check.grids import GRID_KINDS

    return isinstance(t, T.ExtT) and (t.name in KINDS or t.name in GRID_KINDS)


def join(a: T.Type, b: T.Type, span: Span) -> T.Type:
    if T.is_numeric(a) and T.is_numeric(b):
        return T.numeric_join(a, b)
    if isinstance(a, T.TupleT) and isinstance(b, T.TupleT):
        t = tuple_join(a, b)
        if t is not None:
            return t
    if a == b:
        return a
    if isinstance(a, T.SymT) and isinstance(b, T.SymT) and T.same_alphabet(a.alpha, b.alpha) is not False:
        return a
    raise DslcError(f"the branches have different types: {a} and {b}", span)


def _describe(base: tir.TExpr) -> str:
    return f"'{base.name}'" if isinstance(base, tir.Var) else f"a {base.type}"


# ----------------------------------------------------------------- tuples
TUPLE_OPS = ("+", "max", "min", "==", "!=")


def tuple_join(a: T.TupleT, b: T.TupleT) -> T.TupleT | None:
    """The tuple type both widen to, component by component; None when their
    lengths differ."""
    if len(a.items) != len(b.items):
        return None
    return T.TupleT(tuple(T.numeric_join(x, y) for x, y in zip(a.items, b.items)))


def tuple_op(op: str, left: tir.TExpr, right: tir.TExpr, span: Span) -> tir.TExpr:
    """``+`` (componentwise), ``max``/``min`` (lexicographic) and ``==``/``!=`` on two
    tuples of the same length; nothing else takes a tuple."""
    lt, rt = left.type, right.type
    t = tuple_join(lt, rt) if isinstance(lt, T.TupleT) and isinstance(rt, T.TupleT) else None
    if op not in TUPLE_OPS or t is None:
        raise DslcError(f"cannot use '{op}' on a {lt} and a {rt}", span,
                        hint="tuples of the same length take + (component by component), "
                             "max and min (lexicographic), == and !=; t[0] is a component")
    left, right = coerce(left, t, "operand", span), coerce(right, t, "operand", span)
    if op in ("==", "!="):
        return tir.Compare(op, left, right, span)
    if op == "+":
        return tir.Arith(op, left, right, t, span)
    return tir.MinMax(op, left, right, t, span)


def component(base: tir.TExpr, e: ast.Index) -> tir.TExpr:
    """``t[k]``: ``k`` must be an int literal, so the component's type is known."""
    n = len(base.type.items)
    k = e.indices[0] if len(e.indices) == 1 else None
    if not (isinstance(k, ast.Num) and not k.is_float and 0 <= k.value < n):
        raise DslcError(f"a component of a {base.type} is t[0] .. t[{n - 1}], with the "
                        "number written out", e.span)
    return tir.Component(base, k.value, base.type.items[k.value], e.span)
