"""The functions of one number (lang.builtins) in a GPU kernel: outside a domain the
device flags the task (a kernel cannot raise), the CPU re-runs it and the script
stops with the interpreter's error; inside, the kernel's values are the
interpreter's. Small inputs: CI runs this in Numba's CUDA simulator."""

from __future__ import annotations

import pytest

import dslc
from dslc.errors import DslcError
from dslc.lang.builtins import MATH
from tests.cuda.test_device_checks import _run, close, on_the_device

cuda = pytest.importorskip("dslc.cuda.backend")
if not cuda.CudaBackend.available():
    pytest.skip("no CUDA device or simulator", allow_module_level=True)


def _script(fn: str, arg: str, db) -> str:
    return (f"float g(seq[dna] s, index[s] i)\n"
            f"  | i == 0 = {fn}({arg})\n"
            f"  | otherwise = g(s, i - 1) max -1.0\n"
            f'db = load(seq[dna], "{db}")\n'
            f"r = map(g, db)\nprint r\n")


@pytest.mark.parametrize("fn", [b.name for b in MATH])
def test_math_builtin_in_a_kernel(fn, tmp_path):
    db = tmp_path / "db.fa"
    db.write_text("".join(f">r{n}\n{'ACGT'[:n] or ''}\n" for n in range(4)))
    inside = _script(fn, "float(len(s)) + 0.5", db)
    want, _ = _run(inside, lambda p, g: dslc.interp.backend.InterpBackend(p, g))
    got, be = _run(inside, cuda.CudaBackend)
    on_the_device(be, "g")
    assert all(close(a, b) for a, b in zip(got["r"], want["r"])), (got, want)
    # exp overflows past 709.78; the others are undefined below 0
    outside = _script(fn, "float(len(s)) * 300.0" if fn == "exp" else "float(len(s)) - 1.5", db)
    with pytest.raises(DslcError) as interp_err:
        _run(outside, lambda p, g: dslc.interp.backend.InterpBackend(p, g))
    with pytest.raises(DslcError) as device_err:
        _run(outside, cuda.CudaBackend)
    assert device_err.value.message == interp_err.value.message
