"""Which infinities a compiled value may hold, so that NaN is caught where it can arise.

The language makes ``inf - inf``, ``0 * inf`` and ``inf / inf`` errors
(dslc.lang.arith); IEEE arithmetic in the generated code makes them NaN, which
a later ``max`` or comparison would silently drop. The generated code therefore
checks every ``+``, ``-``, ``*`` and ``sum`` step that *can* meet two opposite
infinities or a zero and an infinity (``_undef``, a check helper like ``_chk``:
it raises on the CPU and sets the task's failure flag on a GPU). Checking every
operation would cost the fast sweeps (a padded lane or a whole-GPU kernel cannot
report a check, emit.packs, emit.wavefront), so this conservative analysis proves
most operations safe: a term like ``h(i-1, j-1) + sm[a, b]`` adds a cell that
is never infinite to a matrix entry.

Facts per expression: may it be ``+inf``, ``-inf``, zero. Table cells get theirs
from a least fixpoint over the program's functions (a cell is computed from
earlier cells, so what every body can produce from such cells is all a cell can
hold). Assumptions, each enforced elsewhere:

* number arguments are finite, and so are the numbers read from an extension
  value's ``device_array`` (a matrix): the compiled backends run a call with an
  infinite one on the interpreter instead (dslc.cpu.backend.convert). Numbers
  of the script other than constants are not assumed anything;
* ``int`` values stay inside 64 bits (beyond is an error; a compiled result past
  2^53 is recomputed by the interpreter), so adding or multiplying finite ints
  stays finite. A ``float`` product or quotient may overflow to an infinity
  (unless a literal of magnitude at most 1 scales it, or it is divided by one of
  at least 1); a float sum of finite values is taken as finite: reaching 1.8e308
  by addition alone needs values already that large, and an infinity that does
  arise still reaches the result as NaN unless a comparison drops it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dslc.check import tir
from dslc.lang import types as T


@dataclass(frozen=True)
class Infs:
    """What a number may be: ``+inf`` (pos), ``-inf`` (neg), zero."""

    pos: bool
    neg: bool
    zero: bool = True

    @property
    def inf(self) -> bool:
        return self.pos or self.neg

    def join(self, o: "Infs") -> "Infs":
        return Infs(self.pos or o.pos, self.neg or o.neg, self.zero or o.zero)

    def negated(self) -> "Infs":
        return Infs(self.neg, self.pos, self.zero)


ANY = Infs(True, True)
FINITE = Infs(False, False)
NONE = Infs(False, False, False)  # the fixpoint's start: nothing yet


def of_number(v) -> Infs:
    v = float(v)
    return Infs(v == math.inf, v == -math.inf, v == 0)


def undefined(e: tir.Arith, a: Infs, b: Infs) -> bool:
    """Can ``a op b`` be ``inf - inf`` or ``0 * inf`` (NaN in IEEE arithmetic)?"""
    if e.op == "+":
        return a.pos and b.neg or a.neg and b.pos
    if e.op == "-":
        return a.pos and b.pos or a.neg and b.neg
    if e.op == "*":
        return a.inf and b.zero or b.inf and a.zero
    return False  # / and % are checked inside their helpers (_div, _fmod_floor)


def sum_undefined(body: Infs) -> bool:
    """Can a ``sum`` whose terms are ``body`` meet two opposite infinities?"""
    return body.pos and body.neg


class Analysis:
    """The facts of one program's expressions (one per program, see :func:`of`)."""

    def __init__(self, program):
        self.program = program
        self.results: dict[str, Infs] = {f: NONE for f in program.functions}
        # number parameters: finite from outside (checked), joined with every call's argument
        self.params: dict[tuple[str, str], Infs] = {}
        self._solve()

    def _solve(self) -> None:
        changed = True
        while changed:
            changed = False
            for name, f in self.program.functions.items():
                new = self.results[name]
                rec = frozenset(p.name for p in f.rec_params)
                for g in f.guards:
                    new = new.join(self.expr(g.body, rec, name))
                    for c in ([g.cond] if g.cond is not None else []) + [g.body]:
                        changed |= self._pass_arguments(c, rec, name)
                if new != self.results[name]:
                    self.results[name], changed = new, True

    def _pass_arguments(self, e: tir.TExpr, rec, scope) -> bool:
        """Join the facts of the number arguments of every call in ``e`` into the
        callee's parameters; whether any changed."""
        changed = False
        for c in tir.walk(e):
            if not isinstance(c, tir.Call) or c.func not in self.program.functions:
                continue
            for p, a in zip(self.program.functions[c.func].params, c.args):
                key = (c.func, p.name)
                if p.recursive or p.type not in (T.INT, T.FLOAT):
                    continue
                old = self.params.get(key, FINITE)
                new = old.join(self.expr(a, rec, scope))
                if new != old:
                    self.params[key], changed = new, True
        return changed

    def expr(self, e: tir.TExpr, rec: frozenset = frozenset(), scope: str | None = None) -> Infs:
        """The facts of ``e`` inside function ``scope`` (None: not known), whose
        recursive parameters are ``rec`` (coordinates)."""
        match e:
            case tir.Lit(value=v):
                return FINITE if isinstance(v, bool) else of_number(v)
            case tir.Var():
                return self._var(e, rec, scope)
            case tir.Coerce(expr=x, type=t):
                return self.expr(x, rec, scope) if t != T.PROB else ANY
            case tir.Neg(operand=x):
                return self.expr(x, rec, scope).negated()
            case tir.Arith():
                return self._arith(e, rec, scope)
            case tir.MinMax(op=op, left=a, right=b):
                x, y = self.expr(a, rec, scope), self.expr(b, rec, scope)
                if op == "max":
                    return Infs(x.pos or y.pos, x.neg and y.neg, x.zero or y.zero)
                return Infs(x.pos and y.pos, x.neg or y.neg, x.zero or y.zero)
            case tir.Cond(then=a, orelse=b):
                return self.expr(a, rec, scope).join(self.expr(b, rec, scope))
            case tir.Builtin(name="len"):
                return FINITE
            case tir.Builtin(name="abs" | "float", args=(x,)):
                v = self.expr(x, rec, scope)
                return Infs(v.inf, False, v.zero) if e.name == "abs" else v
            case tir.Call(func=name):
                return self.results.get(name, ANY)
            case tir.ExtIndex(indexer=spec) if spec is not None and \
                    spec.device_array is not None and e.type in (T.INT, T.FLOAT):
                return FINITE  # checked when the argument is converted (module doc)
            case tir.Reduce(op=op, body=body):
                v = self.expr(body, rec, scope)
                if op == "max":
                    return Infs(v.pos, True, v.zero)
                if op == "min":
                    return Infs(True, v.neg, v.zero)
                return Infs(v.pos, v.neg)  # a sum (finite terms stay finite, module doc)
        return ANY

    def _var(self, e: tir.Var, rec, scope) -> Infs:
        if e.scope == "global":
            c = self.program.consts.get(e.name)
            return of_number(c) if isinstance(c, (int, float)) else ANY
        if e.scope == "local":
            return FINITE if e.type == T.INT else ANY  # a range's variable
        if isinstance(e.type, T.IndexT) or e.name in rec:
            return FINITE  # a coordinate
        if e.type in (T.INT, T.FLOAT):  # a number argument (from outside: checked, module doc)
            return ANY if scope is None else self.params.get((scope, e.name), FINITE)
        return ANY

    def _arith(self, e: tir.Arith, rec, scope) -> Infs:
        a, b = self.expr(e.left, rec, scope), self.expr(e.right, rec, scope)
        if e.op == "+":
            return Infs(a.pos or b.pos, a.neg or b.neg)
        if e.op == "-":
            return Infs(a.pos or b.neg, a.neg or b.pos)
        if e.op == "%":
            return ANY
        if e.op == "/":  # by a literal of magnitude 1 or more: no overflow
            k = _literal(e.right)
            return ANY if k is None or abs(k) < 1 else _scaled(a, k)
        if e.type == T.INT:
            inf = a.inf or b.inf  # either sign (the other operand's sign is not tracked)
            return Infs(inf, inf, a.zero or b.zero)
        for x, k in ((a, _literal(e.right)), (b, _literal(e.left))):
            if k is not None and abs(k) <= 1:  # a float damped by a literal: no overflow
                return _scaled(x, k)
        return ANY  # a float product may overflow


def _literal(e: tir.TExpr):
    """The value of a finite number literal (through coercions), else None."""
    while isinstance(e, tir.Coerce):
        e = e.expr
    if isinstance(e, tir.Lit) and not isinstance(e.value, bool) and \
            isinstance(e.value, (int, float)) and math.isfinite(e.value):
        return e.value
    return None


def _scaled(x: Infs, k) -> Infs:
    """``x`` times or over a literal ``k``: its infinities, flipped for a negative ``k``."""
    if k == 0:
        return Infs(False, False, True)
    return Infs(x.neg, x.pos) if k < 0 else Infs(x.pos, x.neg)


_CACHE: dict[int, tuple] = {}


def of(program) -> Analysis:
    """The analysis of ``program``, computed once."""
    hit = _CACHE.get(id(program))
    if hit is not None and hit[0] is program:
        return hit[1]
    if len(_CACHE) > 32:
        _CACHE.clear()
    result = Analysis(program)
    _CACHE[id(program)] = (program, result)
    return result
