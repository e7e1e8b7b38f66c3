"""Tracebacks for any recurrence: the derivation that achieved a value.

Nothing here knows an algorithm. A cell's body (the typed IR of its function) is
re-evaluated with the interpreter's own closures, reading the task's tables (the
interpreter's memo, or tables a compiled backend filled, see :mod:`dslc.trace.run`),
and at every ``max``/``min`` (operator chains, reductions), ``if`` and guard the
alternative whose value equals the node's value is taken, the first in source order
on ties (a reduction: the first element of its iterable). The calls that contribute
to the chosen value (not those in conditions or indexes) are the step's children: one
child makes a path, several (``f(i + 1, k) + f(k + 1, j)``) a tree. Cells
are visited with an explicit stack, so a path 4,000 cells long needs no deep Python
recursion; a cell reached twice is one step (children are step numbers).

:meth:`Derivation.recompute` is the converse: each step's value again, bottom-up,
from its children's recomputed values through the recorded alternatives only (never
reading a table), which is what the property tests check against the cells' values.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dslc.check import tir
from dslc.lang import types as T
from dslc.errors import DslcError
from dslc.interp.compile import shares_table, span_text
from dslc.interp.tables import MISSING, demand
from dslc.trace import ahead
from dslc.trace.choice import Choice, fold as _fold, same as _same


@dataclass(frozen=True)
class Step:
    """One call in a derivation: ``func`` at ``point`` (its recursive arguments;
    ``()`` for a function without a table) with the raw value it has, the
    alternatives its body took, and its children (numbers of steps). ``seqs``: for
    each coordinate of ``point``, the sequence parameter it indexes and its value (None
    if it indexes none): sequences are told apart by parameter, as inherited calling
    arguments are passed by name (a query aligned with itself is two sequences)."""

    func: str
    names: tuple[str, ...]
    point: tuple
    value: Any
    choices: tuple[Choice, ...]
    children: tuple[int, ...]
    seqs: tuple = field(default=(), repr=False, compare=False)
    env: dict = field(default=None, repr=False, compare=False)

    def label(self) -> str:
        return f"{self.func}({', '.join(_show(v) for v in self.point)})"


def _step(func, names, point, value, choices, children, seqs, env) -> Step:
    """A :class:`Step` made without the frozen dataclass's per-field ``__setattr__``
    (the compiled walk makes thousands a second): the same fields, the same object."""
    s = object.__new__(Step)
    s.__dict__.update(func=func, names=names, point=point, value=value, choices=choices,
                      children=children, seqs=seqs, env=env)
    return s


class CellEnv(Mapping):
    """A cell's body environment, read-only: its table's (``base``, shared by the
    steps of one table) with the recursive parameters ``names`` bound to ``rec``;
    made per step of a compiled walk instead of a copied dict."""

    __slots__ = ("_base", "_names", "_rec")

    def __init__(self, base: dict, names: tuple, rec: tuple):
        self._base, self._names, self._rec = base, names, rec

    def _whole(self) -> dict:
        env = dict(self._base)
        env.update(zip(self._names, self._rec))
        env["$rec"] = self._rec
        return env

    def __getitem__(self, key):
        if key == "$rec":
            return self._rec
        if key in self._names:
            return self._rec[self._names.index(key)]
        return self._base[key]

    def __iter__(self):
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())


class Walk:
    """The steps ``k`` on of a derivation a compiled walk took (``walked``, a
    :class:`dslc.trace.jit.Walked`): each :class:`Step` made when first read, the same
    fields the walk by step plans gives (its env a read-only view over its table's)."""

    def __init__(self, tracer, walked, k: int, known: dict):
        self.walked, self.k = walked, k
        self._tracer, self._known = tracer, known
        self._bases: dict = {}  # function id -> (name, rec names, environment, seqs)
        self._made: list = [None] * len(walked)

    def __len__(self) -> int:
        return len(self._made)

    def __getitem__(self, n: int) -> Step:
        s = self._made[n]
        if s is None:
            s = self._made[n] = self._step(n)
        return s

    def base(self, n: int) -> tuple:
        """The function, recursive names, environment and seqs of step ``n``'s table."""
        w = self.walked
        fid = int(w.st[n, 0])
        hit = self._bases.get(fid)
        if hit is None:
            cf, env, seqs = self._tracer._cell_env(w.tables[fid], w.rec(n), self._known)
            hit = self._bases[fid] = (cf.name, cf.rec_names, env, seqs)
        return hit

    def _step(self, n: int) -> Step:
        w, k = self.walked, self.k
        name, names, env, seqs = self.base(n)
        rec = w.rec(n)
        return _step(name, names if rec else (), rec, w.value(n), w.choices(n),
                     (k + n + 1,) if n + 1 < len(self._made) else (), seqs,
                     CellEnv(env, names, rec))


class Steps(Sequence):
    """A derivation's steps: those walked in Python (``head``, made) and the rest of
    the path a compiled walk took (``tail``, a :class:`Walk`, each made when read).
    Equal to any sequence of equal steps (a tuple of them included)."""

    __slots__ = ("head", "tail")

    def __init__(self, head: tuple, tail: Walk):
        self.head, self.tail = head, tail

    def __len__(self) -> int:
        return len(self.head) + len(self.tail)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return tuple(self[i] for i in range(*k.indices(len(self))))
        n = len(self)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("step index out of range")
        h = len(self.head)
        return self.head[k] if k < h else self.tail[k - h]

    def __eq__(self, other):
        if not isinstance(other, (Steps, tuple, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


@dataclass(frozen=True)
class Derivation:
    """Steps in the order they were reached; ``steps[0]`` is the traced call.
    ``type``: the value type of the traced function (``int``, ``prob``, ...)."""

    steps: tuple[Step, ...] | Steps  # (Steps: a compiled walk's, made when read)
    type: str
    tracer: Any = field(default=None, repr=False, compare=False)

    @property
    def root(self) -> Step:
        return self.steps[0]

    @property
    def value(self):
        return self.root.value

    @property
    def is_path(self) -> bool:
        steps = self.steps  # (a compiled walk's steps are a path: not made to see it)
        head = steps.head if isinstance(steps, Steps) else steps
        return all(len(s.children) <= 1 for s in head)

    def path(self) -> list[Step]:
        """The steps from the traced call to the last one (a derivation that is a path)."""
        if not self.is_path:
            raise DslcError("this derivation is a tree (a step adds several calls), not a path")
        out, k = [self.root], 0
        while self.steps[k].children:
            k = self.steps[k].children[0]
            out.append(self.steps[k])
        return out

    def recompute(self) -> list:
        """Each step's value from its children's recomputed values and its recorded
        alternatives only (see the module's docstring)."""
        return self.tracer.recompute(self)

    def text(self) -> str:
        """One line per step, indented by depth: the call, its value, the choices."""
        lines, todo = [], [(0, 0)]
        while todo:
            k, depth = todo.pop()
            s = self.steps[k]
            taken = "; ".join(_choice_text(c) for c in s.choices if c.kind != "guard"
                              or len(s.choices) == 1)
            lines.append(f"{'  ' * depth}{s.label()} = {_value_text(s.value, self.type_of(s))}"
                         + (f"   [{taken}]" if taken else ""))
            todo.extend((c, depth + (len(s.children) > 1)) for c in reversed(s.children))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def to_json(self) -> dict:
        """``--format json``: the steps with their points, values, choices and children
        (values as script values: the renderer writes them as JSON)."""
        from dslc.lang.results import wrap

        def choice(c: Choice) -> dict:
            out = {"kind": c.kind, "index": c.index, "text": c.text}
            if c.var is not None:
                out.update(var=c.var, value=_show(c.value))
            return out
        return {"value": wrap(self.value, self.type), "is_path": self.is_path,
                "steps": [{"call": s.label(),
                           "point": [v if isinstance(v, int) else _show(v) for v in s.point],
                           "value": wrap(s.value, self.type_of(s)),
                           "choices": [choice(c) for c in s.choices],
                           "children": list(s.children)} for s in self.steps]}

    def type_of(self, s: Step) -> str:
        """The value type of a step's function."""
        ret = self.tracer.interp.program.functions[s.func].ret
        return getattr(ret, "name", str(ret))


class Tracer:
    """Derivations over one interpreter (:class:`dslc.interp.compile.Interpreter`).
    ``planned``: each body walked by its step plan (:mod:`dslc.trace.plan`), made once
    per function, instead of by ``_follow`` node by node (the same derivation)."""

    def __init__(self, interp, planned: bool = True):
        from dslc.trace.plan import Plans

        self.interp = interp
        self.plans = Plans(self) if planned else None
        self.walks = None  # compiled walks (dslc.trace.jit), set by the runner
        self._closures: dict = {}  # id(expr) -> (expr, closure, owner)
        self._contributes: dict = {}
        self._rows: dict = {}
        self._texts: dict = {}
        self._shares: dict = {}
        self._chains: dict = {}
        self._seqs: dict = {}
        self._recs: dict = {}
        self._argc: dict = {}
        self.reads = ahead.Reads()  # whole-table reads, made where tables are filled

    # ------------------------------------------------------------ the walk
    def derive(self, func: str, env: dict, table=None, rec: tuple | None = None) -> Derivation:
        """The derivation of ``func``: the cell ``rec`` of ``table``, or a call of a
        function without a table in ``env`` (which holds ``$task``)."""
        first = ("cell", table, rec) if table is not None else ("plain", func, env)
        steps: list = [None]
        seen = {_key(first): 0}
        todo = [(0, first)]
        seqs: dict = {}  # id(table) -> its steps' seqs (a table's calling values are fixed)
        compiled, tail = self.walks is not None, None
        chain = True  # every step so far has at most one call: each cell met is an ancestor
        while todo:
            k, what = todo.pop()
            if compiled and not todo and what[0] == "cell" and k == len(steps) - 1:
                compiled = False  # (tried once per derivation)
                tail = self._compiled(k, what, seen, seqs, chain)
                if tail is not None:
                    steps.pop()
                    break
            fields, calls = self._step(what, seqs)
            chain = chain and len(calls) <= 1
            kids = []
            for call in calls:
                key = ("cell", id(call[1]), call[2]) if call[0] == "cell" else None  # _key
                if key is None or key not in seen:
                    steps.append(None)
                    if key is not None:
                        seen[key] = len(steps) - 1
                    todo.append((len(steps) - 1, call))
                    kids.append(len(steps) - 1)
                else:
                    kids.append(seen[key])
            steps[k] = Step(*fields[:5], tuple(kids), *fields[5:])
        ret = self.interp.program.functions[func].ret
        return Derivation(tuple(steps) if tail is None else Steps(tuple(steps), tail),
                          ret.name if hasattr(ret, "name") else str(ret), self)

    def _compiled(self, k: int, what, seen: dict, known: dict, chain: bool = False):
        """The rest of a path from cell ``what`` (step ``k``, the last one waiting)
        walked by compiled code (:mod:`dslc.trace.jit`), as the steps from ``k`` on
        (:class:`Walk`, made when read); None where it is not compiled. ``chain``: the
        steps before are a path to ``what``, each cell of them depending on it, so the
        walk cannot reach one again (that would be a cycle; the cells a sweep filled
        have none) and is not searched for them (``_revisits``)."""
        got = self.walks.walk(what[1], what[2])
        if got is None or (not chain and _revisits(got, seen)):
            return None
        return Walk(self, got, k, known)

    def _cell_env(self, table, rec: tuple, known: dict):
        """A cell's function, its body's environment and its step's seqs."""
        cf = table.func
        env = dict(table.env)
        env.update(zip(cf.rec_names, rec))
        env["$table"], env["$rec"] = table, rec
        seqs = known.get(id(table))
        if seqs is None or seqs[0] is not table:
            seqs = known[id(table)] = (table, tuple(
                None if q is None else (q, env[q]) for q in self._seq_params(cf)))
        return cf, env, seqs[1]

    def _step(self, what, known: dict) -> tuple[tuple, list]:
        """A step's fields but its children, and the calls its value comes from;
        ``known``: the seqs of each table met (``derive``'s)."""
        if what[0] == "cell":
            _, table, rec = what
            cf, env, seqs = self._cell_env(table, rec, known)
            value = table.get(rec)
            if value is MISSING:
                value = demand(table, rec)
        else:
            _, name, env = what
            cf, rec, value, seqs = self.interp.functions[name], (), MISSING, ()
        choices: list = []
        calls: list = []
        if self.plans is not None:
            got = self.plans.body(cf)(env, choices, calls)
        else:
            got = self._body(cf, env, choices, calls)
        if value is MISSING:
            value = got
        elif not _same(got, value):
            raise DslcError(f"the table of {cf.name} holds {value} at {rec}, but its body "
                            f"gives {got} there: the backend that filled it disagrees with "
                            "the interpreter", cf.span)
        return (cf.name, cf.rec_names if rec else (), tuple(rec), value, tuple(choices),
                seqs, env), calls

    def _body(self, cf, env, choices, calls):
        for k, g in enumerate(cf.tf.guards):
            if g.cond is None or self._eval(g.cond, cf, env):
                choices.append(Choice("guard", k, self._text(g.body)))
                return self._follow(g.body, cf, env, choices, calls, True)
        raise DslcError(f"no guard of '{cf.name}' applies", cf.span)

    def _follow(self, e, cf, env, choices, calls, need: bool):
        """Record the alternatives ``e`` takes and the calls its value comes from;
        returns its value (the interpreter's) where ``need``. Without ``need``, ``e``
        was evaluated already in this ``env`` (an alternative compared, a reduction's
        element, a part of an expression evaluated whole), so it is not again: each
        sub-expression of a step is evaluated once or twice, not once per level, and
        every error its evaluation raises has been raised."""
        if not self._contributing(e):
            return self._eval(e, cf, env) if need else None
        match e:
            case tir.MinMax(op=op):
                alts, closures, texts = self._alternatives(e, cf)
                values = [c(env) for c in closures]
                want = _fold(e, op, iter(values))
                k = next(k for k, v in enumerate(values) if _same(v, want))
                choices.append(Choice(op, k, texts[k]))
                self._follow(alts[k], cf, env, choices, calls, False)
                return want
            case tir.Cond():
                k = 0 if self._eval(e.cond, cf, env) else 1
                branch = e.then if k == 0 else e.orelse
                choices.append(Choice("if", k, self._text(branch)))
                return self._follow(branch, cf, env, choices, calls, need)
            case tir.Reduce(op="sum"):
                raise DslcError("a sum over calls combines every term: its value has no "
                                "single derivation (trace follows max, min and if)", e.span)
            case tir.Reduce():
                return self._reduction(e, cf, env, choices, calls)
            case tir.Call():
                calls.append(self._callee(e, cf, env))
            case tir.Compare() | tir.Logic() | tir.Not() | tir.SeqIndex() | tir.ExtIndex() \
                    | tir.ExtAttr():
                pass  # conditions and indexes decide, they do not contribute
            case _:
                for c in tir.children(e):
                    self._follow(c, cf, env, choices, calls, False)
        return self._eval(e, cf, env) if need else None

    def _reduction(self, e, cf, env, choices, calls, follow=None):
        """A max/min reduction: its chosen element, whose body is followed by ``follow``
        (a step plan's node) or ``_follow``."""
        saved = env.get(e.var, MISSING)
        try:
            elements, values = self._elements(e, cf, env)
            if isinstance(values, _Row):
                k, want = values.chosen(e.op)
            else:
                want = _extreme(e, values)
                k = _first_same(values, want)
            if k is None:
                choices.append(Choice(e.op, -1, "(empty)", e.var, None))
                return want
            v = env[e.var] = elements[k]
            choices.append(Choice(e.op, 0, self._text(e.body), e.var, v))
            if follow is None:
                self._follow(e.body, cf, env, choices, calls, False)
            else:
                follow(env, choices, calls, False)
            return want
        finally:
            _restore(env, e.var, saved)

    def _elements(self, e, cf, env) -> tuple[list, list]:
        """The elements a max/min reduction takes (its ``where`` holds) and its body's
        value at each, in order (``env`` is left with the reduction's variable set)."""
        row = self._block(e, cf, env) if isinstance(e.body, tir.Reduce) else self._row(e, cf, env)
        if row is not None:
            return row
        elements, values = [], []
        body = self._reader(e.body, cf, env)
        for v in self._eval(e.iterable, cf, env):
            env[e.var] = v
            if e.where is None or self._eval(e.where, cf, env):
                elements.append(v)
                values.append(body(env))
        return elements, values

    def _row(self, e, cf, env):
        """``max(j in lo ... hi : h(i, j))`` over a filled table: its cells ``lo .. hi``
        along ``j`` read as one slice; None where the shape is any other (a ``where``,
        a call whose other arguments move with ``j``, a cell not computed yet)."""
        axis = self._row_axis(e)
        if axis is None:
            return None
        span = self._eval(e.iterable, cf, env)
        if not span:
            return None
        env[e.var] = span[0]
        kind, table, rec = self._callee(e.body, cf, env)
        index = _region(table, rec, {axis: span})
        numbers = table.numbers if table.whole else None
        if index is not None and numbers is not None and numbers.exact is not None:
            raw = numbers.raw[index]  # (every number exact: only the chosen one converted)
            if raw.ndim == 1 and numbers.exact(raw):
                return list(span), _Row(raw, ahead.OneByOne(raw, numbers.one))
        values = None if index is None else table.region(index)
        if values is None:
            return None
        raw = None if table.numbers is None or not table.whole else table.numbers.raw[index]
        if raw is not None and raw.ndim == 1:  # (not a tuple's components)
            return list(span), _Row(raw, values)
        values = values.tolist()
        if not table.whole and None in values:
            return None
        return list(span), values

    def _block(self, e, cf, env):
        """``max(i in a ... b : max(j in c ... d : h(i, j)))`` over a filled table (a
        search's entry point: the best cell of a whole table): each ``i``'s inner
        extreme from one 2-D slice of the table, in the order the interpreter visits
        the elements; None where ``_row`` would not take the inner reduction, or the
        outer variable moves anything but its own axis (the inner range among them)."""
        inner = e.body
        axes = self._block_axes(e)
        if axes is None:
            return None
        span = self._eval(e.iterable, cf, env)
        if not span:
            return None
        saved = env.get(inner.var, MISSING)
        try:
            env[e.var] = span[0]
            cols = self._eval(inner.iterable, cf, env)
            if not cols:
                return None
            env[inner.var] = cols[0]
            kind, table, rec = self._callee(inner.body, cf, env)
        finally:
            _restore(env, inner.var, saved)
        index = _region(table, rec, {axes[0]: span, axes[1]: cols})
        if index is None:
            return None
        if table.numbers is not None:
            return self._numeric_block(inner, table, index, axes, span)
        block = table.region(index)
        rows = (block if axes[0] < axes[1] else block.T).tolist()
        if not table.whole and any(None in r for r in rows):
            return None
        return list(span), [_extreme(inner, r) for r in rows]

    def _numeric_block(self, inner, table, index: tuple, axes: tuple, span):
        """``_block`` over a table of numbers: each row's extreme taken on the numbers
        and only those converted (a conversion that keeps order: exact ints, floats);
        None where a cell has no exact value or a cell is a tuple (the generic path).
        Read where the table was filled if that read was made ahead (dslc.trace.ahead),
        and learned so that later tables of the function are read there."""
        numbers = table.numbers
        self.reads.learn(table.func.name, inner.op, axes, index, numbers.raw.shape)
        got = numbers.ahead.get(ahead.key(inner.op, axes, index), MISSING)
        if got is MISSING:
            got = ahead.row_extremes(inner.op, numbers, index, axes)
        if got is None:
            return None
        best, values = got
        return list(span), _Row(best, ahead.OneByOne(best, numbers.one) if values is None
                                else values)

    def _block_axes(self, e):
        """For ``_block``: the callee's axes of the outer and the inner variable."""
        hit = self._rows.get(id(e))
        if hit is None:
            hit = self._rows[id(e)] = (e, _block_axes(self.interp, e))
        return hit[1]

    def _row_axis(self, e):
        """For ``_row``: the callee's recursive axis the reduction's variable alone is
        passed to (every other argument without it), or None."""
        hit = self._rows.get(id(e))
        if hit is None:
            hit = self._rows[id(e)] = (e, _row_axis(self.interp, e))
        return hit[1]

    def _reader(self, e, cf, env):
        """How to evaluate ``e`` over a reduction's elements: the interpreter's closure,
        except for the two shapes a search's entry point has (a max over a table, as
        ``max(i in ... : max(j in ... : h(i, j)))``), evaluated without the closure's
        per-call work: a call's table is found once and its cells read directly
        (any cell not computed, or outside the domain, goes through the closure, which
        computes it or says why not); a nested max/min reduces its elements' values."""
        if isinstance(e, tir.Reduce) and e.op in ("max", "min"):
            def nested(env):
                saved = env.get(e.var, MISSING)
                try:
                    values = self._elements(e, cf, env)[1]
                    if isinstance(values, _Row):
                        return values.chosen(e.op)[1]
                    return _extreme(e, values)
                finally:
                    _restore(env, e.var, saved)
            return nested
        closure = self._closure(e, cf)
        if not (isinstance(e, tir.Call) and self.interp.functions[e.func].is_table):
            return closure
        callee = self.interp.functions[e.func]
        params = callee.tf.params
        if any(p.direction for p in params):
            return closure  # a declared direction is checked by the closure's call
        if any(isinstance(x, (tir.Var, tir.Reduce)) and getattr(x, "scope", "local") == "local"
               for p, a in zip(params, e.args) if not p.recursive for x in tir.walk(a)):
            return closure  # calling arguments that change with the element
        rec_args = [self._closure(a, cf) for p, a in zip(params, e.args) if p.recursive]
        found: list = []  # the table, found at the first element (a first call sets extents)

        def read(env):
            rec = tuple(a(env) for a in rec_args)
            if not found:
                found.append(self._callee_of(e, cf, env, rec)[1])
            table = found[0]
            if table.outside is None and all(type(x) is int and 0 <= x <= n
                                             for x, n in zip(rec, table.extents)):
                v = table.get(rec)
                if v is not MISSING:
                    return v
            return closure(env)
        return read

    def _alternatives(self, e: tir.MinMax, cf) -> tuple:
        """An operator chain's operands (``_chain``), their closures and texts, made
        once per chain and function (a walk meets the same chain at every step)."""
        hit = self._chains.get(id(e))
        if hit is None or hit[1] is not cf:
            alts = tir.chain(e, e.op)
            hit = self._chains[id(e)] = (e, cf, (alts, [self._closure(a, cf) for a in alts],
                                                 [self._text(a) for a in alts]))
        return hit[2]

    def _seq_params(self, cf) -> tuple:
        """For each recursive parameter of ``cf``, the sequence it indexes, or None."""
        hit = self._seqs.get(cf.name)
        if hit is None or hit[0] is not cf:
            hit = self._seqs[cf.name] = (cf, tuple(
                p.type.seq if isinstance(p.type, T.IndexT) else None for p in cf.tf.rec_params))
        return hit[1]

    def _rec_args(self, e: tir.Call, cf, callee) -> list:
        """The closures of a call's recursive arguments, made once per call and function."""
        hit = self._recs.get(id(e))
        if hit is None or hit[1] is not cf:
            hit = self._recs[id(e)] = (e, cf, [self._closure(a, cf) for p, a in zip(
                callee.tf.params, e.args) if p.recursive])
        return hit[2]

    def _args(self, e: tir.Call, cf, callee) -> list:
        """``(recursive, closure)`` of each of a call's arguments, made once per call
        and function (a traceback evaluates a call's arguments at every cell it opens)."""
        hit = self._argc.get(id(e))
        if hit is None or hit[1] is not cf:
            hit = self._argc[id(e)] = (e, cf, [(p.recursive, self._closure(a, cf)) for p, a
                                               in zip(callee.tf.params, e.args)])
        return hit[2]

    def _callee(self, e: tir.Call, cf, env):
        """The step a contributing call leads to: a cell, or a plain call's env."""
        return self._callee_of(e, cf, env, None)

    def _callee_of(self, e: tir.Call, cf, env, rec):
        """``_callee``; with ``rec`` (the recursive arguments' values, already
        computed), only the calling arguments are evaluated."""
        callee = self.interp.functions[e.func]
        table = self._sibling(e, cf, env, callee)
        if table is not None:
            if rec is None:
                rec = tuple(a(env) for a in self._rec_args(e, cf, callee))
            return ("cell", table, rec)
        args = [None if rec is not None and recursive else a(env)
                for recursive, a in self._args(e, cf, callee)]
        params = callee.tf.params
        cenv = {p.name: a for p, a in zip(params, args) if not p.recursive}
        cenv["$task"] = env["$task"]
        if not callee.is_table:
            return ("plain", callee.name, cenv)
        if rec is None:
            rec = tuple(a for p, a in zip(params, args) if p.recursive)
        table = self.interp.table_for(env["$task"], callee, cenv, rec, e.span)
        return ("cell", table, rec)

    def _sibling(self, e: tir.Call, cf, env, callee):
        """The callee's table where the interpreter keeps it with the cell's own table
        (``shares_table``: found there once the body's evaluation has called it), so
        that its calling arguments need not be evaluated and looked up again."""
        cur = env.get("$table")
        if cur is None or not callee.is_table:
            return None
        hit = self._shares.get(id(e))
        if hit is None or hit[2] is not cf:
            hit = self._shares[id(e)] = (e, shares_table(e, cf, callee), cf)
        return cur.siblings.get(callee.name) if hit[1] else None

    # ------------------------------------------------------------ replay
    def recompute(self, d: Derivation) -> list:
        """Values bottom-up (children first, iteratively) through the recorded choices."""
        out: list = [MISSING] * len(d.steps)
        todo = [0]
        while todo:
            k = todo[-1]
            waiting = [c for c in d.steps[k].children if out[c] is MISSING]
            if waiting:
                todo.extend(waiting)
                continue
            todo.pop()
            if out[k] is MISSING:
                out[k] = self._replay_step(d.steps[k], [out[c] for c in d.steps[k].children])
        return out

    def _replay_step(self, s: Step, kids: list):
        cf = self.interp.functions[s.func]
        choices, env = list(s.choices), dict(s.env)
        g = cf.tf.guards[choices.pop(0).index]
        kids.reverse()
        choices.reverse()
        return self._replay(g.body, cf, env, choices, kids)

    def _replay(self, e, cf, env, choices, kids):
        """The value of ``e`` with contributing calls answered by ``kids`` (in call
        order) and choice points by ``choices`` (both reversed, popped)."""
        if not self._contributing(e):
            return self._eval(e, cf, env)
        match e:
            case tir.MinMax(op=op):
                return self._replay(tir.chain(e, op)[choices.pop().index], cf, env, choices, kids)
            case tir.Cond():
                c = choices.pop()
                return self._replay(e.then if c.index == 0 else e.orelse, cf, env, choices, kids)
            case tir.Reduce():
                c = choices.pop()
                if c.index < 0:
                    return self._eval(e, cf, env)  # empty: the reduction's start value
                saved = env.get(e.var, MISSING)
                env[e.var] = c.value
                try:
                    return self._replay(e.body, cf, env, choices, kids)
                finally:
                    _restore(env, e.var, saved)
            case tir.Call():
                return kids.pop()
            case tir.Compare() | tir.Logic() | tir.Not() | tir.SeqIndex() | tir.ExtIndex() \
                    | tir.ExtAttr():
                return self._eval(e, cf, env)
        parts = [tir.Lit(self._replay(c, cf, env, choices, kids), c.type, c.span)
                 for c in tir.children(e)]
        return self.interp.expr(_with_children(e, parts), cf)(env)

    # ------------------------------------------------------------ helpers
    def _eval(self, e, cf, env):
        return self._closure(e, cf)(env)

    def _text(self, e) -> str:
        """``e``'s source text (a choice's), read once per expression."""
        hit = self._texts.get(id(e))
        if hit is None:
            hit = self._texts[id(e)] = (e, span_text(e.span))
        return hit[1]

    def _closure(self, e, cf):
        hit = self._closures.get(id(e))
        if hit is None or hit[2] is not cf:
            hit = self._closures[id(e)] = (e, self.interp.expr(e, cf), cf)
        return hit[1]

    def _contributing(self, e) -> bool:
        """Does ``e`` contain a call reaching a table (the cells a value comes from)?"""
        hit = self._contributes.get(id(e))
        if hit is None:
            fns = self.interp.program.functions
            hit = self._contributes[id(e)] = (e, any(
                isinstance(x, tir.Call) and any(f.is_table for f in tir.reachable(fns, x.func))
                for x in tir.walk(e)))
        return hit[1]


def _row_axis(interp, e: tir.Reduce):
    """The recursive axis of the table ``e``'s body calls that ``e``'s variable alone
    is passed to (a range without ``where``; no other argument names it), or None."""
    body = e.body
    if e.where is not None or not isinstance(e.iterable, tir.RangeIter) \
            or not isinstance(body, tir.Call) or not interp.functions[body.func].is_table:
        return None
    return _var_axis(interp, body, e.var)


def _block_axes(interp, e: tir.Reduce):
    """For a reduction over a same-operator reduction over a table call: the axes of
    the outer and the inner variable (see ``_row_axis``), when the outer variable
    appears nowhere else in the inner reduction (not in its range)."""
    inner = e.body
    if not isinstance(inner, tir.Reduce) or inner.op != e.op or inner.var == e.var \
            or e.where is not None or not isinstance(e.iterable, tir.RangeIter):
        return None
    axis = _row_axis(interp, inner)
    if axis is None or any(_local(x, e.var) for x in tir.walk(inner.iterable)):
        return None
    outer = _var_axis(interp, inner.body, e.var)
    return None if outer is None or outer == axis else (outer, axis)


def _var_axis(interp, call: tir.Call, var: str):
    callee = interp.functions[call.func]
    along = [p for p, a in zip(callee.tf.params, call.args) if _local(a, var)]
    uses = sum(_local(x, var) for a in call.args for x in tir.walk(a))
    if len(along) != 1 or uses != 1 or not along[0].recursive \
            or any(p.direction for p in callee.tf.params):
        return None
    return callee.rec_names.index(along[0].name)


def _local(x, var: str) -> bool:
    return isinstance(x, tir.Var) and x.scope == "local" and x.name == var


class _Row:
    """A max/min reduction's elements' values read off a table's numbers: ``raw``
    the numbers (1-D), ``values`` each as the interpreter's value (every one exact:
    ``Numbers.many`` gave them, or ``ahead.OneByOne`` gives them where ``Numbers.exact``
    said so). The reduction's chosen element is found on the
    numbers: the first extreme number is the first element whose value is the
    extreme (``_extreme``, ``_first_same``: an exact conversion keeps order and
    equality), without making the values a list and comparing them in Python."""

    __slots__ = ("raw", "values")

    def __init__(self, raw, values):
        self.raw, self.values = raw, values

    def chosen(self, op: str) -> tuple:
        """The chosen element's position and its value."""
        k = int(self.raw.argmax() if op == "max" else self.raw.argmin())
        return k, self.values[k]


def _region(table, rec: tuple, spans: dict):
    """The numpy index of the cells of ``table`` at ``rec`` with each axis of ``spans``
    over its range, or None where a cell is outside the box or declared ranges."""
    if not table.dense or table.outside is not None:
        return None
    for axis, span in spans.items():
        if span[0] < 0 or span[-1] > table.extents[axis]:
            return None
    if not all(type(x) is int and 0 <= x <= n for k, (x, n) in enumerate(zip(rec, table.extents))
               if k not in spans):
        return None
    return tuple(slice(spans[k][0], spans[k][-1] + 1) if k in spans else x
                 for k, x in enumerate(rec))


def _extreme(e: tir.Reduce, values: list):
    """A max/min reduction's value from its elements' values: the interpreter's
    fold (``dslc.interp.compile``) from the empty reduction's value, so the same
    value (ties are equal values)."""
    if not values:
        n = len(e.type.items) if isinstance(e.type, T.TupleT) else 0
        start = -math.inf if e.op == "max" else math.inf
        return (start,) * n if n else start
    return max(values) if e.op == "max" else min(values)


def _first_same(values: list, want):
    """The first ``k`` whose value is ``want`` (``same``: NaN counted equal to NaN), or
    None: ``list.index`` in one call where ``want`` equals itself (its identity-or-equal
    test then is ``same``'s), a scan where it is NaN."""
    if want == want:
        try:
            return values.index(want)
        except ValueError:
            return None
    return next((k for k, x in enumerate(values) if _same(x, want)), None)


_FIELDS = {tir.Arith: ("left", "right"), tir.Neg: ("operand",), tir.Coerce: ("expr",),
           tir.Component: ("base",)}


def _with_children(e, parts: list):
    """``e`` with its sub-expressions replaced by ``parts`` (literals of their values)."""
    if isinstance(e, (tir.Builtin, tir.Call)):
        return dataclasses.replace(e, args=tuple(parts))
    if isinstance(e, tir.MakeTuple):
        return dataclasses.replace(e, items=tuple(parts))
    names = _FIELDS.get(type(e))
    if names is None:
        raise DslcError(f"cannot replay a {type(e).__name__} over calls", e.span)
    return dataclasses.replace(e, **dict(zip(names, parts)))


def _restore(env: dict, var: str, saved) -> None:
    if saved is MISSING:
        env.pop(var, None)
    else:
        env[var] = saved


def _revisits(walked, seen: dict) -> bool:
    """Does a compiled walk (:class:`dslc.trace.jit.Walked`) reach, after its first
    cell, a cell already a step (in ``seen``)? Then the step plans walk it."""
    st, fids = walked.st[1:], {id(t): fid for fid, t in enumerate(walked.tables)}
    for key in seen:
        fid = None if key is None else fids.get(key[1])
        if fid is None or not all(type(x) is int and abs(x) < 2 ** 62 for x in key[2]):
            continue
        cols = st[:, 1:1 + len(key[2])]
        if np.any((st[:, 0] == fid) & np.all(cols == np.array(key[2], np.int64), axis=1)):
            return True
    return False


def _key(what):
    """Cells are shared between parents; a plain call is a step of its own."""
    return ("cell", id(what[1]), what[2]) if what[0] == "cell" else None


def _show(v) -> str:
    number = getattr(v, "number", None)
    if number is not None and not isinstance(v, (int, float)):
        return str(getattr(v, "name", number))
    return str(v)


def _value_text(v, value_type: str) -> str:
    if value_type == "prob":
        import math
        return f"{math.exp(v):.6g} (log {v:.6g})"
    return str(v)


def _choice_text(c: Choice) -> str:
    if c.kind == "guard":
        return f"guard {c.index + 1}"
    if c.var is not None:
        return f"{c.kind} at {c.var} = {_show(c.value)}" if c.index >= 0 else f"{c.kind} empty"
    return f"{c.kind}: {c.text}" if c.kind != "if" else f"{'then' if c.index == 0 else 'else'}"
