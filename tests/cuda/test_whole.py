"""One big problem on the whole GPU (dslc.emit.wavefront): a single call or a
whole table, partition after partition, checked against the interpreter. The
size threshold is lowered so that small problems take this path (in CI they run
in Numba's CUDA simulator)."""

from __future__ import annotations

import random

import pytest

import dslc
from dslc.interp.backend import InterpBackend
from dslc.runtime.script import ScriptRunner
from tests.conftest import ROOT
from tests.test_properties import NW as NW_TABLE

cuda = pytest.importorskip("dslc.cuda.backend")
if not cuda.CudaBackend.available():
    pytest.skip("no CUDA device or simulator", allow_module_level=True)

EXAMPLES = ROOT / "examples"


def _run(path_or_src, backend_factory):
    p = dslc.compile(path_or_src, backend="interp")
    holder = {}

    def make(prog, g):
        holder["b"] = backend_factory(prog, g)
        return holder["b"]

    out = dict(ScriptRunner(p.checked, make, p.base_dir, quiet=True).run())
    return out, holder["b"]


def _values(v):
    return v.values.tolist() if hasattr(v, "values") else v


@pytest.fixture(autouse=True)
def whole_for_every_size(monkeypatch):
    monkeypatch.setenv("DSLC_CUDA_WHOLE", "0")
    monkeypatch.setenv("DSLC_CUDA_BLOCK", "32")


@pytest.mark.parametrize("name", ["nussinov.bio", "needleman_wunsch.bio", "three_way.bio"])
def test_examples_on_the_whole_gpu_equal_the_interpreter(name):
    got, be = _run(str(EXAMPLES / name), cuda.CudaBackend)
    want, _ = _run(str(EXAMPLES / name), InterpBackend)
    assert {k: _values(v) for k, v in got.items()} == {k: _values(v) for k, v in want.items()}
    assert any(s.startswith("whole problem") for s in be.strategy.values()), be.device_fallbacks


NW = NW_TABLE + """
int best(matrix sm, const gap, seq[protein] s, seq[protein] t) =
    max(i in 0 ... len(s) : max(j in 0 ... len(t) : nw(i, j)))
"""


@pytest.mark.parametrize("seed", range(3))
def test_random_alignments_cell_table_and_fused_value(seed):
    rnd = random.Random(seed)
    aa = "ACDEFGHIKLMNPQRSTVWY"
    s = "".join(rnd.choice(aa) for _ in range(rnd.randint(1, 9)))
    t = "".join(rnd.choice(aa) for _ in range(rnd.randint(1, 9)))
    src = NW + f'''
print nw(blosum62, 4, "{s}", "{t}", {len(s)}, {len(t)})
print best(blosum62, 4, "{s}", "{t}")
r = nw(blosum62, 4, "{s}", "{t}")
print r
'''
    got, be = _run(src, cuda.CudaBackend)
    want, _ = _run(src, InterpBackend)
    assert {k: _values(v) for k, v in got.items()} == {k: _values(v) for k, v in want.items()}
    assert be.strategy and all(v.startswith("whole problem") for v in be.strategy.values())


def test_an_error_in_the_entry_is_reported_by_position(tmp_path):
    """The whole-GPU path cannot report a bad call itself: the CPU backend re-runs
    it and gives the usual file:line:col message and exit status 2."""
    import os
    import subprocess
    import sys

    path = tmp_path / "bad.bio"
    path.write_text(
        "int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)\n"
        "  | i == 0 = j\n"
        "  | j == 0 = i\n"
        "  | otherwise = d(i - 1, j - 1) + 1 min d(i - 1, j) + 1 min d(i, j - 1) + 1\n"
        "int bad(seq[dna] s, seq[dna] t) = d(len(s) + 1, len(t))\n"
        'print bad("ACGT", "ACG")\n')
    env = dict(os.environ, DSLC_CUDA_WHOLE="0")
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", str(path), "--backend", "cuda"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2, r.stderr
    assert f"{path}:5:35: error: recursive argument i = 5 is outside its domain" in r.stderr
    assert "Traceback" not in r.stderr
