"""The register tile's strip-mining as a pass over a task body's records
(dslc.kernel.strip_mine), and the one expression walk passes share
(dslc.kernel.walk). Hand-built bodies: nothing is generated or compiled."""

from __future__ import annotations

import pytest

from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir, walk
from dslc.kernel.register_tile import Tile, TileRead, reads, scalar_replace
from dslc.kernel.strip_mine import Row, Start, Stream, Tiles, registers, strip_mine
from dslc.kernel.verify import verify_body
from dslc.targets.printer import CudaPrinter

# two rows a thread; h read a column back in its own rows and, one row and one
# column back, across the tile's edge (one boundary row); e read in its own column
TILE = Tile(2, 1, back=(("h", 1), ("e", 0)),
            crossing=(("h", 1, ir.Load("T_h", (ir.Name("tid"),), "global")),))


def _rows() -> tuple:
    """One column's two rows: row 0 reads the previous tile's last row a column
    back and a hoisted read; row 1 reads row 0 a column back; each writes h."""
    row0 = (ir.Assign("v", ir.Bin("+", TileRead("h", 0, 1, 1), ir.Name("hv0"), paren=True)),
            ir.Store(TileRead("h", 0, 0, 0), ir.Name("v")))
    row1 = (ir.Assign("w", ir.Bin("+", TileRead("h", 1, 1, 1), ir.Name("x_j"), paren=True)),
            ir.Store(TileRead("h", 1, 0, 0), ir.Name("w")))
    return (Row((kb.Cell(row0, (("j", (1, 9)),)),), 0), Row((kb.Cell(row1),), 1))


def _stream(hoisted=(("hv0", ir.Load("b", (ir.Name("x_j"),), "global")),),
            guarded=False) -> Stream:
    return Stream(_rows(), 1, (ir.Const(1), ir.Name("E_j")), "E_j", ("x_j",), hoisted,
                  ("x_i",), guarded, "E_i")


KNOWN = ["E_j", "E_i", "t0", "tid", "T_h", "old", "new", "r_h_0_0", "r_h_1_0", "r_h_0_1", "r_h_1_1",
         "b_h_0_0", "b_h_0_1", "b_h_0_n"]


def test_the_stream_is_built_into_its_loads_and_column_loop():
    """Before the pass the body verifies with the stream's names (the column, its
    coordinates, its hoisted reads); after it, the loads, shifts and stores are
    records around the rows, verified, and the register tile's pass names them."""
    before = verify_body((_stream(),), "cuda", KNOWN)
    assert len(reads(before)) == 4
    mined = verify_body(strip_mine(before, TILE), "cuda", KNOWN)
    assert len(reads(mined)) == 5  # the boundary row's store too
    done = verify_body(scalar_replace(mined, TILE), "cuda", KNOWN)
    assert CudaPrinter().task_text(done, 0).splitlines() == [
        "b_h_0_0 = T_h[old, 0, min(0, E_j + 1), tid]",
        "b_h_0_n = T_h[old, 0, min(1, E_j + 1), tid]",
        "x_j = 1",
        "hv0n = (b[x_j]) if 1 <= E_j else 0",
        "for u in range(1, E_j):",
        "    x_j = u",
        "    r_h_0_1 = r_h_0_0",
        "    r_h_1_1 = r_h_1_0",
        "    b_h_0_1 = b_h_0_0",
        "    b_h_0_0 = b_h_0_n",
        "    b_h_0_n = T_h[old, 0, u + 1, tid]",
        "    hv0 = hv0n",
        "    x_i = t0 + 0",
        "    v = (b_h_0_1 + hv0)",
        "    r_h_0_0 = v",
        "    x_i = t0 + 1",
        "    w = (r_h_0_1 + x_j)",
        "    r_h_1_0 = w",
        "    x_j = u + 1",
        "    hv0n = (b[x_j]) if u < E_j else 0",
        "    T_h[new, 0, u, tid] = r_h_1_0",
    ]
    assert done[-1].body[8].box == (("j", (1, 9)),)  # the guard pass's boxes stay


def test_the_rows_of_a_tile_that_may_be_cut_short_are_tested():
    done = scalar_replace(strip_mine((_stream(guarded=True),), TILE), TILE)
    tests = [s for s in done[-1].body if isinstance(s, kb.If)]
    assert [CudaPrinter().task_text((t,), 0).splitlines()[:2] for t in tests] == [
        ["if t0 + 0 <= E_i:", "    x_i = t0 + 0"], ["if t0 + 1 <= E_i:", "    x_i = t0 + 1"]]


def test_a_tile_function_starts_with_its_parity_and_zero_registers_but_those_handed_in():
    """Every register the tile's shape has (rows by columns back, the boundary rows
    with the one loaded ahead) starts at the value type's zero, but those the head
    columns hand over; the body reads them only after the pass."""
    assert TILE.handed() == ("r_h_0_0", "r_h_1_0")  # (h read a column back)
    done = verify_body(strip_mine((Start(("r_h_1_1",)),), TILE), "cuda", ["t0"])
    assert CudaPrinter().task_text(done[:2], 0).splitlines() == [
        "new = (t0 // 2) % 2", "old = 1 - new"]
    assert [s.target for s in done[2:]] == [
        "r_h_0_0", "r_h_0_1", "r_h_1_0", "r_e_0_0", "r_e_1_0", "b_h_0_n", "b_h_0_0", "b_h_0_1"]
    assert {s.value for s in done[2:]} == {ir.ValueZero()}


def test_a_tile_function_may_return_its_registers_which_the_pass_checks_against_its_tile():
    """A tile function returns registers its start (kernel.strip_mine ``Start``)
    zeroes: they are defined from the start for the verifier, and the pass refuses a
    start naming other registers than its tile's."""
    start = Start(("r_h_0_0",), registers(TILE))
    head = ir.several(("res", "r_h_0_0"), ir.Call("_tile_head", (ir.Name("t0"),)))
    back = kb.Return(ir.names(("res", "r_h_0_0", "r_e_1_0")))
    assert verify_body((start, head, back), "cuda", ["t0"])
    done = verify_body(strip_mine((start, head, back), TILE), "cuda", ["t0"])
    assert CudaPrinter().task_text(done[-2:], 0).splitlines() == [
        "res, r_h_0_0 = _tile_head(t0)", "return res, r_h_0_0, r_e_1_0"]
    with pytest.raises(InternalError, match="r_e_1_0 read before it is defined"):
        verify_body((Start(("r_h_0_0",)), head, back), "cuda", ["t0"])
    with pytest.raises(InternalError, match="registers are not its tile's"):
        strip_mine((Start((), registers(TILE)[1:]),), TILE)


def test_a_tile_in_the_interior_runs_the_inner_variant_any_other_the_edge_one():
    """Inner: from the corner (row 1) to the extent, two rows a tile; where a cell is
    requested, its tile (row q_0) is an edge tile, which keeps it."""
    tiles = Tiles("_tile_inner", "_tile_edge", ("a", "t0"), ("res",), "E_i", 1)
    done = verify_body(strip_mine((tiles,), TILE), "cuda", ["a", "E_i", "res"])
    assert CudaPrinter().task_text(done, 0).splitlines() == [
        "for t0 in range(0, E_i + 1, 2):",
        "    if t0 >= 1 and t0 + 1 <= E_i:",
        "        res = _tile_inner(a, t0)",
        "    else:",
        "        res = _tile_edge(a, t0)"]
    kept = Tiles("_tile_inner", "_tile_edge", (), (), "E_i", 0, "q_0")
    done = verify_body(strip_mine((kept,), TILE), "cuda", ["E_i", "q_0"])
    assert CudaPrinter().task_text(done, 0).splitlines()[1] == \
        "    if t0 >= 0 and t0 + 1 <= E_i and (q_0 < t0 or q_0 > t0 + 1):"
    with pytest.raises(InternalError, match="q_0 read before"):
        verify_body((kept,), "cuda", ["E_i"])


def test_the_tile_loop_calls_its_variants_as_records_assigning_every_name_they_return():
    """The tile loop's calls are records (kernel.ir ``Call``), assigned to the task's
    state at once where there is more than one name, evaluated where there is none."""
    tiles = Tiles("_tile_inner", "_tile_edge", ("a", "t0"), ("res", "acc0"), "E_i", 1)
    done = verify_body(strip_mine((tiles,), TILE), "cuda", ["a", "E_i", "res", "acc0"])
    call = done[0].body[0].body[0]
    assert call == ir.Assign(("res", "acc0"), ir.Call("_tile_inner", (ir.Name("a"),
                                                                       ir.Name("t0"))))
    assert CudaPrinter().task_text(done, 0).splitlines()[4] == \
        "        res, acc0 = _tile_edge(a, t0)"
    bare = strip_mine((Tiles("_tile_inner", "_tile_edge", (), (), "E_i", 0),), TILE)
    assert bare[0].body[0].body == (kb.Eval(ir.Call("_tile_inner", ())),)


def test_a_stream_that_hoists_nothing_has_no_next_column_coordinates():
    done = strip_mine((_stream(None),), TILE)
    assert [s.target for s in done[-1].body if isinstance(s, ir.Assign)].count("x_j") == 1


def test_a_row_reading_a_name_its_stream_does_not_define_is_refused():
    bad = Stream((Row((ir.Assign("v", ir.Name("x_k")),)),), 0, (ir.Name("E_j"),), "E_j",
                 ("x_j",), None, ("x_i",))
    with pytest.raises(InternalError, match="x_k read before"):
        verify_body((bad,), "cuda", KNOWN)


def test_the_walk_rewrites_leaves_and_statements_and_finds_leaves():
    body = (kb.If((ir.Assign("a", ir.Call("f", (ir.Name("x"), ir.Text("y")))),),
                  ir.Bin("<", ir.Name("x"), ir.Const(1), paren=True),
                  orelse=(ir.Store(ir.Load("T", (ir.Name("x"),), "global"), ir.Const(2)),)),)
    renamed = walk.stmts(body, lambda e: walk.expr(
        e, lambda x: ir.Name("z") if x == ir.Name("x") else None))
    assert not walk.leaves(renamed, lambda x: x == ir.Name("x"))
    assert len(walk.leaves(renamed, lambda x: x == ir.Name("z"))) == 3
    assert walk.leaves(renamed, lambda x: isinstance(x, ir.Text)) == [ir.Text("y")]
    assert walk.stmts(body, lambda e: e) == body
