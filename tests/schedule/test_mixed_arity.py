"""Groups of mutually recursive functions with different numbers of recursive
parameters (``g(i)`` taking a maximum over ``j`` of an ``f(i, j)`` that reads
``g(i - 1)``; Fitch's ``set(u, a)`` beside ``best(u)``).

The smaller functions are padded with positions fixed at 0 so that one schedule
serves the group (dslc.schedule.embed). Schedules are checked by enumeration on
small domains (tests/schedule/brute_force.py, given the placement the schedule
chose), and compiled programs against the interpreter, the specification.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.cli import main
from dslc.check.tir import groups
from dslc.deps.extract import dependence_graph
from dslc.deps.ir import Dependence, DependenceGraph
from dslc.plan.task import extent_names
from dslc.errors import DslcError
from dslc.poly import loopir as L
from dslc.poly.nest import build_loop_nest
from dslc.schedule import Extents, checked_schedule, extents_for, find_schedule
from dslc.schedule.problems import InvalidScheduleError
from tests.schedule import brute_force as bf
from tests.schedule import graphs as G

compiled = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                              reason="numba/islpy not installed")


def check_by_enumeration(graph, sizes, sched):
    assert bf.legal(graph, sizes, sched.coeffs, sched.positions), sched
    assert sched.partitions == bf.partitions(sizes, sched.coeffs, sched.positions)
    assert sched.window == bf.window(graph, sizes, sched.coeffs, sched.positions)


def placements(graph):
    """Every order-preserving placement of each function among the positions
    of the largest, as ``Schedule.positions``."""
    n = max(len(f.params) for f in graph.functions)
    per = [[(f.name, p) for p in itertools.combinations(range(n), len(f.params))]
           for f in graph.functions]
    return [tuple(c) for c in itertools.product(*per)]


def fewest_partitions(graph, sizes, bound=3) -> int:
    """The fewest partitions of any placement and coefficients in the box that
    are legal by enumeration."""
    n = max(len(f.params) for f in graph.functions)
    return min(bf.partitions(sizes, c, pos)
               for pos in placements(graph)
               for c in itertools.product(range(-bound, bound + 1), repeat=n)
               if any(c) and bf.legal(graph, sizes, c, pos))


# --------------------------------------------------------------------------- the IR


@pytest.mark.parametrize("graph,sizes,coeffs,positions", [
    (G.row_best(), {"f": (4, 5), "g": (4,)}, (1, 0), {"g": (0,)}),
    (G.column_best(), {"f": (4, 5), "h": (5,)}, (0, 1), {"h": (1,)}),
    (G.fitch(), {"best": (6,), "count": (6, 3), "set": (6, 3)}, (1, 0), {"best": (0,)}),
])
def test_padded_functions_share_the_schedule(graph, sizes, coeffs, positions):
    sched = find_schedule(graph, sizes)
    assert sched.coeffs == coeffs
    assert all(sched.embedding.of(f) == p for f, p in positions.items())
    check_by_enumeration(graph, sizes, sched)
    assert sched.partitions == fewest_partitions(graph, sizes)
    for f, _ in sched.params:  # each function reads the coefficients of its own positions
        assert tuple(sched.of(f).values()) == tuple(coeffs[k] for k in sched.embedding.of(f))


def test_fitch_runs_count_then_best_then_set_inside_a_partition():
    sched = find_schedule(G.fitch(), {"best": (6,), "count": (6, 3), "set": (6, 3)})
    assert sched.order == ("count", "best", "set") and not sched.same_point_order
    assert sched.expr("best") == "u" and sched.expr("set") == "u"


@pytest.mark.parametrize("graph,sizes", [
    (G.row_best(), {"f": (3, 4), "g": (3,)}),
    (G.column_best(), {"f": (4, 2), "h": (2,)}),
    (G.fitch(), {"best": (5,), "count": (5, 3), "set": (5, 3)}),
    (G.fitch(), {"best": (0,), "count": (0, 0), "set": (0, 0)}),
])
def test_loop_nest_visits_every_padded_function_once_in_dependence_order(graph, sizes):
    sched = find_schedule(graph, sizes)
    ext = extents_for(graph, sizes)
    env = {n: v for f in sizes for n, v in zip(ext.names[f], sizes[f])}
    when = {}

    def visit(call: L.Call, point):
        # statement instances carry the function's own parameters, in its partition
        assert len(point) == len(sizes[call.function])
        assert sched.at(point, call.function) == env.get("c0", sched.first)
        assert (call.function, point) not in when, f"{call.function}{point} computed twice"
        when[(call.function, point)] = len(when)

    L.execute(build_loop_nest(sched, ext).body, env, visit)
    assert set(when) == {(f, p) for f in sizes for p in bf.box(sizes[f])}
    for _, f, x, g, y in bf.instances(graph, sizes):
        assert when[(g, y)] < when[(f, x)], f"{f}{x} runs before its call {g}{y}"


def test_user_schedule_of_a_mixed_group_is_verified():
    g, sizes = G.row_best(), {"f": (4, 5), "g": (4,)}
    sched = checked_schedule(g, (2, 0), sizes)
    assert sched.of("g") == {"i": 2} and sched.partitions == 9
    check_by_enumeration(g, sizes, sched)
    with pytest.raises(InvalidScheduleError) as e:
        checked_schedule(g, (1, 1), sizes)
    # the witness: g's point in its own parameter (S = i there), and the f cell it
    # reads in a later partition
    assert "the schedule i is not valid for the call f(i, r): at g(i=0) it calls f(0, " \
        in e.value.message, e.value.message
    assert bf.legal(g, sizes, (1, 1), sched.positions) is False
    with pytest.raises(DslcError, match=r"3 coefficients .* 2 dimensions"):
        checked_schedule(g, (1, 0, 0), sizes)


def test_no_schedule_is_reported_for_the_calls_that_conflict():
    # h(j) reads f(i, j - 1) for every i while f steps back along i: no one
    # affine schedule orders that (f's rows would have to finish before h)
    g = G.column_best()
    back = Dependence("f", "f", (G.A(-1, i=1), G.A(0, j=1)), span=G.Span("t.bio", 4, 20))
    graph = DependenceGraph(g.functions, g.deps + (back,))
    with pytest.raises(DslcError, match="no affine schedule"):
        find_schedule(graph, {"f": (4, 5), "h": (5,)})


# --------------------------------------------------------------------------- random recurrences

@dataclass(frozen=True)
class Mixed:
    """``f(i, j)`` over sequences ``s`` and ``t`` and ``g`` over one of its
    dimensions, ``d`` (0: ``i``; 1: ``j``), calling each other:

    * ``f`` reads ``f(x - delta)`` for each ``(delta_d >= 1, delta_e)`` in
      ``f_self``, and ``g(x_d - f_g)``;
    * ``g`` reduces (``g_op``) ``f`` at ``x_d - g_f`` over every value of the
      other dimension, and reads ``g(x_d - 1)`` when ``g_self``.

    Every call lies behind the schedule ``S = x_d`` (``f_g`` and ``g_f`` are not
    both 0), and guards keep every call inside its domain.
    """

    d: int
    f_self: tuple[tuple[int, int], ...]
    f_g: int
    g_f: int
    g_self: bool
    g_op: str
    ops: tuple[str, ...]  # combining f's terms
    adds: tuple[int, ...]  # added to each of f's terms
    bonus: int  # added to f where s[i - 1] == t[j - 1]
    bases: tuple[int, int]

    def margins(self):
        """(f's least x_d, f's least and largest-from-the-end x_e, g's least x_d)."""
        m_f = max([dd for dd, _ in self.f_self] + [self.f_g])
        lo_e = max([0] + [de for _, de in self.f_self])
        hi_e = max([0] + [-de for _, de in self.f_self])
        m_g = max(self.g_f, 1 if self.g_self else 0)
        return m_f, lo_e, hi_e, m_g

    def source(self) -> str:
        dims, seqs = ("i", "j"), ("s", "t")
        D, E, SD, SE = dims[self.d], dims[1 - self.d], seqs[self.d], seqs[1 - self.d]
        m_f, lo_e, hi_e, m_g = self.margins()

        def f_at(xd: str, xe: str) -> str:
            return f"f({xd}, {xe})" if self.d == 0 else f"f({xe}, {xd})"

        def shift(v: str, k: int) -> str:
            return v if k == 0 else f"{v} - {k}" if k > 0 else f"{v} + {-k}"

        terms = [f_at(shift(D, dd), shift(E, de)) for dd, de in self.f_self]
        terms.append(f"g({shift(D, self.f_g)})")
        terms = [f"{t} + {a}" if a else t for t, a in zip(terms, self.adds)]
        body = f"({terms[0]})"
        for op, t in zip(self.ops, terms[1:]):
            body = f"({body} {op} ({t}))"
        body += (f" + (if i > 0 and j > 0 and s[i - 1] == t[j - 1] then {self.bonus} else 0)"
                 if self.bonus else "")
        edge = [text for text, margin in ((f"{D} < {m_f}", m_f), (f"{E} < {lo_e}", lo_e),
                                          (f"{E} > len({SE}) - {hi_e}", hi_e)) if margin]
        lines = ["int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j)"]
        if edge:
            lines.append(f"  | {' or '.join(edge)} = {self.bases[0]} + {D}")
        lines.append(f"  | otherwise = {body}")
        lines += ["", f"int g(seq[dna] s, seq[dna] t, index[{SD}] {D})"]
        if m_g:
            lines.append(f"  | {D} < {m_g} = {self.bases[1]}")
        red = f"{self.g_op}(y in 0 ... len({SE}) : {f_at(shift(D, self.g_f), 'y')})"
        if self.g_self:
            red = f"{red} max g({D} - 1) - 1"
        lines.append(f"  | otherwise = {red}")
        return "\n".join(lines) + "\n"

    def instances(self, n: int):
        """(caller, point, callee, point) of every call made on extents ``n``
        (both sequences of length ``n``), straight from the description."""
        m_f, lo_e, hi_e, m_g = self.margins()
        d, e = self.d, 1 - self.d

        def at(xd, xe):
            p = [0, 0]
            p[d], p[e] = xd, xe
            return tuple(p)

        for x in itertools.product(range(n + 1), repeat=2):
            if x[d] < m_f or x[e] < lo_e or x[e] > n - hi_e:
                continue
            for dd, de in self.f_self:
                yield "f", x, "f", at(x[d] - dd, x[e] - de)
            yield "f", x, "g", (x[d] - self.f_g,)
        for xd in range(m_g, n + 1):
            for y in range(n + 1):
                yield "g", (xd,), "f", at(xd - self.g_f, y)
            if self.g_self:
                yield "g", (xd,), "g", (xd - 1,)


@st.composite
def mixed(draw) -> Mixed:
    f_self = tuple(draw(st.lists(st.tuples(st.integers(1, 2), st.integers(-1, 1)),
                                 max_size=2, unique=True)))
    f_g = draw(st.integers(0, 2))  # f reads g: the two are one group
    g_f = draw(st.integers(1 if f_g == 0 else 0, 1))
    terms = len(f_self) + 1
    return Mixed(
        d=draw(st.integers(0, 1)), f_self=f_self, f_g=f_g, g_f=g_f, g_self=draw(st.booleans()),
        g_op=draw(st.sampled_from(["max", "min"])),
        ops=tuple(draw(st.lists(st.sampled_from(["max", "min", "+"]), min_size=terms - 1,
                                max_size=terms - 1))),
        adds=tuple(draw(st.lists(st.integers(-2, 2), min_size=terms, max_size=terms))),
        bonus=draw(st.integers(0, 2)), bases=(draw(st.integers(-1, 2)), draw(st.integers(0, 3))))


SIZE = 5


def legal_by_enumeration(rec: Mixed, coeffs, positions, n: int = SIZE) -> bool:
    pad = bf.padded(coeffs, positions)
    same = set()
    for f, x, g, y in rec.instances(n):
        dist = bf.S(coeffs, pad(f, x)) - bf.S(coeffs, pad(g, y))
        if dist >= 1:
            continue
        if dist == 0 and f != g:
            same.add((g, f))
            continue
        return False
    return not ({("f", "g"), ("g", "f")} <= same)


def chosen(rec: Mixed, size: int = SIZE):
    prog = dslc.compile(rec.source(), backend="interp").checked
    (grp,) = [g for g in groups(prog.functions) if "f" in g]
    assert grp == ("f", "g")
    graph = dependence_graph(prog.functions, grp, prog.consts)
    names = {f: extent_names(prog, f) for f in grp}
    return find_schedule(graph, Extents(names, {n: size for ns in names.values() for n in ns}))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=mixed())
def test_random_mixed_groups_get_a_legal_schedule_with_fewest_partitions(rec):
    sched = chosen(rec)
    assert legal_by_enumeration(rec, sched.coeffs, sched.positions), (rec.source(), sched)
    # g lies along its own sequence's dimension of f (index[s] beside index[s])
    assert sched.embedding.of("g") == (rec.d,)
    best = min(bf.partitions({"f": (SIZE, SIZE), "g": (SIZE,)}, c, pos)
               for pos in ({"g": (0,)}, {"g": (1,)})
               for c in itertools.product(range(-3, 4), repeat=2)
               if any(c) and legal_by_enumeration(rec, c, pos))
    assert sched.partitions == best, (rec.source(), sched)


def rand_dna(rng: random.Random, longest: int) -> str:
    return "".join(rng.choice("ACGT") for _ in range(rng.randint(0, longest)))


@pytest.mark.long
@compiled
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=mixed(), seed=st.integers(0, 2 ** 16))
def test_random_mixed_groups_compile_and_equal_the_interpreter(rec, seed):
    src = rec.source()
    cpu, interp = dslc.compile(src, backend="cpu"), dslc.compile(src, backend="interp")
    engine = cpu._engine()
    rng = random.Random(seed)
    ss = [rand_dna(rng, 7) for _ in range(5)]
    ts = [rand_dna(rng, 6) for _ in range(2)]
    for entry in ("g", "f"):
        got = cpu.map(entry, ss, ts).values.ravel().tolist()
        assert entry not in engine.fallbacks, (src, engine.fallbacks)
        assert got == interp.map(entry, ss, ts).values.ravel().tolist(), (src, entry)
    assert plain(cpu.call("g", ss[0], ts[0])) == plain(interp.call("g", ss[0], ts[0])), src


# --------------------------------------------------------------------------- programs

ROWS = """
// g(i): the best of row i of f; f(i, j) reads the row before through g(i - 1)
int g(seq[dna] s, seq[dna] t, index[s] i)
  | i == 0 = 0
  | otherwise = max(j in 0 ... len(t) : f(i, j))

int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = j
  | j == 0 = g(i - 1) - 1
  | otherwise = f(i - 1, j - 1) max g(i - 1) + (if s[i - 1] == t[j - 1] then 3 else -1)

int best(seq[dna] s, seq[dna] t) = max(i in 0 ... len(s) : g(i))
"""

COLUMNS = """
// h(j): the best of column j - 1 of f, which f(i, j) reads: h takes f's second
// dimension (index[t] beside index[t])
int h(seq[dna] s, seq[dna] t, index[t] j)
  | j == 0 = 0
  | otherwise = max(i in 0 ... len(s) : f(i, j - 1)) + 1

int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | j == 0 = i
  | i == 0 = h(j)
  | otherwise = f(i, j - 1) + (if s[i - 1] == t[j - 1] then 2 else -1) max h(j) - 2
"""

SEGMENTS = """
// the best split of x into segments: g(j) over x[0 .. j), n(i, j) the segment
// x[i .. j) after the best split of x[0 .. i); both over x, so g may sit at
// either dimension of n: only the second has a schedule
int g(seq[dna] x, index[x] j)
  | j == 0 = 0
  | otherwise = max(i in 0 ... j - 1 : n(i, j))

int n(seq[dna] x, index[x] i, index[x] j)
  | i >= j = -inf
  | j == i + 1 = g(i) + 1
  | otherwise = n(i, j - 1) + (if x[j - 1] == x[i] then 2 else -1)
"""

THREE = """
// three arities: c(i) over b(i, k) over a(i, j, k), which reads c(i - 1);
// b takes a's first and third dimensions
int c(seq[dna] s, seq[dna] t, seq[dna] u, index[s] i)
  | i == 0 = 0
  | otherwise = max(k in 0 ... len(u) : b(i, k))

int b(seq[dna] s, seq[dna] t, seq[dna] u, index[s] i, index[u] k) =
    max(j in 0 ... len(t) : a(i, j, k))

int a(seq[dna] s, index[s] i, seq[dna] t, index[t] j, seq[dna] u, index[u] k)
  | i == 0 = 0
  | j == 0 or k == 0 = c(i - 1) max 0
  | otherwise = c(i - 1) + (if s[i - 1] == t[j - 1] then 1 else 0)
                + (if t[j - 1] == u[k - 1] then 1 else 0) max a(i - 1, j, k - 1)
"""

PADDING_ELIMINATED = """
// S = i + j keeps i's coordinate of f's window; k(i) has no j to drop, so its
// window keeps i
int k(seq[dna] s, seq[dna] t, index[s] i) = f(i, 0) * 2 + 1

int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | j == 0 = if i == 0 then 0 else (if s[i - 1] == 'A' then 1 else 2)
  | i == 0 = f(i, j - 1) + k(i)
  | otherwise = f(i, j - 1) + k(i) + (if s[i - 1] == t[j - 1] then 1 else 0) max f(i - 1, j) - 1
"""

PROGRAMS = {"rows": (ROWS, ["g", "f", "best"], 2), "columns": (COLUMNS, ["h", "f"], 2),
            "segments": (SEGMENTS, ["g", "n"], 1), "three": (THREE, ["c", "b", "a"], 3),
            "padding": (PADDING_ELIMINATED, ["f", "k"], 2)}


def plain(result):
    """A table's cells as nested lists, a value as itself."""
    return result.values.tolist() if hasattr(result, "values") else result


def operands(rng: random.Random, nseq: int, tasks: int) -> list[list[str]]:
    """The first sequence varies over ``tasks`` tasks, the others over one or two."""
    return [[rand_dna(rng, 8) for _ in range(tasks)]] + \
        [[rand_dna(rng, 6) for _ in range(rng.randint(1, 2))] for _ in range(nseq - 1)]


@pytest.mark.long
@compiled
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_compile_and_equal_the_interpreter(name):
    src, entries, nseq = PROGRAMS[name]
    cpu, interp = dslc.compile(src, backend="cpu"), dslc.compile(src, backend="interp")
    engine = cpu._engine()
    rng = random.Random(name)
    for entry in entries:
        for tasks in (3, 20):  # one task per call, and lane groups where the plan allows
            ops = operands(rng, nseq, tasks)
            got = cpu.map(entry, *ops).values.ravel().tolist()
            assert entry not in engine.fallbacks, engine.fallbacks
            assert got == interp.map(entry, *ops).values.ravel().tolist(), (entry, ops)
        one = [o[0] for o in operands(rng, nseq, 1)]
        assert plain(cpu.call(entry, *one)) == plain(interp.call(entry, *one)), (entry, one)
    # the schedule covers every function of the group: nothing ran on the interpreter
    assert not engine.fallbacks


@compiled
# padding's k multiplies a cell by 2: an int product is checked against 2^53 where it is
# made (emit.pyexpr.ExprEmitter.exact), a check a padded lane cannot report, so its map
# runs a task per call in float64 (the other program's values stay in float32 lanes)
@pytest.mark.parametrize("name,lanes", [("segments", True), ("padding", False)])
def test_lane_groups_of_mixed_groups(name, lanes):
    src, entries, nseq = PROGRAMS[name]
    cpu, interp = dslc.compile(src, backend="cpu"), dslc.compile(src, backend="interp")
    engine = cpu._engine()
    engine.disk_cache = False
    rng = random.Random(7)
    ops = operands(rng, nseq, 40)
    got = cpu.map(entries[0], *ops).values.ravel().tolist()
    assert got == interp.map(entries[0], *ops).values.ravel().tolist()
    assert (entries[0] in engine.packs.generated) == lanes, engine.packs.fallbacks


@compiled
def test_plans_of_mixed_groups():
    prog = dslc.compile(PADDING_ELIMINATED, backend="cpu")
    engine = prog._engine()
    engine.disk_cache = False  # plan afresh, so the plan is recorded
    prog.map("f", ["ACGT"], ["GGA"])
    plan, _ = engine.generated["f"]
    (g,) = plan.groups
    assert g.schedule.coeffs == (1, 1) and g.schedule.embedding.of("k") == (0,)
    # the window drops f's j (recomputed from the partition); k has no j: it keeps i
    assert g.windowed and g.eliminated == 1
    assert g.eliminated_in("f") == 1 and g.eliminated_in("k") is None


@pytest.mark.parametrize("src,entries", [(ROWS, ("best", "g")), (COLUMNS, ("h",))])
def test_programs_on_every_backend(backend, src, entries):
    prog = dslc.compile(src, backend=backend)
    ref = dslc.compile(src, backend="interp")
    ss, ts = ["ACGTTGCA", "", "GGT", "TTTTAC"], ["GTTG", "A"]
    for entry in entries:
        assert prog.map(entry, ss, ts).values.tolist() == ref.map(entry, ss, ts).values.tolist()
        assert plain(prog.call(entry, ss[0], ts[0])) == plain(ref.call(entry, ss[0], ts[0]))


# --------------------------------------------------------------------------- the command

def test_explain_shows_the_padded_function(write_bio, capsys):
    path = write_bio(COLUMNS + 'r = h("ACGTTGCA", "GTTGA")\nprint r\n')
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert "group f, h" in out
    assert "h: S = j  (padded to h(0, j): its other dimensions are 0)" in out
    assert "f: S = j\n" in out and "order in a partition: h, f" in out
    assert "runs on the interpreter" not in out
    # the loop nest computes h once per partition, then that column of f
    loops = out[out.index("loops:"):]
    assert "h(c0)" in loops and "f(c2, c0)" in loops


def test_user_schedule_names_the_largest_function(write_bio, capsys):
    ok = write_bio(ROWS + "schedule f(i, j) = i\nprint best(\"ACGT\", \"GTA\")\n", name="ok.bio")
    assert main(["run", "--backend", "cpu", str(ok)]) == 0
    assert capsys.readouterr().out.strip().endswith(
        str(dslc.compile(ROWS, backend="interp").call("best", "ACGT", "GTA")))
    bad = write_bio(ROWS + "schedule g(i) = i\nprint best(\"ACGT\", \"GTA\")\n", name="bad.bio")
    assert main(["run", "--backend", "cpu", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "write the schedule for f(i, j)" in err and "Traceback" not in err
