"""The task body as kernel IR (dslc.kernel.body): built as records, changed by
passes (kernel.per_block), checked by the verifier, printed in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel.per_block import per_block
from dslc.kernel.verify import verify_body
from dslc.targets.printer import CudaPrinter, Printer


def _loop(var, over, body, kind="sequential", **attrs):
    return kb.Loop(tuple(body), kind, var, tuple(over), **attrs)


def _cell(*lines):
    return kb.Cell(tuple(kb.Line(x) for x in lines))


def _sweep():
    """A lone cell, then partitions whose points lie in two parallel loops, one
    inside a guard, with a reduction's loop inside the cell."""
    reduce = _loop("v_k", ("x_i", "x_j"), [kb.Line("acc = max(acc, T[v_k])")])
    inner = _loop("c1", ("0", "c0 + 1", "1"), [kb.Line("x_i = c1"),
                                                kb.Cell((kb.Line("acc = 0"), reduce))],
                  kind="parallel")
    guarded = kb.If((_loop("c2", ("0", "n", "2"), [_cell("T[c2] = 1")], kind="parallel"),),
                    "c0 > 1")
    part = _loop("c0", ("0", "n + 1", "1"), [inner, guarded], partition=True)
    return (kb.Line("E = len(a)"), _cell("T[0] = 0"), part, kb.Line("return T[n]"))


def test_the_block_pass_strides_the_partitions_points_and_adds_barriers():
    body = verify_body(per_block(verify_body(_sweep(), "cuda")), "cuda")
    assert CudaPrinter().task_text(body, 1).splitlines() == [
        "    E = len(a)",
        "    if cuda.threadIdx.x == 0:",
        "        T[0] = 0",
        "    cuda.syncthreads()",
        "    for c0 in range(0, n + 1, 1):",
        "        for c1 in range(0 + cuda.threadIdx.x * 1, c0 + 1, 1 * cuda.blockDim.x):",
        "            x_i = c1",
        "            acc = 0",
        "            for v_k in range(x_i, x_j):",
        "                acc = max(acc, T[v_k])",
        "        if c0 > 1:",
        "            for c2 in range(0 + cuda.threadIdx.x * 2, n, 2 * cuda.blockDim.x):",
        "                T[c2] = 1",
        "        cuda.syncthreads()",
        "    return T[n]",
    ]
    loops = [s for s in _walk(body) if isinstance(s, kb.Loop)]
    assert [s.kind for s in loops] == ["sequential", "strided", "sequential", "strided"]
    assert loops[0].loops == 3 and kb.levels(body) == 4


def test_the_verifier_refuses_a_barrier_not_every_thread_reaches():
    strided = _loop("c1", ("0", "n", "1"), [_cell("T[c1] = 1"), kb.Barrier()], kind="strided")
    with pytest.raises(InternalError, match="barrier inside a strided loop"):
        verify_body((strided,), "cuda")
    with pytest.raises(InternalError, match="barrier inside a thread-0 block"):
        verify_body((kb.OneThread((kb.Barrier(),)),), "cuda")
    verify_body((_loop("c0", ("n",), [kb.Barrier()], partition=True),), "cuda")


def test_the_verifier_checks_targets_loop_variables_and_depth():
    with pytest.raises(InternalError, match="a barrier"):
        verify_body((kb.Barrier(),), "cpu")
    with pytest.raises(InternalError, match="a strided loop"):
        verify_body((_loop("c", ("0", "n", "1"), [], kind="strided"),), "cpu")
    with pytest.raises(InternalError, match="a lanes loop"):
        verify_body((_loop("l", ("LANES",), [], kind="lanes"),), "cuda")
    rebound = _loop("c0", ("n",), [_loop("c0", ("n",), [])], partition=True)
    with pytest.raises(InternalError, match="c0 bound again"):
        verify_body((rebound,), "cpu")
    # a reduction may shadow its own name, as the language lets it
    verify_body((_loop("v_i", ("n",), [_loop("v_i", ("v_i + 1",), [])]),), "cpu")
    deep = (kb.Line("pass"),)
    for k in range(kb.MAX_LOOPS + 1):
        deep = (_loop(f"v{k}", ("n",), deep),)
    with pytest.raises(InternalError, match="loops nested more than"):
        verify_body(deep, "cpu")


def test_lines_refuse_nesting_python_cannot_compile():
    from dslc.emit.pyexpr import Lines, NotCompilable

    b = Lines()
    for _ in range(kb.MAX_INDENT):
        outer = b.child()
        outer.if_("c", b)
        b = outer
    assert kb.levels(b.stmts) == kb.MAX_INDENT + 1
    top = b.child()
    with pytest.raises(NotCompilable, match="nested more than 60 levels"):
        top.if_("c", b)


def test_the_printer_gives_the_text_of_the_generators_before_the_body_ir():
    """Nussinov's task (windowed, a requested cell, a reduction with a test) for the
    CPU and task-per-block: the text printed from the records is the text the
    generators wrote as lines (so cached modules and kernels stay valid)."""
    import dslc
    from dslc.emit.strategies import build, strategy
    from dslc.emit.cpu import build_task
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call
    from tests.test_properties import NUSSINOV

    prog = dslc.compile(NUSSINOV, backend="interp")
    x = "GGGAAAUCC"
    args = bind_call(prog.checked.functions["n"], [x, 0, len(x)], prog.checked, None)
    plan = lower(prog.checked, "n", "cell", args, (0, len(x))).task
    texts = []
    for gen in (build_task(None, prog.checked, plan),
                build(strategy("cuda task-per-block"), prog.checked, plan, 128)):
        src = gen.generate()[0]
        texts.append(src[src.index("def task("):] + "\n=====\n")
    assert "".join(texts) == (Path(__file__).parent / "data" / "nussinov_tasks.txt").read_text()


def _walk(stmts):
    for s in stmts:
        yield s
        for b in kb.children(s):
            yield from _walk(b)


def test_a_cpu_body_prints_with_the_cpu_printer_only():
    strided = _loop("c", ("0", "n", "1"), [], kind="strided")
    with pytest.raises(TypeError):
        Printer().task_text((strided,))
