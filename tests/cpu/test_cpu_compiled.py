"""The compiled CPU backend against the interpreter and the generator's oracle.

These tests also assert that the code was really compiled (no interpreter
fallback), so a regression in the code generator cannot hide behind the
fallback path."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from tests.generators import (RANGE_SHAPES, check_layered, check_ranged, dna, layered,
                              ranged_recurrences, recurrences, same_outcome, whole_table)

pytestmark = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                                reason="numba/islpy not installed")


def compiled(src: str):
    prog = dslc.compile(src, backend="cpu")
    return prog, prog._engine()


@pytest.mark.long
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(layered=True), data=st.data())
def test_random_recurrences_compile_and_match(rec, data):
    seqs = tuple(data.draw(dna(5)) for _ in range(rec.ndim))
    prog, engine = compiled(rec.source())

    def table():
        t = prog.call("f0", *seqs)
        return {p: t[p] for p in itertools.product(*(range(len(s) + 1) for s in seqs))}

    same_outcome(table, lambda: whole_table(rec, seqs), (rec.source(), seqs))
    assert "f0" not in engine.fallbacks, engine.fallbacks
    final = tuple(len(s) for s in seqs)
    same_outcome(lambda: prog.map("f0", *[[s] for s in seqs]).values.ravel()[0],
                 lambda: rec.evaluate(seqs, final), (rec.source(), seqs))



@pytest.mark.parametrize("shape", sorted(RANGE_SHAPES))
def test_random_recurrences_over_declared_ranges(shape):
    """Each shape of declared int ranges compiles (its polyhedron is affine in the
    recursive parameters and the calling extents) and equals the interpreter and the
    generator's meaning (two recurrences a shape, to keep numba compiles few)."""

    @settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(rec=ranged_recurrences(shapes=(shape,)), n=st.integers(0, 3))
    def check(rec, n):
        engine = check_ranged(rec, n, "cpu")._engine()
        assert "f0" not in engine.fallbacks, (rec.source(), engine.fallbacks)

    check()



def test_a_call_that_is_never_made_has_no_partition_distance():
    """In the band ``j in i - 1 ... i + 1`` the call f0(i + 2, j - 1) always leaves
    the domain (a base case): the schedule may put its target in a later
    partition, and the window must not name a slot for that negative distance."""
    from tests.generators import Func, RangedRecurrence, Term

    rec = RangedRecurrence("band", (Func((0, 0, 0), (Term(0, (-2, 1), 0),), (), 0, None),),
                           (0, 1))
    check_ranged(rec, 3, "cpu")


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lay=layered(), s=dna(4, 1), t=dna(4, 1))
def test_several_groups_compiled_equal_the_interpreter(lay, s, t):
    """Groups reading each other's tables (cells, ranges, helper-moved cells), helpers
    in guards, a float const: every table and single cell as the interpreter has it."""
    check_layered(lay, s, t, "cpu", every=False)

from tests.test_properties import GOTOH  # noqa: E402  (the stdlib's Gotoh)

protein = st.text(alphabet="ARNDCQEGHILKMFPSTWYV", min_size=0, max_size=25)


@settings(max_examples=30, deadline=None)
@given(q=protein, db=st.lists(protein, min_size=1, max_size=6))
def test_gotoh_map_equals_interpreter_and_reference(q, db):
    from tests.reference import gotoh_local, blosum62_dict

    prog, engine = compiled(GOTOH)
    blosum = prog.checked.defined["blosum62"]
    got = prog.map("sw", blosum, 10, 1, q, db).values.ravel().tolist()
    assert "sw" not in engine.fallbacks, engine.fallbacks
    want = [gotoh_local(q, t, blosum62_dict(), 10, 1) for t in db]
    assert got == want


def test_window_is_used_and_reduction_fused():
    from dslc.plan import lower

    prog, engine = compiled(GOTOH)
    blosum = prog.checked.defined["blosum62"]
    from dslc.runtime.binding import bind_call

    args = bind_call(prog.checked.functions["sw"], [blosum, 10, 1, "HEAGAWGHEE", "PAWHEAE"],
                     prog.checked, None)
    plan = lower(prog.checked, "sw", "value", args, None).task
    (group,) = plan.groups
    assert group.windowed and group.schedule.window == 3
    assert group.schedule.coeffs == (1, 1)
    assert len(plan.fused) == 1 and plan.fused[0].func == "h"


def test_prob_and_float_programs_compile():
    src = """
        prob tiny(int n)
          | n == 0 = 1.0
          | otherwise = tiny(n - 1) * 0.5 + tiny(n - 1) * 0.25
        print tiny(50)
    """
    prog, engine = compiled(src)
    out = prog.run(backend="cpu")
    ref = dslc.compile(src, backend="interp").run()
    assert out["tiny(50)"].log == pytest.approx(ref["tiny(50)"].log, rel=1e-12)


def test_piece_with_a_single_partition_is_not_a_partition_loop():
    """A guard piece that lies in one partition (i == 0 under S = i) gets no c0 loop
    from isl; the loop over j it gets instead must not be taken for partitions."""
    from tests.generators import Func, Recurrence, Term

    rec = Recurrence(ndim=2, funcs=(Func(base=(1, -3, 0), terms=(
        Term(fn=0, delta=(1, 0), add=0), Term(fn=0, delta=(1, 0), add=-1)), ops=("+",),
        match_bonus=1, extra_guard=None),), schedule=(2, -2))
    prog, engine = compiled(rec.source())
    for s, t in [("T", "T"), ("AC", "GT"), ("ACG", "A")]:
        want = rec.evaluate((s, t), (len(s), len(t)))
        assert prog.map("f0", [s], [t]).values.ravel()[0] == want


@pytest.mark.parametrize("lanes", ["1", "0"])
def test_map_over_a_table_function_asks_each_task_its_own_cell(lanes, monkeypatch):
    """``map(n, ...)`` with index arguments: each task's result is the cell its
    own arguments name, not the table's last cell."""
    from dslc.runtime.binding import bind_call
    from tests.test_properties import NUSSINOV

    monkeypatch.setenv("DSLC_LANES", lanes)
    prog, engine = compiled(NUSSINOV)
    n = prog.checked.functions["n"]
    rng = __import__("random").Random(5)
    calls = []
    for k in range(40):
        x = "".join(rng.choice("ACGU") for _ in range(rng.randint(0, 14)))
        i = rng.randint(0, len(x))
        calls.append((x, i, rng.randint(i, len(x))))
    tasks = [bind_call(n, list(c), prog.checked, None) for c in calls]
    got = engine.map("n", tasks, None)
    assert "n" not in engine.fallbacks, engine.fallbacks
    interp = dslc.compile(NUSSINOV, backend="interp")
    assert got == [interp.call("n", *c) for c in calls]


COOPTIMAL = """
    int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
      | i == 0 = j
      | j == 0 = i
      | otherwise = d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1)
                    min d(i - 1, j) + 1 min d(i, j - 1) + 1

    // the number of co-optimal alignments: a table reading another group's table
    int n(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
      | i == 0 or j == 0 = 1
      | otherwise = (if d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1) == d(i, j)
                     then n(i - 1, j - 1) else 0)
                  + (if d(i - 1, j) + 1 == d(i, j) then n(i - 1, j) else 0)
                  + (if d(i, j - 1) + 1 == d(i, j) then n(i, j - 1) else 0)
"""


def test_a_table_entry_reading_another_groups_table_keeps_that_table_whole():
    # The entry n reads d anywhere after d's sweep: d kept as a window of its last
    # partitions gave n("GATTACA", "GCATGCT") = 0 instead of 4.
    src = COOPTIMAL + 'print n("GATTACA", "GCATGCT", 7, 7)\nprint n("ACGTAC", "AGTC", 6, 4)\n'
    want = list(dslc.compile(src, backend="interp").run().values())
    prog = dslc.compile(src, backend="cpu")
    assert list(prog.run().values()) == want
    assert want[0] == 4
    assert "n" not in prog._engine().fallbacks
