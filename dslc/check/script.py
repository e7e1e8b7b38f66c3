"""Static shape of script statements (``x = ...``, ``print ...``).

The script itself runs dynamically, but its names, calls and ``map`` operands
are checked here so that ``dslc check`` reports an undefined name or a wrong
argument count without reading any data; and the static type of each global
is known to the functions defined below it.
"""

from __future__ import annotations

from dslc.check import links
from dslc.lang import types as T
from dslc.check.calls import arrange, static_fits
from dslc.check.signatures import ConstIsFloat, Signature
from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.lang.arith import check_literal
from dslc.lang import script_stats
from dslc.sdk import Registry


def tabulable(sig: Signature) -> bool:
    """Whether a function without a table still has one to print: it has recursive
    parameters and each ranges over something its calling arguments fix (a
    position of a sequence, a symbol of an alphabet, an element of a model), so
    ``f(calling arguments)`` is ``f`` at every point of that box (``hmm_posterior
    (casino, rolls)``: every state's posterior at every position). An ``int`` has
    no such range."""
    return spans_a_box([t for _, t, r in sig.params if r])


def spans_a_box(rec_types: list) -> bool:
    """Whether recursive parameters of these types span a box their calling
    arguments fix (see :func:`tabulable`)."""
    return bool(rec_types) and all(
        isinstance(t, (T.IndexT, T.SymT)) or (isinstance(t, T.ExtT) and t.owner is not None)
        for t in rec_types)


class ScriptTyper:
    def __init__(self, sigs: dict[str, Signature], alphabets: dict, reg: Registry,
                 gtypes: dict[str, T.Type], tables: set[str], functions: dict | None = None):
        self.sigs, self.alphabets, self.reg = sigs, alphabets, reg
        self.gtypes, self.tables = gtypes, tables
        self.functions = functions if functions is not None else {}  # checked so far

    def type_of(self, e: ast.Expr) -> T.Type | None:
        """The static type of a script expression, or None when only the run
        can tell; raises for names and calls that cannot work."""
        match e:
            case ast.Num(is_float=f, value=v):
                check_literal(v, e.span)
                return T.FLOAT if f else T.INT
            case ast.Inf():
                return T.INT
            case ast.Bool():
                return T.BOOL
            case ast.Str():
                return T.StrT()
            case ast.Sym():
                raise DslcError("a symbol literal needs a context; use it inside a function", e.span)
            case ast.Name(id=n):
                if n in self.gtypes:
                    return self.gtypes[n]
                if n in self.alphabets:
                    return T.AlphabetT(T.AlphaRef("named", n))
                if n in self.sigs:
                    raise DslcError(f"'{n}' is a function: call it, or map it over lists", e.span)
                raise DslcError(f"undefined name '{n}'", e.span,
                                hint="script names must be assigned above their use")
            case ast.Load():
                return self._load(e)
            case ast.Call():
                return self._call(e)
            case ast.Map():
                return self._map(e)
            case ast.Index(base=b, indices=ix):
                bt = self.type_of(b)
                for i in ix:
                    self.type_of(i)
                return self._index(bt, len(ix), e)
            case ast.Unary(operand=x):
                t = self.type_of(x)
                if e.op == "-" and t == T.PROB:
                    refuse_negation(e.span)
                return t
            case ast.Binary(left=a, right=b):
                ta, tb = self.type_of(a), self.type_of(b)
                if e.op in ("==", "!=", "<", "<=", ">", ">=", "and", "or"):
                    return T.BOOL
                if ta is not None and tb is not None and T.is_numeric(ta) and T.is_numeric(tb):
                    refuse_prob_op(e.op, T.num_name(ta), T.num_name(tb), e.span)
                    return T.numeric_join(ta, tb)
                return None
            case ast.If(then=a, orelse=b):
                self.type_of(e.cond)
                self.type_of(b)
                return self.type_of(a)
            case ast.Attr(base=b):
                bt = self.type_of(b)
                if isinstance(bt, T.ExtT):
                    acc = self.reg.accessors.get((bt.name, e.name))
                    if acc is None:
                        raise DslcError(f"a {bt.name} has no '.{e.name}'", e.span)
                    return acc.result(bt)
                return None
            case ast.TupleLit():
                raise DslcError("tuples are built inside functions", e.span,
                                hint="a function returning tuple[...] can return (a, b)")
            case ast.Extremum(args=(whole,)):
                return self._whole(e, self.type_of(whole))
            case ast.Reduce() | ast.Extremum() | ast.Range():
                raise DslcError("reductions belong inside functions; define a function and call it",
                                e.span)
        return None

    def _whole(self, e: ast.Extremum, t: T.Type | None) -> T.Type | None:
        """``sum(r)``, ``max(r)``, ``min(r)``: a whole map result or table folded into
        one value of its values' type (``print sum(costs)``: a parsimony total)."""
        inner = t.value if isinstance(t, (T.ArrayT, T.TableT)) else None
        if t is not None and (inner is None or not T.is_numeric(inner)):
            what = f"{'an' if str(t)[0] in 'aeiou' else 'a'} {t}"
            raise DslcError(f"{e.op}(r) folds the numbers of a map result or a table, "
                            f"not {what}", e.args[0].span)
        return inner

    def _load(self, e: ast.Load) -> T.Type:
        self.type_of(e.path)
        kind, arg = e.type.name, e.type.arg
        if kind == "seq":
            if arg is None or (arg != "*" and arg not in self.alphabets):
                raise DslcError(f"unknown alphabet '{arg}'" if arg else
                                "load(seq[A], file) needs an alphabet", e.type.span,
                                hint="known alphabets: " + ", ".join(sorted(self.alphabets)))
            if arg == "*":
                raise DslcError("load needs a named alphabet: load(seq[dna], file)", e.type.span)
            return T.ListT(T.SeqT(T.AlphaRef("named", arg)))
        spec = self.reg.loaders.get(kind)
        if spec is None:
            raise DslcError(f"cannot load a '{kind}'", e.type.span,
                            hint="loadable: seq[A]" + "".join(f", {k}" for k in sorted(self.reg.loaders)))
        if arg is not None and arg not in self.alphabets:
            raise DslcError(f"unknown alphabet '{arg}'", e.type.span,
                            hint="known alphabets: " + ", ".join(sorted(self.alphabets)))
        return spec.static_type(arg, self.alphabets.get(arg) if arg else None)

    def _sig(self, name: str, span) -> Signature:
        sig = self.sigs.get(name)
        if sig is None:
            raise DslcError(f"undefined function '{name}'", span)
        return sig

    def _call(self, e: ast.Call) -> T.Type | None:
        from dslc.check import trace_forms
        if trace_forms.is_form(e.func, self.sigs):
            return trace_forms.check(self, e)
        if script_stats.is_builtin(e.func, self.sigs):
            return script_stats.static_type(e, [self.type_of(a) for a in e.args])
        sig = self._sig(e.func, e.func_span)
        no_tuple_params(sig, e.span)
        types = [self.type_of(a) for a in e.args]
        n, calling = len(sig.params), len(sig.calling_names)
        if len(e.args) == n:
            self._const_kinds(sig, arrange(sig.params, types, static_fits))
            pairs = arrange(sig.params, list(zip(types, e.args)),
                            lambda tv, t: static_fits(tv[0], t))
            self._links(sig, [p for p, _, _ in sig.params], pairs)
            return sig.ret
        if len(e.args) == calling and (e.func in self.tables or tabulable(sig)):
            self._const_kinds(sig, types, calling_only=True)
            return T.TableT(e.func, sig.ret)
        hint = f"pass all {n} arguments for one value"
        if e.func in self.tables or tabulable(sig):
            hint += f", or the {calling} calling ones ({', '.join(sig.calling_names)}) for its table"
        raise DslcError(f"{e.func} takes {n} arguments, got {len(e.args)}", e.span, hint=hint)

    def _map(self, e: ast.Map) -> T.Type:
        sig = self._sig(e.func, e.func_span)
        no_tuple_params(sig, e.span)
        given = [self.type_of(o) for o in e.operands]
        types = [_item_type(t) for t in given]
        self._where(e)
        self._const_kinds(sig, types, calling_only=e.func in self.tables)
        ints = [n for (n, t, r), p in zip(sig.params, sig.node.params)
                if r and t == T.INT and p.range is None]
        want = len(sig.calling_names) + len(ints) if e.func in self.tables else len(sig.params)
        if len(e.operands) != want:
            what = ("calling arguments" + (" and int recursive arguments" if ints else "")
                    if e.func in self.tables else "arguments")
            noun = "operand" if want == 1 else "operands"
            raise DslcError(f"map({e.func}, ...) needs {want} {noun} (its {what}), "
                            f"got {len(e.operands)}", e.span)
        f = self.functions.get(e.func)
        if f is not None:
            self._links(sig, [p.name for p in f.map_params], list(zip(types, e.operands)))
            for k, (p, g, o) in enumerate(zip(f.map_params, given, e.operands)):
                if isinstance(g, T.ArrayT) and not static_fits(g.value, p.type):
                    raise DslcError(f"operand {k + 1} of map({e.func}, ...) gives each task "
                                    f"{_a(g.value)}, and '{p.name}' is {_a(p.type)}", o.span)
        return T.ArrayT(sig.ret)

    def _where(self, e: ast.Map) -> None:
        """``map(f, ... where keep)``: ``keep`` must be a map result of bools (its
        shape, which must be the map's, is known only when the script runs)."""
        if e.where is None:
            return
        t = self.type_of(e.where)
        if t is not None and t != T.ArrayT(T.BOOL):
            raise DslcError(f"a map's where needs a map result of bools, got {_a(t)}", e.where.span,
                            hint="keep = map(passes, ...) with a function returning bool")

    def _const_kinds(self, sig: Signature, types: list, calling_only: bool = False) -> None:
        """A float passed to a ``const`` parameter makes it a float const (the
        checker starts again, see check.program); ``types`` are the arguments'
        static types in parameter order (only the calling parameters' where
        ``calling_only``: a table, or a map's leading operands)."""
        params = [p for p in sig.params if not p[2]] if calling_only else sig.params
        for (pname, _, _), t in zip(params, types):
            if t == T.FLOAT and sig.int_const(pname):
                raise ConstIsFloat(sig.name, pname)

    def _links(self, sig: Signature, names: list[str], pairs: list) -> None:
        """Arguments whose alphabets certainly differ from those the function ties
        them to (check.links): a matrix over protein indexed by DNA symbols."""
        given = dict(zip(names, pairs))
        types = {n: t for n, (t, _) in given.items()}
        for link in links.of(self.functions, sig.name):
            bad = links.static_mismatch(link, types)
            if bad is not None:
                raise DslcError(links.message(sig.name, link, *bad), given[link[0]][1].span)

    def _index(self, bt, n, e) -> T.Type | None:
        if isinstance(bt, T.TupleT):
            k = e.indices[0] if n == 1 else None
            if not (isinstance(k, ast.Num) and not k.is_float and 0 <= k.value < len(bt.items)):
                raise DslcError(f"a component of a {bt} is t[0] .. t[{len(bt.items) - 1}], "
                                "with the number written out", e.span)
            return bt.items[k.value]
        if isinstance(bt, T.TableT):
            rec = len(self.sigs[bt.func].rec_names)
            if n != rec:
                raise DslcError(f"a table of {bt.func} takes {rec} indices, got {n}", e.span)
            return bt.value
        if isinstance(bt, T.ArrayT):
            return bt.value
        if isinstance(bt, T.ListT):
            return bt.elem
        if isinstance(bt, T.ExtT):
            spec = self.reg.types.get(bt.name)
            if spec and spec.index_value:
                return spec.index_value(bt)
        if bt is None:
            return None
        raise DslcError(f"a {bt} cannot be indexed", e.span)


def _a(t) -> str:
    """A type's name with its article: ``an int``, ``a seq[dna]``."""
    name = str(t)
    return ("an " if name[:1] in "aeiou" else "a ") + name


def _item_type(t):
    """What one task of a map takes from an operand of static type ``t``: an item
    of a list, a cell of an earlier map's result, else the value itself."""
    if isinstance(t, T.ListT):
        return t.elem
    if isinstance(t, T.ArrayT):
        return t.value
    return t


def refuse_prob_op(op: str, left: str, right: str, span) -> None:
    """``left op right`` (the operands' kinds: ``int``, ``float``, ``prob``) with a
    probability among them: ``%`` needs ints and ``-`` is not defined. The one rule
    of function bodies (check.exprs), script statements (ScriptTyper) and the run
    (runtime.script, where the static types were not known)."""
    if "prob" not in (left, right):
        return
    if op == "**":
        raise DslcError("'**' of a probability is not defined", span,
                        hint="a probability's power p ** b is exp(log(p) * b)")
    if op == "%":
        raise DslcError(f"'%' needs ints, found {left} and {right}", span)
    if op == "-":
        raise DslcError("'-' is not defined on probabilities", span,
                        hint="probabilities support * / + (log-sum-exp) max min")


def refuse_negation(span) -> None:
    """A probability cannot be negated, in a script as in a function body."""
    raise DslcError("a probability cannot be negated", span)


def no_tuple_params(sig: Signature, span) -> None:
    """A script has no tuple values to pass: a function with a tuple parameter (a
    choice function such as ``best(tuple[int, int] a, tuple[int, int] b)``) is
    called by other functions."""
    for name, t, _ in sig.params:
        if isinstance(t, T.TupleT):
            raise DslcError(f"{sig.name} takes a tuple ('{name}'), and a script has no tuple "
                            "values to pass", span,
                            hint="call it from a function; a script calls the functions "
                                 "that return tuples")
