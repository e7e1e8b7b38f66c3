"""The value type as a pass over a task's body (dslc.kernel.value_type): one body,
generated with the value type named symbolically, printed in each value type."""

from __future__ import annotations

import pytest

from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.value_type import ValueType, typed
from dslc.kernel.verify import verify_body
from dslc.targets.printer import VALUE, CudaPrinter, Printer


def _lanes():
    """A lane loop over a point: a cell whose value is the larger of a table read
    and an infinity, a sum started at a typed zero and a conversion to the value type,
    stored into table ``T_f``; an accumulator ``acc`` (not a table) starts at -inf."""
    pr = Printer(VALUE, typed_zero=True)
    at = ir.Load("T_f", (ir.Name("x"), ir.Name("l")))
    val = ir.Call("max", (ir.Load("T_f", (ir.Bin("-", ir.Name("x"), ir.Const(1), True),
                                          ir.Name("l"))), pr.ir_inf()))
    cell = kb.Cell((ir.Assign("v", val),
                    ir.Assign("z", pr.ir_zero()),
                    ir.Assign("w", pr.ir_value(ir.Name("n"))),
                    ir.Store(at, ir.Name("v"))))
    lanes = kb.Loop((cell,), "lanes", "l", ("LANES",))
    init = kb.Loop((ir.Store(ir.Load("acc", (ir.Name("l"),)), pr.ir_inf(negative=True)),),
                   "lanes", "l", ("LANES",))
    return (init, kb.Loop((lanes,), "sequential", "x", ("1", "n")))


PARAMS = ["n", "T_f", "acc", "big"]


def _text(stmts) -> list[str]:
    return Printer().task_text(stmts, 0).splitlines()


def test_a_body_prints_in_each_value_type_from_one_generated_tree():
    body = verify_body(_lanes(), "cpu", known=PARAMS)
    f64 = verify_body(typed(body, ValueType("float64")), "cpu", known=PARAMS)
    assert _text(f64) == [
        "for l in range(LANES):",
        "    acc[l] = -np.inf",
        "for x in range(1, n):",
        "    for l in range(LANES):",
        "        v = max(T_f[(x - 1), l], np.inf)",
        "        z = 0.0",
        "        w = float(n)",
        "        T_f[x, l] = v"]
    f32 = verify_body(typed(body, ValueType("float32")), "cpu", known=PARAMS)
    assert _text(f32)[1] == "    acc[l] = -INF"
    assert _text(f32)[4:7] == ["        v = max(T_f[(x - 1), l], INF)", "        z = DT(0)",
                               "        w = DT(n)"]
    assert len(_text(f32)) == 8  # the static bound: no magnitude recorded


def test_the_checked_float32_records_each_stored_table_value_in_its_lane():
    body = verify_body(_lanes(), "cpu", known=PARAMS)
    checked = verify_body(typed(body, ValueType("float32c"), tables={"T_f"}), "cpu",
                          known=PARAMS)
    assert _text(checked)[-3:] == [
        "        T_f[x, l] = v",
        "        _m = abs(v)",
        "        big[l] = max(big[l], _m if _m != INF else DT(0))"]
    assert _text(checked)[1] == "    acc[l] = -INF"  # not a table: no record


def test_a_device_body_takes_the_targets_infinity_and_the_symbolic_body_cannot_print():
    body = _lanes()[:1]
    assert _text(typed(body, ValueType("float64"), inf=CudaPrinter.INF)) == [
        "for l in range(LANES):", "    acc[l] = -math.inf"]
    with pytest.raises(TypeError, match="value type printed before its pass"):
        _text(body)


def test_a_checked_store_outside_a_lane_loop_is_refused():
    store = ir.Store(ir.Load("T_f", (ir.Name("n"),)), ir.Const(1))
    with pytest.raises(InternalError, match="outside a lane loop"):
        typed((store,), ValueType("float32c"), tables={"T_f"})
    with pytest.raises(ValueError):
        ValueType("float16")



def test_the_lane_groups_strategy_lists_the_value_type_and_lower_applies_it():
    """``cpu task groups`` lists the value-type pass (after the lane loops'), and
    strategies.lower() runs it with the generator's input (the decision, the float64
    infinity, the tables): the same records as the pass called by hand, verified with
    the task's parameters (a body already in lane loops: the lane-groups pass keeps it)."""
    from dslc.emit.pyexpr import Lines
    from dslc.emit import strategies as es
    from dslc.kernel import strategies as ks
    from dslc.kernel.lane_groups import Lanes

    from dslc.kernel.profiles import Profiles

    lanes = es.strategy("cpu task groups")
    assert lanes.body == (ks.LANE_GROUPS, ks.PROFILES, ks.VALUE_TYPE)
    assert "body pass value type" in "\n".join(es.table())
    none = Profiles(frozenset(), frozenset(), frozenset())  # (no model read: none built)
    for vt in ("float64", "float32", "float32c", "int16", "int8"):
        body = Lines(list(_lanes()))
        ks.lower(lanes, body, "cpu", PARAMS, lanes=Lanes(), profiles=none,
                 value=(ValueType(vt), "np.inf", {"T_f"}))
        assert body.stmts == list(typed(_lanes(), ValueType(vt), tables={"T_f"}))
    with pytest.raises(InternalError, match="needs 'value'"):
        ks.lower(lanes, Lines(list(_lanes())), "cpu", PARAMS, lanes=Lanes(), profiles=none)
    with pytest.raises(InternalError, match="needs 'lanes'"):
        ks.lower(lanes, Lines(list(_lanes())), "cpu", PARAMS, profiles=none,
                 value=(ValueType("float64"), "np.inf", {"T_f"}))
    with pytest.raises(InternalError, match="needs 'profiles'"):
        ks.lower(lanes, Lines(list(_lanes())), "cpu", PARAMS, lanes=Lanes(),
                 value=(ValueType("float64"), "np.inf", {"T_f"}))


def test_the_value_type_is_made_concrete_in_returned_and_evaluated_values_too():
    """A task's return and a check evaluated for its effect hold expressions like any
    other statement (kernel.walk): their value-type leaves are rewritten as well."""
    pr = Printer(VALUE, typed_zero=True)
    check = ir.Helper("_chk", (ir.Name("n"), pr.ir_inf()))
    body = (kb.Eval(check, "a bound"), kb.Return(pr.ir_value(ir.Name("n"))))
    assert _text(typed(body, ValueType("float32"))) == ["_chk(n, INF)  # a bound",
                                                         "return DT(n)"]
    assert _text(typed(body, ValueType("float64"))) == ["_chk(n, np.inf)  # a bound",
                                                         "return float(n)"]
