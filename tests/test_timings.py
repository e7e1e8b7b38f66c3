"""``dslc run --timings``, ``Program.last_timings`` and the calibration file
``--backend auto`` keeps (dslc.timings, dslc.calibrate). No timing is asserted:
only shapes, sources (compiled or cached) and files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import dslc
from dslc import calibrate

EDIT = textwrap.dedent("""\
    int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
        if i == 0 then j
        else if j == 0 then i
        else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
        else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
    db = load(seq[dna], "db.fasta")
    print d("ACGTAC", 6, "AGTTC", 5)
    print map(d, db (*) "ACG")
    """)
FASTA = "".join(f">s{k}\n{'ACGT'[k % 4] * (k % 5 + 1)}GA\n" for k in range(10))
HEAD = ["what", "function", "backend", "compile", "s", "from", "host", "s", "compute", "s",
        "total", "s"]


def _timed_run(script, cache) -> list[str]:
    env = dict(os.environ, DSLC_CACHE_DIR=str(cache))
    done = subprocess.run([sys.executable, "-m", "dslc.cli", "run", "--timings", "--quiet",
                           "--backend", "cpu", str(script)], env=env, check=True,
                          capture_output=True, text=True)
    assert "d(\"ACGTAC\", 6, \"AGTTC\", 5) = 2" in done.stdout
    return done.stderr.splitlines()


def test_timings_table_and_a_second_run_compiles_nothing(tmp_path):
    (tmp_path / "db.fasta").write_text(FASTA)
    (tmp_path / "m.bio").write_text(EDIT)
    for run, source in enumerate(("compiled", "cache")):
        lines = _timed_run(tmp_path / "m.bio", tmp_path / "cache")
        assert lines[0] == "timings:" and lines[1].split() == HEAD
        rows = [ln.split() for ln in lines[2:4]]
        assert [r[0] for r in rows] == ["call", "map"] and rows[1][1:4] == ["of", "10", "tasks"]
        for r in rows:
            assert r[-6] == "cpu" and r[-4] == source
            assert all(float(x) >= 0 for x in r[-5:-4] + r[-3:])
        assert lines[4].startswith("  run: ") and "s wall" in lines[4] and "start-up" in lines[4]
        assert len(lines) == 5


def test_last_timings_of_the_python_api():
    prog = dslc.compile(EDIT.split("db =")[0], backend="interp")
    assert prog.last_timings is None
    assert prog.d("ACG", 3, "AG", 2) == 1
    t = prog.last_timings
    assert [(e.what, e.func, e.backend, e.compiled_from) for e in t.entries] == \
        [("call", "d", "interp", "-")]
    prog.map("d", ["AC", "G"], "ACG")
    assert [e.what for e in prog.last_timings.entries] == ["map of 2 tasks"]
    assert prog.last_timings.wall_s >= prog.last_timings.entries[0].total_s
    assert "map of 2 tasks" in prog.last_timings.render()


def test_the_calibration_is_written_once_reused_and_keyed_by_the_machine(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    measured = []
    real = calibrate.measure
    monkeypatch.setattr(calibrate, "measure",
                        lambda key, gpu: measured.append(key) or real(key, gpu))
    first = calibrate.load(gpu=False)
    key = calibrate.machine_key(calibrate.machine(None))
    path = tmp_path / f"calibration_{key}.json"
    assert first.machine == key and first.cpu_cells_s > 0 and first.gpu_cells_s == 0
    assert json.loads(path.read_text())["machine"]["cores"] == os.cpu_count()
    assert calibrate.load(gpu=False) == first and measured == [key]  # read, not measured
    path.write_text('{"calibration": {"machine": "')  # truncated
    again = calibrate.load(gpu=False)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged; measuring again" in err and "Traceback" not in err
    assert measured == [key, key] and again.machine == key
    assert calibrate.load(gpu=False) == again  # the rewritten file is good
    assert key != calibrate.machine_key(calibrate.machine("NVIDIA H100"))


def test_a_calibration_with_impossible_numbers_is_measured_again(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    key = calibrate.machine_key(calibrate.machine(None))
    good = calibrate.Calibration(key, 1e8, 4, 0.1)
    path = tmp_path / f"calibration_{key}.json"
    for bad in ({"cpu_cells_s": -1.0}, {"cores": 0}, {"machine": "other"}, {"version": 0},
                {"gpu_cells_s": "fast"}):
        data = dict(good.__dict__, **bad)
        path.write_text(json.dumps({"calibration": data}))
        assert calibrate._read(path, key) is None
    path.write_text(json.dumps({"calibration": good.__dict__}))
    assert calibrate._read(path, key) == good


def test_a_kernel_compiled_at_its_first_launch_is_compile_time():
    """A CUDA launch returns at once unless it compiles (or loads) the kernel: that
    wait is compile time, not kernel time (the device's events count it too)."""
    from dslc import timings
    from dslc.cuda.backend import LAUNCH_S, launch_compile_seconds

    waits = [LAUNCH_S * 40, 1e-5, 2e-5]
    assert launch_compile_seconds(waits, simulated=False) == waits[0]
    assert launch_compile_seconds([1e-5, 3e-5], simulated=False) == 0.0
    assert launch_compile_seconds(waits, simulated=True) == 0.0  # the simulator runs kernels
    acc = timings._Acc()
    timings._STACK.append(acc)
    try:
        timings.add_compile(1.5)
        timings.add_compute(0.25)
    finally:
        timings._STACK.pop()
    assert (acc.compile_s, acc.compute_s) == (1.5, 0.25)
