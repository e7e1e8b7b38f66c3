"""``dslc -v``: which backend ran each call, table and map, and whether code was
compiled or came from the cache, on stderr through ``logging``; nothing without
it (dslc.runlog)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

import dslc
from dslc.cli import main

SRC = """
define alphabet dna "ACGT"
int add(seq[dna] s, int b) = len(s) + b
int f(int n) = if n == 0 then 0 else f(n - 1) + n
xs = load(seq[dna], "xs.fasta")
print map(add, xs (*) 3)
print f(4)
"""


@pytest.fixture()
def script(tmp_path):
    (tmp_path / "xs.fasta").write_text(">a\nACG\n>b\nT\n")
    (tmp_path / "s.bio").write_text(SRC)
    return str(tmp_path / "s.bio")


def test_nothing_is_logged_without_v(capsys, script):
    assert main(["run", "--quiet", "--backend", "interp", script]) == 0
    assert capsys.readouterr().err == ""


def test_v_names_the_backend_of_each_map_and_call(capsys, script):
    for argv in (["-v", "run"], ["run", "--verbose"]):
        assert main(argv + ["--quiet", "--backend", "interp", script]) == 0
        err = capsys.readouterr().err.splitlines()
        assert err == ["dslc: map of 2 tasks add: ran on interp", "dslc: call f: ran on interp"]
    assert main(["run", "--quiet", "--backend", "interp", script]) == 0
    assert capsys.readouterr().err == ""  # -v of an earlier main() does not stay on


def test_the_python_api_logs_to_the_dslc_logger(caplog, script):
    prog = dslc.compile(script, backend="interp")
    with caplog.at_level(logging.INFO, logger="dslc"):
        prog.map("add", ["A", "CC", "G"], 0)
        prog.f(3)
    assert [r.getMessage() for r in caplog.records] == [
        "map of 3 tasks add: ran on interp", "call f: ran on interp"]


def test_v_tells_a_compile_from_a_cache_hit(tmp_path):
    env = dict(os.environ, DSLC_CACHE_DIR=str(tmp_path / "cache"))
    script = tmp_path / "f.bio"
    script.write_text("int f(int n) = if n == 0 then 0 else f(n - 1) + n\nprint f(30)\n")

    def run():
        done = subprocess.run([sys.executable, "-m", "dslc.cli", "-v", "run", "--quiet",
                               "--backend", "cpu", str(script)],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("465")
        return done.stderr

    first, second = run(), run()
    assert "compiled (not in the cache)" in first and "call f: ran on cpu" in first
    assert "machine code from the cache" in second and "compiled (not" not in second
    assert "call f: ran on cpu" in second


def test_a_small_map_of_straight_line_code_is_answered_by_the_interpreter(capsys, script,
                                                                          monkeypatch):
    """Outside the tests (which compile straight-line code: tests/conftest.py), a map
    of straight-line code over a few tasks is not compiled, and ``-v`` says so."""
    from dslc.cpu.backend import DIRECT_MAP_TASKS, CpuBackend

    monkeypatch.setattr(CpuBackend, "direct_scalars", True)
    assert main(["-v", "run", "--quiet", "--backend", "cpu", script]) == 0
    captured = capsys.readouterr()
    assert captured.out.split("\n")[1:3] == ["  xs=0   a  6", "  xs=1   b  4"]  # len(s) + 3
    assert (f"map of 2 tasks add: ran on cpu, by its interpreter (straight-line code over "
            f"at most {DIRECT_MAP_TASKS} tasks") in captured.err
