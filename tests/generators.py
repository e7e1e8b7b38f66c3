"""Random recurrences: .bio source plus an independent Python meaning.

A hypothesis strategy draws a 1-3 dimensional recurrence (optionally two
mutually recursive functions) whose recursive calls move along random
dependence vectors that admit an affine schedule: a hidden schedule ``h`` is
drawn first and every vector ``d`` satisfies ``h . d >= 1``. Guards keep every
call inside the domain, bases and operators are random. The same description
is rendered as a .bio program and evaluated directly in Python, so the
interpreter and every compiled backend can be checked against it, and the
dependence vectors are available to brute-force schedule checks.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import sys
from dataclasses import dataclass

from hypothesis import strategies as st

DIMS = ("i", "j", "k")
sys.setrecursionlimit(max(10000, sys.getrecursionlimit()))  # the oracle recurses natively
SEQS = ("s", "t", "u")


INF = float("inf")


class Undefined(Exception):
    """The oracle met ``inf - inf`` or ``0 * inf``: the language's error."""


def plus(a, b):
    """The language's int ``+``: infinities absorb, opposite ones are an error."""
    if a + b != a + b:
        raise Undefined()
    return a + b


def times(a, b):
    if (a == 0 or b == 0) and INF in (abs(a), abs(b)):
        raise Undefined()
    return a * b


def special(text: str, v) -> str:
    """A number as .bio text (the infinities as ``inf``/``-inf``)."""
    return ("inf" if v > 0 else "-inf") if abs(v) == INF else text


@dataclass(frozen=True)
class Term:
    """One operand of a body: a call ``fn(x - delta) * mul + add`` or a symbol test.
    ``add`` and ``mul`` may be infinite (the special values: an infinity, ``inf -
    inf``, ``0 * inf`` are all reachable)."""

    fn: int  # which function (0 or 1)
    delta: tuple[int, ...]
    add: int | float
    # one more addend: () none, ("div", dim, c, q): div(x_dim - c, q) (floored, so
    # negative numerators matter), ("w", dim, helper): w[x_dim % len(w)] (the array
    # constant; read through the helper function wv where ``helper``)
    extra: tuple = ()
    mul: int | float = 1  # the call's factor (0, 2 or inf reach 0 * inf)


@dataclass(frozen=True)
class Func:
    base: tuple[int, ...]  # base value = base[0] + sum(base[1+k] * x_k)
    terms: tuple[Term, ...]
    ops: tuple[str, ...]  # between terms: "max", "min", "+"
    match_bonus: int  # added when s[i-1] == t[j-1] (2-D and up); 0 for none
    extra_guard: tuple[int, int] | None  # (dim, value): x_dim == value -> constant
    code_bonus: bool = False  # the match bonus adds code(s[i - 1]) (A=0 .. T=3)
    floor: int | None = None  # the body is ``(...) max floor`` (local alignment's 0)


@dataclass(frozen=True)
class Recurrence:
    ndim: int
    funcs: tuple[Func, ...]
    schedule: tuple[int, ...]  # a legal schedule by construction
    weights: tuple[int, ...] = ()  # const w = [...], read by ("w", dim) extras

    @property
    def vectors(self) -> list[tuple[int, int, tuple[int, ...]]]:
        """(caller, callee, delta) for every call."""
        return [(f, t.fn, t.delta) for f, fn in enumerate(self.funcs) for t in fn.terms]

    def margins(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        lo = [0] * self.ndim
        hi = [0] * self.ndim
        for _, _, d in self.vectors:
            for k, c in enumerate(d):
                lo[k] = max(lo[k], c)
                hi[k] = max(hi[k], -c)
        return tuple(lo), tuple(hi)

    # ------------------------------------------------------------ .bio text
    def source(self) -> str:
        dims, seqs = DIMS[: self.ndim], SEQS[: self.ndim]
        params = ", ".join(f"seq[dna] {s}, index[{s}] {d}" for s, d in zip(seqs, dims))
        lo, hi = self.margins()
        outside = [f"{d} < {m}" for d, m in zip(dims, lo) if m] + \
                  [f"{d} > len({s}) - {m}" for d, s, m in zip(dims, seqs, hi) if m]
        lines = [f"const w = [{', '.join(map(str, self.weights))}]",
                 "int wv(int k) = w[k % len(w)]", ""] if self.weights else []
        for n, fn in enumerate(self.funcs):
            lines.append(f"int f{n}({params})")
            base = " + ".join([special(str(fn.base[0]), fn.base[0])] +
                              [f"{c} * {d}" for c, d in zip(fn.base[1:], dims) if c])
            if outside:
                lines.append(f"  | {' or '.join(outside)} = {base}")
            if fn.extra_guard is not None:
                d, v = fn.extra_guard
                lines.append(f"  | {dims[d]} == {v} = {v + 1}")
            body = self._term(fn.terms[0], dims)
            for op, t in zip(fn.ops, fn.terms[1:]):
                body = f"({body}) {op} ({self._term(t, dims)})"
            if fn.match_bonus and self.ndim >= 2:
                bonus = f"{fn.match_bonus} + code(s[{dims[0]} - 1])" if fn.code_bonus \
                    else str(fn.match_bonus)
                body = (f"({body}) + (if {dims[0]} > 0 and {dims[1]} > 0 and "
                        f"s[{dims[0]} - 1] == t[{dims[1]} - 1] then {bonus} else 0)")
            if fn.floor is not None:
                body = f"({body}) max {fn.floor}"
            lines.append(f"  | otherwise = {body}")
            lines.append("")
        return "\n".join(lines)

    @staticmethod
    def _term(t: Term, dims) -> str:
        args = ", ".join(d if c == 0 else f"{d} - {c}" if c > 0 else f"{d} + {-c}"
                         for d, c in zip(dims, t.delta))
        out = f"f{t.fn}({args})"
        if t.mul != 1:
            out = f"{out} * {special(str(t.mul), t.mul)}"
        if t.add:
            out = f"{out} + {special(str(t.add), t.add)}"
        if t.extra and t.extra[0] == "div":
            _, d, c, q = t.extra
            out += f" + div({dims[d]} - {c}, {q})"
        elif t.extra and t.extra[2:] == (True,):  # through a helper function reading w
            out += f" + wv({dims[t.extra[1]]})"
        elif t.extra:
            out += f" + w[{dims[t.extra[1]]} % len(w)]"
        return out

    def _extra(self, t: Term, x: tuple[int, ...]) -> int:
        """The value of a term's extra addend at point ``x`` (Python's // and %
        are floored, as the language's div and % are)."""
        if not t.extra or t.extra[0] == "div":
            return _div_extra(t, x)
        return self.weights[x[t.extra[1]] % len(self.weights)]

    # ------------------------------------------------------------ meaning
    def evaluate(self, seqs: tuple[str, ...], point: tuple[int, ...], fn: int = 0) -> int:
        """Direct memoised recursion: the independent meaning of the program."""
        lo, hi = self.margins()
        lens = tuple(len(s) for s in seqs)

        @functools.cache
        def f(n: int, x: tuple[int, ...]) -> int:
            func = self.funcs[n]
            if any(x[k] < lo[k] or x[k] > lens[k] - hi[k] for k in range(self.ndim)):
                return plus(func.base[0], sum(c * v for c, v in zip(func.base[1:], x)))
            if func.extra_guard is not None and x[func.extra_guard[0]] == func.extra_guard[1]:
                return func.extra_guard[1] + 1
            vals = [f(t.fn, tuple(a - b for a, b in zip(x, t.delta))) for t in func.terms]
            vals = [plus(plus(times(v, t.mul) if t.mul != 1 else v, t.add), self._extra(t, x))
                    for v, t in zip(vals, func.terms)]
            acc = vals[0]
            for op, v in zip(func.ops, vals[1:]):
                acc = max(acc, v) if op == "max" else min(acc, v) if op == "min" else plus(acc, v)
            if func.match_bonus and self.ndim >= 2 and x[0] > 0 and x[1] > 0 \
                    and seqs[0][x[0] - 1] == seqs[1][x[1] - 1]:
                bonus = func.match_bonus
                if func.code_bonus:
                    bonus += "ACGT".index(seqs[0][x[0] - 1])
                acc = plus(acc, bonus)
            return acc if func.floor is None else max(acc, func.floor)

        return f(fn, tuple(point))


def numbers(lo: int, hi: int, specials: bool):
    """Small ints, and (``specials``) now and then an infinity."""
    plain = st.integers(lo, hi)
    if not specials:
        return plain
    return st.one_of(plain, plain, plain, plain, plain, st.sampled_from([INF, -INF]))


def factors(specials: bool):
    """What a call is multiplied by: mostly 1; 0, 2 and inf reach ``0 * inf``."""
    if not specials:
        return st.just(1)
    return st.sampled_from([1, 1, 1, 1, 1, 1, 0, 2, INF])


@st.composite
def recurrences(draw, max_dim: int = 3, mutual: bool = True, min_dim: int = 1,
                layered: bool = False, specials: bool = True) -> Recurrence:
    """A random recurrence. ``layered``: two functions may also form two groups,
    ``f1`` recursive on its own and ``f0`` reading ``f1``'s table (swept first)
    besides its own. ``specials`` draws infinities too (bases, added terms and
    factors), so that ``inf - inf`` and ``0 * inf`` happen: every backend must then
    give the interpreter's error."""
    ndim = draw(st.integers(min_dim, max_dim))
    h = tuple(draw(st.lists(st.integers(-2, 2), min_size=ndim, max_size=ndim)
                   .filter(lambda v: any(v))))
    candidates = [d for d in itertools.product(range(-2, 3), repeat=ndim)
                  if sum(a * b for a, b in zip(h, d)) >= 1]
    nfuncs = 2 if mutual and draw(st.booleans()) else 1
    two_groups = nfuncs == 2 and layered and draw(st.booleans())
    weights = tuple(draw(st.lists(st.integers(-5, 5), min_size=1, max_size=4))) \
        if draw(st.integers(0, 3)) == 0 else ()
    extras = [()] * 4 + [("div",)] + ([("w",)] if weights else [])
    funcs = []
    for n in range(nfuncs):
        nterms = draw(st.integers(2 if two_groups and n == 0 else 1, 3))
        terms = []
        for _ in range(nterms):
            callee = 1 if two_groups and n == 1 else draw(st.integers(0, nfuncs - 1))
            extra = draw(st.sampled_from(extras))
            if extra == ("div",):
                extra = ("div", draw(st.integers(0, ndim - 1)), draw(st.integers(0, 4)),
                         draw(st.sampled_from([-3, -2, 2, 3])))
            elif extra == ("w",):  # read in the body, or through a helper function
                extra = ("w", draw(st.integers(0, ndim - 1)), draw(st.booleans()))
            terms.append(Term(callee, draw(st.sampled_from(candidates)),
                              draw(numbers(-2, 3, specials)), extra, draw(factors(specials))))
        if nfuncs == 2 and not any(t.fn != n for t in terms) and not (two_groups and n == 1):
            terms[0] = dataclasses.replace(terms[0], fn=1 - n)
        if two_groups and n == 0 and not any(t.fn == 0 for t in terms):
            terms[-1] = dataclasses.replace(terms[-1], fn=0)  # a table
        ops = tuple(draw(st.sampled_from(["max", "min", "max", "+"])) if k == 0 else
                    draw(st.sampled_from(["max", "min"])) for k in range(nterms - 1))
        base = (draw(numbers(-3, 3, specials)),) + \
            tuple(draw(st.lists(st.integers(-3, 3), min_size=ndim, max_size=ndim)))
        guard = None
        if draw(st.booleans()):
            guard = (draw(st.integers(0, ndim - 1)), draw(st.integers(0, 3)))
        funcs.append(Func(base, tuple(terms), ops, draw(st.integers(0, 2)), guard,
                          draw(st.booleans())))
    return Recurrence(ndim, tuple(funcs), h, weights)


BIG_STEP = 3000  # a step that takes a floored recurrence to int16's ceiling in a few cells


@st.composite
def floored_recurrences(draw, max_dim: int = 2) -> Recurrence:
    """A recurrence of the class emit.narrow runs in int16 lanes: every body
    ``(...) max floor``, constant bases (an infinity now and then), terms adding
    small literals to one call each (no coordinates or model values as values).
    Some terms add :data:`BIG_STEP`, so that a few cells reach the ceiling and the
    task is recomputed wider; a ``+inf`` base is stored as the type's extreme and
    recomputed too; a ``-inf`` base with a positive step added keeps float32."""
    rec = draw(recurrences(max_dim=max_dim, min_dim=min(2, max_dim), specials=False))
    funcs = []
    for fn in rec.funcs:
        terms = tuple(dataclasses.replace(
            t, extra=(), mul=1,
            add=draw(st.sampled_from([-2, -1, 0, 1, 3, BIG_STEP]))) for t in fn.terms)
        base = (draw(st.sampled_from([0, 0, 1, -2, INF, -INF])),) + (0,) * rec.ndim
        funcs.append(dataclasses.replace(
            fn, terms=terms, base=base, code_bonus=False,
            ops=tuple("max" if op == "+" else op for op in fn.ops),
            floor=draw(st.sampled_from([0, 0, 1, -3]))))
    return dataclasses.replace(rec, funcs=tuple(funcs), weights=())


def dna(max_len: int = 6, min_len: int = 0):
    return st.text(alphabet="ACGT", min_size=min_len, max_size=max_len)


def check_map(engine_of, rec: Recurrence, data, max_len: int, tasks: int = 3) -> None:
    """A map of ``f0`` over ``tasks`` random sequence tuples on the engine
    ``engine_of(program)`` builds equals the recurrence's own meaning."""
    import dslc
    from dslc.runtime.binding import bind_value

    prog = dslc.compile(rec.source(), backend="interp")
    engine = engine_of(prog)
    f = prog.checked.functions["f0"]
    batches = [tuple(data.draw(dna(max_len)) for _ in range(rec.ndim)) for _ in range(tasks)]
    bound = [{p.name: bind_value(s, p.type, prog.checked, None)
              for p, s in zip(f.calling_params, seqs)} for seqs in batches]
    same_outcome(lambda: engine.map("f0", bound, None),
                 lambda: [rec.evaluate(seqs, tuple(len(s) for s in seqs)) for seqs in batches],
                 rec.source())


def same_outcome(run, oracle, context=""):
    """The backend's ``run()`` equals the ``oracle()``, or both fail: the oracle
    with :class:`Undefined`, the backend with the language's error."""
    import pytest

    from dslc.errors import DslcError

    try:
        want = oracle()
    except Undefined:
        with pytest.raises(DslcError, match="undefined arithmetic"):
            run()
        return
    got = run()
    assert got == want, context


def whole_table(rec: Recurrence, seqs) -> dict:
    """The oracle's value of every cell (raises Undefined if any cell is undefined)."""
    return {p: rec.evaluate(seqs, p) for p in itertools.product(*(range(len(s) + 1)
                                                                  for s in seqs))}


# --------------------------------------------------------------------------- declared int ranges
@dataclass(frozen=True)
class Bound:
    """An affine bound of a declared range: ``const + n_coef * n + sum(dims[k] * x_k)``
    over the calling ``n`` and the dimensions declared before it."""

    const: int
    n_coef: int = 0
    dims: tuple[int, ...] = ()

    def value(self, n: int, x: tuple[int, ...]) -> int:
        return self.const + self.n_coef * n + sum(c * v for c, v in zip(self.dims, x))

    def text(self, names: tuple[str, ...]) -> str:
        """The bound over ``names`` (texts of the earlier dimensions, parenthesised
        where they are sums)."""
        parts = [(self.n_coef, "n")] + list(zip(self.dims, names))
        out = ""
        for c, v in parts:
            if not c:
                continue
            term = v if abs(c) == 1 else f"{abs(c)} * {v}"
            out = (f"{out} + {term}" if c > 0 else f"{out} - {term}") if out else \
                (term if c > 0 else f"-{term}")
        if not out:
            return str(self.const)
        return f"{out} + {self.const}" if self.const > 0 else \
            f"{out} - {-self.const}" if self.const < 0 else out


# The shapes of a declared domain: (lo, hi) per dimension. Each upper bound of the
# first dimension is the calling ``n``; the others make boxes, triangles (the
# number triangle's ``c in 0 ... r``, matrix chain's ``j in i ... n``), a bound mixing
# ``n`` with a recursive parameter (``0 ... n - i``) and a band around the diagonal.
RANGE_SHAPES = {
    "line": ((Bound(1), Bound(0, 1)),),
    "box": ((Bound(0), Bound(0, 1)), (Bound(1), Bound(0, 1))),
    "triangle": ((Bound(0), Bound(0, 1)), (Bound(0), Bound(0, 0, (1,)))),
    "upper": ((Bound(1), Bound(0, 1)), (Bound(0, 0, (1,)), Bound(0, 1))),
    "mixed": ((Bound(0), Bound(0, 1)), (Bound(0), Bound(0, 1, (-1,)))),
    "band": ((Bound(0), Bound(0, 1)), (Bound(-1, 0, (1,)), Bound(1, 0, (1,)))),
}


@dataclass(frozen=True)
class RangedRecurrence:
    """A recurrence over the declared ``int`` ranges of one of :data:`RANGE_SHAPES`,
    called with ``const n``. A cell whose calls would leave the domain is a base
    case (so every call stays inside and the functions are defined everywhere in
    it); the other cells combine their calls as :class:`Recurrence` does."""

    shape: str
    funcs: tuple[Func, ...]
    schedule: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(RANGE_SHAPES[self.shape])

    def inside(self, n: int, x: tuple[int, ...]) -> bool:
        return all(max(0, lo.value(n, x)) <= x[k] <= hi.value(n, x)
                   for k, (lo, hi) in enumerate(RANGE_SHAPES[self.shape]))

    def points(self, n: int) -> list[tuple[int, ...]]:
        """Every point of the domain (from a box wide enough for every shape)."""
        return [x for x in itertools.product(range(n + 2), repeat=self.ndim)
                if self.inside(n, x)]

    # ------------------------------------------------------------ .bio text
    def source(self) -> str:
        dims = DIMS[: self.ndim]
        params = ", ".join(["const n"] + [
            f"int {d} in {lo.text(dims[:k])} ... {hi.text(dims[:k])}"
            for k, (d, (lo, hi)) in enumerate(zip(dims, RANGE_SHAPES[self.shape]))])
        lines = []
        for n, fn in enumerate(self.funcs):
            lines.append(f"int f{n}({params})")
            base = " + ".join([str(fn.base[0])] + [f"{c} * {d}" for c, d in zip(fn.base[1:], dims)
                                                     if c])
            leaves = sorted({t.delta for t in fn.terms})
            lines.append(f"  | {' or '.join(self._leaves(d, dims) for d in leaves)} = {base}")
            if fn.extra_guard is not None:
                d, v = fn.extra_guard
                lines.append(f"  | {dims[d]} == {v} = {v + 1}")
            body = Recurrence._term(fn.terms[0], dims)
            for op, t in zip(fn.ops, fn.terms[1:]):
                body = f"({body}) {op} ({Recurrence._term(t, dims)})"
            if fn.floor is not None:
                body = f"({body}) max {fn.floor}"
            lines.append(f"  | otherwise = {body}")
            lines.append("")
        return "\n".join(lines)

    def _leaves(self, delta: tuple[int, ...], dims) -> str:
        """``x - delta`` is outside the domain, as a .bio condition."""
        at = tuple(d if c == 0 else f"({d} - {c})" if c > 0 else f"({d} + {-c})"
                   for d, c in zip(dims, delta))
        out = []
        for k, (lo, hi) in enumerate(RANGE_SHAPES[self.shape]):
            out.append(f"{at[k]} < 0")
            if lo != Bound(0):
                out.append(f"{at[k]} < {lo.text(at[:k])}")
            out.append(f"{at[k]} > {hi.text(at[:k])}")
        return " or ".join(out)

    # ------------------------------------------------------------ meaning
    def evaluate(self, n: int, point: tuple[int, ...], fn: int = 0) -> int:
        """Direct memoised recursion over the domain (independent of dslc)."""
        @functools.cache
        def f(m: int, x: tuple[int, ...]) -> int:
            func = self.funcs[m]
            targets = [tuple(a - b for a, b in zip(x, t.delta)) for t in func.terms]
            if not all(self.inside(n, y) for y in targets):
                return func.base[0] + sum(c * v for c, v in zip(func.base[1:], x))
            if func.extra_guard is not None and x[func.extra_guard[0]] == func.extra_guard[1]:
                return func.extra_guard[1] + 1
            vals = [f(t.fn, y) + t.add + _div_extra(t, x) for t, y in zip(func.terms, targets)]
            acc = vals[0]
            for op, v in zip(func.ops, vals[1:]):
                acc = max(acc, v) if op == "max" else min(acc, v) if op == "min" else acc + v
            return acc

        return f(fn, tuple(point))


@st.composite
def ranged_recurrences(draw, shapes=tuple(RANGE_SHAPES), mutual: bool = True,
                       checked_ops: bool = True) -> RangedRecurrence:
    """``checked_ops=False`` leaves out the ``div`` addend, whose run-time check keeps a
    program off the whole-GPU path (which cannot report a failed check)."""
    shape = draw(st.sampled_from(shapes))
    ndim = len(RANGE_SHAPES[shape])
    rec = draw(recurrences(max_dim=ndim, mutual=mutual, min_dim=ndim, specials=False))
    # ranged programs declare no array constant: a term's `w[...]` addend is dropped, `div` kept
    funcs = tuple(Func(f.base, tuple(t if not t.extra or (t.extra[0] == "div" and checked_ops)
                                     else Term(t.fn, t.delta, t.add) for t in f.terms),
                       f.ops, 0, f.extra_guard) for f in rec.funcs)
    return RangedRecurrence(shape, funcs, rec.schedule)


def _div_extra(t: Term, x: tuple[int, ...]) -> int:
    """A term's ``div`` addend at ``x`` (Python's // floors, as the language's div does)."""
    if not t.extra or t.extra[0] != "div":
        return 0
    _, d, c, q = t.extra
    return (x[d] - c) // q


def check_ranged(rec: RangedRecurrence, n: int, backend: str):
    """On ``backend``: the whole table of ``f0`` (cells outside the declared ranges
    empty), one cell inside and one call outside equal the interpreter's and the
    recurrence's own meaning. Returns the program (its engine says what compiled)."""
    import numpy as np

    import dslc
    from dslc.errors import DslcError

    src = rec.source()
    prog = dslc.compile(src, backend=backend)
    interp = prog if backend == "interp" else dslc.compile(src, backend="interp")
    got = prog.call("f0", n).values
    assert got.tolist() == interp.call("f0", n).values.tolist(), src
    points = set(rec.points(n))
    assert all(all(x < e for x, e in zip(p, got.shape)) for p in points), (src, got.shape)
    for idx in np.ndindex(got.shape):
        want = rec.evaluate(n, idx) if idx in points else None
        assert got[idx] == want, (src, n, idx)
    if points:
        p = max(points)
        assert prog.call("f0", n, *p) == rec.evaluate(n, p), (src, n, p)
    bad = (n + 1,) + (0,) * (rec.ndim - 1)
    errors = []
    for pr in (prog, interp):
        try:
            pr.call("f0", n, *bad)
        except DslcError as e:
            errors.append(e.message)
    assert len(errors) == 2 and errors[0] == errors[1], errors
    return prog


# --------------------------------------------------------------------------- several groups
#
# Programs of several recursive groups (one function each, over s and t) that read
# each other's tables: a later group reads an earlier one at one cell (its own point,
# a mirrored point, a corner, a point moved by a helper's value) or over a range
# (``max``/``sum`` of a row or column), guards and arguments call a non-recursive
# helper, and the last group may be a float function of a float ``const``. Windows
# chosen for one group but read by another, helper calls in table coordinates and
# float consts are what this covers. ``evaluate`` is the independent meaning.

READS = ("same", "mirror", "corner", "helper", "max_row", "sum_col")
OWN_STEPS = ((1, 0), (0, 1), (1, 1))


@dataclass(frozen=True)
class Stage:
    """One group: ``g{n}(s, i, t, j)`` (with ``const c`` first when ``scale``)."""

    base: tuple[int, int, int]  # value where i < 1 or j < 1: b0 + b1 * i + b2 * j
    own: tuple[tuple[int, int], ...]  # its own calls, steps back
    op: str  # between its own calls: "max", "min" or "+"
    add: int  # added to the first own call (values then change along every call)
    helper_guard: int | None  # | w(i + j) == K = g(i - 1, j) + 1
    read: tuple[int, str] | None  # (earlier group, how), added to the body
    scale: float | None  # a float const c: the body is c * (...) + own, the base c


@dataclass(frozen=True)
class Layered:
    helper: tuple[int, int]  # w(v) = v % M + A
    stages: tuple[Stage, ...]

    def source(self) -> str:
        m, a = self.helper
        lines = [f"int w(int v) = v % {m} + {a}", ""]
        for n, st_ in enumerate(self.stages):
            ret, const = ("float", "const c, ") if st_.scale is not None else ("int", "")
            lines.append(f"{ret} g{n}({const}seq[dna] s, index[s] i, seq[dna] t, index[t] j)")
            b0, b1, b2 = st_.base
            lines.append(f"  | i < 1 or j < 1 = "
                         + ("c" if st_.scale is not None else f"{b0} + {b1} * i + {b2} * j"))
            if st_.helper_guard is not None:
                lines.append(f"  | w(i + j) == {st_.helper_guard} = g{n}(i - 1, j) + 1")
            own = [f"g{n}(i - {di}, j - {dj})" for di, dj in st_.own]
            body = f"{own[0]} + {st_.add}"
            for o in own[1:]:
                body = f"({body}) {st_.op} ({o})"
            if st_.read is not None:
                read = self._read(*st_.read)
                body = f"({body}) + " + (f"c * ({read})" if st_.scale is not None else f"({read})")
            lines.append(f"  | otherwise = {body}")
            lines.append("")
        return "\n".join(lines)

    @staticmethod
    def _read(p: int, how: str) -> str:
        return {"same": f"g{p}(i, j)",
                "mirror": f"g{p}(len(s) - i, j)",
                "corner": f"g{p}(0, len(t))",
                "helper": f"g{p}(i, 0 max (j - w(i)))",
                "max_row": f"max(k in 0 ... j : g{p}(i, k))",
                "sum_col": f"sum(k in 0 ... i : g{p}(k, j))"}[how]

    def calling(self, n: int, s: str, t: str) -> list:
        """The calling arguments of ``g{n}`` (its table)."""
        return ([self.stages[n].scale] if self.stages[n].scale is not None else []) + [s, t]

    def evaluate(self, s: str, t: str, n: int, i: int, j: int):
        """Direct memoised recursion: the independent meaning of the program."""
        m, a = self.helper

        def w(v):
            return v % m + a

        @functools.cache
        def g(k: int, i: int, j: int):
            st_ = self.stages[k]
            if i < 1 or j < 1:
                return st_.scale if st_.scale is not None else \
                    st_.base[0] + st_.base[1] * i + st_.base[2] * j
            if st_.helper_guard is not None and w(i + j) == st_.helper_guard:
                return g(k, i - 1, j) + 1
            vals = [g(k, i - di, j - dj) for di, dj in st_.own]
            acc = vals[0] + st_.add
            for v in vals[1:]:
                acc = max(acc, v) if st_.op == "max" else min(acc, v) if st_.op == "min" \
                    else acc + v
            if st_.read is not None:
                p, how = st_.read
                r = {"same": lambda: g(p, i, j),
                     "mirror": lambda: g(p, len(s) - i, j),
                     "corner": lambda: g(p, 0, len(t)),
                     "helper": lambda: g(p, i, max(0, j - w(i))),
                     "max_row": lambda: max(g(p, i, q) for q in range(j + 1)),
                     "sum_col": lambda: sum(g(p, q, j) for q in range(i + 1))}[how]()
                acc = acc + (st_.scale * r if st_.scale is not None else r)
            return acc

        return g(n, i, j)


@st.composite
def layered(draw, max_stages: int = 3) -> Layered:
    nstages = draw(st.integers(2, max_stages))
    stages = []
    for n in range(nstages):
        own = tuple(draw(st.lists(st.sampled_from(OWN_STEPS), min_size=1, max_size=2)))
        read = None
        if n > 0:
            read = (draw(st.integers(0, n - 1)), draw(st.sampled_from(READS)))
        scale = None
        if n == nstages - 1 and draw(st.booleans()):
            scale = draw(st.sampled_from([0.5, 1.5, 0.25]))
        stages.append(Stage(tuple(draw(st.integers(-2, 2)) for _ in range(3)), own,
                            draw(st.sampled_from(["max", "min", "+"])), draw(st.integers(1, 2)),
                            draw(st.one_of(st.none(), st.integers(1, 3))), read, scale))
    return Layered((draw(st.integers(2, 3)), draw(st.integers(0, 1))), tuple(stages))


def check_layered(lay: Layered, s: str, t: str, backend: str, want=None,
                  every: bool = True) -> None:
    """Each group's table, its final cell and one inner cell, as ``backend``
    computes them, equal ``want(n, i, j)`` (the interpreter's by default). Not
    ``every``: the last group only (it reads the others; fewer compilations)."""
    import dslc

    prog = dslc.compile(lay.source(), backend=backend)
    ref = None if want is not None else dslc.compile(lay.source(), backend="interp")
    for n in range(0 if every else len(lay.stages) - 1, len(lay.stages)):
        args = lay.calling(n, s, t)
        table = prog.call(f"g{n}", *args)
        expect = table if ref is None else ref.call(f"g{n}", *args)
        for i in range(len(s) + 1):
            for j in range(len(t) + 1):
                e = want(n, i, j) if want is not None else expect[i, j]
                assert table[i, j] == e, (lay.source(), s, t, n, i, j)
        for i, j in {(len(s), len(t)), (len(s) // 2, len(t))}:
            e = want(n, i, j) if want is not None else ref.call(f"g{n}", *args, i, j)
            assert prog.call(f"g{n}", *args, i, j) == e, (lay.source(), s, t, n, i, j)
    if ref is not None:  # a map of the last group (kernels on the GPU): each final cell
        n, ss = len(lay.stages) - 1, [s, s[::-1] + "A"]
        ops = lay.calling(n, ss, [t])
        got = prog.map(f"g{n}", *ops).values.ravel().tolist()
        expect = [ref.call(f"g{n}", *lay.calling(n, x, t), len(x), len(t)) for x in ss]
        assert got == expect, (lay.source(), ss, t)


# ---------------------------------------------------------------- data-dependent offsets
@dataclass(frozen=True)
class DataTerm:
    """A call whose offset along ``dim`` depends on data: ``1 + w(x_u + x_v) % M``
    through the helper ``w`` (``source == "helper"``), or ``1 + f(x - e_dim) % M``
    through a value of the table itself (``"table"``, Hofstadter's kind); the
    other dimensions move back by ``delta`` (>= 0)."""

    dim: int
    source: str
    delta: tuple[int, ...]
    add: int


@dataclass(frozen=True)
class DataRecurrence:
    """``int f(int i, ...)`` over int dimensions whose calls move back by
    constant vectors (``terms``, every component >= 0) and by data
    (``data``, one dimension by ``1 .. M``): no affine schedule orders the
    latter in general, so the compiled backends find the order at run time."""

    ndim: int
    modulus: int  # M
    helper: tuple[int, int]  # w(k) = (a * k + b) % M
    base: tuple[int, ...]
    terms: tuple[Term, ...]
    data: tuple[DataTerm, ...]
    ops: tuple[str, ...]
    point: tuple[int, ...]  # the cell the program prints
    # dimensions declared ``decreasing`` (every call passes them on or moves them back,
    # so the declaration holds): the compiled backends then schedule them affinely
    declared: tuple[int, ...] = ()

    @property
    def low(self) -> int:
        """Below this in any dimension a cell is a base case: every call stays
        inside the domain (constant steps are at most 2, data steps at most M)."""
        return max(self.modulus, 2)

    def source(self) -> str:
        dims = DIMS[: self.ndim]
        m, (a, b) = self.modulus, self.helper
        lines = [f"int w(int k) = ({a} * k + {b}) % {m}", ""]
        params = (f"int {d}" + (" decreasing" if k in self.declared else "")
                  for k, d in enumerate(dims))
        lines.append(f"int f0({', '.join(params)})")
        base = " + ".join([str(self.base[0])] + [f"{c} * {d}" for c, d in zip(self.base[1:], dims)
                                                 if c])
        low = self.low
        lines.append(f"  | {' or '.join(f'{d} < {low}' for d in dims)} = {base}")
        parts = [Recurrence._term(t, dims) for t in self.terms] + \
                [self._data(t, dims) for t in self.data]
        body = parts[0]
        for op, p in zip(self.ops, parts[1:]):
            body = f"({body}) {op} ({p})"
        lines.append(f"  | otherwise = {body}")
        lines += ["", f"print f0({', '.join(map(str, self.point))})", ""]
        return "\n".join(lines)

    def _data(self, t: DataTerm, dims) -> str:
        m = self.modulus
        if t.source == "helper":
            back = f"(1 + w({' + '.join(dims)}))"
        else:
            inner = ", ".join(f"{d} - 1" if k == t.dim else d for k, d in enumerate(dims))
            back = f"(1 + f0({inner}) % {m})"
        args = ", ".join(f"{d} - {back}" if k == t.dim else d if t.delta[k] == 0
                         else f"{d} - {t.delta[k]}" for k, d in enumerate(dims))
        return f"f0({args}) + {t.add}" if t.add else f"f0({args})"

    def evaluate(self) -> int:
        """Direct memoised recursion (the independent meaning)."""
        m, (a, b) = self.modulus, self.helper

        @functools.cache
        def f(x: tuple[int, ...]) -> int:
            if any(v < self.low for v in x):
                return self.base[0] + sum(c * v for c, v in zip(self.base[1:], x))
            vals = [f(tuple(v - d for v, d in zip(x, t.delta))) + t.add for t in self.terms]
            for t in self.data:
                if t.source == "helper":
                    back = 1 + (a * sum(x) + b) % m
                else:
                    back = 1 + f(tuple(v - (k == t.dim) for k, v in enumerate(x))) % m
                vals.append(f(tuple(v - back if k == t.dim else v - t.delta[k]
                                    for k, v in enumerate(x))) + t.add)
            acc = vals[0]
            for op, v in zip(self.ops, vals[1:]):
                acc = max(acc, v) if op == "max" else min(acc, v) if op == "min" else acc + v
            return acc

        return f(self.point)


@st.composite
def data_recurrences(draw, max_dim: int = 2) -> DataRecurrence:
    """Recurrences with at least one call whose offset depends on data."""
    ndim = draw(st.integers(1, max_dim))
    m = draw(st.integers(1, 3))
    vectors = [d for d in itertools.product(range(0, 3), repeat=ndim) if any(d)]
    terms = tuple(Term(0, draw(st.sampled_from(vectors)), draw(st.integers(-2, 3)))
                  for _ in range(draw(st.integers(0, 2))))
    data = tuple(DataTerm(dim, draw(st.sampled_from(["helper", "table"])),
                          tuple(0 if k == dim else draw(st.integers(0, 1)) for k in range(ndim)),
                          draw(st.integers(-2, 3)))
                 for dim in (draw(st.integers(0, ndim - 1))
                             for _ in range(draw(st.integers(1, 2)))))
    n = len(terms) + len(data)
    ops = tuple(draw(st.sampled_from(["max", "min", "+"])) if k == 0 else
                draw(st.sampled_from(["max", "min"])) for k in range(n - 1))
    return DataRecurrence(
        ndim, m, (draw(st.integers(1, 5)), draw(st.integers(0, 4))),
        tuple(draw(st.lists(st.integers(-3, 3), min_size=ndim + 1, max_size=ndim + 1))),
        terms, data, ops,
        tuple(draw(st.lists(st.integers(0, 9 if ndim == 2 else 30), min_size=ndim,
                            max_size=ndim))),
        tuple(k for k in range(ndim) if draw(st.booleans())))


# --------------------------------------------------------------------------- tracebacks
def check_derivation(rec: Recurrence, seqs: tuple[str, ...], point: tuple[int, ...]) -> None:
    """The traceback of ``f0`` at ``point`` (dslc.trace) against the generator's
    meaning: every step's value is the oracle's value of its cell, every child is a
    cell one of its function's terms calls, a step without children is a base case,
    and each step's value recomputed from the derivation alone (its children's
    recomputed values through the alternatives it took) is the cell's value."""
    import pytest

    import dslc
    from dslc.errors import DslcError

    prog = dslc.compile(rec.source(), backend="interp")
    args = [x for s, p in zip(seqs, point) for x in (s, p)]
    try:
        want = rec.evaluate(seqs, point)
    except Undefined:
        with pytest.raises(DslcError, match="undefined arithmetic"):
            prog.trace("f0", *args)
        return
    d = prog.trace("f0", *args)
    assert (d.root.point, d.value) == (point, want), rec.source()
    guards = {f"f{n}": len(prog.checked.functions[f"f{n}"].guards) for n in range(len(rec.funcs))}
    for step in d.steps:
        n = int(step.func[1:])
        assert step.value == rec.evaluate(seqs, step.point, n), (rec.source(), step)
        calls = {(f"f{t.fn}", tuple(a - b for a, b in zip(step.point, t.delta)))
                 for t in rec.funcs[n].terms}
        kids = {(d.steps[c].func, d.steps[c].point) for c in step.children}
        assert kids <= calls, (rec.source(), step)
        if not step.children:
            assert step.choices[0].index < guards[step.func] - 1, (rec.source(), step)
    assert d.recompute() == [s.value for s in d.steps], rec.source()


# --------------------------------------------------------------------------- tuple values
@dataclass(frozen=True)
class TupleRecurrence:
    """A random recurrence over ``(score, count)`` tuples (docs/language.md, "Tuples"),
    drawn from a scalar :class:`Recurrence`'s calls, bases and guards: each function
    combines its terms ``f(x - d) + (add, 0)`` (``rot``: ``(f(x - d)[1], f(x - d)[0] +
    add)``) with tuple ``+``, lexicographic ``max``/``min`` or (mode ``choose``) a
    choice helper over tuple parameters that keeps the better score and adds the
    counts on a tie, then adds a tuple reduction (``max``/``min``/``sum`` over ``v in
    lo ... x``, empty where ``lo`` is 1 at ``x == 0``) and, in two dimensions, an
    ``if`` on tuples. Its meaning is computed directly in Python below."""

    rec: Recurrence
    modes: tuple[str, ...]  # per function: "lex" (max/min operators) or "choose"
    reductions: tuple  # per function: () or (op, lo, coefficient)
    rot: tuple[bool, ...]  # per function: its first term swaps the callee's components

    def source(self) -> str:
        r = self.rec
        dims, seqs = DIMS[: r.ndim], SEQS[: r.ndim]
        params = ", ".join(f"seq[dna] {s}, index[{s}] {d}" for s, d in zip(seqs, dims))
        lo, hi = r.margins()
        outside = [f"{d} < {m}" for d, m in zip(dims, lo) if m] + \
                  [f"{d} > len({s}) - {m}" for d, s, m in zip(dims, seqs, hi) if m]
        lines = []
        for op, cmp in (("max", ">"), ("min", "<")):
            lines += [f"tuple[int, int] choose_{op}(tuple[int, int] a, tuple[int, int] b)",
                      f"  | a[0] {cmp} b[0] = a", f"  | b[0] {cmp} a[0] = b",
                      "  | otherwise = (a[0], a[1] + b[1])", ""]
        for n, fn in enumerate(r.funcs):
            lines.append(f"tuple[int, int] f{n}({params})")
            base = " + ".join([str(fn.base[0])] +
                              [f"{c} * {d}" for c, d in zip(fn.base[1:], dims) if c])
            if outside:
                lines.append(f"  | {' or '.join(outside)} = ({base}, 1)")
            if fn.extra_guard is not None:
                d, v = fn.extra_guard
                lines.append(f"  | {dims[d]} == {v} = ({v + 1}, {v})")
            terms = [self._term(n, k, t, dims) for k, t in enumerate(fn.terms)]
            body = terms[0]
            for op, t in zip(fn.ops, terms[1:]):
                if op == "+" or self.modes[n] == "lex":
                    body = f"({body}) {op} ({t})"
                else:
                    body = f"choose_{op}({body}, {t})"
            if self.reductions[n]:
                op, start, c = self.reductions[n]
                body = f"({body}) + {op}(v in {start} ... {dims[0]} : (v * {c} % 5, 1))"
            if fn.match_bonus and r.ndim >= 2:
                body = (f"({body}) + (if {dims[0]} > 0 and {dims[1]} > 0 and "
                        f"s[{dims[0]} - 1] == t[{dims[1]} - 1] then ({fn.match_bonus}, 0) "
                        "else (0, 0))")
            if fn.floor is not None:
                body = f"({body}) max {fn.floor}"
            lines.append(f"  | otherwise = {body}")
            lines.append("")
        return "\n".join(lines)

    def _term(self, n: int, k: int, t: Term, dims) -> str:
        args = ", ".join(d if c == 0 else f"{d} - {c}" if c > 0 else f"{d} + {-c}"
                         for d, c in zip(dims, t.delta))
        call = f"f{t.fn}({args})"
        if k == 0 and self.rot[n]:
            return f"({call}[1], {call}[0] + {t.add})"
        return f"{call} + ({t.add}, 0)"

    def evaluate(self, seqs: tuple[str, ...], point: tuple[int, ...], fn: int = 0) -> tuple:
        """Direct memoised recursion over Python tuples (whose max and min are the
        language's lexicographic ones)."""
        r = self.rec
        lo, hi = r.margins()
        lens = tuple(len(s) for s in seqs)

        def add(a, b):
            return tuple(plus(x, y) for x, y in zip(a, b))

        def choose(op, a, b):
            if (a[0] > b[0]) if op == "max" else (a[0] < b[0]):
                return a
            if (b[0] > a[0]) if op == "max" else (b[0] < a[0]):
                return b
            return a[0], plus(a[1], b[1])

        def reduction(op, start, c, x0):
            items = [(v * c % 5, 1) for v in range(start, x0 + 1)]
            if op == "sum":
                return functools.reduce(add, items, (0, 0))
            empty = (-INF, -INF) if op == "max" else (INF, INF)
            return functools.reduce(max if op == "max" else min, items, empty)

        @functools.cache
        def f(n: int, x: tuple[int, ...]) -> tuple:
            func = r.funcs[n]
            if any(x[k] < lo[k] or x[k] > lens[k] - hi[k] for k in range(r.ndim)):
                return func.base[0] + sum(c * v for c, v in zip(func.base[1:], x)), 1
            if func.extra_guard is not None and x[func.extra_guard[0]] == func.extra_guard[1]:
                return func.extra_guard[1] + 1, func.extra_guard[1]
            vals = []
            for k, t in enumerate(func.terms):
                g = f(t.fn, tuple(a - b for a, b in zip(x, t.delta)))
                vals.append((g[1], plus(g[0], t.add)) if k == 0 and self.rot[n]
                            else add(g, (t.add, 0)))
            acc = vals[0]
            for op, v in zip(func.ops, vals[1:]):
                if op == "+":
                    acc = add(acc, v)
                elif self.modes[n] == "lex":
                    acc = max(acc, v) if op == "max" else min(acc, v)
                else:
                    acc = choose(op, acc, v)
            if self.reductions[n]:
                acc = add(acc, reduction(*self.reductions[n], x[0]))
            if func.match_bonus and r.ndim >= 2 and x[0] > 0 and x[1] > 0 \
                    and seqs[0][x[0] - 1] == seqs[1][x[1] - 1]:
                acc = add(acc, (func.match_bonus, 0))
            return acc

        return f(fn, tuple(point))


@st.composite
def tuple_recurrences(draw, max_dim: int = 2) -> TupleRecurrence:
    """A random :class:`TupleRecurrence` (finite scalar parts: the infinities come
    from the tuple reductions, an empty ``max`` or ``min``)."""
    rec = draw(recurrences(max_dim=max_dim, specials=False))
    rec = dataclasses.replace(rec, weights=(), funcs=tuple(
        dataclasses.replace(fn, terms=tuple(dataclasses.replace(t, extra=()) for t in fn.terms))
        for fn in rec.funcs))
    n = len(rec.funcs)
    reduction = st.one_of(st.just(()), st.tuples(st.sampled_from(["max", "min", "sum"]),
                                                 st.integers(0, 1), st.integers(1, 3)))
    return TupleRecurrence(rec, tuple(draw(st.sampled_from(["lex", "choose"])) for _ in range(n)),
                           tuple(draw(reduction) for _ in range(n)),
                           tuple(draw(st.booleans()) for _ in range(n)))


# --------------------------------------------------------------------------- math built-ins
# Arguments at the edges of the functions of one number (lang.builtins): below, at and
# above the ends of their domains, where numpy quietly gives NaN or inf but the
# language reports "f(x) is not defined" (the interpreter's math functions raise).
MATH_ARGUMENTS = (-2.5, -1.0, -0.0, 0.0, 1e-300, 0.5, 1.0, 2.0, 709.782712893384,
                  709.7827128933841, 710.0, 1e308, INF, -INF)


@dataclass(frozen=True)
class MathCall:
    """``g(a, 3)`` of a table whose first cell applies built-in ``fn`` to ``a``: the
    argument is the table's calling value, so one compiled module serves every
    argument drawn for a function."""

    fn: str
    arg: float

    def source(self) -> str:
        text = repr(self.arg) if abs(self.arg) != INF else ("inf" if self.arg > 0 else "-inf")
        return (f"float g(float a, int n)\n"
                f"  | n == 0 = {self.fn}(a)\n"
                f"  | otherwise = g(a, n - 1) max -1.0\n"
                f"print g({text}, 3)\n")


@st.composite
def math_calls(draw) -> MathCall:
    """Every function of lang.builtins.MATH (a new entry is drawn as soon as it is
    added) at the edges of its domain."""
    from dslc.lang.builtins import MATH

    return MathCall(draw(st.sampled_from([b.name for b in MATH])),
                    draw(st.sampled_from(MATH_ARGUMENTS)))


def outcome(src: str, backend: str):
    """The printed values of ``src`` on ``backend``, or the language's error message."""
    import dslc
    from dslc.errors import DslcError

    try:
        return list(dslc.compile(src, backend=backend).run().values())
    except DslcError as e:
        return ("error", e.message)


def strict_outcome(src: str, backend: str):
    """:func:`outcome` with ``DSLC_STRICT_COMPILE=1`` on a compiled backend: any part
    of ``src`` left to the interpreter is an error rather than a quiet fall-back, so
    a test that compares it also shows the program was compiled whole."""
    from dslc import settings as dslc_settings

    if backend == "interp":
        return outcome(src, backend)
    dslc_settings.use({"DSLC_STRICT_COMPILE": "1"})
    try:
        return outcome(src, backend)
    finally:
        dslc_settings._OPTIONS.pop("DSLC_STRICT_COMPILE", None)


# --------------------------------------------------------------------------- ints near 2^53
INT64 = 2**63


class Overflow(Exception):
    """The oracle met an int beyond 64 bits: the language's overflow error."""


def _fits(v: int) -> int:
    if not -INT64 <= v < INT64:
        raise Overflow()
    return v


# large numbers where float64 rounds (past 2^53) or where a product passes it
BIG_NUMBERS = (0, 1, 3, 97, 2**26 + 1, 999999937, 1000000007, 2**31 - 1, 2**52 + 1,
               2**53 - 1, 2**53 + 1, 2**60 - 1, 9223372036854775000)
MODULI = (97, 1000000007, 2**31 - 1, 2**53 + 5)


@dataclass(frozen=True)
class BigTerm:
    """``f(i - di, j - dj) * mul + add``."""

    delta: tuple[int, int]
    mul: int
    add: int


@dataclass(frozen=True)
class BigRecurrence:
    """A 2-D int recurrence whose values pass 2^53 (products, large literals,
    cancellation, ``%`` bringing a value back into range): compiled code holds
    ints as float64, so each backend must give the exact value the interpreter
    gives, or the interpreter's overflow error."""

    base: int
    terms: tuple[BigTerm, ...]
    op: str  # between the two terms: "+", "-", "max" or "min"
    modulus: int | None

    def source(self) -> str:
        def term(t: BigTerm) -> str:
            a = ", ".join(d if c == 0 else f"{d} - {c}" for d, c in zip("ij", t.delta))
            return f"f0({a}) * {t.mul} + {t.add}"

        body = f"({term(self.terms[0])}) {self.op} ({term(self.terms[1])})"
        if self.modulus is not None:
            body = f"({body}) % {self.modulus}"
        return ("int f0(seq[dna] s, index[s] i, seq[dna] t, index[t] j)\n"
                f"  | i == 0 or j == 0 = {self.base} + i + j\n"
                f"  | otherwise = {body}\n")

    def table(self, n: int, m: int) -> dict:
        """Every cell's exact value (raises :class:`Overflow` as the interpreter does)."""
        ops = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "max": max, "min": min}
        out: dict = {}
        for i in range(n + 1):
            for j in range(m + 1):
                if i == 0 or j == 0:
                    out[i, j] = _fits(_fits(self.base + i) + j)
                    continue
                vals = [_fits(_fits(out[i - t.delta[0], j - t.delta[1]] * t.mul) + t.add)
                        for t in self.terms]
                v = _fits(ops[self.op](*vals))
                out[i, j] = v % self.modulus if self.modulus is not None else v
        return out


@st.composite
def big_int_recurrences(draw) -> BigRecurrence:
    big = st.sampled_from(BIG_NUMBERS)
    deltas = st.sampled_from([(1, 0), (0, 1), (1, 1)])
    terms = tuple(BigTerm(draw(deltas), draw(big), draw(big) * draw(st.sampled_from([1, -1])))
                  for _ in range(2))
    return BigRecurrence(draw(big), terms, draw(st.sampled_from(["+", "-", "max", "min"])),
                         draw(st.one_of(st.none(), st.sampled_from(MODULI))))


# What can stand at a cache entry's name instead of the regular file dslc wrote
# (docs/robustness.md, "The cache"): each takes the entry's path (absent) and makes it.
def _dir_with_a_file(p) -> None:
    p.mkdir()
    (p / "x").write_text("x")


def _link_to_a_fifo(p) -> None:
    fifo = p.with_name(p.name + ".fifo-target")
    os.mkfifo(fifo)
    p.symlink_to(fifo)


def _link_to_a_copy(p) -> None:
    """A link to a file elsewhere (here: an unrelated text): never followed."""
    target = p.with_name(p.name + ".elsewhere")
    target.write_text("{}")
    p.symlink_to(target)


ENTRY_REPLACEMENTS = {
    "empty directory": lambda p: p.mkdir(),
    "directory with a file": _dir_with_a_file,
    "link to /dev/zero": lambda p: p.symlink_to("/dev/zero"),
    "link to /dev/null": lambda p: p.symlink_to("/dev/null"),
    "FIFO": lambda p: os.mkfifo(p),
    "link to a FIFO": _link_to_a_fifo,
    "dangling link": lambda p: p.symlink_to(p.with_name("nowhere")),
    "link to a file elsewhere": _link_to_a_copy,
}


def entry_replacements():
    """The name of something that is not a regular file put at a cache entry's name."""
    return st.sampled_from(sorted(ENTRY_REPLACEMENTS))


# ------------------------------------------------------------ hostile number text
# Digits of other scripts that Python's int() and float() read as 0-9: fullwidth,
# Arabic-Indic, Devanagari, Bengali, Thai, mathematical bold.
FOREIGN_DIGITS = "０１２３４５６７８９٠١٢٣٤٥٦٧٨٩०१२३४५६७८९০১২৩৪৫৬৭৮৯๐๑๒๓๔๕๖๗๘๙𝟎𝟏𝟐𝟑"
INT_DIGIT_LIMIT = 4300  # Python's int(str) refuses more digits than this (sys.int_info)

# what each kind of hostile number must be refused for (a piece of its message)
HOSTILE_REASONS = {"foreign": "is not an ASCII digit", "huge": "does not fit",
                   "overflow": "too large for a float"}


@st.composite
def hostile_numbers(draw) -> tuple[str, str]:
    """``(kind, text)``: a number's text the language must refuse, of one of three
    kinds (:data:`HOSTILE_REASONS`): digits outside ASCII somewhere among ASCII ones,
    an int with more digits than any 64-bit int (sometimes past Python's 4,300-digit
    conversion limit, sometimes behind leading zeros), or a float that overflows to
    infinity (a large exponent, or a long run of digits before the point)."""
    kind = draw(st.sampled_from(sorted(HOSTILE_REASONS)))
    if kind == "foreign":
        ascii_part = draw(st.text("0123456789", min_size=0, max_size=4))
        foreign = draw(st.text(FOREIGN_DIGITS, min_size=1, max_size=3))
        at = draw(st.integers(0, len(ascii_part)))
        text = ascii_part[:at] + foreign + ascii_part[at:]
        if draw(st.booleans()):
            text += "." + draw(st.text("0123456789" + FOREIGN_DIGITS[:10], min_size=1,
                                       max_size=2))
        return kind, text
    if kind == "huge":
        n = draw(st.sampled_from([20, 21, 40, 41, INT_DIGIT_LIMIT, INT_DIGIT_LIMIT + 1,
                                  2 * INT_DIGIT_LIMIT]))
        lead = "0" * draw(st.sampled_from([0, 0, 3, INT_DIGIT_LIMIT]))
        return kind, lead + draw(st.sampled_from("123456789")) + "7" * (n - 1)
    if draw(st.booleans()):
        mantissa = draw(st.sampled_from(["1", "9.5", "2.0", "0.1"]))
        return kind, f"{mantissa}e{draw(st.integers(310, 100000))}"
    return kind, "9" * draw(st.integers(310, 2000)) + ".5"


def conflicting_schedule_lines(draw, rec: Recurrence) -> tuple[str, str]:
    """Two ``schedule`` lines for the two functions of a mutually recursive ``rec``
    that disagree: ``f0`` follows the hidden (legal) schedule, ``f1`` one that
    differs from it in at least one coefficient."""
    dims = DIMS[: rec.ndim]
    other = tuple(draw(st.lists(st.integers(-3, 3), min_size=rec.ndim, max_size=rec.ndim)
                       .filter(lambda c: tuple(c) != rec.schedule)))
    return (schedule_line("f0", dims, rec.schedule), schedule_line("f1", dims, other))


def schedule_line(func: str, dims, coeffs) -> str:
    terms = [f"{c} * {d}" for c, d in zip(coeffs, dims) if c] or ["0"]
    return f"schedule {func}({', '.join(dims)}) = {' + '.join(terms)}"


# ------------------------------------------------- undeclared int domains from every call
# A table with undeclared int parameters ``h(int i, int s)`` read by a second
# function through reductions that call it with small values first (``h(0, 0)``
# before ``h(n, S - 1)``), and whose recursion reaches states above the first call's
# (``h(i - 1, t)`` for every ``t``): the domain of each parameter is what all calls
# reach, whichever comes first. ``evaluate`` is the independent meaning.

REDUCTIONS = ("sum", "max", "min")


@dataclass(frozen=True)
class GrowingRecurrence:
    states: int  # S: s in 0 .. S - 1
    base: tuple[int, ...]  # h(0, s) = base[s]
    weight: tuple[int, ...]  # a[s * S + t], added along the step from t to s
    inner: str  # h's reduction over the previous states
    outer: str  # the reader's reduction over i
    across: str  # the reader's reduction over s
    calls: tuple[int, ...]  # the script prints r(n) for each, in this order (distinct:
    # a print is named by its text)
    direct: tuple[int, int] | None  # and then h(i, s) itself

    def source(self) -> str:
        S = self.states
        lines = [f"const b = [{', '.join(map(str, self.base))}]",
                 f"const a = [{', '.join(map(str, self.weight))}]", "",
                 "int h(int i, int s)",
                 "  | i == 0 = b[s]",
                 f"  | otherwise = {self.inner}(t in 0 ... {S - 1} : h(i - 1, t) + a[s * {S} + t])",
                 "",
                 f"int r(int n) = {self.outer}(i in 0 ... n : "
                 f"{self.across}(s in 0 ... {S - 1} : h(i, s)))", ""]
        lines += [f"print r({n})" for n in self.calls]
        if self.direct is not None:
            lines.append(f"print h({self.direct[0]}, {self.direct[1]})")
        return "\n".join(lines) + "\n"

    def evaluate(self) -> list[int]:
        S = self.states
        red = {"sum": sum, "max": max, "min": min}

        @functools.cache
        def h(i: int, s: int) -> int:
            if i == 0:
                return self.base[s]
            return red[self.inner](h(i - 1, t) + self.weight[s * S + t] for t in range(S))

        def r(n: int) -> int:
            return red[self.outer](red[self.across](h(i, s) for s in range(S))
                                   for i in range(n + 1))

        out = [r(n) for n in self.calls]
        return out + ([h(*self.direct)] if self.direct is not None else [])


@st.composite
def growing_recurrences(draw, max_states: int = 3, max_n: int = 4) -> GrowingRecurrence:
    S = draw(st.integers(1, max_states))
    small = st.integers(-3, 3)
    direct = None
    if draw(st.booleans()):
        direct = (draw(st.integers(0, max_n)), draw(st.integers(0, S - 1)))
    return GrowingRecurrence(
        S, tuple(draw(small) for _ in range(S)), tuple(draw(small) for _ in range(S * S)),
        draw(st.sampled_from(REDUCTIONS)), draw(st.sampled_from(REDUCTIONS)),
        draw(st.sampled_from(REDUCTIONS)),
        tuple(draw(st.lists(st.integers(0, max_n), min_size=1, max_size=3, unique=True))),
        direct)


# --------------------------------------------------------------------------- crossed ranges
#
# Floyd-Warshall's shape: ``f(int k in 0 ... N, int i in 0 ... N - c, ...)`` whose
# calls move ``k - 1`` into another dimension (``f(k - 1, k - 1, j)``), inside only
# because the two declared bounds are related (``N - c`` against ``N``). ``N`` is a
# script constant or a calling ``const``; a reader sums a row of the last layer.
# ``evaluate`` is the independent meaning.


@dataclass(frozen=True)
class CrossedRecurrence:
    dims: int  # 2: f(k, i); 3: f(k, i, j)
    cut: int  # c: the later dimensions run over 0 ... N - c (c in 0, 1)
    top: int  # N
    calling: bool  # N is f's calling ``const m`` (else the script constant n)
    base: tuple[int, int]  # f(0, i, ...) = base[0] + base[1] * i
    op: str  # between the straight call and the crossed ones
    add: int

    def source(self) -> str:
        N = "m" if self.calling else "n"
        later = ("i", "j")[: self.dims - 1]
        bound = N if self.cut == 0 else f"{N} - {self.cut}"
        params = (["const m"] if self.calling else []) + [f"int k in 0 ... {N}"] + \
            [f"int {v} in 0 ... {bound}" for v in later]
        crossed = [", ".join(["k - 1"] + ["k - 1" if w == v else w for w in later])
                   for v in later]
        straight = ", ".join(["k - 1", *later])
        lines = [] if self.calling else [f"const n = {self.top}", ""]
        lines += [f"int f({', '.join(params)})",
                  f"  | k == 0 = {self.base[0]} + {self.base[1]} * i",
                  f"  | otherwise = f({straight}) {self.op} "
                  f"({' + '.join(f'f({c})' for c in crossed)} + {self.add})", ""]
        call = (["m"] if self.calling else []) + [N] + ["i"] + ["0"] * (self.dims - 2)
        head = "int total(const m)" if self.calling else "int total()"
        lines += [f"{head} = sum(i in 0 ... {bound} : f({', '.join(call)}))", ""]
        pre = [str(self.top)] if self.calling else []
        lines += [f"print f({', '.join(pre + [str(self.top)] + ['0'] * (self.dims - 1))})",
                  f"print total({', '.join(pre)})"]
        return "\n".join(lines) + "\n"

    def evaluate(self) -> list[int]:
        red = {"max": max, "min": min, "+": lambda a, b: a + b}[self.op]

        @functools.cache
        def f(k: int, x: tuple[int, ...]) -> int:
            if k == 0:
                return self.base[0] + self.base[1] * x[0]
            crossed = [f(k - 1, tuple(k - 1 if w == v else x[w] for w in range(len(x))))
                       for v in range(len(x))]
            return red(f(k - 1, x), sum(crossed) + self.add)

        rest = self.dims - 1
        total = sum(f(self.top, (i,) + (0,) * (rest - 1))
                    for i in range(self.top - self.cut + 1))
        return [f(self.top, (0,) * rest), total]


@st.composite
def crossed_recurrences(draw, max_top: int = 4) -> CrossedRecurrence:
    small = st.integers(-3, 3)
    cut = draw(st.integers(0, 1))
    return CrossedRecurrence(draw(st.integers(2, 3)), cut, draw(st.integers(cut + 1, max_top)),
                             draw(st.booleans()), (draw(small), draw(small)),
                             draw(st.sampled_from(("max", "min", "+"))), draw(small))


# --------------------------------------------------------------------------- bool tables
#
# ``bool f(int i, int j)``: a base of a threshold on the border, each other cell
# ``and``/``or`` of its three predecessors (any of them negated), as subset sum or
# word break combine theirs. The script prints single cells (a table of bools as
# the result of a call). ``evaluate`` is the independent meaning.


@dataclass(frozen=True)
class BoolRecurrence:
    threshold: int  # f(i, j) = i + j >= threshold on the border (i == 0 or j == 0)
    ops: tuple[str, str]  # between the three calls: "and" / "or"
    negated: tuple[bool, bool, bool]  # which of f(i - 1, j), f(i, j - 1), f(i - 1, j - 1)
    cells: tuple[tuple[int, int], ...]  # printed, in this order (distinct)

    CALLS = ("f(i - 1, j)", "f(i, j - 1)", "f(i - 1, j - 1)")

    def source(self) -> str:
        terms = [f"not {c}" if n else c for c, n in zip(self.CALLS, self.negated)]
        body = f"({terms[0]} {self.ops[0]} {terms[1]}) {self.ops[1]} {terms[2]}"
        lines = ["bool f(int i, int j)",
                 f"  | i == 0 or j == 0 = i + j >= {self.threshold}",
                 f"  | otherwise = {body}", ""]
        return "\n".join(lines + [f"print f({i}, {j})" for i, j in self.cells]) + "\n"

    def evaluate(self) -> list[bool]:
        op = {"and": lambda a, b: a and b, "or": lambda a, b: a or b}

        @functools.cache
        def f(i: int, j: int) -> bool:
            if i == 0 or j == 0:
                return i + j >= self.threshold
            v = [f(i - 1, j), f(i, j - 1), f(i - 1, j - 1)]
            v = [not x if n else x for x, n in zip(v, self.negated)]
            return op[self.ops[1]](op[self.ops[0]](v[0], v[1]), v[2])

        return [f(i, j) for i, j in self.cells]


@st.composite
def bool_recurrences(draw, max_n: int = 6) -> BoolRecurrence:
    ops = st.sampled_from(("and", "or"))
    cell = st.tuples(st.integers(0, max_n), st.integers(0, max_n))
    return BoolRecurrence(draw(st.integers(0, max_n)), (draw(ops), draw(ops)),
                          tuple(draw(st.booleans()) for _ in range(3)),
                          tuple(draw(st.lists(cell, min_size=1, max_size=3, unique=True))))


# --------------------------------------------------------------------------- array-element calls
#
# ``dist(src[e])``: a recursive argument that is an element of a constant array (a
# tree or DAG of parent pointers, pointing up or down in the index order), which no
# affine schedule orders: compiled code evaluates such cells on demand, in the order
# the array's values give. ``evaluate`` is the independent meaning.


@dataclass(frozen=True)
class PointerRecurrence:
    order: tuple[int, ...]  # a permutation of 0 .. L - 1: each node points to earlier ones
    first: tuple[int, ...]  # src[e]: an earlier node in ``order`` (the root's own index)
    second: tuple[int, ...] | None  # a second parent array (a DAG), or None
    weight: tuple[int, ...]
    base: int
    op: str  # between the two parents' values: "max", "min", "+"
    asked: tuple[int, ...]  # the nodes printed (distinct)

    def source(self) -> str:
        arrays = [("src", self.first)] + ([("alt", self.second)] if self.second else [])
        lines = [f"const {n} = [{', '.join(map(str, v))}]" for n, v in arrays]
        lines += [f"const wt = [{', '.join(map(str, self.weight))}]", ""]
        body = "dist(src[e])" if self.second is None else \
            f"(dist(src[e]) {self.op} dist(alt[e]))"
        lines += ["int dist(int e)", f"  | e == {self.order[0]} = {self.base}",
                  f"  | otherwise = {body} + wt[e]", ""]
        return "\n".join(lines + [f"print dist({e})" for e in self.asked]) + "\n"

    def evaluate(self) -> list[int]:
        red = {"max": max, "min": min, "+": lambda a, b: a + b}[self.op]

        @functools.cache
        def dist(e: int) -> int:
            if e == self.order[0]:
                return self.base
            v = dist(self.first[e])
            if self.second is not None:
                v = red(v, dist(self.second[e]))
            return v + self.weight[e]

        return [dist(e) for e in self.asked]


@st.composite
def pointer_recurrences(draw, max_nodes: int = 7) -> PointerRecurrence:
    n = draw(st.integers(1, max_nodes))
    order = tuple(draw(st.permutations(range(n))))
    at = {e: k for k, e in enumerate(order)}

    def parents():
        return tuple(e if at[e] == 0 else order[draw(st.integers(0, at[e] - 1))]
                     for e in range(n))

    first = parents()
    second = parents() if draw(st.booleans()) else None
    small = st.integers(-3, 3)
    return PointerRecurrence(order, first, second, tuple(draw(small) for _ in range(n)),
                             draw(small), draw(st.sampled_from(("max", "min", "+"))),
                             tuple(draw(st.lists(st.integers(0, n - 1), min_size=1,
                                                 max_size=3, unique=True))))
