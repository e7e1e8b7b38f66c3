"""The CUDA backend (task-per-thread). In CI it runs under NUMBA_ENABLE_CUDASIM=1;
on a GPU machine the same tests run on the device unchanged."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.cuda.backend import CudaBackend
from tests.generators import check_layered, check_map, dna, layered, recurrences
from tests.conftest import ROOT
from tests.test_properties import GOTOH

pytestmark = pytest.mark.skipif(not CudaBackend.available(),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM not set")

protein = st.text(alphabet="ARNDCQEGHILKMFPSTWYV", min_size=0, max_size=15)


def engine_of(prog):
    from dslc.runtime.script import backend_globals

    return CudaBackend(prog.checked, backend_globals(prog.checked))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(q=protein, db=st.lists(protein, min_size=1, max_size=5))
def test_gotoh_map_runs_on_the_device_and_matches(q, db):
    from tests.reference import blosum62_dict, gotoh_local

    prog = dslc.compile(GOTOH, backend="interp")
    engine = engine_of(prog)
    blosum = prog.checked.defined["blosum62"]
    from dslc.runtime.binding import bind_call

    tasks = [bind_call(prog.checked.functions["sw"], [blosum, 10, 1, q, t], prog.checked, None)
             for t in db]
    got = engine.map("sw", tasks, None)
    assert not engine.device_fallbacks, engine.device_fallbacks
    assert got == [gotoh_local(q, t, blosum62_dict(), 10, 1) for t in db]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(max_dim=2, layered=True), data=st.data())
def test_random_recurrences_on_the_device(rec, data):
    check_map(engine_of, rec, data, 4)


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lay=layered(max_stages=2), s=dna(3, 1), t=dna(3, 1))
def test_several_groups_on_the_device_equal_the_interpreter(lay, s, t):
    """Groups reading each other's tables, helpers, a float const (generators.layered)."""
    check_layered(lay, s, t, "cuda", every=False)


@pytest.fixture
def tile_rows():
    """Small register tiles, so that short sequences have full tiles and a
    partial one: the specialised interior code (kernel.boxes) runs too."""
    import os

    old = os.environ.get("DSLC_CUDA_TILE")

    def use(rows: int):
        os.environ["DSLC_CUDA_TILE"] = str(rows)
    yield use
    if old is None:
        os.environ.pop("DSLC_CUDA_TILE", None)
    else:
        os.environ["DSLC_CUDA_TILE"] = old


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_gotoh_in_small_register_tiles(rows, tile_rows):
    from dslc.runtime.binding import bind_call
    from tests.reference import blosum62_dict, gotoh_local

    tile_rows(rows)
    prog = dslc.compile(GOTOH, backend="interp")
    engine = engine_of(prog)
    blosum = prog.checked.defined["blosum62"]

    @settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(q=protein, db=st.lists(protein, min_size=1, max_size=5))
    def check(q, db):
        tasks = [bind_call(prog.checked.functions["sw"], [blosum, 10, 1, q, t], prog.checked,
                           None) for t in db]
        got = engine.map("sw", tasks, None)
        assert not engine.device_fallbacks, engine.device_fallbacks
        assert "register tile of %d rows" % rows in engine.strategy["sw"]
        assert got == [gotoh_local(q, t, blosum62_dict(), 10, 1) for t in db]
    check()


CORNER = """
int f0(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i < 2 or j < 2 = i + j
  | otherwise = f0(i - 1, j - 1) + 1 max f0(i - 1, j) max f0(i, j - 1) - 1
int top(seq[dna] s, seq[dna] t) = max(i in 0 ... len(s) : max(j in 0 ... len(t) : f0(i, j)))
"""


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_tiles_with_streams_shorter_than_the_peeled_columns(rows, tile_rows):
    """Guards decided from column 2 on, and streams of 0 or 1 columns: the
    loads issued ahead must stay inside the boundary buffer."""
    from dslc.runtime.binding import bind_call

    tile_rows(rows)
    prog = dslc.compile(CORNER, backend="interp")
    engine = engine_of(prog)
    # s is every task's (the tiled dimension), t the stream; one launch each: its
    # storage is as wide as its longest stream
    for pairs in ([("ACGTACGTAC", ""), ("ACGTACGTAC", "A")],
                  [("ACGTACGTAC", "AC"), ("ACGTACGTAC", "")],
                  [("ACG", "ACGTA"), ("ACG", "C")]):
        tasks = [bind_call(prog.checked.functions["top"], [s, t], prog.checked, None)
                 for s, t in pairs]
        assert engine.map("top", tasks, None) == [prog.call("top", s, t) for s, t in pairs]
        assert "register tile" in engine.strategy["top"], engine.strategy


@pytest.mark.parametrize("rows", [2, 3])
def test_random_recurrences_in_small_register_tiles(rows, tile_rows):
    tile_rows(rows)

    @settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(rec=recurrences(max_dim=2), data=st.data())
    def check(rec, data):
        check_map(engine_of, rec, data, 9)
    check()


def test_storage_is_laid_out_with_the_task_innermost():
    from dslc.emit.strategies import build, strategy
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call

    prog = dslc.compile(GOTOH, backend="interp")
    blosum = prog.checked.defined["blosum62"]
    args = bind_call(prog.checked.functions["sw"], [blosum, 10, 1, "HEAGAWGHEE", "PAWHEAE"],
                     prog.checked, None)
    plan = lower(prog.checked, "sw", "value", args, None).task
    gen = build(strategy("cuda task-per-thread"), prog.checked, plan)
    source, _ = gen.generate()
    assert "@cuda.jit(device=True)" in source
    assert "T_h[slot_h_0, x_i, tid]" in source  # coalesced: neighbouring threads, neighbouring words
    assert "np.empty" not in source and "_dom(" not in source.split("def task")[1]


def test_cuda_by_name_without_a_device_is_a_clear_error(tmp_path):
    """A process that sees no device (none visible to the driver, the simulator off):
    on a GPU machine as on one without a driver."""
    import os
    import subprocess
    import sys

    from dslc import backends

    p = tmp_path / "x.bio"
    p.write_text("int f(int n) = n\nprint f(1)\n")
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "NUMBA_ENABLE_CUDASIM": "0",
           "DSLC_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", "--backend", "cuda", str(p)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    assert "not available" in r.stderr and "Traceback" not in r.stderr
    assert backends.resolve("auto") in ("cpu", "interp", "auto")


@pytest.mark.parametrize("env", [{"DSLC_CUDA_PIPELINE": "4"}, {"DSLC_CUDA_SCRATCH_MB": "0"}])
def test_a_map_cut_into_launches_gives_the_values_of_one(monkeypatch, env):
    """Launches on two alternating streams (a map cut up so that packing
    overlaps the kernels, or a scratch budget smaller than the whole map)
    return every task's value in its own place, as one launch does."""
    from dslc.runtime.binding import bind_call

    prog = dslc.compile(GOTOH, backend="interp")
    blosum = prog.checked.defined["blosum62"]
    aa = "ARNDCQEGHILKMFPSTWYV"
    db = [(aa * 3)[k % 7: k % 7 + 1 + (k * 5) % 13] for k in range(11)]
    tasks = [bind_call(prog.checked.functions["sw"], [blosum, 10, 1, "HEAGAWGHEE", t],
                       prog.checked, None) for t in db]
    one = engine_of(prog)
    want = one.map("sw", tasks, None)
    assert one.launches == 1
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    cut = engine_of(prog)
    seen = []  # progress, reported as launches are seen to finish
    assert cut.map("sw", tasks, None, seen.append) == want
    assert cut.launches > 2 and not cut.device_fallbacks
    assert len(seen) >= 2 and seen == sorted(seen) and seen[-1] == len(tasks)  # not only at the end


def test_a_product_s_queries_run_in_launches_of_their_own(monkeypatch):
    """Queries x a database of more than NARROW records, cut into launches: no
    launch spans two queries, the database is interleaved once for all of them,
    and every value is the interpreter's."""
    import numpy as np

    from dslc.lang.batch import SeqColumn, Shared, TaskBatch
    from dslc.lang.records import SeqPack
    from dslc.runtime.binding import bind_call

    prog = dslc.compile(GOTOH, backend="interp")
    sw = prog.checked.functions["sw"]
    aa = "ARNDCQEGHILKMFPSTWYV"
    texts = ["HEAGAWGHEE", "PAWHEAE"] + [(aa * 3)[k % 7: k % 7 + 1 + (k * 5) % 9]
                                         for k in range(66)]
    tasks = [bind_call(sw, [prog.checked.defined["blosum62"], 10, 1, q, t], prog.checked, None)
             for q in texts[:2] for t in texts[2:]]
    first = tasks[0]
    packs = {n: SeqPack.of([t[n] for t in tasks[:66]] if n == "t" else
                           [tasks[0][n], tasks[66][n]], first[n].alphabet) for n in ("s", "t")}
    index = {"s": np.arange(132) // 66, "t": np.arange(132) % 66}
    batch = TaskBatch(tuple(first), {n: SeqColumn(packs[n], index[n]) if n in packs
                                     else Shared(first[n]) for n in first}, 132)
    want = dslc.compile(GOTOH, backend="interp")._engine().map("sw", tasks, None)
    monkeypatch.setenv("DSLC_CUDA_PIPELINE", "32")
    from dslc.cuda import backend as cb
    calls = []
    real = cb.layout.interleave
    monkeypatch.setattr(cb.layout, "interleave",
                        lambda *a, **k: calls.append(len(a[3])) or real(*a, **k))
    engine = engine_of(prog)
    assert engine.map("sw", batch, None) == want
    assert engine.launches == 6 and not engine.device_fallbacks
    # the database's rows of its 3 launches once, and one block (of any width) per query
    assert len(calls) == 5 and sorted(calls)[:3] == [2, 32, 32]


@pytest.mark.parametrize("name,value", [
    ("DSLC_CUDA_PIPELINE", "abc"), ("DSLC_CUDA_TILE", "0"), ("DSLC_CUDA_BLOCK", "1.5"),
    ("DSLC_CUDA_SCRATCH_MB", "-3"), ("DSLC_CUDA_HYBRID_TASKS", "many")])
def test_a_malformed_number_setting_is_one_clear_error(monkeypatch, capsys, name, value):
    """Settings read from the environment are the user's input: a bad one is one
    line naming it, exit status 2, no traceback."""
    from dslc.cli import main

    monkeypatch.setenv(name, value)
    monkeypatch.setenv("DSLC_CUDA_STRATEGY", "thread")
    assert main(["run", "--backend", "cuda", str(ROOT / "examples" / "smith_waterman.bio")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {name}: {value!r} is not a whole number") and \
        "Traceback" not in err, err


def test_register_tile_functions_hold_one_unrolled_column_each():
    """Compile time (issue 14): Numba's frontend is quadratic in a function's size,
    so no device function of a register-tiled kernel holds more than one unrolled
    copy of the tile's rows (the last row's value is assigned once per copy), and
    the first and last tiles share theirs."""
    import re

    from dslc.emit.strategies import build, strategy
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call

    prog = dslc.compile(GOTOH, backend="interp")
    blosum = prog.checked.defined["blosum62"]
    args = bind_call(prog.checked.functions["sw"], [blosum, 10, 1, "HEAGAWGHEE", "PAWHEAE"],
                     prog.checked, None)
    plan = lower(prog.checked, "sw", "value", args, None).task
    gen = build(strategy("cuda register-tiled"), prog.checked, plan, frozenset({"s"}), rows=8,
                dtype="float32")
    source, _ = gen.generate()
    functions = source.split("\ndef ")[1:]
    last = re.compile(r"^\s*r_h_7_0 = (?!DT\(0\))", re.M)
    copies = {f.split("(")[0]: len(last.findall(f)) for f in functions}
    assert max(copies.values()) == 1, copies
    assert sum(copies.values()) == 3, copies  # the peeled head, the interior, the edges
