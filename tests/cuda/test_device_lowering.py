"""Device code the simulator runs as Python but a GPU must compile: the runtime helpers
(targets.runtime) typed and lowered to PTX by the CUDA target, without a device, and,
where numba-cuda is installed beside the simulator, whole kernels the simulator ran.

What this proves: the code compiles for the device (the CUDA target's typing and NVVM),
so a construct only the simulator accepts (a numpy ufunc in device code) fails here, not
on the GPU. It runs nothing: values are the simulator's tests' (and the floored
remainder's, below)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys

import numpy as np
import pytest

from dslc.targets import runtime
from tests.conftest import ROOT


def test_device_helpers_compile_to_ptx():
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    r = subprocess.run([sys.executable, "-m", "dslc.cuda.lowering_check"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    if r.returncode == 3:
        pytest.skip(r.stdout.strip())
    assert r.returncode == 0, r.stdout + r.stderr[-2000:]


_A_UFUNC = """
from dslc.cuda import lowering_check
from dslc.targets import runtime
runtime.HELPERS += (runtime.Helper("_bad", False, "core", host=None,
                                   device="def _bad(x):\\n    return np.floor(x)\\n"),)
print(lowering_check.compile_helpers())
"""


def test_the_ptx_check_sees_a_ufunc_in_device_code():
    """What the simulator runs (np.floor in a device function) fails to compile."""
    if not _nvvm():
        pytest.skip("no NVVM here")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    r = subprocess.run([sys.executable, "-c", _A_UFUNC], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "_bad: " in r.stdout and "_floor" not in r.stdout, r.stdout  # (the error: the target's)


def _nvvm() -> bool:
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    return subprocess.run([sys.executable, "-c", "from dslc.cuda.lowering_check import "
                           "nvvm_present as p; raise SystemExit(0 if p() else 3)"],
                          cwd=ROOT, env=env, timeout=300).returncode == 0


def _numpy_calls(source: str) -> list[str]:
    """The numpy functions (ufuncs and plain functions, not scalar types or
    constants) that ``source`` calls."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and node.func.value.id == "np":
            obj = getattr(np, node.func.attr, None)
            if not isinstance(obj, type):
                out.append(node.func.attr)
    return out


@pytest.mark.parametrize("h", [h for h in runtime.HELPERS if h.device is not None],
                         ids=lambda h: h.name)
def test_device_helpers_call_no_numpy_function(h):
    """Where there is no NVVM to compile them: no device helper calls a numpy function
    (numba-cuda lowers ``math``'s, not numpy's ufuncs, in device code)."""
    assert _numpy_calls(h.device) == []


def test_the_syntax_check_sees_a_ufunc():
    assert _numpy_calls("def f(x):\n    return np.floor(x) + np.int64(x)\n") == ["floor"]


def _floored(expr: str, db) -> str:
    return (f"int g(seq[dna] s, index[s] i)\n"
            f"  | i == 0 = {expr}\n"
            f"  | otherwise = g(s, i - 1) max -1000\n"
            f'db = load(seq[dna], "{db}")\n'
            f"r = map(g, db)\nprint r\n")


def test_floored_remainder_and_division_in_a_kernel(tmp_path):
    """``%`` and ``div`` floor on the device as in the interpreter, operands of either
    sign (the device helpers' floor, targets.runtime ``_floor``); by zero, the task is
    flagged and the script stops with the interpreter's error."""
    import dslc
    from dslc.cuda.backend import CudaBackend
    from dslc.errors import DslcError
    from tests.cuda.test_device_checks import _run, on_the_device

    if not CudaBackend.available():
        pytest.skip("no CUDA device or simulator")
    db = tmp_path / "db.fa"
    db.write_text("".join(f">r{n}\n{'ACGTA'[:n]}\n" for n in range(6)))
    a, b = "(7 * len(s) - 10)", "(2 * len(s) - 5)"  # -10..25 over -5..5, never 0
    inside = _floored(f"{a} % {b} + 100 * div({a}, {b})", db)
    want, _ = _run(inside, lambda p, g: dslc.interp.backend.InterpBackend(p, g))
    got, be = _run(inside, CudaBackend)
    on_the_device(be, "g")
    assert got["r"] == want["r"]
    for by_zero in (f"{a} % (len(s) - 3)", f"div({a}, len(s) - 3)"):
        with pytest.raises(DslcError) as interp_err:
            _run(_floored(by_zero, db), lambda p, g: dslc.interp.backend.InterpBackend(p, g))
        with pytest.raises(DslcError) as device_err:
            _run(_floored(by_zero, db), CudaBackend)
        assert device_err.value.message == interp_err.value.message


def test_kernels_the_simulator_ran_compile_for_the_device(tmp_path, monkeypatch):
    """Where numba-cuda and NVRTC are installed beside the simulator: the kernels of a
    register-tiled map and of a map with run-time checks, as the simulator ran them,
    compile to PTX with their GPU spellings (dslc.cuda.lowering_check ``FILE``)."""
    from dslc import settings
    from dslc.cuda.lowering_check import recorded_launches

    if not settings.simulated():
        pytest.skip("kernels are recorded in the simulator")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "0"}
    if subprocess.run([sys.executable, "-c", "import numba_cuda"], env=env).returncode != 0:
        pytest.skip("numba-cuda is not installed (Numba's own CUDA target types no int min)")
    import dslc
    from dslc.cuda.backend import CudaBackend
    from dslc.runtime.binding import bind_call
    from dslc.runtime.script import backend_globals
    from tests.cuda.test_device_checks import _run
    from tests.test_properties import GOTOH

    monkeypatch.setenv("DSLC_CUDA_TILE", "2")
    record = tmp_path / "launches.json"
    with recorded_launches(record) as seen:
        prog = dslc.compile(GOTOH, backend="interp")
        engine = CudaBackend(prog.checked, backend_globals(prog.checked))
        blosum = prog.checked.defined["blosum62"]
        tasks = [bind_call(prog.checked.functions["sw"], [blosum, 10, 1, "HEAGAW", t],
                           prog.checked, None) for t in ("PAWHE", "AW")]
        engine.map("sw", tasks, None)
        db = tmp_path / "db.fa"
        db.write_text(">a\nACG\n>b\nACGTA\n")
        _run(_floored("(7 * len(s) - 10) % (2 * len(s) - 5)", db), CudaBackend)
    assert len(seen.seen) >= 2
    r = subprocess.run([sys.executable, "-m", "dslc.cuda.lowering_check", str(record)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    if r.returncode == 3:
        pytest.skip(r.stdout.strip())
    assert r.returncode == 0, r.stdout + r.stderr[-2000:]
