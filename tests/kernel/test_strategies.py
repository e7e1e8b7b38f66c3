"""Strategies as lists of passes (dslc.kernel.strategies), and the GPU failure flags
as a pass over a task's body (dslc.kernel.failure_flags)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dslc.cpu.decision import Decision
from dslc.errors import InternalError, NotCompilable
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel import strategies as ks
from dslc.kernel.failure_flags import Facts, failure_flags, holds_checks
from dslc.kernel.verify import verify_body
from dslc.targets.printer import CudaPrinter

DSLC = Path(__file__).parents[2] / "dslc"


def test_a_decision_names_a_strategy_of_the_table():
    """A backend cannot choose (record) a strategy the table does not list."""
    for name in ks.NAMES:
        assert Decision("f", "cpu", "call", name).strategy == name
    with pytest.raises(InternalError, match="not in kernel.strategies"):
        Decision("f", "cuda", "map", "task-per-warp")


def test_every_generator_a_backend_builds_comes_from_the_table():
    """The backends (and explain) build no generator by hand: each is looked up in
    the table, whose entries name generators that exist and map back to them."""
    users = [*(DSLC / "cpu").glob("*.py"), *(DSLC / "cuda").glob("*.py"), DSLC / "explain.py"]
    by_hand = [f"{p.name}: {m}" for p in users
               for m in re.findall(r"\b[A-Z]\w*Generator\(", p.read_text())]
    assert not by_hand
    from dslc.cpu.decision import build

    for s in ks.STRATEGIES:
        assert s.name in ks.NAMES and ks.strategy(s.key) is s
        if s.generator is None:
            assert not s.body and not s.launch
            continue
        module, _, cls = s.generator.rpartition(".")
        gen = getattr(__import__(module, fromlist=[cls]), cls)
        assert ks.of_generator(gen) is s
        with pytest.raises(TypeError):  # (build makes the class it names)
            build(s)
    assert len({s.key for s in ks.STRATEGIES}) == len(ks.STRATEGIES)


def test_the_cuda_strategies_flag_failures_and_lay_out_their_tasks():
    cuda = [s for s in ks.STRATEGIES if s.backend == "cuda" and s.body]
    assert {s.key for s in cuda} == {"cuda task-per-thread", "cuda register-tiled",
                                     "cuda task-per-block"}
    for s in cuda:
        assert s.body[-1] is ks.FAILURE_FLAGS and len(s.launch) == 1
    assert ks.strategy("cuda task-per-block").body == (ks.VALUE_TYPE, ks.PER_BLOCK,
                                                       ks.FAILURE_FLAGS)
    assert ks.strategy("cuda register-tiled").body == (ks.STRIP_MINE, ks.REGISTER_TILE,
                                                       ks.GUARDS, ks.VALUE_TYPE,
                                                       ks.FAILURE_FLAGS)
    assert "\n".join(ks.table()).count("body pass failure flags") == 3
    # every CUDA task strategy and the CPU task groups choose their value type
    assert "\n".join(ks.table()).count("body pass value type") == 4
    assert ks.strategy("cpu task groups").body == (ks.LANE_GROUPS, ks.VALUE_TYPE)
    tiled = ks.table().index(next(x for x in ks.table() if x.startswith("cuda register-tiled")))
    assert [x.split(":")[0] for x in ks.table()[tiled + 1:tiled + 6]] == [
        "  body pass strip-mine", "  body pass register tile", "  body pass guard specialisation",
        "  body pass value type", "  body pass failure flags"]


def _checked_body():
    """``x = _chk_f(_F, tid, i, len(a))`` inside a loop, then the return."""
    check = ir.Helper("_chk", (ir.Name("i"), ir.Call("len", (ir.Name("a"),))), flagged=True)
    loop = kb.Loop((ir.Assign("x", check),), "sequential", "i", (ir.Name("n"),))
    return (ir.Assign("res", ir.Const(0)), loop, kb.Return(ir.Name("res")))


def test_the_failure_flag_pass_clears_the_flag_and_returns_through_it():
    known = ["a", "n", "_F", "tid"]
    body = verify_body(_checked_body(), "cuda", known)
    assert holds_checks(body)
    flagged = verify_body(failure_flags(body, Facts()), "cuda", known)
    assert CudaPrinter().task_text(flagged, 1).splitlines() == [
        "    _F[tid] = 0",
        "    res = 0",
        "    for i in range(n):",
        "        x = _chk_f(_F, tid, i, len(a))",
        "    return _result_f(_F, tid, res)",
    ]
    # a tuple result returns through the helper of its width
    assert CudaPrinter().task_text(failure_flags(body, Facts(2))[-1:]) == \
        "return _tresult2_f(_F, tid, res)"


def test_the_failure_flag_pass_reads_the_checks_off_the_records():
    unchecked = (ir.Assign("res", ir.Helper("_chk", (ir.Const(0), ir.Const(1)))),
                 kb.Return(ir.Name("res")))
    assert not holds_checks(unchecked)
    assert failure_flags(unchecked, Facts()) == unchecked
    # a call of a generated function holding a check is a flagged record too
    calls = (ir.Assign("res", ir.Call("fn_w", (ir.Name("i"),), flagged=True)),
             kb.Return(ir.Name("res")))
    assert holds_checks(calls)
    flagged = failure_flags(calls, Facts())
    assert flagged[0] == ir.Store(ir.Load("_F", (ir.Name("tid"),), "global"), ir.Const(0))
    assert CudaPrinter().task_text(flagged[1:]).splitlines() == [
        "res = fn_w(_F, tid, i)", "return _result_f(_F, tid, res)"]
    with pytest.raises(NotCompilable, match="without a final return"):
        failure_flags(_checked_body()[:-1], Facts())
    # the return is read off its record: a return spelled as text is not one
    with pytest.raises(NotCompilable, match="without a final return"):
        failure_flags(_checked_body()[:-1] + (kb.Line("return res"),), Facts())


def test_explain_prints_the_passes_of_a_decisions_strategy():
    tiled = Decision("f", "cuda", "map", ks.TASK_PER_THREAD, rows=32).lines()
    assert "  passes: task: strip-mine, register tile, guard specialisation, value type, " \
        "failure flags; launch: thread per task" in tiled
    plain = Decision("f", "cuda", "map", ks.TASK_PER_THREAD).lines()
    assert "  passes: task: value type, failure flags; launch: thread per task" in plain
    block = Decision("f", "cuda", "map", ks.TASK_PER_BLOCK).lines()
    assert "  passes: task: value type, task per block, failure flags; " \
        "launch: block per task" in block
    assert ks.of_decision("cuda", ks.TASK_PER_THREAD).key == "cuda task-per-thread"
    assert not any("passes" in x for x in Decision("f", "cpu", "call", ks.CPU_PLAIN).lines())


def test_the_table_names_exactly_the_strategies_a_decision_may_carry():
    """The names live apart (dslc.lang.strategy_names) so a small run imports no kernel IR."""
    from dslc.kernel import strategies
    from dslc.lang import strategy_names

    assert strategies.NAMES == strategy_names.NAMES
