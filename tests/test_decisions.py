"""Decision records (dslc.cpu.decision): each backend decides a map or call in
one method (``decide``/``choose``) that its run and ``dslc explain`` both call,
and keeps the record of what it ran (``backend.decisions``). A lane plan's value
type travels in its disk-cache entry, never read back out of the source."""

from __future__ import annotations

import random

import pytest

import dslc
import dslc.backends
from dslc.cpu.decision import (CPU_PACKS, CPU_PLAIN, INTERPRETER, TASK_PER_BLOCK,
                               TASK_PER_THREAD, Decision)

pytestmark = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                                reason="numba/islpy not installed")

LCS = """
int lcs(seq[dna] a, index[a] i, seq[dna] b, index[b] j)
  | i == 0 or j == 0 = 0
  | a[i - 1] == b[j - 1] = lcs(i - 1, j - 1) + 1
  | otherwise = max(lcs(i - 1, j), lcs(i, j - 1))

int pair(tuple[int, int] p) = p[0] + p[1]
"""

REF = "GATTACA"


def dnas(n: int, seed: int = 1) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice("ACGT") for _ in range(rnd.randint(0, 12))) for _ in range(n)]


def last(engine, entry: str, work: str = "map") -> Decision:
    return engine.decisions[(entry, work)]


def test_the_cpu_backend_records_each_map_and_call():
    prog = dslc.compile(LCS, backend="cpu")
    engine = prog._engine()
    engine.disk_cache = False
    seen = capture(engine)
    prog.map("lcs", dnas(20), REF)
    d = last(engine, "lcs")
    assert (d.backend, d.strategy, d.value_type, d.pack, d.tasks) == \
        ("cpu", CPU_PACKS, "float32", 16, 20), d
    assert any("static bound" in w for w in d.why), d.why
    prog.map("lcs", dnas(3), REF)
    d = last(engine, "lcs")
    assert (d.strategy, d.value_type) == (CPU_PLAIN, "float64")
    assert "no task groups: fewer than 16 tasks" in d.why
    prog.map("pair", [(1, 2), (3, 4)])
    d = last(engine, "pair")
    assert d.strategy == INTERPRETER and "over tuple arguments (p)" in d.why[0], d
    assert prog.call("lcs", "GATTA", REF, 5, 7) == 5
    assert last(engine, "lcs", "call").strategy == CPU_PLAIN
    # what explain asks (decide) is what the run recorded
    assert engine.decide("lcs", "map", seen[1]) == last(engine, "lcs") != \
        engine.decide("lcs", "map", seen[0])
    assert Decision.from_json(d.to_json()) == d


def test_the_float32_lane_path_from_the_cache(monkeypatch, tmp_path):
    """A second process (here: a fresh program) finds the lane plan in the cache
    and runs it in float32 because the entry says so (the source is not searched)."""
    from dslc.cpu import modules

    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    # (a source no other test loaded: this process would not write a module it has
    # loaded already into the new cache directory)
    src = LCS.replace("lcs(i - 1, j - 1) + 1", "lcs(i - 1, j - 1) + 2")
    xs = dnas(20, seed=2)
    first = dslc.compile(src, backend="cpu")
    want = list(first.map("lcs", xs, REF))
    again = dslc.compile(src, backend="cpu")
    engine = again._engine()
    assert list(again.map("lcs", xs, REF)) == want
    assert not engine.packs.generated  # nothing planned: the cache's plan ran
    d = last(engine, "lcs")
    assert (d.strategy, d.value_type) == (CPU_PACKS, "float32"), d
    entries = [modules.cached_plan(p.name[5:-5]) for p in tmp_path.glob("plan_*.json")]
    assert "float32" in {e[3] for e in entries if e is not None and e[0]}


def cuda_or_skip():
    from dslc.cuda.backend import CudaBackend

    if not CudaBackend.available():
        pytest.skip("no CUDA backend (not even the simulator)")


def test_the_cuda_backend_records_kernels_and_its_cpu_part(monkeypatch):
    cuda_or_skip()
    from dslc.cpu.backend import CpuBackend

    prog = dslc.compile(LCS, backend="cuda")
    engine = prog._engine()
    inner = getattr(engine, "inner", engine)
    assert isinstance(inner.cpu, CpuBackend) and not isinstance(inner, CpuBackend)
    xs = dnas(5, seed=3)
    seen = capture(engine)
    got = list(prog.map("lcs", xs, REF))
    assert got == list(dslc.compile(LCS, backend="interp").map("lcs", xs, REF))
    d = last(engine, "lcs")
    assert (d.backend, d.strategy, d.rows, d.block, d.grid, d.launches, d.tasks) == \
        ("cuda", TASK_PER_THREAD, 32, 128, 1, 1, 5), d
    assert d.value_type in ("float32", "float64")
    assert {s.table for s in d.storage} and all(s.shape[-1] == "tasks" for s in d.storage)
    assert "name:shared|constant|global" in d.note("placement")
    # decide (explain's question) gives the record the run kept
    assert engine.decide("lcs", "map", seen[0]) == d
    # a small single call: the CPU part runs it, and the record says why
    assert prog.call("lcs", "GATTA", REF, 5, 7) == 5
    call = last(engine, "lcs", "call")
    assert call.backend == "cpu" and "fewer than DSLC_CUDA_WHOLE" in call.why[0], call
    # the compile options are read once, as a program's engine is made: a setting
    # changed later is seen by an engine made after it
    monkeypatch.setenv("DSLC_CUDA_STRATEGY", "block")
    prog = dslc.compile(LCS, backend="cuda")
    engine = prog._engine()
    assert list(prog.map("lcs", xs, REF)) == got
    d = last(engine, "lcs")
    assert (d.strategy, d.grid, d.rows) == (TASK_PER_BLOCK, 5, None), d
    assert "DSLC_CUDA_STRATEGY=block" in d.why[0]
    assert engine.strategy["lcs"].startswith("task-per-block")


def capture(engine) -> list:
    """The tasks of each map ``engine`` runs, as it received them."""
    target = getattr(engine, "inner", engine)  # (under the timing wrapper)
    seen, run = [], target.map

    def map_(func, tasks, *args, **kw):
        seen.append(tasks)
        return run(func, tasks, *args, **kw)
    target.map = map_
    return seen


def test_explain_prints_the_records(write_bio, capsys):
    from dslc.cli import main

    p = write_bio(LCS + 'xs = load(seq[dna], "xs.fa")\nprint map(lcs, xs (*) "GATTACA")\n',
                  xs__fa="".join(f">s{k}\n{x}\n" for k, x in enumerate(dnas(3))))
    assert main(["explain", str(p)]) == 0
    out = capsys.readouterr().out
    assert "the CPU backend's decisions, for what it ran:\ncpu, entry lcs: cpu plain, " \
           "float64 (map of 3 tasks)\n  why: a task per call" in out
