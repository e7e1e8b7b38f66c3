"""Score profiles as a pass (dslc.kernel.profiles): which model reads it finds, what
it replaces them with, and the loops that build the profile. Pure IR, no compiled
code (the pass's compiled result is run against the interpreter in
tests/cpu/test_packs.py)."""

from __future__ import annotations

from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.profiles import Profiles, find, profiled
from dslc.targets.printer import Printer

LANE = ir.Name("l")


def _sym(seq: str, *index) -> ir.Call:
    return ir.Call("np.int64", (ir.Index(ir.Text(seq), tuple(index)),))


def _cell(read) -> tuple:
    """A cell storing ``h + read`` in a lane loop."""
    store = ir.Store(ir.Load("T_h", (ir.Name("x_i"), LANE), "global"),
                     ir.Bin("+", ir.Load("T_h", (ir.Name("x_i"), LANE), "global"), read))
    return (kb.Loop((store,), "lanes", "l", ("LANES",)),)


CTX = Profiles(frozenset({"a_sm"}), frozenset({"a_s"}), frozenset({"a_t"}), "l")
ROW = ir.Bin("-", ir.Name("x_j"), ir.Const(1), paren=True)


def test_a_read_at_a_shared_and_a_lane_symbol_becomes_a_profile_read():
    read = ir.Index(ir.Text("a_sm"), (_sym("a_s", ir.Name("x_i")), _sym("a_t", ROW, LANE)))
    stmts = _cell(read)
    found = find(stmts, CTX)
    assert len(found) == 1 and (found[0].model, found[0].seq, found[0].axis) == \
        ("a_sm", "a_t", 1)
    assert found[0].shape == "(a_sm.shape[0], a_t.shape[0], LANES)"
    out = profiled(stmts, Profiles(CTX.models, CTX.shared, CTX.lane_seqs, "l", found))
    text = "\n".join(Printer().task_text(out, 0).splitlines())
    name = found[0].name
    # built first, every symbol of the model's first axis for every row and lane
    assert text.index(f"{name}[_pa, _py, l] = a_sm[_pa, np.int64(a_t[_py, l])]") < \
        text.index("T_h[x_i, l] =")
    assert f"{name}[np.int64(a_s[x_i]), (x_j - 1), l]" in text
    assert "a_sm[np.int64(a_s" not in text


def test_the_lane_symbol_first_profiles_the_other_axis():
    read = ir.Index(ir.Text("a_sm"), (_sym("a_t", ROW, LANE), _sym("a_s", ir.Name("x_i"))))
    (p,) = find(_cell(read), CTX)
    assert p.axis == 0 and p.shape == "(a_sm.shape[1], a_t.shape[0], LANES)"


def test_reads_that_are_no_profile_are_left():
    both_lanes = ir.Index(ir.Text("a_sm"), (_sym("a_t", ROW, LANE), _sym("a_t", ROW, LANE)))
    not_a_model = ir.Index(ir.Text("T_x"), (_sym("a_s", ir.Name("x_i")), _sym("a_t", ROW, LANE)))
    for read in (both_lanes, not_a_model):
        stmts = _cell(read)
        assert find(stmts, CTX) == ()
        assert profiled(stmts, CTX) == stmts
