"""A task's expressions as kernel IR (dslc.kernel.ir): printed by the target's
printer, checked by the verifier (names read before they are defined, memory
spaces a target does not have)."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings, strategies as st

from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.verify import verify_body
from dslc.targets.printer import CudaPrinter, Printer


def test_the_verifier_refuses_a_read_of_an_undefined_name():
    ok = (ir.Assign("_acc1", ir.Const(0.0)),
          kb.Loop((ir.Assign("_acc1", ir.Bin("+", ir.Name("_acc1"), ir.Name("v_k"))),),
                  "sequential", "v_k", (ir.Name("x_i"),)))
    verify_body(ok, "cpu", known=["x_i"])
    with pytest.raises(InternalError, match="x_i read before it is defined"):
        verify_body(ok, "cpu", known=[])
    # the loop's variable is not defined after the loop
    after = ok + (ir.Assign("r", ir.Name("v_k")),)
    with pytest.raises(InternalError, match="v_k read before it is defined"):
        verify_body(after, "cpu", known=["x_i"])


def test_after_an_if_only_what_both_branches_assign_is_defined():
    def branch(*names):
        return tuple(ir.Assign(n, ir.Const(1)) for n in names)

    both = kb.If(branch("_c1"), ir.Name("p"), branch("_c1", "_t"))
    verify_body((both, ir.Assign("r", ir.Name("_c1"))), "cpu", known=["p"])
    with pytest.raises(InternalError, match="_t read before it is defined"):
        verify_body((both, ir.Assign("r", ir.Name("_t"))), "cpu", known=["p"])
    one = kb.If(branch("_c1"), ir.Name("p"))
    with pytest.raises(InternalError, match="_c1 read before it is defined"):
        verify_body((one, ir.Assign("r", ir.Name("_c1"))), "cpu", known=["p"])


def test_an_update_in_place_is_a_record_every_printer_spells_and_the_verifier_reads():
    """``_sp += 1`` (the demand evaluator's stack, the retried sweep's count) reads
    the name it updates: one never assigned before is refused, as any read is."""
    body = (ir.Assign("_sp", ir.Const(0)), kb.Augment("_sp", "+", ir.Const(1)),
            kb.Augment("_sp", "-", ir.Name("k")))
    verify_body(body, "cpu", known=["k"])
    for pr in (Printer(), CudaPrinter()):
        assert pr.task_text(body).splitlines() == ["_sp = 0", "_sp += 1", "_sp -= k"]
    with pytest.raises(InternalError, match="_sp read before it is defined"):
        verify_body(body[1:], "cpu", known=["k"])
    with pytest.raises(InternalError, match="k read before it is defined"):
        verify_body(body, "cpu", known=[])
    with pytest.raises(InternalError, match="unknown op"):
        verify_body((kb.Augment("_sp", "*", ir.Const(2)),), "cpu")
    # a pass rewrites its value like any other statement's (kernel.walk)
    from dslc.kernel import walk
    twice = walk.stmts(body, lambda e: walk.expr(
        e, lambda x: ir.Const(2) if x == ir.Const(1) else None))
    assert twice[1] == kb.Augment("_sp", "+", ir.Const(2))


def test_the_verifier_refuses_shared_memory_on_the_cpu():
    store = (ir.Store(ir.Load("_rs", (ir.Const(0),), "shared"), ir.Const(1.0)),)
    verify_body(store, "cuda", known=[])
    with pytest.raises(InternalError, match="_rs in shared memory"):
        verify_body(store, "cpu", known=[])
    read = (ir.Assign("a", ir.Load("c", (ir.Const(0),), "constant")),)
    with pytest.raises(InternalError, match="c in constant memory"):
        verify_body(read, "cpu")
    with pytest.raises(InternalError, match="unknown memory"):
        verify_body((ir.Assign("a", ir.Load("c", (ir.Const(0),), "texture")),), "cuda")


def test_an_expression_record_is_never_formatted_as_text():
    with pytest.raises(TypeError, match="formatted as text"):
        f"{ir.Name('x')}"  # noqa: B018


# ---------------------------------------------------------------- printing
_OPS = ("+", "-", "*", "/", "<", "<=", "==", "!=", "and", "or")
_names = st.sampled_from(["x_i", "v_k", "_acc1", "q_0"])
_leaves = st.one_of(_names.map(ir.Name), st.integers(0, 99).map(ir.Const),
                    st.sampled_from([0.5, 2.0]).map(ir.Const))


def _grow(sub):
    return st.one_of(
        st.tuples(st.sampled_from(_OPS), sub, sub).map(lambda t: ir.Bin(*t, paren=True)),
        st.tuples(st.sampled_from(["-", "not"]), sub).map(lambda t: ir.Unary(*t)),
        st.tuples(sub, sub, sub).map(lambda t: ir.Cond(*t)),
        st.tuples(st.sampled_from(["max", "min"]), sub, sub).map(
            lambda t: ir.Call(t[0], (t[1], t[2]))),
        st.tuples(st.sampled_from(["_chk", "_div"]), sub, sub).map(
            lambda t: ir.Helper(t[0], (t[1], t[2]))),
        st.tuples(st.sampled_from(["T_f", "D_f"]), sub, sub).map(
            lambda t: ir.Load(t[0], (t[1], t[2]))),
    )


_trees = st.recursive(_leaves, _grow, max_leaves=12)
_HELPERS = {"_chk", "_div"}
_BIN = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Lt: "<", ast.LtE: "<=",
        ast.Eq: "==", ast.NotEq: "!=", ast.And: "and", ast.Or: "or"}


def _back(n) -> ir.Expr:
    """Python's parse of a printed expression as kernel IR again (of the shapes
    the printer writes)."""
    match n:
        case ast.Name(id=i):
            return ir.Name(i)
        case ast.Constant(value=v):
            return ir.Const(v)
        case ast.BinOp(op=op, left=a, right=b):
            return ir.Bin(_BIN[type(op)], _back(a), _back(b), paren=True)
        case ast.Compare(ops=[op], left=a, comparators=[b]):
            return ir.Bin(_BIN[type(op)], _back(a), _back(b), paren=True)
        case ast.BoolOp(op=op, values=[a, b]):
            return ir.Bin(_BIN[type(op)], _back(a), _back(b), paren=True)
        case ast.UnaryOp(op=ast.USub(), operand=a):
            return ir.Unary("-", _back(a))
        case ast.UnaryOp(op=ast.Not(), operand=a):
            return ir.Unary("not", _back(a))
        case ast.IfExp(test=c, body=a, orelse=b):
            return ir.Cond(_back(c), _back(a), _back(b))
        case ast.Call(func=ast.Name(id=f), args=args):
            cls = ir.Helper if f in _HELPERS else ir.Call
            return cls(f, tuple(_back(a) for a in args))
        case ast.Subscript(value=ast.Name(id=a), slice=ast.Tuple(elts=idx)):
            return ir.Load(a, tuple(_back(i) for i in idx))
    raise AssertionError(ast.dump(n))


@settings(max_examples=60, deadline=None)
@given(_trees)
def test_printed_expressions_parse_back_to_the_same_tree(e):
    text = Printer().expr(e)
    assert _back(ast.parse(text, mode="eval").body) == e


def test_the_printer_spells_target_dependent_parts_where_they_are_made():
    cpu, gpu = Printer(), CudaPrinter()
    x = ir.Name("x_i")
    assert cpu.expr(cpu.ir_check("_div", x, cpu.ir_inf())) == "_div(x_i, np.inf)"
    assert gpu.expr(gpu.ir_check("_div", x, gpu.ir_inf(True))) == \
        "_div_f(_F, tid, x_i, -math.inf)"
    # the record says how it is spelled: any printer prints it the same
    assert cpu.expr(gpu.ir_check("_div", x, ir.Const(1))) == "_div_f(_F, tid, x_i, 1)"
    f32 = cpu.for_value("float32")
    assert cpu.expr(f32.ir_value(f32.ir_inf())) == "DT(INF)"
    assert cpu.expr(ir.Load("T_f", (x, ir.Text("tid")), "global", comma=False)) == "T_f[x_i, tid]"
    assert cpu.expr(ir.Unary("not", x, paren=False)) == "not x_i"
