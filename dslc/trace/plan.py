"""Step plans: the walk of :mod:`dslc.trace.derive`, specialised once per function.

The plain walk (``Tracer._follow``) decides at every node of every visited cell what
the node is (a chain, an ``if``, a call ...), finds its closures in caches keyed by
the node, folds a chain's values through a recursive helper and builds a new
:class:`Choice` per choice point. None of that depends on the cell: a plan makes those
decisions once per function body, from its typed IR, as a tree of small closures
(``node(env, choices, calls, need)``, the same contract as ``_follow``), with each
choice point's possible :class:`Choice` objects made once. The alternatives' values
come from a :class:`dslc.trace.fused.FusedInterpreter`'s closures: one Python function
per expression, which reads a filled table's cell straight from its numbers.

Nothing here knows an algorithm, and every decision is the plain walk's, made in
the same order: a plan node exists for the shapes ``_follow`` distinguishes (guards,
operator chains, ifs, calls, conditions and indexes, expressions over calls); a
max/min reduction is planned around ``Tracer._reduction`` (its elements read as the
plain walk reads them, its chosen element's body followed by a plan node). One place
decides what the plain walk still serves: :meth:`Plans.node` hands any other shape to
``Tracer._follow`` (today, none reaches it but a shape added to the language later).
tests/trace/test_planned_walk.py checks that both routes give equal derivations.
"""

from __future__ import annotations

from dslc.check import tir
from dslc.errors import DslcError
from dslc.interp.compile import shares_table
from dslc.trace.choice import Choice, fold as _fold, same as _same


class Plans:
    """The plans of one tracer's functions, made when a walk first meets each."""

    def __init__(self, tracer):
        self.tracer = tracer
        self._bodies: dict = {}

    def body(self, cf):
        """``cf``'s plan: ``plan(env, choices, calls) -> value``, as ``Tracer._body``."""
        hit = self._bodies.get(cf.name)
        if hit is None or hit[0] is not cf:
            hit = self._bodies[cf.name] = (cf, self._guards(cf))
        return hit[1]

    def _guards(self, cf):
        t = self.tracer
        guards = [(None if g.cond is None else t._closure(g.cond, cf),
                   Choice("guard", k, t._text(g.body)), self.node(g.body, cf))
                  for k, g in enumerate(cf.tf.guards)]

        def plan(env, choices, calls):
            for cond, choice, node in guards:
                if cond is None or cond(env):
                    choices.append(choice)
                    return node(env, choices, calls, True)
            raise DslcError(f"no guard of '{cf.name}' applies", cf.span)
        return plan

    def node(self, e, cf):
        """``e``'s plan node: ``node(env, choices, calls, need)``, ``Tracer._follow``'s
        contract; the one place that hands a shape to the plain walk."""
        t = self.tracer
        if not t._contributing(e):
            return _valued(t._closure(e, cf), ())
        match e:
            case tir.MinMax():
                return self._chain(e, cf)
            case tir.Cond():
                return self._cond(e, cf)
            case tir.Reduce(op="sum"):
                return self._plain(e, cf)  # the walk's error, where a walk reaches it
            case tir.Reduce():
                return self._reduction(e, cf)
            case tir.Call():
                return self._call(e, cf)
            case tir.Compare() | tir.Logic() | tir.Not() | tir.SeqIndex() | tir.ExtIndex() \
                    | tir.ExtAttr():
                return _valued(t._closure(e, cf), ())
            case tir.Arith() | tir.Neg() | tir.Coerce() | tir.Component() | tir.Builtin() \
                    | tir.MakeTuple():
                return _valued(t._closure(e, cf),
                               tuple(self.node(c, cf) for c in tir.children(e)))
        return self._plain(e, cf)

    def _plain(self, e, cf):
        follow = self.tracer._follow
        return lambda env, choices, calls, need: follow(e, cf, env, choices, calls, need)

    def _chain(self, e, cf):
        op = e.op
        alts, closures, texts = self.tracer._alternatives(e, cf)
        fused = getattr(self.tracer.interp, "values", None)  # (dslc.trace.fused)
        values_of = fused(alts, cf) if fused else lambda env: [c(env) for c in closures]
        nodes = [self.node(a, cf) for a in alts]
        taken = [Choice(op, k, text) for k, text in enumerate(texts)]
        left = _left_deep(e, op)
        pick = max if op == "max" else min

        def chain(env, choices, calls, need):
            values = values_of(env)
            # a left-deep chain folds pair by pair in source order: what max/min of
            # the list does (the same comparisons, so the same value, NaN and ties)
            want = pick(values) if left else _fold(e, op, iter(values))
            if want == want:  # (list.index: the first v that is want or equals it)
                k = values.index(want)
            else:
                k = next(k for k, v in enumerate(values) if _same(v, want))
            choices.append(taken[k])
            nodes[k](env, choices, calls, False)
            return want
        return chain

    def _cond(self, e, cf):
        t = self.tracer
        cond = t._closure(e.cond, cf)
        then, orelse = self.node(e.then, cf), self.node(e.orelse, cf)
        taken = (Choice("if", 0, t._text(e.then)), Choice("if", 1, t._text(e.orelse)))

        def branch(env, choices, calls, need):
            if cond(env):
                choices.append(taken[0])
                return then(env, choices, calls, need)
            choices.append(taken[1])
            return orelse(env, choices, calls, need)
        return branch

    def _reduction(self, e, cf):
        reduction, body = self.tracer._reduction, self.node(e.body, cf)
        return lambda env, choices, calls, need: reduction(e, cf, env, choices, calls, body)

    def _call(self, e, cf):
        t = self.tracer
        callee = t.interp.functions[e.func]
        value = t._closure(e, cf)
        if not (callee.is_table and cf.is_table and shares_table(e, cf, callee)):
            def other(env, choices, calls, need):
                calls.append(t._callee(e, cf, env))
                return value(env) if need else None
            return other
        rec_fns = t._rec_args(e, cf, callee)
        name = callee.name

        def call(env, choices, calls, need):
            table = env["$table"].siblings.get(name)
            calls.append(t._callee(e, cf, env) if table is None
                         else ("cell", table, tuple(f(env) for f in rec_fns)))
            return value(env) if need else None
        return call


def _valued(value, kids: tuple):
    """A node whose parts' calls (``kids``) are followed and whose value, where
    needed, is its closure's."""
    if not kids:
        return lambda env, choices, calls, need: value(env) if need else None

    def node(env, choices, calls, need):
        for kid in kids:
            kid(env, choices, calls, False)
        return value(env) if need else None
    return node


def _left_deep(e, op: str) -> bool:
    """Is the chain ``((a op b) op c) ...`` (no right operand a chain of ``op``)?"""
    while isinstance(e, tir.MinMax) and e.op == op:
        if isinstance(e.right, tir.MinMax) and e.right.op == op:
            return False
        e = e.left
    return True
