"""Task-per-block (emit.blocks) and the hybrid choice between it and
task-per-thread. In CI under NUMBA_ENABLE_CUDASIM=1; unchanged on a GPU."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.cuda.backend import CudaBackend, hybrid
from dslc.options import CompileOptions
from dslc.plan import lower
from dslc.runtime.binding import bind_call
from dslc.runtime.script import backend_globals
from tests.generators import check_map, recurrences
from tests.test_properties import GOTOH, NUSSINOV

pytestmark = pytest.mark.skipif(not CudaBackend.available(),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM not set")


@pytest.fixture
def strategy():
    old = os.environ.get("DSLC_CUDA_STRATEGY")

    def use(name: str):
        os.environ["DSLC_CUDA_STRATEGY"] = name
    yield use
    if old is None:
        os.environ.pop("DSLC_CUDA_STRATEGY", None)
    else:
        os.environ["DSLC_CUDA_STRATEGY"] = old


def engine_of(prog):
    from dslc.runtime.script import backend_globals

    return CudaBackend(prog.checked, backend_globals(prog.checked))


def test_gotoh_task_per_block_matches(strategy):
    from tests.reference import blosum62_dict, gotoh_local

    strategy("block")
    prog = dslc.compile(GOTOH, backend="interp")
    engine = engine_of(prog)
    blosum = prog.checked.defined["blosum62"]
    q, db = "HEAGAWGHEE", ["PAWHEAE", "", "HEAGAWGHEEPAW", "A"]
    tasks = [bind_call(prog.checked.functions["sw"], [blosum, 10, 1, q, t], prog.checked, None)
             for t in db]
    assert engine.map("sw", tasks, None) == [gotoh_local(q, t, blosum62_dict(), 10, 1)
                                             for t in db]
    assert engine.strategy["sw"].startswith("task-per-block"), engine.strategy


def test_nussinov_cells_task_per_block(strategy):
    """A requested cell (kind ``cell``) and a reduction inside the cell."""
    from tests import reference as ref

    strategy("block")
    prog = dslc.compile(NUSSINOV, backend="interp")
    engine = engine_of(prog)
    n = prog.checked.functions["n"]
    xs = ["GGGAAAUCC", "GCGGAUUUAGCUCAGUUGG", "ACGU", "GGGGAAAACCCCUUUUGG"]
    tasks = [bind_call(n, [x, 0, len(x)], prog.checked, None) for x in xs]
    assert engine.map("n", tasks, None) == [ref.nussinov(x) for x in xs]
    assert engine.strategy["n"].startswith("task-per-block"), engine.strategy


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(max_dim=3), data=st.data())
def test_random_recurrences_task_per_block(rec, data):
    os.environ["DSLC_CUDA_STRATEGY"] = "block"
    try:
        check_map(engine_of, rec, data, 6)
    finally:
        os.environ.pop("DSLC_CUDA_STRATEGY", None)


SUM = """
int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = i + j
  | otherwise = f(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 1 else 0)
int total(seq[dna] s, seq[dna] t) = sum(i in 0 ... len(s) : sum(j in 0 ... len(t) : f(i, j)))
"""


def test_fused_sums_combine_across_threads(strategy):
    strategy("block")
    prog = dslc.compile(SUM, backend="interp")
    engine = engine_of(prog)
    pairs = [("ACGTACGTAC", "ACGGTAC"), ("", "ACG"), ("AAAA", "AAAAAAAA")]
    tasks = [bind_call(prog.checked.functions["total"], [s, t], prog.checked, None)
             for s, t in pairs]
    want = [prog.call("total", s, t) for s, t in pairs]
    assert engine.map("total", tasks, None) == want
    assert engine.strategy["total"].startswith("task-per-block"), engine.strategy


def test_hybrid_picks_by_tasks_and_partition_width():
    """The rule over the CompileOptions it is given (the settings, built at the API)."""
    prog = dslc.compile(GOTOH, backend="interp")
    blosum = prog.checked.defined["blosum62"]
    sw = prog.checked.functions["sw"]

    def plan_for(n):
        args = bind_call(sw, [blosum, 10, 1, "A" * n, "C" * n], prog.checked, None)
        return lower(prog.checked, "sw", "value", args, None).task

    real = CompileOptions()  # the choice a real GPU gets
    assert hybrid(plan_for(400), 100, real)[0]  # few tasks, partitions of ~200 points
    assert not hybrid(plan_for(400), 100_000, real)[0]  # enough tasks for a thread each
    assert not hybrid(plan_for(3), 100, real)[0]  # partitions too narrow for a warp
    # DSLC_CUDA_HYBRID_TASKS above the count: a block per task still
    assert hybrid(plan_for(400), 100_000, CompileOptions(cuda_hybrid_tasks=200_000))[0]
    # the simulator keeps a thread per task
    assert not hybrid(plan_for(400), 100, CompileOptions(simulated=True))[0]
    assert not hybrid(plan_for(400), 100, CompileOptions(cuda_strategy="thread"))[0]
    assert hybrid(plan_for(3), 100_000, CompileOptions(cuda_strategy="block"))[0]


def test_block_size_follows_the_partition_width():
    """Thesis §5.5.2: below 500 points per partition, the most resident blocks
    (a warp to 64 threads, no wider than a partition); from 500 on, the widest
    block any kernel can launch; task-per-thread keeps its fixed block;
    DSLC_CUDA_BLOCK (the options' ``cuda_block``) overrides every choice."""
    from dslc.cuda.launch import block_threads

    unset = CompileOptions()
    assert [block_threads(True, w, unset)[0] for w in (3, 32, 33, 129, 499, 500, 20_000)] == \
        [32, 32, 64, 64, 64, 256, 256]
    assert block_threads(False, 20_000, unset)[0] == 128
    forced = CompileOptions(cuda_block=96)
    assert block_threads(True, 20_000, forced) == (96, "DSLC_CUDA_BLOCK")
    assert block_threads(False, None, forced)[0] == 96


def test_task_per_block_launches_blocks_of_the_chosen_size(monkeypatch):
    """A map given task-per-block runs blocks as wide as the heuristic says
    (one warp for these narrow partitions) and equals the interpreter."""
    from tests.reference import blosum62_dict, gotoh_local

    monkeypatch.setenv("DSLC_CUDA_STRATEGY", "block")
    monkeypatch.delenv("DSLC_CUDA_BLOCK", raising=False)
    prog = dslc.compile(GOTOH, backend="interp")
    blosum = prog.checked.defined["blosum62"]
    db = ["HEAGAWGHEE", "PAWHEAE", "W"]
    tasks = [bind_call(prog.checked.functions["sw"], [blosum, 10, 1, "AWGHE", t], prog.checked,
                       None) for t in db]
    engine = CudaBackend(prog.checked, backend_globals(prog.checked))
    assert engine.map("sw", tasks, None) == [gotoh_local("AWGHE", t, blosum62_dict(), 10, 1)
                                            for t in db]
    assert "32 threads" in engine.strategy["sw"], engine.strategy
