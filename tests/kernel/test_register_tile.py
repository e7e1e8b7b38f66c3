"""Register tiling's scalar replacement as a pass over a task body's records
(dslc.kernel.register_tile), and the register-tiled strategy's passes run by
strategies.lower() over the tile's device functions. Hand-built bodies: nothing is
generated or compiled."""

from __future__ import annotations

import pytest

from dslc.emit.pyexpr import Lines
from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.emit import strategies as es
from dslc.kernel import strategies as ks
from dslc.kernel.register_tile import Tile, TileRead, reads, scalar_replace
from dslc.kernel.value_type import ValueType
from dslc.kernel.verify import verify_body
from dslc.targets.printer import CudaPrinter

TILE = Tile(rows=3, depth=2)  # three rows a thread, reads up to two rows back


def _column() -> tuple:
    """A tile column: row 2 reads its own row a column back and row 0 (two rows
    back) and writes its cell; row 0 reads the previous tile's rows (one and two
    back) under a test; row 1's value goes to the boundary buffer."""
    row2 = ir.Assign("v", ir.Bin("+", TileRead("h", 2, 0, 1), TileRead("e", 2, 2, 0),
                                 paren=True))
    row0 = kb.If((ir.Assign("w", TileRead("h", 0, 1, 1)),), ir.Bin(
        ">", TileRead("h", 0, 2, 0), ir.Const(0), paren=True))
    write = ir.Store(TileRead("h", 2, 0, 0), ir.Name("v"))
    cell = kb.Cell((row2, write, row0), (("i", (0, 5)), ("j", (1, 9))))
    edge = ir.Store(ir.Load("T_h", (ir.Name("u"),), "global"), TileRead("h", 1, 0, 0))
    return (kb.Loop((cell, edge), "sequential", "u", (ir.Const(1), ir.Name("n"))),)


KNOWN = ["n", "r_h_2_1", "r_e_0_0", "b_h_1_1", "b_h_0_0", "r_h_1_0", "T_h"]


def test_reads_in_the_tile_become_registers_and_across_its_edge_boundary_rows():
    body = verify_body(_column(), "cuda", None)
    assert len(reads(body)) == 6
    done = verify_body(scalar_replace(body, TILE), "cuda", KNOWN)
    assert not reads(done)
    assert CudaPrinter().task_text(done, 1).splitlines() == [
        "    for u in range(1, n):",
        "        v = (r_h_2_1 + r_e_0_0)",
        "        r_h_2_0 = v",
        "        if (b_h_0_0 > 0):",
        "            w = b_h_1_1",
        "        T_h[u] = r_h_1_0",
    ]
    assert done[0].body[0].box == body[0].body[0].box  # the guard pass's boxes stay


def test_a_read_the_tile_does_not_hold_is_an_internal_error():
    for bad in (TileRead("h", 0, 3, 0),  # past the two stored boundary rows
                TileRead("h", 3, 0, 0),  # a row the tile does not have
                TileRead("h", 1, -1, 0)):  # a read forwards
        with pytest.raises(InternalError, match="tile read"):
            scalar_replace((ir.Assign("v", bad),), TILE)


def test_lower_runs_the_register_tiled_passes_over_its_device_functions():
    """The tile's device functions get the register tile, the guards and the value
    type; the task does not get the tile's reads (it has none) and keeps its own."""
    s = es.strategy("cuda register-tiled")
    task = Lines([kb.Line("return res")])
    function = Lines(list(_column()))
    function.assign("z", ir.ValueInf(negative=True))
    ks.lower(s, task, "cuda", ["res", "tid"], functions=((function, KNOWN),),
             value=(ValueType("float32"), "math.inf", frozenset()), tile=TILE)
    assert not reads(tuple(function.stmts))
    text = function.render(1).splitlines()
    assert "        v = (r_h_2_1 + r_e_0_0)" in text and "    z = -INF" in text
    with pytest.raises(InternalError, match="needs 'tile'"):
        ks.lower(s, Lines([kb.Line("return res")]), "cuda", ["res", "tid"],
                 value=(ValueType("float32"), "math.inf", frozenset()))
