"""Register tiling's strip-mining of a tile's stream, as a pass over a task body.

The register-tiled strategy (emit.tiles) cuts a group's sweep along ``t`` into
tiles of ``rows`` rows and streams each tile along ``u``, a column per step
(kernel.register_tile's docstring has the picture). The generator builds one
column's rows (each row's cells, with their reads as ``TileRead`` records) and
wraps them in a :class:`Stream`: where the column loop starts and ends, the
column's coordinates and the reads of ``u`` alone it hoisted. This pass builds
the loop around them from the tile's shape (:class:`~dslc.kernel.register_tile.Tile`)
alone:

* before the loop, the boundary registers of the stream's first column loaded
  (the previous tile's last ``depth`` rows, as far back as a read across the
  tile's edge reaches, ``b_<table>_<k>_<back>``, clamped into the buffer: a
  stream shorter than where its loop starts never uses them), and the first
  column's hoisted reads;
* in each column: the coordinates, every register shifted a column back (as far
  as some read reaches), the boundary registers too with the next column's
  loaded a column ahead (software pipelining: row 0 needs them at once), the
  hoisted reads taken from the column ahead, the rows (each :class:`Row` with its
  ``t`` coordinate, tested against ``t``'s extent where the tile may be cut
  short), the next column's hoisted
  reads, and the tile's last ``depth`` rows stored into the boundary buffer for
  the next tile (as stores of ``TileRead`` records: the register-tile pass, run
  next, names their registers).

The boundary buffer (double-buffered by tile parity: ``old`` is read, ``new``
written) is each crossing table's storage with three dimensions put first
(parity, boundary row, column); the generator hands the element with none of
them (its layout's own, the task's index) in the ``Tile``.

Two more records: a tile function's :class:`Start` (its parity and every
register's zero but those the peeled head hands in) and the task's
:class:`Tiles` (the loop over tiles, each run by the inner variant where it
lies wholly in the interior and does not hold the requested cell, else by the
edge variant).

Still the generator's: each row's cells (its box for the guard pass, which reads
it hoists, decided while a cell's expression is emitted, and whether it may keep
the requested cell), the variants' rows and where the interior starts (the
corner), the peeled head columns, and the head call and the functions' returns (text lines).
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir, walk
from dslc.kernel.register_tile import Tile, TileRead


@dataclass(frozen=True)
class Tiles:
    """The task's loop over its tiles (``t0`` from 0 past ``t``'s extent
    ``extent``, a tile's rows a step). A tile wholly inside the interior (from row
    ``corner``, where no guard of ``t`` bites, to the extent) runs the ``inner``
    device function, whose rows test nothing; any other (the first, a partial
    last) the ``edge`` one. Where a requested cell is kept (its ``t`` coordinate
    the name ``kept``), its tile is an edge tile: only those keep it. Each is
    called with ``params`` and assigns ``state`` (the requested cell's value and
    the fused reductions' accumulators it carries from tile to tile)."""

    inner: str
    edge: str
    params: tuple
    state: tuple
    extent: str
    corner: int
    kept: str | None = None
    levels = 3
    loops = 1

    def reads(self) -> tuple:
        """The names its test reads besides ``t0`` (for the verifier)."""
        return (self.extent,) + ((self.kept,) if self.kept else ())


@dataclass(frozen=True)
class Start:
    """The start of a tile's device function: the tile's parity (``new`` the
    boundary buffer it writes, ``old`` the one it reads) and a zero in every
    register but those ``handed`` in by the peeled head columns' call.
    ``registers``: every register of the tile (:func:`registers`), which the
    function may return before the pass assigns them (for the verifier; the pass
    checks them against its tile)."""

    handed: tuple = ()
    registers: tuple = ()
    levels = 1
    loops = 0

    def defines(self) -> tuple:
        return ("new", "old") + self.registers


@dataclass(frozen=True)
class Row(kb._Group):
    """The cells of row ``index`` of the tile in one column (callees first)."""

    index: int = 0


@dataclass(frozen=True)
class Stream(kb._Block):
    """A tile's columns ``over`` (the loop's bounds, variable ``u``), the first
    ``first``; ``body``: one column's rows (:class:`Row`). ``extent``: the extent
    of ``u`` (the name); ``coords``: the coordinate names set to the column;
    ``hoisted``: the reads of ``u`` alone fetched a column ahead (``(name,
    read)``), None where the stream hoists nothing; ``row_coords``: the names set
    to a row's ``t`` (``t0 + index``); ``guarded``: the tile may be cut short, so
    each row is tested against ``t``'s extent ``row_extent``."""

    first: int = 0
    over: tuple = ()
    extent: str = ""
    coords: tuple = ()
    hoisted: tuple | None = None
    row_coords: tuple = ()
    guarded: bool = False
    row_extent: str = ""

    def defines(self) -> tuple:
        """The names the built loop defines for its rows: the column, its
        coordinates and a row's, the hoisted reads."""
        return ("u",) + self.coords + self.row_coords + \
            tuple(name for name, _ in self.hoisted or ())

    adds_loops = 1  # (the column loop around its rows, built by strip_mine)


def strip_mine(stmts, tile: Tile) -> tuple:
    """``stmts`` with every :class:`Stream` built into its loads and loop, every
    :class:`Start` into the parity and the registers' zeros."""
    def stream(s, ex):
        if isinstance(s, Start):
            return _start(s, tile)
        if isinstance(s, Tiles):
            return _tiles(s, tile)
        return _built(s, tile) if isinstance(s, Stream) else None
    return walk.stmts(stmts, lambda e: e, stream)


def _tiles(s: Tiles, tile: Tile) -> kb.Loop:
    t0 = ir.Name("t0")
    last = ir.bare("+", t0, ir.Const(tile.rows - 1))
    inside = ir.bare("and", ir.Bin(">=", t0, ir.Const(s.corner), bare=True),
                     ir.Bin("<=", last, ir.Name(s.extent), bare=True))
    if s.kept is not None:
        q = ir.Name(s.kept)
        inside = ir.bare("and", inside, ir.bare("or", ir.Bin("<", q, t0, bare=True),
                                                ir.Bin(">", q, last, bare=True)))
    args = tuple(ir.Name(p) for p in s.params)
    inner, edge = ((ir.several(s.state, ir.Call(name, args)) if s.state
                    else kb.Eval(ir.Call(name, args)),) for name in (s.inner, s.edge))
    over = (ir.Const(0), ir.bare("+", ir.Name(s.extent), ir.Const(1)), ir.Const(tile.rows))
    return kb.Loop((kb.If(inner, inside, edge),), var="t0", over=over)


def _start(s: Start, tile: Tile) -> tuple:
    t0, new = ir.Name("t0"), ir.Name("new")
    parity = ir.bare("%", ir.Bin("//", t0, ir.Const(tile.rows), paren=True), ir.Const(2))
    out = [ir.Assign("new", parity), ir.Assign("old", ir.bare("-", ir.Const(1), new))]
    if s.registers and s.registers != registers(tile):
        raise InternalError("a tile function's registers are not its tile's")
    out += [ir.Assign(name, ir.ValueZero()) for name in registers(tile) if name not in s.handed]
    return tuple(out)


def registers(tile: Tile) -> tuple:
    """The names of every register of ``tile``: its cells' and its boundary's."""
    out = [tile.register(table, r, c) for table, back in tile.back
           for r in range(tile.rows) for c in range(back + 1)]
    out += [tile.boundary(table, k, c) for table, back, _ in tile.crossing
            for k in range(tile.depth) for c in ["n"] + list(range(back + 1))]
    return tuple(out)


def _boundary(tile: Tile, base: ir.Load, parity: str, k: int, column) -> ir.Load:
    """Row ``k`` of a boundary buffer (``parity``: ``old`` or ``new``) at ``column``."""
    return ir.Load(base.array, (ir.Name(parity), ir.Const(k), column) + base.index, base.space)


def if_inside(read, inside) -> ir.Expr:
    """A hoisted read ``read``, in parentheses, taken only where ``inside`` holds
    (0 elsewhere: the read may lie past the sequence there); None: always."""
    read = ir.Call("", (read,))  # (printed in parentheses)
    return read if inside is None else ir.Cond(inside, read, ir.Const(0), paren=False)


def _built(s: Stream, tile: Tile) -> tuple:
    u, end = ir.Name("u"), ir.Name(s.extent)

    def kept(x: int):
        return ir.Call("min", (ir.Const(max(x, 0)), ir.bare("+", end, ir.Const(1))))
    def shift(name, at, c):  # register ``name(c)`` takes the one a column nearer
        return ir.Assign(name(*at, c), ir.Name(name(*at, c - 1 if c != 0 else "n")))
    pre, col = [], [ir.Assign(c, u) for c in s.coords]
    for table, back in tile.back:  # registers move one column back
        for r in range(tile.rows):
            col += [shift(tile.register, (table, r), c) for c in range(back, 0, -1)]
    for table, back, base in tile.crossing:  # so do the previous tile's boundary values
        for k in range(tile.depth):
            for c in range(back, 0, -1):
                col.append(shift(tile.boundary, (table, k), c))
                pre.append(ir.Assign(tile.boundary(table, k, c - 1),
                                     _boundary(tile, base, "old", k, kept(s.first - c))))
            col.append(shift(tile.boundary, (table, k), 0))
            pre.append(ir.Assign(tile.boundary(table, k, "n"),
                                 _boundary(tile, base, "old", k, kept(s.first))))
            col.append(ir.Assign(tile.boundary(table, k, "n"),
                                 _boundary(tile, base, "old", k, ir.bare("+", u, ir.Const(1)))))
    for name, read in s.hoisted or ():  # reads of u alone: fetched a column ahead
        col.append(ir.Assign(name, ir.Name(f"{name}n")))
        pre += [ir.Assign(c, ir.Const(s.first)) for c in s.coords]
        first = ir.Bin("<=", ir.Const(s.first), end, bare=True)
        pre.append(ir.Assign(f"{name}n", if_inside(read, first)))
    col += [x for row in s.body for x in _row(s, row)]
    if s.hoisted is not None:
        col += [ir.Assign(c, ir.bare("+", u, ir.Const(1))) for c in s.coords]
        col += [ir.Assign(f"{name}n", if_inside(read, ir.Bin("<", u, end, bare=True)))
                for name, read in s.hoisted]
    for table, _, base in tile.crossing:  # the tile's last rows, for the next tile
        for k in range(tile.depth):
            col.append(ir.Store(_boundary(tile, base, "new", k, u),
                                TileRead(table, tile.rows - tile.depth + k, 0, 0)))
    return tuple(pre) + (kb.Loop(tuple(col), var="u", over=s.over),)


def _row(s: Stream, row: Row) -> tuple:
    """A row's coordinates and cells, tested against the extent where the tile may
    be cut short."""
    at = ir.bare("+", ir.Name("t0"), ir.Const(row.index))
    cells = tuple(ir.Assign(c, at) for c in s.row_coords) + row.body
    if not s.guarded:
        return cells
    return (kb.If(cells, ir.Bin("<=", at, ir.Name(s.row_extent), bare=True)),)
