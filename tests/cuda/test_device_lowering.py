"""Device code the simulator runs as Python but a GPU must compile: the runtime helpers
(targets.runtime) typed and lowered to PTX by the CUDA target, without a device.

What this proves: every device helper compiles for the device (Numba's CUDA typing and
NVVM), so a construct only the simulator accepts (a numpy ufunc in device code) fails
here, not on the GPU. It does not run them: their values are the simulator's tests'."""

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
    assert "_bad: TypingError" in r.stdout and "_floor" not in r.stdout, r.stdout


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
