"""Where model arrays live in a kernel (dslc.cuda.placement): the rules, the
overrides, and the same values whichever memory holds them."""

from __future__ import annotations

import numpy as np
import pytest

import dslc
from dslc.cuda.placement import SHARED_BYTES, place
from dslc.errors import DslcError
from dslc.interp.backend import InterpBackend
from tests.conftest import EXAMPLES

cuda = pytest.importorskip("dslc.cuda.backend")


def test_small_arrays_go_to_shared_memory_large_ones_stay_global():
    got = place({"a_sm": np.zeros((24, 24), np.float32),
                 "a_big": np.zeros(SHARED_BYTES // 8 + 1, np.float64),
                 "a_cube": np.zeros((2, 2, 2), np.float64)})
    assert got["a_sm"].memory == "shared"
    assert got["a_big"].memory == "global" and "budget" in got["a_big"].why
    assert got["a_cube"].memory == "global"


def test_layout_pins_and_overrides():
    """``asked``: DSLC_CUDA_PLACE's text, as the compile options carry it."""
    arrays = {"g__tprob_h": np.arange(6, dtype=np.float64), "a_sm": np.zeros((4, 4))}
    names = {"g__tprob_h": "tprob_h", "a_sm": "sm"}
    got = place(arrays, {"g__tprob_h": "constant", "a_sm": "auto"}, names)
    assert got["g__tprob_h"].memory == "constant"
    assert got["g__tprob_h"].value is not None
    asked = "sm:global,tprob_h:shared"
    got = place(arrays, {"g__tprob_h": "constant"}, names, asked)
    assert got["a_sm"].memory == "global" and got["g__tprob_h"].memory == "shared"
    big = {"g__emit_h": np.zeros((731, 24))}  # a profile's emissions: 140 KB
    assert place(big, {"g__emit_h": "shared"}, names, asked)["g__emit_h"].memory == "global"
    with pytest.raises(DslcError, match="DSLC_CUDA_PLACE"):
        place(arrays, asked="sm:somewhere")


def test_an_override_names_the_source_not_the_generated_argument():
    """``DSLC_CUDA_PLACE`` names what the program calls an array; which kernel
    argument carries it is the task's record (``names``), whatever the
    argument's generated name looks like."""
    arrays = {"arg7": np.zeros((4, 4)), "a_sm": np.zeros((4, 4))}
    got = place(arrays, None, {"arg7": "sm", "a_sm": "other"}, "sm:global")
    assert got["arg7"].memory == "global" and got["a_sm"].memory == "shared"


@pytest.mark.skipif(not cuda.CudaBackend.available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("override", ["", "tprob_h:global,emit_h:global"])
def test_casino_placements_give_the_interpreters_values(override, monkeypatch):
    from dslc.runtime.script import ScriptRunner

    if override:
        monkeypatch.setenv("DSLC_CUDA_PLACE", override)
    prog = dslc.compile(str(EXAMPLES / "casino.bio"), backend="interp")
    holder = {}

    def make(p, g):
        holder["b"] = cuda.CudaBackend(p, g)
        return holder["b"]

    got = dict(ScriptRunner(prog.checked, make, prog.base_dir, quiet=True).run())["p"]
    want = dict(ScriptRunner(prog.checked, InterpBackend, prog.base_dir, quiet=True).run())["p"]
    assert np.allclose(got.values.ravel().astype(float), want.values.ravel().astype(float),
                       rtol=1e-12)
    placed = holder["b"].placement["px"]
    if override:
        assert placed["tprob_h"][0] == "global"
        assert placed["emit_h"][0] == "global"
    else:
        assert placed["tprob_h"][0] == "constant", placed  # pinned by the hmm layout
        assert placed["emit_h"][0] == "shared"
