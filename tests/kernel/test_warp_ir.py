"""A GPU's atomic updates and warp reductions as kernel IR (kernel.ir.Atomic,
kernel.ir.WarpReduce): printed by the CUDA printers (a device's shuffles, or the
simulator's stand-in), refused on the CPU by the printer and by verify_body, and
built as records by the whole-GPU wavefront generator (emit.wavefront)."""

from __future__ import annotations

import pytest

import dslc
from dslc.emit.wavefront import Lanes, build_wavefront
from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.verify import verify_body
from dslc.plan import lower
from dslc.runtime.binding import bind_call
from dslc.targets.printer import CudaPrinter, Printer, SimulatedCudaPrinter


def _acc(k: int = 0) -> ir.Load:
    return ir.Load(f"acc{k}", (ir.Const(0),), "global")


def _body():
    """A cell's split reduction combined over a warp, then its fused atomic update."""
    acc = ir.Name("_acc2")
    return (ir.Assign("_acc2", ir.Const(0)),
            ir.Assign("_acc2", ir.WarpReduce("min", acc, 32)),
            kb.If((ir.Atomic("add", _acc(), acc),), "_lane == 0"))


@pytest.mark.parametrize("pr", [CudaPrinter(), SimulatedCudaPrinter()])
def test_the_cuda_printers_print_atomics_and_warp_reductions_as_calls(pr):
    assert pr.task_text(_body(), 1).splitlines() == [
        "    _acc2 = 0",
        "    _acc2 = _lanes_min(_acc2)",
        "    if _lane == 0:",
        "        cuda.atomic.add(acc0, 0, _acc2)",
    ]
    two = ir.Atomic("max", ir.Load("T", (ir.Name("i"), ir.Name("j")), "shared"), ir.Name("v"))
    assert pr.task_text((two,)) == "cuda.atomic.max(T, (i, j), v)"


def _butterfly(op: str, width: int, shuffle: str) -> list[str]:
    combine = {"max": "max(v, {})", "min": "min(v, {})", "sum": "v + {}"}[op]
    steps, m = [], width // 2
    while m:
        steps.append(f"    v = {combine.format(shuffle.format(m))}")
        m //= 2
    return steps


def test_a_device_butterfly_is_full_mask_shuffles_half_the_width_apart_down_to_one():
    pr = CudaPrinter()
    assert pr.lanes_library() == ""  # no warp reduction printed: no helpers
    pr.task_text(_body())
    text = pr.lanes_library()
    for op in ir.WARP_OPS:  # every op of a width used, as before the records
        head = f"@cuda.jit(device=True, inline=True)\ndef _lanes_{op}(v):\n"
        lines = text[text.index(head) + len(head):].splitlines()
        assert lines[:6] == _butterfly(op, 32, "cuda.shfl_xor_sync(0xffffffff, v, {})") \
            + ["    return v"]
    assert "_shfl_xor" not in text and "import" not in text


def test_the_simulators_butterfly_calls_its_stand_in_with_the_same_steps():
    pr = SimulatedCudaPrinter()
    pr.task_text(_body())
    text = pr.lanes_library()
    assert text.startswith("from dslc.emit.wavefront import simulated_shfl_xor as _shfl_xor\n")
    assert "shfl_xor_sync" not in text
    assert "\n".join(_butterfly("min", 32, "_shfl_xor(v, {})")) in text
    # printers made for other functions of the module share its record of helpers
    other = SimulatedCudaPrinter().for_value("float32")
    assert isinstance(other, SimulatedCudaPrinter) and other.lanes_library() == ""


def test_a_narrower_warp_reduction_has_its_own_helpers():
    pr = CudaPrinter()
    assert pr.expr(ir.WarpReduce("max", ir.Name("a"), 8)) == "_lanes8_max(a)"
    text = pr.lanes_library()
    assert "def _lanes8_sum(v):\n" + "\n".join(
        _butterfly("sum", 8, "cuda.shfl_xor_sync(0xffffffff, v, {})")) in text
    assert "def _lanes_max" not in text


def test_the_cpu_printer_refuses_them():
    with pytest.raises(TypeError, match="an atomic update"):
        Printer().task_text((ir.Atomic("max", _acc(), ir.Name("v")),))
    with pytest.raises(TypeError, match="a warp reduction"):
        Printer().expr(ir.WarpReduce("sum", ir.Name("v"), 32))


@pytest.mark.parametrize("stmt,why", [
    (ir.Atomic("max", _acc(), ir.Name("v")), "an atomic update, which only a GPU"),
    (ir.Assign("w", ir.WarpReduce("max", ir.Name("v"), 32)), "a warp reduction, which only"),
])
def test_verify_body_keeps_them_to_device_code(stmt, why):
    body = (ir.Assign("v", ir.Const(1)), stmt)
    assert verify_body(body, "cuda", known=("acc0",)) == body
    with pytest.raises(InternalError, match=why):
        verify_body(body, "cpu")


@pytest.mark.parametrize("stmt,why", [
    (ir.Atomic("sub", _acc(), ir.Name("v")), "unknown op 'sub'"),
    (ir.Atomic("add", ir.Load("acc0", (ir.Const(0),)), ir.Name("v")), "not an element of glob"),
    (ir.Assign("w", ir.WarpReduce("prod", ir.Name("v"), 32)), "unknown op 'prod'"),
    (ir.Assign("w", ir.WarpReduce("max", ir.Name("v"), 24)), "over 24 lanes, not a power"),
    (ir.Assign("w", ir.WarpReduce("max", ir.Name("v"), 64)), "over 64 lanes"),
    (ir.Assign("w", ir.WarpReduce("max", ir.Name("u"), 32)), "u read before it is defined"),
])
def test_verify_body_refuses_malformed_ones(stmt, why):
    with pytest.raises(InternalError, match=why):
        verify_body((ir.Assign("v", ir.Const(1)), stmt), "cuda", known=("acc0",))


FUSED_AND_MIN = """
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = j
  | j == 0 = i
  | otherwise = min(k in 0 ... i - 1 : d(k, j - 1) + i - k) min d(i - 1, j - 1) + 1
int total(seq[dna] s, seq[dna] t) = sum(i in 0 ... len(s) : sum(j in 0 ... len(t) : d(i, j)))
"""


@pytest.mark.parametrize("simulated", [False, True])
def test_the_wavefront_builds_records_its_printer_spells(simulated):
    """A warp per point: the cell's min combined over the warp's lanes, the fused
    int sum an atomic add on lane 0; a thread per point: no helpers at all."""
    p = dslc.compile(FUSED_AND_MIN, backend="interp")
    args = bind_call(p.checked.functions["total"], ["ACGT", "AGT"], p.checked, None)
    plan = lower(p.checked, "total", "value", args).task
    src = {}
    for width in (1, 32):
        gen = build_wavefront(None, p.checked, plan, (Lanes(width, "a test"),), simulated)
        src[width] = gen.generate()[0]
    assert "_lanes_" not in src[1] and "_shfl_xor" not in src[1]
    assert src[32].count("def _lanes_min(v):") == 1
    assert src[32].count(" = _lanes_min(_acc") == 2  # part_0 and all_0
    assert ("_shfl_xor(v, 16)" in src[32]) == simulated
    assert ("cuda.shfl_xor_sync(0xffffffff, v, 16)" in src[32]) != simulated
    for text, once in ((src[1], ""), (src[32], "_lane == 0 and ")):
        assert text.count(f"if {once}lo0_0 <= x_i <= hi0_0") == 2
        assert text.count("cuda.atomic.add(acc0, 0, _val") == 2
