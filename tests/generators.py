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

import functools
import itertools
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
    mul: int | float = 1


@dataclass(frozen=True)
class Func:
    base: tuple[int, ...]  # base value = base[0] + sum(base[1+k] * x_k)
    terms: tuple[Term, ...]
    ops: tuple[str, ...]  # between terms: "max", "min", "+"
    match_bonus: int  # added when s[i-1] == t[j-1] (2-D and up); 0 for none
    extra_guard: tuple[int, int] | None  # (dim, value): x_dim == value -> constant


@dataclass(frozen=True)
class Recurrence:
    ndim: int
    funcs: tuple[Func, ...]
    schedule: tuple[int, ...]  # a legal schedule by construction

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
        lines = []
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
                body = (f"({body}) + (if {dims[0]} > 0 and {dims[1]} > 0 and "
                        f"s[{dims[0]} - 1] == t[{dims[1]} - 1] then {fn.match_bonus} else 0)")
            lines.append(f"  | otherwise = {body}")
            lines.append("")
        return "\n".join(lines)

    @staticmethod
    def _term(t: Term, dims) -> str:
        args = ", ".join(d if c == 0 else f"{d} - {c}" if c > 0 else f"{d} + {-c}"
                         for d, c in zip(dims, t.delta))
        call = f"f{t.fn}({args})"
        if t.mul != 1:
            call = f"{call} * {special(str(t.mul), t.mul)}"
        return f"{call} + {special(str(t.add), t.add)}" if t.add else call

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
            vals = [plus(times(v, t.mul), t.add) if t.mul != 1 else plus(v, t.add)
                    for v, t in zip(vals, func.terms)]
            acc = vals[0]
            for op, v in zip(func.ops, vals[1:]):
                acc = max(acc, v) if op == "max" else min(acc, v) if op == "min" else plus(acc, v)
            if func.match_bonus and self.ndim >= 2 and x[0] > 0 and x[1] > 0 \
                    and seqs[0][x[0] - 1] == seqs[1][x[1] - 1]:
                acc = plus(acc, func.match_bonus)
            return acc

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
def recurrences(draw, max_dim: int = 3, mutual: bool = True,
                specials: bool = True) -> Recurrence:
    """A random recurrence; ``specials`` draws infinities too (bases, added
    terms and factors), so that ``inf - inf`` and ``0 * inf`` happen: every
    backend must then give the interpreter's error."""
    ndim = draw(st.integers(1, max_dim))
    h = tuple(draw(st.lists(st.integers(-2, 2), min_size=ndim, max_size=ndim)
                   .filter(lambda v: any(v))))
    candidates = [d for d in itertools.product(range(-2, 3), repeat=ndim)
                  if sum(a * b for a, b in zip(h, d)) >= 1]
    nfuncs = 2 if mutual and draw(st.booleans()) else 1
    funcs = []
    for n in range(nfuncs):
        nterms = draw(st.integers(1, 3))
        terms = []
        for _ in range(nterms):
            callee = draw(st.integers(0, nfuncs - 1))
            terms.append(Term(callee, draw(st.sampled_from(candidates)),
                              draw(numbers(-2, 3, specials)), draw(factors(specials))))
        if nfuncs == 2 and not any(t.fn != n for t in terms):
            terms[0] = Term(1 - n, terms[0].delta, terms[0].add, terms[0].mul)
        ops = tuple(draw(st.sampled_from(["max", "min", "max", "+"])) if k == 0 else
                    draw(st.sampled_from(["max", "min"])) for k in range(nterms - 1))
        base = (draw(numbers(-3, 3, specials)),) + \
            tuple(draw(st.lists(st.integers(-3, 3), min_size=ndim, max_size=ndim)))
        guard = None
        if draw(st.booleans()):
            guard = (draw(st.integers(0, ndim - 1)), draw(st.integers(0, 3)))
        funcs.append(Func(base, tuple(terms), ops, draw(st.integers(0, 2)), guard))
    return Recurrence(ndim, tuple(funcs), h)


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
