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


@dataclass(frozen=True)
class Term:
    """One operand of a body: a call ``fn(x - delta) + add`` or a symbol test."""

    fn: int  # which function (0 or 1)
    delta: tuple[int, ...]
    add: int


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
            base = " + ".join([str(fn.base[0])] + [f"{c} * {d}" for c, d in zip(fn.base[1:], dims)
                                                     if c])
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
        return f"f{t.fn}({args}) + {t.add}" if t.add else f"f{t.fn}({args})"

    # ------------------------------------------------------------ meaning
    def evaluate(self, seqs: tuple[str, ...], point: tuple[int, ...], fn: int = 0) -> int:
        """Direct memoised recursion: the independent meaning of the program."""
        lo, hi = self.margins()
        lens = tuple(len(s) for s in seqs)

        @functools.cache
        def f(n: int, x: tuple[int, ...]) -> int:
            func = self.funcs[n]
            if any(x[k] < lo[k] or x[k] > lens[k] - hi[k] for k in range(self.ndim)):
                return func.base[0] + sum(c * v for c, v in zip(func.base[1:], x))
            if func.extra_guard is not None and x[func.extra_guard[0]] == func.extra_guard[1]:
                return func.extra_guard[1] + 1
            vals = [f(t.fn, tuple(a - b for a, b in zip(x, t.delta))) + t.add for t in func.terms]
            acc = vals[0]
            for op, v in zip(func.ops, vals[1:]):
                acc = max(acc, v) if op == "max" else min(acc, v) if op == "min" else acc + v
            if func.match_bonus and self.ndim >= 2 and x[0] > 0 and x[1] > 0 \
                    and seqs[0][x[0] - 1] == seqs[1][x[1] - 1]:
                acc += func.match_bonus
            return acc

        return f(fn, tuple(point))


@st.composite
def recurrences(draw, max_dim: int = 3, mutual: bool = True) -> Recurrence:
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
            terms.append(Term(callee, draw(st.sampled_from(candidates)), draw(st.integers(-2, 3))))
        if nfuncs == 2 and not any(t.fn != n for t in terms):
            terms[0] = Term(1 - n, terms[0].delta, terms[0].add)
        ops = tuple(draw(st.sampled_from(["max", "min", "max", "+"])) if k == 0 else
                    draw(st.sampled_from(["max", "min"])) for k in range(nterms - 1))
        base = tuple(draw(st.lists(st.integers(-3, 3), min_size=ndim + 1, max_size=ndim + 1)))
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
    got = engine.map("f0", bound, None)
    want = [rec.evaluate(seqs, tuple(len(s) for s in seqs)) for seqs in batches]
    assert got == want, rec.source()


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

    @property
    def low(self) -> int:
        """Below this in any dimension a cell is a base case: every call stays
        inside the domain (constant steps are at most 2, data steps at most M)."""
        return max(self.modulus, 2)

    def source(self) -> str:
        dims = DIMS[: self.ndim]
        m, (a, b) = self.modulus, self.helper
        lines = [f"int w(int k) = ({a} * k + {b}) % {m}", ""]
        lines.append(f"int f0({', '.join(f'int {d}' for d in dims)})")
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
                            max_size=ndim))))
