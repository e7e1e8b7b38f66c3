"""``--backend auto`` (dslc.auto): the CPU-or-GPU decision, taken directly (no
GPU needed), and start-up: a small run imports only what it uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dslc
from dslc import auto, backends
from dslc.errors import DslcError

EDIT = textwrap.dedent("""\
    int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
        if i == 0 then j
        else if j == 0 then i
        else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
        else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
    """)


def _never():
    raise AssertionError("the GPU was looked for, for work too small to want it")


def _cal(gpu_cells_s=1e11, gpu_compile_s=1.0, cpu_compile_s=0.1, cpu_cells_s=1e8):
    """A synthetic calibration: by default a 16-core CPU at 10^8 cells a second a core."""
    from dslc.calibrate import Calibration

    return Calibration("synthetic", cpu_cells_s, 16, cpu_compile_s, gpu_cells_s, 0.2, 1e10,
                       gpu_compile_s)


def test_small_work_stays_on_the_cpu_without_looking_for_a_gpu():
    c = auto.choose(auto.Work(20 * 35), _never, _never, _never, _never, 10**8)
    assert c.backend == "cpu" and "small work" in c.reason and c.cells == 700


def test_a_cached_kernel_pays_off_sooner_than_one_to_compile():
    work = auto.Work(2 * 10**10)  # 12.5 s on the CPU, 0.2 s of kernel
    assert auto.decide(work, True, True, _cal(gpu_compile_s=3.0)).backend == "cuda"
    c = auto.decide(work, False, True, _cal(gpu_compile_s=3.0))  # 30 s to compile: the CPU
    assert c.backend == "cpu" and "kernel to compile" in c.reason and c.gpu_s > c.cpu_s
    assert auto.decide(auto.Work(10**11), False, True, _cal(gpu_compile_s=3.0)).backend == "cuda"


def test_a_module_to_compile_counts_against_the_cpu():
    work = auto.Work(2 * 10**9, is_map=False)  # one core: 20 s
    cpu_cached, cpu_not = (auto.predict(work, True, c, _cal())[0] for c in (True, False))
    assert cpu_not == pytest.approx(cpu_cached + 0.1 * auto.CPU_COMPILE_SCALE)


def test_large_work_without_a_gpu_runs_on_the_cpu_and_calibrates_nothing():
    c = auto.choose(auto.Work(10**12), _never, _never, lambda: False, _never, 10**8)
    assert c.backend == "cpu" and "no CUDA GPU" in c.reason


def test_cuda_is_never_chosen_where_predicted_slower():
    for cells in (10**6, 10**8, 10**9, 10**10, 10**12):
        for nbytes in (0, 10**9):
            for cached in (True, False):
                for cal in (_cal(), _cal(gpu_cells_s=1e7), _cal(gpu_compile_s=100.0)):
                    work = auto.Work(cells, nbytes)
                    c = auto.decide(work, cached, True, cal)
                    cpu, gpu = auto.predict(work, cached, True, cal)
                    assert (c.backend == "cuda") == (gpu < cpu)
                    assert str(f"{cells:,}") in c.reason
    assert auto.decide(auto.Work(10**12), True, True, _cal(gpu_cells_s=0.0)).backend == "cpu"


def test_the_floor_comes_from_the_settings(monkeypatch):
    monkeypatch.setenv("DSLC_AUTO_GPU_CELLS", "1_000")
    assert auto.floor() == 1000
    monkeypatch.setenv("DSLC_AUTO_GPU_CELLS", "many")
    with pytest.raises(DslcError, match="DSLC_AUTO_GPU_CELLS"):
        auto.floor()


def test_predicted_cells_sum_the_tables_of_a_map():
    from dslc.runtime.binding import bind_value

    prog = dslc.compile(EDIT + "int g(int n) = n + 1\n", backend="cpu")
    be = auto.AutoBackend(prog.checked, {})
    dna = prog.checked.functions["d"].params[0].type
    pairs = [(s, t) for s in ("ACGT", "AC") for t in ("ACG", "A", "GGGGG")]
    tasks = [{n: bind_value(v, dna, prog.checked, None, {}) for n, v in zip("st", p)}
             for p in pairs]
    assert auto.predicted_cells(be.cpu, "d", tasks) == sum((len(s) + 1) * (len(t) + 1)
                                                           for s, t in pairs)
    assert auto.predicted_cells(be.cpu, "g", [{"n": 1}, {"n": 2}]) == 2  # straight-line


def test_a_batch_s_cells_and_bytes_are_read_off_its_columns():
    """A map's batch (dslc.lang.batch) gives the same cells as its tasks one by one,
    from the lengths alone, for a table over sequences, one with a symbol parameter,
    and a plain function over sequences; its bytes count each packed buffer once."""
    from dslc.lang.batch import SeqColumn, TaskBatch
    from dslc.lang.records import SeqPack
    from dslc.runtime.binding import bind_value

    prog = dslc.compile(EDIT + textwrap.dedent("""\
        int e(seq[dna] s, index[s] i, symbol[dna] c) =
            if i == 0 then 0 else e(i - 1, c) + (if s[i - 1] == c then 1 else 0)
        int g(seq[dna] s, seq[dna] t) = d(s, len(s), t, len(t)) + 1
        """), backend="cpu")
    be = auto.AutoBackend(prog.checked, {})
    dna = prog.checked.functions["d"].params[0].type
    texts = ["ACGT", "AC", "ACG", "A", "GGGGG", ""]
    seqs = [bind_value(v, dna, prog.checked, None, {}) for v in texts]
    pack = SeqPack.of(seqs, seqs[0].alphabet)
    index = np.array([0, 1, 2, 3, 4, 5, 1, 4], dtype=np.int64)
    batch = TaskBatch(("s", "t"), {"s": SeqColumn(pack, index),
                                   "t": SeqColumn(pack, index[::-1].copy())}, len(index))
    one_by_one = [dict(task) for task in batch]
    for func in ("d", "g"):
        want = sum((len(t["s"]) + 1) * (len(t["t"]) + 1) for t in one_by_one)
        assert auto.predicted_cells(be.cpu, func, batch) == want
        assert auto.predicted_cells(be.cpu, func, one_by_one) == want
    assert auto.predicted_bytes(batch) == pack.codes.nbytes + 8 * len(index)
    sym = TaskBatch.of([{"s": t["s"]} for t in one_by_one])  # (c: every symbol)
    assert auto.predicted_cells(be.cpu, "e", sym) == \
        auto.predicted_cells(be.cpu, "e", [dict(t) for t in sym])


def test_a_table_whose_final_cell_only_planning_knows_is_estimated():
    prog = dslc.compile("int fib(int n) = if n < 2 then n else fib(n - 1) + fib(n - 2)\n",
                        backend="cpu")
    be = auto.AutoBackend(prog.checked, {})
    assert auto.predicted_cells(be.cpu, "fib", [{}]) == 1  # no extent without n: no sequences
    assert auto.predicted_cells(be.cpu, "fib", [{"n": 9}, {"n": 4}]) == 10 + 5


def test_kernel_cached_needs_the_record_and_numba_cuda_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    key = "0123456789abcdef0123456789abcdef"
    assert not auto.kernel_cached(key)
    auto.remember_kernel(key, str(tmp_path / "dslc_feedbeef.py"))
    assert not auto.kernel_cached(key)  # recorded, but no kernel in the cache
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "dslc_feedbeef.batch-120.py311.nbi").write_bytes(b"")
    assert auto.kernel_cached(key)


def test_auto_without_a_gpu_is_the_cpu_backend_as_before(monkeypatch):
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")  # the simulator never counts for auto
    assert backends.resolve("auto") == "cpu"
    prog = dslc.compile(EDIT + 'print d("ACGTAC", 6, "AGTTC", 5)\n')
    assert prog.backend_name == "cpu" and prog.run()['d("ACGTAC", 6, "AGTTC", 5)'] == 2


def test_explain_shows_where_auto_runs_each_map(monkeypatch, tmp_path):
    from dslc import explain

    (tmp_path / "db.fasta").write_text(">a\nACGT\n>b\nAC\n")
    (tmp_path / "m.bio").write_text(EDIT + 'db = load(seq[dna], "db.fasta")\n'
                                    'print map(d, db (*) "ACG")\n')
    prog = dslc.compile(str(tmp_path / "m.bio"), backend="cpu")
    rep = explain.report(prog)
    assert rep["_auto"]["d"]["backend"] == "cpu" and rep["_auto"]["d"]["cells"] == 20 + 12
    assert "small work" in rep["_auto"]["d"]["why"]
    assert "--backend auto runs d on the CPU" in explain.render_text(rep)
    monkeypatch.setenv("DSLC_AUTO_GPU_CELLS", "0")
    monkeypatch.setenv("DSLC_AUTO_GPU_COMPILE_CELLS", "0")
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    assert "no CUDA GPU" in explain.report(prog)["_auto"]["d"]["why"]


PROBE = """
import sys, dslc
prog = dslc.compile(sys.argv[1], backend=sys.argv[2])
print(prog.run())
print([m for m in ("numba", "islpy", "dslc.emit.cpu", "dslc.poly.nest") if m in sys.modules])
"""


def _imports(src: str, backend: str, cache) -> tuple[str, list]:
    env = dict(os.environ, DSLC_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", PROBE, src, backend], env=env, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    return out[0], json.loads(out[1].replace("'", '"'))


@pytest.mark.parametrize("backend", ["cpu", "auto"])
def test_a_straight_line_call_starts_neither_numba_nor_isl(backend, tmp_path):
    printed, loaded = _imports("const x = 6\nint f(int n) = n * x + 1\nprint f(7)\n",
                               backend, tmp_path)
    assert printed == "{'f(7)': 43}" and loaded == []


def test_a_cached_plan_needs_numba_alone(tmp_path):
    src = EDIT + 'print d("ACGTAC", 6, "AGTTC", 5)\n'
    first = _imports(src, "cpu", tmp_path)
    assert "islpy" in first[1]  # planned and compiled
    assert _imports(src, "cpu", tmp_path) == (first[0], ["numba"])


def test_a_program_without_tables_is_planned_without_isl(tmp_path):
    printed, loaded = _imports("int f(int n) = sum(k in 0 ... n : k * k)\nprint f(7)\n",
                               "cpu", tmp_path)
    assert printed == "{'f(7)': 140}" and loaded == ["numba", "dslc.emit.cpu"]


def test_work_auto_sends_to_the_gpu_runs_there_and_is_recorded(monkeypatch, tmp_path):
    """With a floor of 0, a calibration of a GPU predicted faster, and the
    simulator standing in for a GPU, the map runs
    on the CUDA backend (the same values as the interpreter) and its kernel's
    module is recorded for the next run."""
    from dslc.runtime.script import ScriptRunner

    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DSLC_AUTO_GPU_CELLS", "0")
    monkeypatch.setenv("DSLC_AUTO_GPU_COMPILE_CELLS", "0")
    monkeypatch.setattr(auto.AutoBackend, "_gpu_present", lambda self: True)
    monkeypatch.setattr(auto.AutoBackend, "_calibration", lambda self: _cal(cpu_cells_s=1e-3))
    (tmp_path / "db.fasta").write_text(">a\nACGT\n>b\nAC\n")
    (tmp_path / "m.bio").write_text(EDIT + 'db = load(seq[dna], "db.fasta")\n'
                                    'print map(d, db (*) "ACG")\n')
    prog = dslc.compile(str(tmp_path / "m.bio"), backend="interp")
    runner = ScriptRunner(prog.checked, auto.AutoBackend, prog.base_dir, quiet=True)
    got = runner.run()
    assert runner.backend.decisions["d"].backend == "cuda"
    assert list(got[0][1].values.ravel()) == [1, 1] == list(prog.run()["map(d, db (*) \"ACG\")"]
                                                             .values.ravel())
    assert list((tmp_path / "cache").glob("gpu_*.json"))


@pytest.mark.parametrize("ahead", ["1", "0"])
def test_a_kernel_that_loses_only_for_its_compile_is_compiled_ahead(monkeypatch, tmp_path,
                                                                      ahead):
    """The GPU predicted slower for this run only because its kernel is not
    compiled, faster once it is: the map runs on the CPU, and a detached process
    (dslc.warm) runs it on the CUDA backend (here the simulator) and records its
    kernel for the next run; DSLC_AUTO_AHEAD=0 starts none."""
    import json

    from dslc.runtime.script import ScriptRunner

    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DSLC_AUTO_GPU_CELLS", "0")
    monkeypatch.setenv("DSLC_AUTO_AHEAD", ahead)
    monkeypatch.setattr(auto.AutoBackend, "_gpu_present", lambda self: True)
    monkeypatch.setattr(auto.AutoBackend, "_calibration",
                        lambda self: _cal(cpu_cells_s=1e-3, gpu_compile_s=1e3))
    (tmp_path / "db.fasta").write_text(">a\nACGT\n>b\nAC\n")
    (tmp_path / "m.bio").write_text(EDIT + 'db = load(seq[dna], "db.fasta")\n'
                                    'print map(d, db (*) "ACG")\n')
    prog = dslc.compile(str(tmp_path / "m.bio"), backend="interp")
    runner = ScriptRunner(prog.checked, auto.AutoBackend, prog.base_dir, quiet=True)
    runner.run()
    assert runner.backend.decisions["d"].backend == "cpu"
    started = runner.backend.ahead["d"]
    if ahead == "0":
        assert started is None and not list((tmp_path / "cache").glob("gpu_*.json"))
        return
    assert started.wait(timeout=300) == 0
    (record,) = (tmp_path / "cache").glob("gpu_*.json")
    assert json.loads(record.read_text())["module"].startswith("dslc_")
    assert not list((tmp_path / "cache").glob("ahead_*"))  # the hand-over is gone


def test_a_calibration_on_file_decides_before_the_driver_is_asked():
    """Work the CPU wins is decided from the calibration on file without asking
    whether a GPU answers (a second of CUDA start-up); the GPU chosen, the driver
    is asked, and a GPU that does not answer leaves the work on the CPU."""
    to_compile = auto.Work(2 * 10**10)  # the CPU wins: the kernel is not compiled
    slow = lambda: _cal(gpu_compile_s=3.0)  # noqa: E731 (a kernel's compile: 30 s)
    c = auto.choose(to_compile, lambda: False, lambda: True, _never, _never, 10**8,
                    known=slow)
    assert c.backend == "cpu" and "kernel to compile" in c.reason
    asked = []
    present = lambda: asked.append(1) or True  # noqa: E731
    c = auto.choose(to_compile, lambda: True, lambda: True, present, _never, 10**8, known=slow)
    assert c.backend == "cuda" and asked == [1]
    c = auto.choose(to_compile, lambda: True, lambda: True, lambda: False, _never, 10**8,
                    known=slow)
    assert c.backend == "cpu" and "no CUDA GPU" in c.reason


def test_the_calibration_file_is_found_by_the_drivers_gpu_list(tmp_path, monkeypatch):
    """``known`` reads the file ``load`` wrote, keyed by the GPUs the driver lists,
    without importing Numba's CUDA target; with no such list it knows nothing."""
    from dslc import calibrate

    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(calibrate, "_driver_gpus", lambda: "NVIDIA Test GPU")
    monkeypatch.setattr(calibrate, "measure", lambda key, gpu: calibrate.Calibration(
        key, 1e8, 4, 0.1, 1e11, 0.2, 1e10, 1.0))
    assert calibrate.known(gpu=True) is None
    written = calibrate.load(gpu=True)
    assert calibrate.known(gpu=True) == written
    monkeypatch.setattr(calibrate, "_driver_gpus", lambda: None)
    assert calibrate.known(gpu=True) is None


def test_a_large_read_starts_the_gpu_set_up_where_the_calibration_found_a_gpu(monkeypatch,
                                                                              tmp_path):
    """AutoBackend.reading: a sequence file of at least AHEAD_BYTES, on a machine whose
    calibration on file has a GPU, starts Numba-CUDA's set-up (dslc.cuda.target_start);
    a small file, a machine without a GPU or a run that keeps to the CPU do not.
    The script runner tells the backend each sequence file's size before reading it."""
    from dslc import settings as dsettings
    from dslc.cuda import target_start
    from dslc.cuda.ahead import AHEAD_BYTES

    started = []
    monkeypatch.setattr(target_start.TargetStart, "start", lambda self: started.append(self))
    monkeypatch.setattr(dsettings, "simulated", lambda: False)
    prog = dslc.compile(EDIT, backend="cpu")
    be = auto.AutoBackend(prog.checked, {})
    be._cal = _cal(gpu_cells_s=0.0)
    be.reading(AHEAD_BYTES)
    assert started == []  # no GPU on file
    be._cal = _cal()
    be.reading(AHEAD_BYTES - 1)
    assert started == []  # small
    auto.AutoBackend(prog.checked, {}, run_gpu=False).reading(AHEAD_BYTES)
    assert started == []  # explain: runs nothing on the GPU
    be.reading(AHEAD_BYTES)
    assert started == [target_start.shared()]
    sizes = []
    monkeypatch.setattr(auto.AutoBackend, "reading", lambda self, n: sizes.append(n))
    (tmp_path / "a.fa").write_text(">a\nACGT\n")
    (tmp_path / "s.bio").write_text(EDIT + 'a = load(seq[dna], "a.fa")\nprint len(a)\n')
    from dslc import backends

    monkeypatch.setattr(backends, "driver_installed", lambda: True)  # auto stays auto here
    dslc.compile(str(tmp_path / "s.bio"), backend="auto").run()
    assert sizes == [len(">a\nACGT\n")]


def test_a_map_run_in_parts_is_found_cached_as_its_parts(tmp_path, monkeypatch):
    """A few queries x a database runs as one CPU map per query (dslc.cpu.backend
    .map_parts), each part's code cached under its own key: ``code_cached``, what
    ``auto`` weighs against a module's compile, asks for the parts' code, so a second
    run is not predicted to compile (it was, and ``auto`` took the GPU for it)."""
    import numba

    from dslc.cpu import backend

    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)  # (parts of 64 tasks split)

    def engine(cache: str):
        monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / cache))
        prog = dslc.compile(EDIT, backend="cpu")
        return prog, prog._engine()

    prog, cpu = engine("first")
    batch = _product_batch(prog, tmp_path, monkeypatch, queries=2, seed=3, lengths=(5, 30))
    assert backend.map_parts(batch, cpu.program.registry, cpu.packs.applies(batch)) is not None
    assert engine("first")[1].code_cached("d", batch, True)  # (a later run's view)
    assert not engine("empty")[1].code_cached("d", batch, True)


def test_a_map_too_large_to_hand_over_is_compiled_ahead_from_a_sample(tmp_path, monkeypatch):
    """A batch over dslc.warm.BATCH_BYTES (a million proteins) is not copied whole
    to the background compile: it gets :func:`dslc.warm.sample`, the largest tasks
    of every query with the widest of each column, its sequences packed anew, and
    the whole map's kernel key (it was not compiled ahead at all, so the next run
    took the CPU again: docs/benchmarks.md)."""
    import pickle

    from dslc import warm

    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DSLC_CUDA_HYBRID_TASKS", "8")  # (a sample of 16 tasks)
    prog = dslc.compile(EDIT, backend="cpu")
    batch = _product_batch(prog, tmp_path, monkeypatch, queries=3, seed=5, lengths=(3, 40))
    got = warm.sample(batch)
    assert 16 <= len(got) <= 16 + 2 < len(batch)
    tasks = [got[k] for k in range(len(got))]
    assert {t["s"].name for t in tasks} == {batch[k]["s"].name for k in range(len(batch))}
    for name, lens in batch.lengths.items():
        assert got.lengths[name].max() == lens.max()  # (the widest task: the same plan)
        col = got.columns[name]
        assert len(col.pack) == len(np.unique(col.index))  # (only what it reads)
    every = {(batch[k]["s"].name, batch[k]["t"].name): k for k in range(len(batch))}
    for t in tasks:
        k = every[(t["s"].name, t["t"].name)]
        assert (t["s"].text, t["t"].text) == (batch[k]["s"].text, batch[k]["t"].text)
    started = []
    monkeypatch.setattr(warm, "BATCH_BYTES", warm._bytes(got))
    monkeypatch.setattr(warm.subprocess, "Popen", lambda cmd, **kw: started.append(cmd))
    warm.start(prog.checked, "d", batch, "the-whole-map")
    (path,) = (tmp_path / "cache").glob("ahead_*.pickle")
    job = pickle.loads(path.read_bytes())
    assert job.key == "the-whole-map" and len(job.batch) == len(got) and started


def _product_batch(prog, tmp_path, monkeypatch, queries: int, seed: int, lengths: tuple):
    """The batch the CPU backend's ``map`` is given for ``queries`` random DNA
    queries x 80 records (more than NARROW: the wide column), both read from FASTA
    files, after running that map with ``prog``."""
    from dslc.cpu import backend

    rng = np.random.default_rng(seed)
    for name, count in (("q.fa", queries), ("db.fa", 80)):
        (tmp_path / name).write_text("".join(
            f">{name[0]}{k}\n{''.join(rng.choice(list('ACGT'), int(n)))}\n"
            for k, n in enumerate(rng.integers(*lengths, count))))
    seen = []
    ran = backend.CpuBackend.map

    def spy(self, func, tasks, span, progress=None):
        seen.append(tasks)
        return ran(self, func, tasks, span, progress)
    monkeypatch.setattr(backend.CpuBackend, "map", spy)
    prog.map("d", *(prog.load(str(tmp_path / n), "dna") for n in ("q.fa", "db.fa")))
    return seen[0]
