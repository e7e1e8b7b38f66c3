"""CPU maps as lane groups (dslc/emit/packs.py, dslc/cpu/packs.py,
dslc/emit/precision.py) against the interpreter, the language's specification.

A ``map`` of at least ``PACK`` (16) tasks runs 16 tasks in lockstep, with int
tables in float32 where emit.precision proves it exact (variant ``float32``:
a static bound; ``float32c``: a per-cell magnitude check, tasks reaching LEAF
recomputed by the float64 scalar path) and float64 otherwise. Every test here
compares task by task with the interpreter and, where it matters, asserts that
the lane path really ran (``engine.packs.generated[entry]`` is set when lane
code is compiled; ``engine.disk_cache`` is turned off so it always is) and which
variant it chose.
"""

from __future__ import annotations

import functools
import itertools
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import dslc
from dslc.emit.packs import PACK
from dslc.errors import DslcError
from dslc.emit.precision import LEAF
from dslc.lang.stdlib import stdlib_source
from tests.generators import DIMS, SEQS, dna, floored_recurrences, recurrences

pytestmark = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                                reason="numba/islpy not installed")

GOTOH = stdlib_source("align")  # h, e, f and the fused entry sw
NUSSINOV_FILE = "examples/nussinov.bio"
PROTEIN = "ARNDCQEGHILKMFPSTWYV"


# --------------------------------------------------------------------------- helpers


def lane_program(src: str):
    """A fresh CPU program and its engine, plans never taken from the disk cache
    (so ``engine.packs.generated`` records what this run compiled)."""
    prog = dslc.compile(src, backend="cpu")
    engine = prog._engine()
    engine.disk_cache = False
    return prog, engine


@functools.lru_cache(maxsize=64)
def interp_program(src: str):
    return dslc.compile(src, backend="interp")


def values(result) -> list:
    return result.values.ravel().tolist()


def run_both(src: str, entry: str, *operands):
    """(cpu results, interpreter results, cpu engine) of ``map(entry, operands)``."""
    prog, engine = lane_program(src)
    got = values(prog.map(entry, *operands))
    want = values(interp_program(src).map(entry, *operands))
    return got, want, engine


def variant(engine, entry: str):
    """The lane variant the map compiled (None: the lane path did not run)."""
    gen = engine.packs.generated.get(entry)
    return None if gen is None else gen[2]


def lane_signature(engine, entry: str) -> str:
    """The ``def lanes(...)`` line of the entry's generated lane code."""
    source = engine.packs.generated[entry][1]
    return next(ln for ln in source.splitlines() if ln.startswith("def lanes("))


def assert_same(got, want, context=""):
    bad = [(k, g, w) for k, (g, w) in enumerate(zip(got, want)) if g != w]
    assert len(got) == len(want) and not bad, f"{context}: (task, cpu, interp) {bad[:6]}"


def lane_scalar_types(engine, entry: str) -> set[str]:
    """The Numba types of the scalar floats the entry's lane driver (``batch``, which
    passes them on to ``lanes``) was called with."""
    from numba.core import types

    from dslc.cpu import modules

    source = engine.packs.generated[entry][1]
    mods = [m for m in modules._LOADED.values()
            if m._dslc_source.startswith(source) and hasattr(m, "batch")]
    return {str(t) for m in mods for sig in m.batch.signatures for t in sig
            if isinstance(t, types.Float)}


def proteins(n: int, seed: int, lo: int = 0, hi: int = 30) -> list[str]:
    """``n`` protein sequences of assorted lengths, always including an empty one
    and one of length 1."""
    rnd = random.Random(seed)
    out = ["", rnd.choice(PROTEIN)]
    while len(out) < n:
        out.append("".join(rnd.choice(PROTEIN) for _ in range(rnd.randint(lo, hi))))
    rnd.shuffle(out)
    return out


def blosum(prog):
    return prog.checked.defined["blosum62"]


# --------------------------------------------------------------------------- 1. random recurrences


def _reduction(dims_ranges: list[tuple[str, str, str]], body: str, op: str = "max") -> str:
    for d, lo, hi in reversed(dims_ranges):
        body = f"{op}({d} in {lo} ... {hi} : {body})"
    return body


def entries_for(ndim: int) -> dict[str, str]:
    """Value entries over the generated table ``f0``: fused reductions (the form
    the lane path compiles) whose bounds are per lane. ``final`` is the final
    cell; ``whole`` the maximum over the whole domain; ``inner`` a minimum over
    bounds that are not the domain's (empty for short sequences)."""
    dims, seqs = DIMS[:ndim], SEQS[:ndim]
    call = f"f0({', '.join(dims)})"
    params = ", ".join(f"seq[dna] {s}" for s in seqs)
    final = _reduction([(d, f"len({s})", f"len({s})") for d, s in zip(dims, seqs)], call)
    whole = _reduction([(d, "0", f"len({s})") for d, s in zip(dims, seqs)], call)
    inner = _reduction([(d, "1", f"len({s}) - 1") if n == 0 else (d, "0", f"len({s})")
                        for n, (d, s) in enumerate(zip(dims, seqs))], call, "min")
    return {name: f"int {name}({params}) = {body}"
            for name, body in (("final", final), ("whole", whole), ("inner", inner))}


def _operands(ndim: int, draw) -> list[list[str]]:
    """Lists whose cross product has at least 17 tasks, with sequences of
    different lengths, an empty one and one of length 1 in the first list."""
    counts = {1: [17], 2: [6, 3], 3: [3, 3, 2]}[ndim]
    ops = []
    for k, n in enumerate(counts):
        fixed = ["", "G"] if k == 0 else [""]
        ops.append(fixed + draw(st.lists(dna(5), min_size=n - len(fixed), max_size=n - len(fixed))))
    return ops


@settings(max_examples=12, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rec=recurrences(layered=True), data=st.data())
def test_random_recurrences_in_lanes_equal_the_interpreter(rec, data):
    entries = entries_for(rec.ndim)
    name = data.draw(st.sampled_from(sorted(entries)))
    src = rec.source() + "\n" + entries[name] + "\n"
    ops = _operands(rec.ndim, data.draw)
    try:
        interp_program(src).map(name, *ops)
    except DslcError as e:  # inf - inf or 0 * inf somewhere: the lanes must say so too
        assert "undefined arithmetic" in e.message, e.message
        with pytest.raises(DslcError, match="undefined arithmetic"):
            lane_program(src)[0].map(name, *ops)
        return
    got, want, engine = run_both(src, name, *ops)
    assert_same(got, want, src)
    # the lane path was taken, or refused for a recorded reason: never skipped silently
    assert name in engine.packs.generated or name in engine.packs.fallbacks, src
    if name == "final":  # and the generator's own meaning of the final cell
        oracle = [rec.evaluate(seqs, tuple(len(s) for s in seqs)) for seqs in itertools.product(*ops)]
        assert got == oracle, src


@settings(max_examples=6, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rec=recurrences(layered=True), data=st.data())
def test_random_recurrences_over_a_few_items_x_many_equal_the_interpreter(rec, data):
    """A product of a few items (the queries) with more than NARROW (the database),
    read from FASTA files as a search reads them: the CPU backend runs one map per
    item of the first list (dslc.cpu.backend.item_parts), each item every task's
    there, and the values must be the interpreter's, in the product's order.
    Recurrences of one dimension map over one long list."""
    import tempfile
    from pathlib import Path

    from dslc.lang.batch import NARROW

    entries = entries_for(rec.ndim)
    name = data.draw(st.sampled_from(sorted(entries)))
    src = rec.source() + "\n" + entries[name] + "\n"
    counts = {1: [NARROW + 3], 2: [3, NARROW + 2], 3: [2, NARROW + 1, 2]}[rec.ndim]
    lists = []
    for k, n in enumerate(counts):
        fixed = ["", "G"] if k == 0 else [""]
        lists.append(fixed + data.draw(st.lists(dna(4), min_size=n - len(fixed),
                                                max_size=n - len(fixed))))
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / f"op{k}.fa" for k in range(len(lists))]
        for path, seqs in zip(paths, lists):
            path.write_text("".join(f">r{j}\n{x}\n" for j, x in enumerate(seqs)))
        _few_items_x_many(src, name, rec.ndim, paths)


def _few_items_x_many(src: str, name: str, ndim: int, paths: list) -> None:
    """The product of the FASTA files ``paths`` on the CPU (with two threads' limits)
    and on the interpreter, the same values, and the CPU split by its few items."""
    import numba

    from dslc.cpu import backend

    interp = interp_program(src)
    try:
        want = values(interp.map(name, *(interp.load(str(p), "dna") for p in paths)))
    except DslcError as e:  # undefined arithmetic somewhere: the CPU must say so too
        assert "undefined arithmetic" in e.message, e.message
        with pytest.raises(DslcError, match="undefined arithmetic"):
            prog = lane_program(src)[0]
            prog.map(name, *(prog.load(str(p), "dna") for p in paths))
        return
    prog, _ = lane_program(src)
    split = []
    item_parts = backend.item_parts

    def seen(*a):
        out = item_parts(*a)
        split.append(out is not None)
        return out
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(backend, "item_parts", seen)
        mp.setattr(numba, "get_num_threads", lambda: 2)  # (as CI: parts of 64 tasks split)
        got = values(prog.map(name, *(prog.load(str(p), "dna") for p in paths)))
    assert_same(got, want, src)
    # (the whole map asks first, then each part's own map)
    assert split[0] == (ndim > 1), split  # the product was split by its few items


def test_a_fixed_random_recurrence_runs_in_lanes():
    """One generated 2-D recurrence with two mutually recursive functions and
    the match bonus: the lane path must compile it (the hypothesis test above
    accepts a recorded refusal)."""
    from tests.generators import Func, Recurrence, Term

    rec = Recurrence(ndim=2, funcs=(
        Func(base=(1, -1, 2), terms=(Term(1, (1, 0), 2), Term(0, (1, 1), -1)), ops=("max",),
             match_bonus=2, extra_guard=None),
        Func(base=(0, 1, 0), terms=(Term(0, (0, 1), 1), Term(1, (0, 1), 0)), ops=("min",),
             match_bonus=0, extra_guard=(1, 2))), schedule=(1, 1))
    for name, entry in entries_for(2).items():
        src = rec.source() + "\n" + entry + "\n"
        ss = ["", "A", "ACGTAC", "GG", "TTAC", "CAT"]
        ts = ["", "C", "GATTACA"]
        got, want, engine = run_both(src, name, ss, ts)
        assert_same(got, want, name)
        assert variant(engine, name) is not None, engine.packs.fallbacks
        if name == "final":
            assert got == [rec.evaluate((s, t), (len(s), len(t))) for s, t in
                           itertools.product(ss, ts)]


# --------------------------------------------------------------------------- 2. the variants


def test_smith_waterman_is_float32_by_the_static_bound(monkeypatch):
    """(With int16 lanes off: DSLC_NARROW=0; they are tested below.)"""
    from tests.reference import blosum62_dict, gotoh_local

    monkeypatch.setenv("DSLC_NARROW", "0")
    db = proteins(37, seed=1)
    q = "HEAGAWGHEE"
    prog, engine = lane_program(GOTOH)
    got = values(prog.map("sw", blosum(prog), 10, 1, q, db))
    assert variant(engine, "sw") == "float32", engine.packs.fallbacks
    assert "DT = np.float32" in engine.packs.generated["sw"][1]
    # the gap costs (shared numbers) reach the lanes as float32, like the tables: a
    # float64 among them would make Numba compute e and f in float64
    assert lane_scalar_types(engine, "sw") == {"float32"}
    assert got == [gotoh_local(q, t, blosum62_dict(), 10, 1) for t in db]
    assert_same(got, values(interp_program(GOTOH).map("sw", blosum(prog), 10, 1, q, db)))


@pytest.mark.parametrize("gap_open, count, seed, chosen", [
    # beyond LEAF: neither float32 argument holds
    (3_000_000, 20, 2, "float64"),
    # below LEAF: the static bound fails (chain x leaves x 500,000 is far above 2^23) but
    # the checked argument holds, and no value reaches LEAF
    (500_000, 18, 3, "float32c"),
])
def test_smith_waterman_with_a_large_gap_open_picks_its_value_type_and_is_exact(
        gap_open, count, seed, chosen):
    db = proteins(count, seed=seed)
    got, want, engine = run_both(GOTOH, "sw", blosum(interp_program(GOTOH)), gap_open, 1,
                                 "HEAGAWGHEE", db)
    assert variant(engine, "sw") == chosen
    assert_same(got, want)


def test_checked_run_recomputes_tasks_that_reach_leaf():
    """open = 1,000,000 and ext = 50,000: every argument is below LEAF (float32c is
    chosen), but opening a gap stores -1,050,000, beyond LEAF: those tasks are
    recomputed by the scalar path, and every result must be exact."""
    db = proteins(20, seed=4, lo=5, hi=60) + ["W" * 200]
    prog = interp_program(GOTOH)
    src = GOTOH + """
int e_min(matrix sm, const open, const ext, seq[protein] s, seq[protein] t) =
    min(i in len(s) ... len(s) : min(j in 1 ... len(t) : e(i, j)))
"""
    ops = (blosum(prog), 1_000_000, 50_000, "HEAGAWGHEEKL", db)
    got, want, engine = run_both(src, "e_min", *ops)
    assert variant(engine, "e_min") == "float32c"
    assert min(w for w in want if abs(w) != math.inf) < -LEAF  # the check fires
    assert_same(got, want)
    got, want, engine = run_both(src, "sw", *ops)
    assert variant(engine, "sw") == "float32c"
    assert_same(got, want)


LARGE_STEP = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 1
  | otherwise = g(i - 1) + 1000003
int last(seq[dna] s) = max(i in len(s) ... len(s) : g(i))
int low(seq[dna] s) = max(i in 1 ... len(s) - 1 : g(i))
"""


@pytest.mark.parametrize("entry", ["last", "low"])
def test_int_recurrence_beyond_2_to_24_is_exact(entry):
    """A linear recurrence adding a large odd constant per step: values pass 2^24
    (where float32 loses odd integers) for sequences longer than 16."""
    seqs = ["A" * n for n in range(0, 40, 2)] + ["", "C"]
    got, want, engine = run_both(LARGE_STEP, entry, seqs)
    assert variant(engine, entry) in ("float32c", "float64")
    assert max(abs(w) for w in want if abs(w) != math.inf) > 2 ** 24 + 1
    assert_same(got, want)


DOUBLING = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 1
  | otherwise = g(i - 1) + g(i - 1) + 1
int last(seq[dna] s) = max(i in len(s) ... len(s) : g(i))
"""


def test_a_term_reading_two_cells_is_checked_and_exact():
    """Two reads in one term (values double along the chain, as in Nussinov): the
    checked variant, and tasks passing LEAF (lengths >= 20) recomputed."""
    seqs = ["T" * n for n in range(0, 34)]
    got, want, engine = run_both(DOUBLING, "last", seqs)
    assert variant(engine, "last") == "float32c"
    assert want[-1] == 2 ** 34 - 1  # well beyond float32's exact integers
    assert_same(got, want)


def _nussinov_src() -> str:
    from tests.conftest import ROOT

    text = (ROOT / NUSSINOV_FILE).read_text()
    funcs = text.split("\nr = n(")[0]
    return funcs + "\nint fold(seq[rna] x) = max(i in 0 ... 0 : n(i, len(x)))\n"


def _rna(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    out = ["", "G"] + ["".join(rnd.choice("ACGU") for _ in range(rnd.randint(0, 45)))
                       for _ in range(n - 2)]
    return out


def test_nussinov_float32_facts_are_the_checked_kind():
    """precision.py's docstring: Nussinov's ``n(i + 1, k) + n(k + 1, j)`` reads
    two cells, so there is no static bound (not linear) but the checked argument
    applies (float32_info is not None)."""
    from dslc.plan import lower
    from dslc.emit.precision import float32_info
    from dslc.runtime.binding import bind_call

    prog = interp_program(_nussinov_src())
    args = bind_call(prog.checked.functions["fold"], ["GGGAAAUCCGGGAAAUCC"], prog.checked, None)
    plan = lower(prog.checked, "fold", "value", args, None).task
    info = float32_info(prog.checked, plan)
    assert info is not None and not info.linear


def test_nussinov_map_equals_the_interpreter():
    xs = _rna(20, seed=5)
    got, want, engine = run_both(_nussinov_src(), "fold", xs)
    assert_same(got, want)
    from tests.reference import nussinov

    assert got == [nussinov(x) for x in xs]


def test_nussinov_in_lanes_is_checked_float32_or_says_why_not():
    """Nussinov reads two cells per term, so only the checked float32 variant can
    apply; where the generated code keeps a run-time check (a padded lane cannot
    report one), the map runs one task per call and the reason is recorded.
    Either way the results are the interpreter's."""
    xs = _rna(20, seed=6)
    got, want, engine = run_both(_nussinov_src(), "fold", xs)
    assert_same(got, want)
    if "fold" in engine.packs.generated:
        assert variant(engine, "fold") == "float32c"
    else:
        why = engine.packs.fallbacks["fold"]
        assert "sequence index" in why or "run-time check" in why, why


FLOAT_TABLE = """
float g(seq[dna] s, index[s] i)
  | i == 0 = 0.5
  | otherwise = g(i - 1) * 0.75 + (if s[i - 1] == 'A' then 0.1 else 0.3)
float best(seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""

PROB_TABLE = """
prob p(seq[dna] s, index[s] i)
  | i == 0 = 1.0
  | otherwise = p(i - 1) * (if s[i - 1] == 'A' then 0.3 else 0.1) + p(i - 1) * 0.25
prob best(seq[dna] s) = max(i in len(s) ... len(s) : p(i))
"""


@pytest.mark.parametrize("src", [FLOAT_TABLE, PROB_TABLE], ids=["float", "prob"])
def test_float_and_prob_tables_are_float64(src):
    rnd = random.Random(7)
    seqs = ["", "A"] + ["".join(rnd.choice("ACGT") for _ in range(rnd.randint(0, 30)))
                        for _ in range(17)]
    got, want, engine = run_both(src, "best", seqs)
    if src is FLOAT_TABLE:
        assert variant(engine, "best") == "float64", engine.packs.fallbacks
        assert got == pytest.approx(want, rel=1e-12, abs=0)
    else:  # prob code has run-time checks (_to_log): lanes may refuse it, never float32
        assert variant(engine, "best") in (None, "float64"), engine.packs.fallbacks
        assert got == pytest.approx(want, rel=1e-12, abs=0)


TRIANGLE = """
int g(int n)
  | n == 0 = 0
  | otherwise = g(n - 1) + n
"""


def test_coordinates_as_values_over_an_int_domain_are_exact():
    """BUG at ff93954: ``g(n) = g(n - 1) + n`` over an int domain uses a coordinate
    as a value, but the static bound takes the extent from sequence lengths only
    (cpu/packs.py ``_extents``), so it sees extent 0, proves nothing is large and
    picks float32; g(6000) = 18,003,000 > 2^24 comes out as 18,002,896."""
    ns = list(range(6000, 6017))
    got, want, engine = run_both(TRIANGLE, "g", ns)
    assert want == [n * (n + 1) // 2 for n in ns]
    assert_same(got, want)


SUM_ENTRY = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = g(i - 1) + 99999
int total(seq[dna] s) = sum(i in 0 ... len(s) : g(i))
"""


def test_a_fused_sum_in_a_float32_run_is_exact():
    """BUG at ff93954: every cell of g is below 2^23 (the static bound holds,
    float32 is chosen) but the entry's fused ``sum`` accumulator is float32 too
    (DT), and the sum passes 2^24: 99999 * 60 * 61 / 2 = 182,997,170 comes out
    as 182,998,176. precision.py checks only the tables, not the entry's
    reductions."""
    seqs = ["A" * n for n in range(60, 77)]
    got, want, engine = run_both(SUM_ENTRY, "total", seqs)
    assert want[0] == 99999 * 60 * 61 // 2
    assert_same(got, want)


# --------------------------------------------------------------------------- 3. shared vs per lane


def test_query_shared_by_every_task_is_passed_once():
    db = proteins(17, seed=8)
    got, want, engine = run_both(GOTOH, "sw", blosum(interp_program(GOTOH)), 10, 1,
                                 "HEAGAWGHEE", db)
    assert_same(got, want)
    sig = lane_signature(engine, "sw")
    assert "n_t" in sig and "n_s" not in sig, sig  # t per lane, the query s shared


def test_query_differing_per_task():
    """Two lists: the query and the subject both vary (3 x 6 = 18 tasks)."""
    queries = ["HEAGAWGHEE", "", "W"]
    db = proteins(6, seed=9)
    got, want, engine = run_both(GOTOH, "sw", blosum(interp_program(GOTOH)), 10, 1, queries, db)
    assert variant(engine, "sw") == "int8"  # (no profile: both symbols differ per lane)
    assert "P_" not in engine.packs.generated["sw"][1]
    sig = lane_signature(engine, "sw")
    assert "n_s" in sig and "n_t" in sig, sig
    assert_same(got, want)


def test_cross_product_of_one_list_with_itself():
    """``db (*) db``: every pair, the diagonal included (5 x 5 = 25 tasks)."""
    db = proteins(5, seed=10)
    got, want, engine = run_both(GOTOH, "sw", blosum(interp_program(GOTOH)), 10, 1, db, db)
    assert variant(engine, "sw") is not None
    assert_same(got, want)


def test_numeric_arguments_per_task():
    """Gap costs mapped over (3 x 2 x 3 = 18 tasks): per-lane numbers."""
    db = ["HEAGAWGHEE", "", "PAWHEAE"]
    got, want, engine = run_both(GOTOH, "sw", blosum(interp_program(GOTOH)), [0, 5, 11], [1, 3],
                                 "PAWHEAEWWA", db)
    assert variant(engine, "sw") == "int8"  # (every ext is >= 0: emit.narrow's sign)
    sig = lane_signature(engine, "sw")
    assert "a_open" in sig and "a_ext" in sig
    src = engine.packs.generated["sw"][1]
    assert "a_open[l]" in src and "a_ext[l]" in src  # read per lane
    assert_same(got, want)


def test_numeric_arguments_per_task_one_beyond_leaf():
    """One task's gap open is beyond LEAF: the whole map must still be exact."""
    db = ["HEAGAWGHEE", "", "PAWHEAE", "M"]
    got, want, engine = run_both(GOTOH, "sw", blosum(interp_program(GOTOH)),
                                 [3, 4_000_000, 11, 2], [1, 2], "PAWHEAEWWA", db)
    assert variant(engine, "sw") == "float64"
    assert_same(got, want)


def test_every_argument_identical_in_every_task():
    """17 copies of one task: every argument is shared (no per-lane sequence)."""
    db = ["PAWHEAEWWA"] * 17
    got, want, engine = run_both(GOTOH, "sw", blosum(interp_program(GOTOH)), 10, 1,
                                 "HEAGAWGHEE", db)
    assert variant(engine, "sw") is not None
    assert_same(got, want)
    assert len(set(got)) == 1


PER_LANE_COMPARE = """
int g(const cut, seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = g(i - 1) + (if g(i - 1) > cut then 1 else 2)
int last(const cut, seq[dna] s) = max(i in len(s) ... len(s) : g(i))
"""


def test_a_numeric_argument_compared_with_cell_values_per_lane():
    seqs = ["", "A", "ACGTACGTAC", "ACGTACGTACGTACGTACGT", "AC"]
    got, want, engine = run_both(PER_LANE_COMPARE, "last", [0, 3, 7, 11], seqs)
    assert variant(engine, "last") is not None, engine.packs.fallbacks
    assert_same(got, want)


# --------------------------------------------------------------------------- 3b. int16 lanes


@pytest.mark.parametrize("narrowest, dtype, lanes, suffix", [
    ("1", "int8", 64, "b"), ("16", "int16", 32, "w")])
def test_smith_waterman_runs_in_narrow_lanes_with_a_score_profile(
        narrowest, dtype, lanes, suffix, monkeypatch, tmp_path):
    """Local alignment has a floor (emit.narrow): int8 lanes (64 per pack) and, with
    DSLC_NARROW=16, int16 lanes (32), BLOSUM62 read from a profile built per pack
    (kernel.profiles), sums saturating; the compiled lanes are 8- or 16-bit vector
    code (their assembly: saturating adds and subtractions and maxima of bytes or
    words on 256- or 512-bit registers)."""
    import re

    import numba

    from dslc.cpu import modules
    from tests.reference import blosum62_dict, gotoh_local

    monkeypatch.setenv("DSLC_NARROW", narrowest)
    # a fresh Numba cache, and no module this process loaded before (another test's
    # run of the same lanes, from its cache): code loaded from a cache cannot be inspected
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(modules, "_LOADED", {})
    db = proteins(70, seed=21, hi=50) + ["HEAGAWGHEEPAWHEAEKLMW" * 3]  # (the last: 181 > 83)
    q = "HEAGAWGHEEPAWHEAEKLMW"
    prog, engine = lane_program(GOTOH)
    got = values(prog.map("sw", blosum(prog), 10, 1, q, db))
    assert got == [gotoh_local(q, t, blosum62_dict(), 10, 1) for t in db]
    assert variant(engine, "sw") == dtype, engine.packs.fallbacks
    if dtype == "int8":  # the task past int8's ceiling, recomputed in int16 lanes
        assert engine.packs.widened["sw"] >= 1 and not engine.packs.recomputed.get("sw")
    src = engine.packs.generated["sw"][1]
    assert f"LANES = {lanes}" in src and f"DT = np.{dtype}" in src and "SAT(" in src
    assert re.search(r"P_a_sm_a_t_\d\[np\.int64\(a_s\[", src), src  # the profile's read
    assert "a_sm[np.int64(a_s" not in src  # and no gather left in the sweep
    assert lane_scalar_types(engine, "sw") == set()  # gap costs passed as integers too
    asm = "".join(m.lanes.inspect_asm(sig) for m in modules._LOADED.values()
                  if m._dslc_source.startswith(src) and hasattr(m, "lanes")
                  for sig in m.lanes.signatures)
    ops = set(re.findall(rf"\b(vp(?:adds|subs|maxs){suffix})\s[^\n]*%[yz]mm", asm))
    assert {f"vpadds{suffix}", f"vpsubs{suffix}", f"vpmaxs{suffix}"} <= ops, sorted(ops)


CLIMB = """
int g(const step, seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = 0 max g(i - 1) + (if s[i - 1] == 'A' then step else -1)
int best(const step, seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""


def test_a_task_reaching_the_ceiling_is_recomputed_wider():
    """Steps of 3,000: int16's ceiling (32,767 - 2 x 3,000) is passed by the tasks
    with more than 8 A's, which are recomputed; the others keep their int16 result.
    (Sequences of one length: a padded cell, beyond a lane's own, is recorded too.)"""
    seqs = ["A" * n + "C" * (20 - n) for n in range(0, 21)]
    got, want, engine = run_both(CLIMB, "best", 3000, seqs)
    assert variant(engine, "best") == "int16", engine.packs.fallbacks
    assert_same(got, want)
    assert max(want) == 60_000
    assert engine.packs.recomputed["best"] == sum(w >= 32767 - 6000 for w in want)


def test_int8_tasks_past_the_ceiling_are_recomputed_in_int16_lanes():
    """Steps of 10: int8's ceiling is 127 - 2 x 10; tasks of more than 10 A's pass
    it and are recomputed in int16 lanes, none by the scalar path."""
    seqs = ["A" * n + "C" * (20 - n) for n in range(0, 21)]
    got, want, engine = run_both(CLIMB, "best", 10, seqs)
    assert variant(engine, "best") == "int8", engine.packs.fallbacks
    assert_same(got, want)
    assert engine.packs.widened["best"] == sum(w >= 127 - 20 for w in want)
    assert not engine.packs.recomputed.get("best")


@settings(max_examples=5, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large])
@given(rec=floored_recurrences(), data=st.data())
def test_floored_random_recurrences_in_lanes_equal_the_interpreter(rec, data):
    """Recurrences with a floor (tests.generators.floored_recurrences): int16 lanes
    where emit.narrow proves them exact, steps that reach the ceiling and ``+inf``
    bases recomputed wider; every value the interpreter's."""
    entries = entries_for(rec.ndim)
    name = data.draw(st.sampled_from(sorted(entries)))
    src = rec.source() + "\n" + entries[name] + "\n"
    ops = _operands(rec.ndim, data.draw)
    got, want, engine = run_both(src, name, *ops)
    assert_same(got, want, src)
    event(f"lanes: {variant(engine, name)}")
    if engine.packs.recomputed.get(name):
        event("int16 tasks recomputed")


# --------------------------------------------------------------------------- 4. cells and bounds


def test_map_over_a_table_function_gives_each_tasks_final_cell():
    """``map(h, ...)``: kind "cell", the final cell of every task, per lane."""
    db = proteins(19, seed=11)
    prog = interp_program(GOTOH)
    got, want, engine = run_both(GOTOH, "h", blosum(prog), 10, 1, "HEAGAWGHEE", db)
    assert_same(got, want)


def test_map_over_a_table_function_runs_in_lanes():
    """BUG at ff93954: PackMaps.run classifies every parameter of the entry
    (``f.params``), so the recursive ``index[s] i`` of a table is taken for a
    ``shared`` model argument missing from the tasks, and ``run`` returns None:
    a ``map`` over a table whose domain is indexed by sequences never runs in
    lanes (silently; nothing is recorded in lanes.fallbacks)."""
    db = proteins(19, seed=12)
    got, want, engine = run_both(GOTOH, "h", blosum(interp_program(GOTOH)), 10, 1,
                                 "HEAGAWGHEE", db)
    assert_same(got, want)
    assert variant(engine, "h") is not None, engine.packs.fallbacks


INT_CELL = """
int c(int n, int k)
  | k == 0 or k == n = 1
  | k > n = 0
  | otherwise = c(n - 1, k - 1) max c(n - 1, k) + 1
"""


def test_map_over_a_table_with_int_domain_in_lanes():
    """A table over int parameters: each task's own final cell (n, k).
    BUG at ff93954 (not only the lanes: DSLC_LANES=0 too): the map is planned
    for the first task's request (n, k) = (0, 0) (``_widest`` widens sequences
    only), so tasks asking for a larger k get wrong cells: c(5, 3) = 5, the
    interpreter says 3. Minimal: ``dslc.compile(INT_CELL, backend="cpu")
    .map("c", [5], [0, 3])`` gives [1, 5], the interpreter [1, 3]."""
    ns, ks = [0, 1, 5, 9, 30, 2], [0, 1, 3]
    got, want, engine = run_both(INT_CELL, "c", ns, ks)
    assert variant(engine, "c") is not None, engine.packs.fallbacks
    assert_same(got, want)


PARTIAL = GOTOH + """
int inner(matrix sm, const open, const ext, seq[protein] s, seq[protein] t) =
    max(i in 1 ... len(s) - 1 : max(j in 2 ... len(t) - 1 : h(i, j)))
int col(matrix sm, const open, const ext, seq[protein] s, seq[protein] t) =
    max(j in 0 ... len(t) : h(len(s) - 1, j))
int corner(matrix sm, const open, const ext, seq[protein] s, seq[protein] t) =
    min(i in 1 ... len(s) : min(j in len(t) ... len(t) : f(i, j)))
"""


@pytest.mark.parametrize("ntasks", [17, 33])
@pytest.mark.parametrize("entry", ["inner", "corner"])
def test_fused_reductions_with_bounds_inside_the_domain(entry, ntasks):
    """Bounds per lane that are not the domain's (empty ranges for short
    sequences give -inf), lane counts not a multiple of 16."""
    db = proteins(ntasks, seed=13 + ntasks, hi=25)
    got, want, engine = run_both(PARTIAL, entry, blosum(interp_program(PARTIAL)), 10, 1,
                                 "HEAGAWGHEE", db)
    assert variant(engine, entry) is not None, engine.packs.fallbacks
    assert_same(got, want)
    if entry == "inner":  # both an empty range (short subjects) and a real maximum
        assert -math.inf in want and any(abs(w) != math.inf for w in want)


@pytest.mark.parametrize("ntasks", [16, 17, 31, 33, 48, 63, 65])
def test_lane_counts_around_multiples_of_16(ntasks):
    """(16 float32 lanes, 64 int8 lanes: SW takes int8.)"""
    from tests.reference import blosum62_dict, gotoh_local

    db = proteins(ntasks, seed=ntasks, hi=40)
    prog, engine = lane_program(GOTOH)
    got = values(prog.map("sw", blosum(prog), 10, 1, "HEAGAWGHEE", db))
    assert variant(engine, "sw") == "int8"
    assert got == [gotoh_local("HEAGAWGHEE", t, blosum62_dict(), 10, 1) for t in db]


HELPER_LEN = """
float twice(seq[dna] s) = len(s) * 2.0

float f(seq[dna] s) = twice(s) + 1.0
"""


def test_a_helper_reading_the_length_of_its_own_sequence_falls_back_to_one_task_per_call():
    """A helper's parameter named like the entry's sequence is the helper's own: its
    ``len(s)`` is not the lane's length (it was read as ``n_s[l]`` in the helper, where
    no lane exists: an InternalError). A sequence in a helper is refused (packs)."""
    xs = ["ACGT" * (k % 5 + 1) for k in range(PACK + 2)]
    got, want, engine = run_both(HELPER_LEN, "f", xs)
    assert variant(engine, "f") is None
    assert "a sequence passed to a helper function" in engine.packs.fallbacks["f"]
    assert_same(got, want)


@pytest.mark.parametrize("size", [1, 2])
def test_groups_run_a_slice_at_a_time_with_the_same_values(monkeypatch, size):
    """The groups are packed and run ``SLICE`` at a time, so the padded sequences
    (a query every lane reads padded into each) are held for one slice, never for
    the whole map (on a 105,000-protein search that copy was as large as the
    database, and the query's as large again). Values identical; the same map as
    the 33-task case above, so no new code is compiled; 130 tasks make at least
    three groups in the widest lanes (64 int8 lanes a pack)."""
    from tests.reference import blosum62_dict, gotoh_local

    from dslc.cpu import packs

    padded = []
    pack_seqs = packs._pack_seqs

    def recorded(codes, starts, lens, ngroups):
        padded.append(ngroups)
        return pack_seqs(codes, starts, lens, ngroups)
    monkeypatch.setattr(packs, "_pack_seqs", recorded)
    monkeypatch.setattr(packs, "SLICE", size)
    db = proteins(130, seed=33, hi=40)
    prog, engine = lane_program(GOTOH)
    got = values(prog.map("sw", blosum(prog), 10, 1, "HEAGAWGHEE", db))
    assert variant(engine, "sw") is not None
    assert got == [gotoh_local("HEAGAWGHEE", t, blosum62_dict(), 10, 1) for t in db]
    assert padded and max(padded) <= size and len(padded) >= -(-3 // size)  # 3 groups or more


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5000), max_size=300), st.integers(1, 40), st.integers(1, 9),
       st.integers(1, 20000))
def test_slices_cover_the_groups_within_their_bounds(sizes, most, least, budget):
    """:func:`packs.slices` cuts the groups (in run order) into consecutive slices
    of at most ``SLICE`` groups, each past ``SLICE_MIN`` of them within
    ``SLICE_BYTES`` of padded residues, and each as long as those bounds allow."""
    from unittest import mock

    from dslc.cpu import packs

    padded = np.array(sizes, dtype=np.int64)
    with mock.patch.multiple(packs, SLICE=most, SLICE_MIN=least, SLICE_BYTES=budget):
        bounds = packs.slices(padded)
    assert bounds[0] == 0 and bounds[-1] == len(sizes)
    for a, b in zip(bounds, bounds[1:]):
        assert 0 < b - a <= most
        if b - a > least:
            assert padded[a:b].sum() <= budget
        if b < len(sizes):  # (the next group would cross a bound)
            assert b - a == most or padded[a:b + 1].sum() > budget and b - a >= least


def test_fewer_tasks_than_lanes_take_the_scalar_path():
    db = proteins(PACK - 1, seed=14)
    got, want, engine = run_both(GOTOH, "sw", blosum(interp_program(GOTOH)), 10, 1,
                                 "HEAGAWGHEE", db)
    assert variant(engine, "sw") is None
    assert_same(got, want)


# --------------------------------------------------------------------------- 5. DSLC_LANES=0


@pytest.mark.parametrize("src,entry,ops", [
    (GOTOH, "sw", lambda p: (blosum(p), [0, 10], 1, ["HEAGAWGHEE", "W"], proteins(9, seed=15))),
    (GOTOH, "sw", lambda p: (blosum(p), 1_000_000, 50_000, "HEAGAWGHEE", proteins(17, seed=16))),
    (PARTIAL, "inner", lambda p: (blosum(p), 10, 1, "HEAGAWGHEE", proteins(33, seed=17))),
    (LARGE_STEP, "last", lambda p: (["A" * n for n in range(30)],)),
], ids=["sw-float32", "sw-checked", "inner-bounds", "large-step"])
def test_lanes_off_gives_identical_results(monkeypatch, src, entry, ops):
    operands = ops(interp_program(src))
    prog, engine = lane_program(src)
    with_lanes = values(prog.map(entry, *operands))
    assert variant(engine, entry) is not None
    monkeypatch.setenv("DSLC_LANES", "0")
    prog, engine = lane_program(src)
    without = values(prog.map(entry, *operands))
    assert variant(engine, entry) is None  # really off
    assert with_lanes == without
    assert_same(with_lanes, values(interp_program(src).map(entry, *operands)))


def test_leaf_is_what_the_docstring_says():
    assert LEAF == 2.0 ** 20 and PACK == 16
