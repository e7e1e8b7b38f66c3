"""Strategies as a builder and lists of passes (dslc.emit.strategies' table of
dslc.kernel.strategies records), and the GPU failure flags as a pass over a task's
body (dslc.kernel.failure_flags)."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from dslc.cpu.decision import Decision
from dslc.emit import strategies as es
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
    for name in es.NAMES:
        assert Decision("f", "cpu", "call", name).strategy == name
    with pytest.raises(InternalError, match="not in emit.strategies"):
        Decision("f", "cuda", "map", "task-per-warp")


def test_every_generator_a_backend_builds_comes_from_the_table():
    """The backends (and explain) build no generator by hand: each is built by the
    builder the table names, a function of dslc.emit (imported, not named by a
    string), given its own row."""
    users = [*(DSLC / "cpu").glob("*.py"), *(DSLC / "cuda").glob("*.py"),
             *(DSLC / "trace").glob("*.py"), DSLC / "explain.py"]
    by_hand = [f"{p.name}: {m}" for p in users
               for m in re.findall(r"\b[A-Z]\w*Generator\(|\bemit\.cpu import[^\n]*\bTask\b",
                                    p.read_text())]
    assert not by_hand
    assert "importlib" not in (DSLC / "cpu" / "decision.py").read_text()
    for s in es.STRATEGIES:
        assert s.name in es.NAMES and es.strategy(s.key) is s
        if s.build is None:
            assert not s.body and not s.launch
            continue
        assert inspect.isfunction(s.build) and s.build.__module__.startswith("dslc.emit.")
        assert list(inspect.signature(s.build).parameters)[:3] == ["strategy", "program", "plan"]
    assert len({s.key for s in es.STRATEGIES}) == len(es.STRATEGIES)


def test_the_cuda_strategies_flag_failures_and_lay_out_their_tasks():
    cuda = [s for s in es.STRATEGIES if s.backend == "cuda" and s.body]
    assert {s.key for s in cuda} == {"cuda task-per-thread", "cuda register-tiled",
                                     "cuda task-per-block"}
    for s in cuda:
        assert s.body[-1] is ks.FAILURE_FLAGS and len(s.launch) == 1
    assert es.strategy("cuda task-per-block").body == (ks.VALUE_TYPE, ks.PER_BLOCK,
                                                       ks.FAILURE_FLAGS)
    assert es.strategy("cuda register-tiled").body == (ks.STRIP_MINE, ks.REGISTER_TILE,
                                                       ks.GUARDS, ks.VALUE_TYPE,
                                                       ks.FAILURE_FLAGS)
    assert "\n".join(es.table()).count("body pass failure flags") == 3
    # every CUDA task strategy and the CPU task groups choose their value type
    assert "\n".join(es.table()).count("body pass value type") == 4
    assert es.strategy("cpu task groups").body == (ks.LANE_GROUPS, ks.PROFILES, ks.VALUE_TYPE)
    tiled = es.table().index(next(x for x in es.table() if x.startswith("cuda register-tiled")))
    assert [x.split(":")[0] for x in es.table()[tiled + 1:tiled + 6]] == [
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
    tiled = Decision("f", "cuda", "map", es.TASK_PER_THREAD, rows=32).lines()
    assert "  passes: task: strip-mine, register tile, guard specialisation, value type, " \
        "failure flags; launch: thread per task" in tiled
    plain = Decision("f", "cuda", "map", es.TASK_PER_THREAD).lines()
    assert "  passes: task: value type, failure flags; launch: thread per task" in plain
    block = Decision("f", "cuda", "map", es.TASK_PER_BLOCK).lines()
    assert "  passes: task: value type, task per block, failure flags; " \
        "launch: block per task" in block
    assert es.of_decision("cuda", es.TASK_PER_THREAD).key == "cuda task-per-thread"
    assert not any("passes" in x for x in Decision("f", "cpu", "call", es.CPU_PLAIN).lines())


def test_the_table_names_exactly_the_strategies_a_decision_may_carry():
    """The names live apart (dslc.lang.strategy_names) so a small run imports no kernel IR."""
    from dslc.lang import strategy_names

    assert es.NAMES == strategy_names.NAMES
