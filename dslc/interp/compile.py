"""The reference interpreter: typed IR -> Python closures.

Closures rather than a tree walk keep the oracle fast enough to check the
compiled backends on realistic inputs, while each closure stays a one-line
statement of the language's meaning (see :mod:`dslc.lang.arith`). An
environment is a dict from names to values; ``$task`` holds the running task and
``$table`` the table whose cell is being computed.
"""

from __future__ import annotations

import math

from dslc.check import tir
from dslc.check import ranges
from dslc.lang import builtins
from dslc.lang import types as T
from dslc.errors import DslcError, source_lines, source_text
from dslc.check.tir import groups
from dslc.deps.extract import directed_args
from dslc.lang import arith
from dslc.lang.sequences import as_sequence
from dslc.interp.tables import MISSING, Table, check_direction, demand

_CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def span_text(span) -> str:
    text = source_text(span.file)
    if text is None or span.end_line is None:
        return "?"
    lines = source_lines(text)
    if span.line == span.end_line:
        return lines[span.line - 1][span.col - 1: span.end_col - 1]
    return lines[span.line - 1][span.col - 1:] + " ..."


class CompiledFunction:
    """One function's guards and bodies as closures."""

    def __init__(self, tf: tir.TFunction):
        self.tf = tf
        self.name = tf.name
        self.span = tf.span
        self.is_table = tf.is_table
        self.param_names = tuple(p.name for p in tf.params)
        self.rec_names = tuple(p.name for p in tf.rec_params)
        self.calling_names = tuple(p.name for p in tf.calling_params)
        self.guards: list = []

    def run(self, env: dict):
        for cond, body in self.guards:
            if cond is None or cond(env):
                return body(env)
        raise DslcError(f"no guard of '{self.name}' applies", self.span)

    def cell(self, table: Table, rec: tuple):
        env = dict(table.env)
        env.update(zip(self.rec_names, rec))
        env["$table"] = table
        env["$rec"] = rec  # the cell's own point (a reduction variable may shadow a name)
        return self.run(env)


class Interpreter:
    """Compiles every function of a checked program; ``globals_`` is the
    script's environment, read when a function body names a global."""

    def __init__(self, program, globals_: dict):
        self.program = program
        self.globals = globals_
        self.group_of = {f: grp for grp in groups(program.functions) for f in grp}
        self.functions = {name: CompiledFunction(tf) for name, tf in program.functions.items()}
        for name, cf in self.functions.items():
            cf.guards = [(None if g.cond is None else self.expr(g.cond, cf), self.expr(g.body, cf))
                         for g in program.functions[name].guards]

    # ------------------------------------------------------------- tables
    def table_for(self, task, callee: CompiledFunction, cenv: dict, rec: tuple, span) -> Table:
        key = (callee.name, hkeys(cenv, callee.calling_names))
        table = task.tables.get(key)
        if table is None:
            table = Table(task, callee, cenv, self.extents(callee, cenv, rec, span))
            table.growable = self.growable(callee)
            if ranges.declared(callee.tf):
                tf, consts = callee.tf, self.program.consts
                table.outside = lambda r: ranges.outside(tf, r, cenv, consts)
            task.tables[key] = table
            if task.fill is not None:
                task.fill(table)
        return table

    @staticmethod
    def growable(callee: CompiledFunction) -> tuple[int, ...]:
        """The recursive parameters whose domain follows the calls (``int`` with no
        declared range): :meth:`dslc.interp.tables.Table.grow`."""
        return tuple(k for k, p in enumerate(callee.tf.rec_params)
                     if not isinstance(p.type, (T.IndexT, T.SymT, T.ExtT)) and p.range is None)

    def extents(self, callee: CompiledFunction, cenv: dict, rec: tuple, span) -> tuple[int, ...]:
        """The domain of each recursive parameter: ``0 .. extent``."""
        out = []
        for k, p in enumerate(callee.tf.rec_params):
            t = p.type
            if isinstance(t, T.IndexT):
                out.append(len(cenv[t.seq]))
            elif isinstance(t, T.SymT):
                out.append(len(self.program.alphabets[t.alpha.name]) - 1)
            elif isinstance(t, T.ExtT):
                spec = self.program.registry.types[t.name]
                owner = cenv[t.owner] if t.owner in cenv else self.globals[t.owner]
                try:
                    out.append(spec.size(owner) - 1)
                except DslcError as err:  # the model has no such elements: the call says where
                    raise _located(err, span) from None
            elif p.range is not None:  # int i in lo ... hi: the largest hi
                boxes = dict(zip(callee.rec_names, out))
                out.append(max(-1, ranges.box_extent(callee.tf, k, cenv, boxes,
                                                     self.program.consts)))
            else:  # int: the value it is first called with, grown by later calls
                if rec is None or rec[k] is None:
                    raise DslcError(f"{callee.name} has an int parameter {p.name}, whose domain "
                                    f"0..v comes from a call with a value: pass all arguments",
                                    span)
                v = rec[k]
                if type(v) is not int or v < 0:
                    raise DslcError(f"the int parameter {p.name} of {callee.name} takes its domain "
                                    f"0..v from its first call, which gave {v}", span)
                out.append(v)
        return tuple(out)

    # ------------------------------------------------------------- expressions
    def expr(self, e: tir.TExpr, fn: CompiledFunction):
        return getattr(self, "_" + type(e).__name__.lower())(e, fn)

    def _lit(self, e, fn):
        v = e.value
        return lambda env: v

    def _strlit(self, e, fn):
        v = e.value
        return lambda env: v

    def _symlit(self, e, fn):
        alpha = e.type.alpha
        if alpha.kind == "named":
            code = self.program.alphabets[alpha.name].code(e.text, e.span)
            return lambda env: code
        name, text, span = alpha.name, e.text, e.span
        return lambda env: _value_alphabet(env[name], span).code(text, span)

    def _var(self, e, fn):
        name = e.name
        if e.scope == "global":
            g = self.globals
            return lambda env: g[name]
        if e.scope == "alphabet":
            raise DslcError("an alphabet is only iterable here", e.span)
        return lambda env: env[name]

    def _coerce(self, e, fn):
        x, span = self.expr(e.expr, fn), e.span
        if isinstance(e.type, T.TupleT):  # int components widen to float
            convs = tuple(float if t == T.FLOAT else _same for t in e.type.items)
            return lambda env: tuple(c(v) for c, v in zip(convs, x(env)))
        if e.type == T.FLOAT:
            return lambda env: float(x(env))
        if e.expr.type == T.PROB:
            return x
        return lambda env: arith.to_log(x(env), span)

    def _neg(self, e, fn):
        x, span = self.expr(e.operand, fn), e.span
        if e.type == T.INT:  # -(-2^63) does not fit in 64 bits
            return lambda env: arith.check_int(-x(env), span)
        return lambda env: -x(env)

    def _not(self, e, fn):
        x = self.expr(e.operand, fn)
        return lambda env: not x(env)

    def _arith(self, e, fn):
        a, b, span = self.expr(e.left, fn), self.expr(e.right, fn), e.span
        if isinstance(e.type, T.TupleT):  # + component by component
            ops = _tuple_ops(e.op, e.type, span)
            return lambda env: tuple(op(x, y) for op, x, y in zip(ops, a(env), b(env)))
        op = scalar_op(e)
        return lambda env: op(a(env), b(env))

    def _maketuple(self, e, fn):
        items = tuple(self.expr(x, fn) for x in e.items)
        return lambda env: tuple(x(env) for x in items)

    def _component(self, e, fn):
        base, k = self.expr(e.base, fn), e.k
        return lambda env: base(env)[k]

    def _minmax(self, e, fn):
        # (on tuples Python's max and min are the language's lexicographic order)
        a, b = self.expr(e.left, fn), self.expr(e.right, fn)
        if e.op == "max":
            return lambda env: max(a(env), b(env))
        return lambda env: min(a(env), b(env))

    def _compare(self, e, fn):
        a, b, op = self.expr(e.left, fn), self.expr(e.right, fn), _CMP[e.op]
        return lambda env: op(a(env), b(env))

    def _logic(self, e, fn):
        a, b = self.expr(e.left, fn), self.expr(e.right, fn)
        if e.op == "and":
            return lambda env: a(env) and b(env)
        return lambda env: a(env) or b(env)

    def _cond(self, e, fn):
        c, a, b = self.expr(e.cond, fn), self.expr(e.then, fn), self.expr(e.orelse, fn)
        return lambda env: a(env) if c(env) else b(env)

    def _builtin(self, e, fn):
        x, span, name = self.expr(e.args[0], fn), e.span, e.name
        if name == "len":
            return lambda env: len(x(env))
        if name == "code":  # a symbol is held as its code already
            return x
        if name == "div":
            y, div = self.expr(e.args[1], fn), arith.int_op("div", span)
            return lambda env: div(x(env), y(env))
        if name == "pow":
            y, pw = self.expr(e.args[1], fn), arith.power(e.type.name, span)
            return lambda env: pw(x(env), y(env))
        if name == "abs" and e.type == T.INT:  # abs(-2^63) does not fit in 64 bits
            return lambda env: arith.check_int(abs(x(env)), span)
        fn = builtins.BY_NAME.get(name)  # a function of one number (lang.builtins)
        if fn is not None and fn.of_prob == "log" and e.args[0].type == T.PROB:
            return x  # the stored log
        f = fn.value if fn is not None else {"abs": abs, "float": float}[name]
        return lambda env: _math(f, x(env), name, span)

    def _seqindex(self, e, fn):
        s, i, span = self.expr(e.seq, fn), self.expr(e.index, fn), e.span
        text = span_text(e.index.span)

        return lambda env: seq_code(s(env), i(env), text, span)

    def _extattr(self, e, fn):
        base, acc, span = self.expr(e.base, fn), e.accessor, e.span
        owner = self._owner(e.base.type, e.span)

        def attr(env):
            try:
                return acc.evaluate(owner(env), base(env))
            except DslcError as err:
                raise _located(err, span) from None
        return attr

    def _owner(self, t: T.Type, span):
        if isinstance(t, T.ExtT) and t.owner:
            name, g = t.owner, self.globals
            return lambda env: env[name] if name in env else g[name]
        return lambda env: None

    def _extindex(self, e, fn):
        base = self.expr(e.base, fn)
        keys = [self.expr(k, fn) for k in e.keys]
        if e.indexer is not None:
            ev, span = e.indexer.index_eval, e.span
            return lambda env: indexed(ev, span, base(env), *[k(env) for k in keys])
        conv = float if e.type in (T.FLOAT, T.PROB) else int
        if len(keys) == 1:
            k0 = keys[0]
            return lambda env: _pyval(base(env)[k0(env)], conv)
        return lambda env: _pyval(base(env)[tuple(k(env) for k in keys)], conv)

    def _rangeiter(self, e, fn):
        lo, hi, span = self.expr(e.lo, fn), self.expr(e.hi, fn), e.span

        def it(env):
            a, b = lo(env), hi(env)
            if type(a) is not int or type(b) is not int:
                raise DslcError(f"a range needs finite int bounds, got {a} ... {b}", span)
            return range(a, b + 1)
        return it

    def _alphabetiter(self, e, fn):
        if e.alpha.kind == "named":
            n = len(self.program.alphabets[e.alpha.name])
            return lambda env: range(n)
        name, span = e.alpha.name, e.span
        return lambda env: range(len(_value_alphabet(env[name], span)))

    def _reduce(self, e, fn):
        it = self.expr(e.iterable, fn)
        where = None if e.where is None else self.expr(e.where, fn)
        body, var, op, span = self.expr(e.body, fn), e.var, e.op, e.span
        if isinstance(e.type, T.TupleT):
            combine, start = _tuple_reduction(op, e.type, span)
        elif op == "sum":
            kind = e.type.name
            if kind == "prob":
                combine, start = arith.logaddexp, arith.NEG_INF
            else:
                plus = arith.int_op("+", span) if kind == "int" else arith.float_op("+", span)
                combine, start = plus, 0 if kind == "int" else 0.0
        elif op == "max":
            combine, start = max, -math.inf
        else:
            combine, start = min, math.inf

        def reduce(env):
            saved = env.get(var, MISSING)
            acc = start
            try:
                for v in it(env):
                    env[var] = v
                    if where is None or where(env):
                        acc = combine(acc, body(env))
            finally:
                if saved is MISSING:
                    env.pop(var, None)
                else:
                    env[var] = saved
            return acc
        return reduce

    def _call(self, e, fn):
        callee = self.functions[e.func]
        args = [self.expr(a, fn) for a in e.args]
        if not callee.is_table:
            names = callee.param_names
            binders = [_binder(p.type, self.program) for p in callee.tf.params]

            def call(env):
                cenv = {n: b(a(env)) for n, a, b in zip(names, args, binders)}
                cenv["$task"] = env["$task"]
                return callee.run(cenv)
            return call
        return self._table_call(e, fn, callee, args)

    def _table_call(self, e, fn, callee, args):
        params = callee.tf.params
        rec_fns = tuple(a for a, p in zip(args, params) if p.recursive)
        calling = tuple((p.name, a, _binder(p.type, self.program))
                        for a, p in zip(args, params) if not p.recursive)
        cacheable = shares_table(e, fn, callee)
        name, span, interp = callee.name, e.span, self
        text = span_text(e.span)
        directed = tuple((k, pname, direction, fn.rec_names.index(pname))
                         for k, pname, direction in directed_args(
                             e, fn.tf, callee.tf, fn.name in self.group_of.get(name, ())))

        def call(env):
            rec = tuple(f(env) for f in rec_fns)
            for k, pname, direction, mine in directed:
                check_direction(pname, direction, rec[k], env["$rec"][mine], rec, span, text)
            table = None
            cur = env.get("$table") if cacheable else None
            if cur is not None:
                table = cur.siblings.get(name)
            if table is None:
                cenv = {n: b(a(env)) for n, a, b in calling}
                cenv["$task"] = env["$task"]
                table = interp.table_for(env["$task"], callee, cenv, rec, span)
                if cur is not None:
                    cur.siblings[name] = table
            table.check_domain(rec, span, text)
            v = table.get(rec)
            if v is MISSING:
                v = demand(table, rec)
            return v
        return call


def scalar_op(e: tir.Arith):
    """The binary operator of a scalar ``Arith`` node, with its type's rules."""
    name, span = e.type.name, e.span
    op = (arith.prob_op if name == "prob" else arith.int_op if name == "int"
          else arith.float_op)(e.op, span)
    if e.op == "/" and name == "float":
        return lambda a, b: op(float(a), float(b))
    return op


def seq_code(seq, k, text: str, span):
    """``seq[k]``: the symbol's code, or the error naming the index ``text``."""
    codes = seq.pycodes
    if type(k) is not int or not 0 <= k < len(codes):
        raise DslcError(f"index {text} = {k} is outside the sequence '{seq.name}' "
                        f"(positions 0..{len(codes) - 1})", span)
    return codes[k]


def indexed(ev, span, base, *keys):
    """An extension indexer's value at ``keys``; its error placed at ``span``."""
    try:
        return ev(base, *keys)
    except DslcError as err:
        raise _located(err, span) from None


def shares_table(e: tir.Call, fn: CompiledFunction, callee: CompiledFunction) -> bool:
    """Does the table call ``e`` in ``fn``'s body pass ``fn``'s own calling arguments
    (or globals) unchanged? Then every cell of one table of ``fn`` calls the same
    table of the callee, kept in ``Table.siblings`` after the first call."""
    calling = [a for a, p in zip(e.args, callee.tf.params) if not p.recursive]
    return e.rec_only and fn.is_table and all(
        isinstance(a, tir.Var) and (a.scope == "global" or a.name in fn.calling_names)
        for a in calling)


def _binder(t: T.Type, program):
    """Conversion of an argument value passed inside the program (a string literal
    given to a sequence parameter is encoded when first used)."""
    if isinstance(t, T.SeqT):
        def bind(v):
            return v if not isinstance(v, str) else as_sequence(v, t, program, None)
        return bind
    return lambda v: v


def _same(v):
    return v


def _tuple_ops(op: str, t: T.TupleT, span) -> tuple:
    """One scalar operator per component, with that component's arithmetic rules."""
    return tuple((arith.int_op if c == T.INT else arith.float_op)(op, span) for c in t.items)


def _tuple_reduction(op: str, t: T.TupleT, span):
    """``sum`` adds component by component from zeros; ``max``/``min`` are
    lexicographic, starting from every component at ``-inf``/``inf`` (what an
    empty reduction gives)."""
    n = len(t.items)
    if op == "sum":
        ops = _tuple_ops("+", t, span)
        zero = tuple(0 if c == T.INT else 0.0 for c in t.items)
        return (lambda acc, v: tuple(f(x, y) for f, x, y in zip(ops, acc, v))), zero
    if op == "max":
        return max, (-math.inf,) * n
    return min, (math.inf,) * n


def _located(err: DslcError, span) -> DslcError:
    """An extension's run-time error, placed at the expression that raised it."""
    return err if err.span is not None else DslcError(err.message, span, err.hint)


_PLAIN = (int, float, str, bool)


def hkeys(env: dict, names) -> tuple:
    """The key of a table's calling values, those ``env`` gives ``names``: each plain
    value itself, any other (a sequence, a matrix, a model) by identity. Made without a
    call per value: a traceback makes it for every table it opens."""
    return tuple([v if isinstance(v, _PLAIN) else id(v) for v in map(env.__getitem__, names)])


def _value_alphabet(v, span):
    alpha = getattr(v, "alphabet", None)
    if alpha is None:
        raise DslcError("this value has no alphabet to read the symbol in", span)
    return alpha


def _math(f, v, name, span):
    try:
        return f(v)
    except (ValueError, OverflowError):
        raise DslcError(f"{name}({v}) is not defined", span) from None


def _pyval(v, conv):
    """numpy scalars become Python numbers (int infinities stay floats)."""
    if isinstance(v, (int, float)):
        return v
    if conv is int and math.isinf(v):
        return float(v)
    return conv(v)
