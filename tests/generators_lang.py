"""Random programs over the language's data forms and operators: 2-D arrays, lists of
sequences, ``len`` of arrays in declared ranges, ``any``/``all``, ``**`` and the text
of a traceback (``common``, ``merged``).

Each strategy draws a small description that renders as .bio source (``source()``)
and has an independent Python meaning (``evaluate()``: the printed values, or the
language's error for a drawn misuse), as tests/generators.py's do, so the interpreter
and every compiled backend are compared with it (tests/test_language_forms.py).
Sizes stay small: each draw is compiled on every backend.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from hypothesis import strategies as st

INF = float("inf")


def _lit(v) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v)


# --------------------------------------------------------------------------- grid paths
#
# A path over a 2-D array from its top left corner, moving by a drawn set of steps
# (down, right, diagonal), each cell adding its element; the table's ranges are the
# array's extents (len(g), g.cols), read from a constant or a parameter.


MOVES = {"down": (1, 0), "right": (0, 1), "diag": (1, 1)}


@dataclass(frozen=True)
class GridRecurrence:
    grid: tuple[tuple[int, ...], ...]
    moves: tuple[str, ...]  # a non-empty subset of MOVES
    op: str  # "min" | "max"
    as_param: bool  # the array a parameter ints2d g (else the constant read by name)
    asked: tuple[tuple[int, int], ...]
    bad_read: bool  # also print a read outside the array's columns: the error

    def source(self) -> str:
        rows = ", ".join("[" + ", ".join(map(str, r)) + "]" for r in self.grid)
        calls = [f"p(i - {di}, j - {dj})" for m in self.moves for di, dj in [MOVES[m]]]
        conds = [" and ".join(c for c, d in ((f"i >= {di}", di), (f"j >= {dj}", dj)) if d)
                 for m in self.moves for di, dj in [MOVES[m]]]
        terms = [f"(if {c} then {call} else {'inf' if self.op == 'min' else '-inf'})"
                 for c, call in zip(conds, calls)]
        sig = "ints2d g, " if self.as_param else ""
        lines = [f"const grid = [{rows}]",
                 f"int p({sig}int i in 0 ... len(g) - 1, int j in 0 ... g.cols - 1)",
                 "  | i == 0 and j == 0 = g[0, 0]",
                 f"  | otherwise = ({f' {self.op} '.join(terms)}) + g[i, j]",
                 "int width(ints2d h) = h.cols + len(h) * 0", ""]
        if not self.as_param:
            lines[1] = lines[1].replace("len(g)", "len(grid)").replace("g.cols", "grid.cols")
            lines[2] = lines[2].replace("g[0, 0]", "grid[0, 0]")
            lines[3] = lines[3].replace("g[i, j]", "grid[i, j]")
        arg = "grid, " if self.as_param else ""
        out = [f"print p({arg}{i}, {j})" for i, j in self.asked] + ["print width(grid)"]
        if self.bad_read:
            lines.append("int at(ints2d h, int k) = h[0, k]")
            out.append(f"print at(grid, {len(self.grid[0])})")
        return "\n".join(lines + out) + "\n"

    def evaluate(self) -> list:
        g, red = self.grid, (min if self.op == "min" else max)

        @functools.cache
        def p(i: int, j: int):
            if i == 0 and j == 0:
                return g[0][0]
            options = [p(i - di, j - dj) if i >= di and j >= dj else
                       (INF if self.op == "min" else -INF)
                       for m in self.moves for di, dj in [MOVES[m]]]
            return red(options) + g[i][j]

        out = [p(i, j) for i, j in self.asked] + [len(g[0])]
        if self.bad_read:
            return ("error", f"column {len(g[0])} is outside the 2-D array 'grid' "
                    f"(columns 0..{len(g[0]) - 1})")
        return out


@st.composite
def grid_recurrences(draw, max_side: int = 3) -> GridRecurrence:
    rows, cols = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    cell = st.integers(-4, 9)
    grid = tuple(tuple(draw(cell) for _ in range(cols)) for _ in range(rows))
    moves = tuple(draw(st.lists(st.sampled_from(sorted(MOVES)), min_size=1, max_size=3,
                                unique=True)))
    point = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    return GridRecurrence(grid, moves, draw(st.sampled_from(("min", "max"))),
                          draw(st.booleans()),
                          tuple(draw(st.lists(point, min_size=1, max_size=3, unique=True))),
                          draw(st.booleans()))


# --------------------------------------------------------------------------- word lists
#
# Word break over a drawn dictionary (a list of sequences): the number of ways to cut
# a prefix of the text into words (a sum), or whether one exists (any), each word
# matched symbol by symbol (all over d[k][m]).


@dataclass(frozen=True)
class WordRecurrence:
    words: tuple[str, ...]
    text: str
    counting: bool  # sum of the ways, else any
    loaded: bool  # the list from a FASTA file written beside the script (else a literal)
    asked: tuple[int, ...]

    def fasta(self) -> str:
        return "".join(f">w{k}\n{w}\n" for k, w in enumerate(self.words))

    def source(self, fasta_path: str | None = None) -> str:
        lit = "[" + ", ".join(f'"{w}"' for w in self.words) + "]"
        ret, red, base, join = ("int", "sum", "1", " * ") if self.counting else \
            ("bool", "any", "true", " and ")
        match = "all(m in 0 ... len(d[k]) - 1 : d[k][m] == s[i - len(d[k]) + m])"
        body = f"w(i - len(d[k])){join}(if {match} then 1 else 0)" if self.counting else \
            f"w(i - len(d[k])){join}{match}"
        lines = ['define alphabet ab "ab"']
        if self.loaded:
            lines.append(f'words = load(seq[ab], "{fasta_path}")')
        else:
            lines.append(f"const words = {lit}")
        lines += [f"{ret} w(seqs[ab] d, seq[ab] s, index[s] i)",
                  f"  | i == 0 = {base}",
                  f"  | otherwise = {red}(k in 0 ... len(d) - 1 where len(d[k]) <= i : {body})",
                  ""]
        out = [f'print w(words, "{self.text}", {i})' for i in self.asked]
        return "\n".join(lines + out + ["print len(words)"]) + "\n"

    def evaluate(self) -> list:
        s = self.text

        @functools.cache
        def w(i: int):
            if i == 0:
                return 1 if self.counting else True
            hits = [w(i - len(x)) * (1 if s[i - len(x):i] == x else 0) if self.counting else
                    (w(i - len(x)) and s[i - len(x):i] == x)
                    for x in self.words if len(x) <= i]
            return sum(hits) if self.counting else any(hits)

        return [w(i) for i in self.asked] + [len(self.words)]


@st.composite
def word_recurrences(draw, max_words: int = 3, max_text: int = 6) -> WordRecurrence:
    word = st.text("ab", min_size=1, max_size=3)
    words = tuple(draw(st.lists(word, min_size=1, max_size=max_words)))
    text = draw(st.text("ab", min_size=0, max_size=max_text))
    return WordRecurrence(words, text, draw(st.booleans()), draw(st.booleans()),
                          tuple(draw(st.lists(st.integers(0, len(text)), min_size=1,
                                              max_size=2, unique=True))))


# --------------------------------------------------------------------------- any, all, **
#
# A one-dimensional recurrence over a constant array, its range declared by len(w),
# combining powers (int ** int, float **) with any/all over windows of the array.


@dataclass(frozen=True)
class PowerRecurrence:
    w: tuple[int, ...]
    base: int
    exponent: int  # may be negative: an int power's error
    quant: str  # "any" | "all"
    threshold: int
    window: int
    asked: tuple[int, ...]

    def source(self) -> str:
        return "\n".join([
            f"const w = [{', '.join(map(str, self.w))}]",
            "int f(int i in 0 ... len(w) - 1)",
            f"  | i == 0 = w[0] ** 2",
            f"  | otherwise = f(i - 1) + ({self.base}) ** ({self.exponent} + i % 2) - w[i]",
            "bool q(int i in 0 ... len(w) - 1) =",
            f"    {self.quant}(k in i - {self.window} ... i where k >= 0 : w[k] ** 2 >= {self.threshold})",
            "float h(int i) = 2.0 ** (i - 2) + float(w[0]) ** 2",
            "",
            *[f"print f({i})" for i in self.asked],
            *[f"print q({i})" for i in self.asked],
            "print h(1)",
            "print -2 ** 2 + 2 ** 3 ** 2",
        ]) + "\n"

    def evaluate(self):
        w = self.w

        def power(a: int, b: int) -> int:
            if b < 0:
                raise ValueError(f"an int power needs a finite exponent of at least 0, not {b}")
            return a ** b

        @functools.cache
        def f(i: int) -> int:
            if i == 0:
                return w[0] ** 2
            return f(i - 1) + power(self.base, self.exponent + i % 2) - w[i]

        def q(i: int) -> bool:
            picks = [w[k] ** 2 >= self.threshold for k in range(i - self.window, i + 1)
                     if k >= 0]
            return any(picks) if self.quant == "any" else all(picks)

        try:
            fs = [f(i) for i in self.asked]
        except ValueError as e:
            return ("error", str(e))
        return fs + [q(i) for i in self.asked] + [2.0 ** -1 + float(w[0]) ** 2, -4 + 512]


@st.composite
def power_recurrences(draw, max_len: int = 5) -> PowerRecurrence:
    w = tuple(draw(st.lists(st.integers(-4, 6), min_size=1, max_size=max_len)))
    return PowerRecurrence(w, draw(st.integers(-3, 3)), draw(st.integers(-1, 4)),
                           draw(st.sampled_from(("any", "all"))), draw(st.integers(0, 20)),
                           draw(st.integers(0, 3)),
                           tuple(draw(st.lists(st.integers(0, len(w) - 1), min_size=1,
                                               max_size=2, unique=True))))


# --------------------------------------------------------------------------- traceback text
#
# An LCS and a shortest common supersequence of two drawn texts, with their text read
# off the traceback: the values are checked against their meaning (a common
# subsequence of the LCS's length; a supersequence of the SCS's length), not against
# one tie-breaking, and the texts against the interpreter's.


@dataclass(frozen=True)
class TextRecurrence:
    s: str
    t: str

    def source(self) -> str:
        return "\n".join([
            'define alphabet abc "abc"',
            "int lcs(seq[abc] s, index[s] i, seq[abc] t, index[t] j)",
            "  | i == 0 or j == 0 = 0",
            "  | s[i - 1] == t[j - 1] = lcs(i - 1, j - 1) + 1",
            "  | otherwise = lcs(i - 1, j) max lcs(i, j - 1)",
            "int scs(seq[abc] s, index[s] i, seq[abc] t, index[t] j)",
            "  | i == 0 = j",
            "  | j == 0 = i",
            "  | s[i - 1] == t[j - 1] = scs(i - 1, j - 1) + 1",
            "  | otherwise = (scs(i - 1, j) min scs(i, j - 1)) + 1",
            f'print lcs("{self.s}", {len(self.s)}, "{self.t}", {len(self.t)})',
            f'print common(trace(lcs("{self.s}", "{self.t}")))',
            f'print scs("{self.s}", {len(self.s)}, "{self.t}", {len(self.t)})',
            f'print merged(trace(scs("{self.s}", "{self.t}")))',
        ]) + "\n"

    def lengths(self) -> tuple[int, int]:
        s, t = self.s, self.t

        @functools.cache
        def lcs(i, j):
            if i == 0 or j == 0:
                return 0
            if s[i - 1] == t[j - 1]:
                return lcs(i - 1, j - 1) + 1
            return max(lcs(i - 1, j), lcs(i, j - 1))

        n = lcs(len(s), len(t))
        return n, len(s) + len(t) - n


def is_subsequence(x: str, y: str) -> bool:
    it = iter(y)
    return all(c in it for c in x)


@st.composite
def text_recurrences(draw, max_len: int = 6) -> TextRecurrence:
    text = st.text("abc", min_size=0, max_size=max_len)
    return TextRecurrence(draw(text), draw(text))
