"""A cooperative kernel's grid barrier and the grid's numbering of threads as kernel
IR (kernel.body.Barrier of scope ``grid``, kernel.ir.GridGroup, kernel.ir.Thread
``grid``): printed by the CUDA printers, refused by the CPU printer, and kept by
verify_body to a cooperative kernel, where every thread of the grid reaches it. Also the
other statements that were text lines: a task's return, a check evaluated for its effect,
a loop's exit and an array's allocation (kernel.body.Return, Eval, Break, Alloc)."""

from __future__ import annotations

import pytest

from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.verify import verify_body
from dslc.targets.printer import CudaPrinter, Printer, SimulatedCudaPrinter, statements

GROUP = ir.Assign("grid", ir.GridGroup())
STRIDE = ir.Assign("nth", ir.bare("//", ir.Thread("grid"), ir.Const(32)))


def _sweep(*inside) -> kb.Loop:
    """Partition ``c0`` after partition, ``inside`` run at the end of each."""
    return kb.Loop((ir.Assign("x", ir.Name("c0")),) + inside, "sequential", "c0",
                   (ir.Name("n"),), partition=True)


@pytest.mark.parametrize("pr", [CudaPrinter(), SimulatedCudaPrinter()])
def test_the_cuda_printers_spell_the_grid_and_its_barrier(pr):
    body = (GROUP, STRIDE, _sweep(kb.Barrier("grid", "grid")), kb.Barrier())
    assert pr.task_text(body, 1).splitlines() == [
        "    grid = cuda.cg.this_grid()",
        "    nth = cuda.gridsize(1) // 32",
        "    for c0 in range(n):",
        "        x = c0",
        "        grid.sync()",
        "    cuda.syncthreads()",
    ]


def test_the_cpu_printer_refuses_them():
    with pytest.raises(TypeError, match="a grid barrier in CPU code"):
        Printer().task_text((kb.Barrier("grid", "grid"),))
    with pytest.raises(TypeError, match="a GPU grid group"):
        Printer().task_text((GROUP,))
    with pytest.raises(TypeError, match="a GPU thread number"):
        Printer().task_text((STRIDE,))


def test_verify_body_takes_a_grid_barrier_in_a_cooperative_kernel():
    body = (GROUP, STRIDE, _sweep(kb.Barrier("grid", "grid")))
    assert verify_body(body, "cuda", known=("n",), cooperative=True) == body


@pytest.mark.parametrize("body,target,why", [
    ((GROUP, _sweep(kb.Barrier("grid", "grid"))), "cuda", "not launched cooperatively"),
    ((GROUP,), "cuda", "a grid group in a kernel not launched cooperatively"),
    ((GROUP, kb.Barrier("grid", "grid")), "cpu", "cpu.*a grid group, which only a GPU"),
    ((STRIDE,), "cpu", "a thread number"),
    ((ir.Assign("t", ir.Thread("warp")),), "cuda", "unknown thread number 'warp'"),
    ((kb.Barrier("grid", "grid"),), "cuda", "through grid, not a grid group assigned"),
    ((GROUP, kb.Barrier("grid")), "cuda", "through no grid group"),
    ((GROUP, kb.Barrier("block", "grid")), "cuda", "a block barrier through grid group"),
    ((kb.Barrier("warp"),), "cuda", "unknown scope 'warp'"),
    ((GROUP, kb.Cell((kb.Barrier("grid", "grid"),))), "cuda",
     "a grid barrier inside a cell's code, which not every thread of the grid"),
    ((GROUP, kb.Loop((kb.Barrier("grid", "grid"),), "strided", "z",
                     (ir.Const(0), ir.Name("n"), ir.Const(1)))), "cuda",
     "inside a strided loop"),
])
def test_verify_body_refuses_a_misplaced_grid_construct(body, target, why):
    with pytest.raises(InternalError, match=why):
        verify_body(body, target, known=("n",), cooperative=target == "cuda"
                    and "cooperatively" not in why)


# ---------------------------------------------------------------- returns and checks
# A task's return, a check evaluated for its effect and a loop's exit are records too
# (kernel.body.Return, Eval, Break): printed by every printer, read by the verifier.
CHECK = ir.Helper("_chk", (ir.Const(-1), ir.Const(0)), flagged=True)


def test_a_return_a_check_and_a_break_are_printed_from_their_records():
    stuck = kb.Loop((kb.Eval(CHECK, "a cycle"), kb.Break()), "while", "", (ir.Name("go"),))
    body = (ir.Assign("go", ir.Const(True)), stuck, kb.Return(ir.Name("go")))
    assert verify_body(body, "cuda", known=("_F", "tid")) == body
    assert CudaPrinter().task_text(body).splitlines() == [
        "go = True",
        "while go:",
        "    _chk_f(_F, tid, -1, 0)  # a cycle",
        "    break",
        "return go",
    ]


def test_verify_body_refuses_a_break_outside_a_loop():
    """A ``break`` leaves the innermost loop: at a body's top level, or in an ``if``
    or a cell's code that no loop holds, it is refused (Python would refuse the
    printed text); inside a loop, through an ``if``, it is kept."""
    brk = kb.If((kb.Break(),), ir.Name("go"))
    for body in [(kb.Break(),), (brk,), (kb.Cell((brk,)),)]:
        with pytest.raises(InternalError, match="a break outside a loop"):
            verify_body(body, "cpu", known=("go",))
    inside = (kb.Loop((kb.Cell((brk,)),), "sequential", "x", (ir.Const(3),)),)
    assert verify_body(inside, "cpu", known=("go",)) == inside


def test_several_names_assigned_and_returned_at_once_are_records_every_printer_prints():
    """``a, b = f(x)`` (an ``Assign`` to a tuple of names) and ``return a, b`` (a bare
    ``Tuple``): printed alike by every printer, the task's and the launch's; the
    names assigned are defined after it, a bare tuple is only a return's value."""
    call = ir.Assign(("a", "b"), ir.Call("f", (ir.Name("x"),)))
    body = (call, kb.Return(ir.names(("a", "b"))))
    assert verify_body(body, "cuda", known=("x",)) == body
    for pr in (Printer(), CudaPrinter(), SimulatedCudaPrinter()):
        assert pr.task_text(body).splitlines() == ["a, b = f(x)", "return a, b"]
        assert statements(pr, (call,), "") == ["a, b = f(x)"]
    assert ir.names(("a",)) == ir.Name("a") and ir.several(("a",), ir.Name("x")).target == "a"
    with pytest.raises(InternalError, match="b read before it is defined"):
        verify_body(body[1:], "cpu", known=("a",))
    with pytest.raises(InternalError, match="a tuple without parentheses inside"):
        verify_body((kb.Return(ir.Call("g", (ir.names(("x", "x")),))),), "cpu", known=("x",))
    for bad in [("a", "a"), ("a",), ("a", "b[0]")]:
        with pytest.raises(InternalError, match="not two or more distinct names"):
            verify_body((ir.Assign(bad, ir.Name("x")),), "cpu", known=("x",))


@pytest.mark.parametrize("stmt", [kb.Return(ir.Name("v")), kb.Eval(ir.Helper("_chk", (
    ir.Name("v"), ir.Const(0))))])
def test_verify_body_reads_the_names_of_returned_and_evaluated_values(stmt):
    with pytest.raises(InternalError, match="v read before it is defined"):
        verify_body((stmt,), "cpu", known=())
    assert verify_body((ir.Assign("v", ir.Const(1)), stmt), "cpu", known=())


def test_an_allocation_is_printed_per_memory_space_and_defines_its_name():
    local = kb.Alloc("S", (ir.Name("n"), ir.Const(2)), "uint8", comma=True)
    shared = kb.Alloc("_p0", ir.Const(128), "float64", space="shared")
    read = ir.Assign("v", ir.Name("S"))
    assert verify_body((local, shared, read), "cuda", known=("n",))
    assert CudaPrinter().task_text((local, shared)).splitlines() == [
        "S = np.zeros((n, 2,), np.uint8)", "_p0 = cuda.shared.array(128, np.float64)"]
    assert Printer().task_text((kb.Alloc("_k", (ir.Name("n"), ir.Const(3)), "int64",
                                         "empty"),)) == "_k = np.empty((n, 3), np.int64)"
    with pytest.raises(TypeError, match="shared memory in CPU code"):
        Printer().task_text((shared,))


@pytest.mark.parametrize("stmt,why", [
    (kb.Alloc("_p0", ir.Const(8), "float64", space="shared"), "_p0 in shared memory, which"),
    (kb.Alloc("a", ir.Const(8), "float64", space="texture"), "unknown memory 'texture'"),
    (kb.Alloc("a", ir.Const(8), "float64", fill="ones"), "filled by unknown 'ones'"),
    (kb.Alloc("a", (ir.Name("m"),), "float64"), "m read before it is defined"),
])
def test_verify_body_refuses_a_malformed_allocation(stmt, why):
    with pytest.raises(InternalError, match=why):
        verify_body((stmt,), "cpu", known=("n",))


def test_a_chained_comparison_prints_as_python_chains_it_and_its_names_are_read():
    inside = ir.Chain(("<=", "<="), (ir.Name("lo"), ir.Name("x"), ir.Name("hi")))
    lane0 = ir.Bin("==", ir.Name("_lane"), ir.Const(0), bare=True)
    pr = CudaPrinter()
    assert pr.expr(ir.bare("and", lane0, inside, inside)) == \
        "_lane == 0 and lo <= x <= hi and lo <= x <= hi"
    assert pr.expr(ir.Unary("not", inside, paren=False)) == "not lo <= x <= hi"
    assert pr.expr(ir.bare("==", inside, ir.Const(True))) == "(lo <= x <= hi) == True"
    with pytest.raises(InternalError, match="hi read before it is defined"):
        verify_body((kb.If((kb.Break(),), inside),), "cpu", known=("lo", "x"))
