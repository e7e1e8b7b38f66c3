"""Register tiling's scalar replacement as a pass over a task body's records.

The register-tiled strategy (emit.tiles) strip-mines a group's sweep along one
dimension ``t`` into tiles of ``rows`` rows and streams along the other, ``u``;
each thread computes a column of its tile's rows per step. Its generator builds
the cells of a tile's column with each read of a table in the group as a
:class:`TileRead`: the table, the tile row the reading cell is in, and the read's
distances back in ``t`` and ``u`` (uniform and non-negative: the dependence
analysis proved them). Where such a read is held is this pass's decision
(:func:`scalar_replace`), from the tile's shape (:class:`Tile`) alone:

* a row of this tile (``row - dt >= 0``): the register ``r_<table>_<row - dt>_<du>``
  (the column's registers shift one column back per step, as far back as a read
  reaches);
* a row of the previous tile: its boundary register ``b_<table>_<k>_<du>``, row
  ``k = depth + row - dt`` of the last ``depth`` rows the previous tile stored in
  global memory (loaded a column ahead by the stream).

A cell's own value is written as a store into ``TileRead(table, row, 0, 0)``, which
the pass makes the assignment of its register; the stores of the tile's last rows
into the boundary buffer read those registers the same way.

The column's structure around the rows (the register shifts, the boundary loads
and stores, the column loop) is the strip-mining pass's (kernel.strip_mine), run
first: it spells the register names with the same :class:`Tile` methods, and its
boundary stores are stores of tile reads this pass names.
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.errors import InternalError
from dslc.kernel import ir, walk


@dataclass(frozen=True)
class TileRead(ir._Expr):
    """A read of table ``table`` by a cell in row ``row`` of the tile, ``dt`` rows
    and ``du`` columns back (the distances of the call, both >= 0). Not printable:
    the register-tile pass replaces it."""

    table: str
    row: int
    dt: int
    du: int


@dataclass(frozen=True)
class Tile:
    """The tile's shape: ``rows`` rows a thread holds, ``depth`` the previous
    tile's last rows kept for the reads across its edge (the largest ``dt``).
    For the strip-mining pass (kernel.strip_mine): ``back``, each table of the
    group with the columns back its reads reach (``(table, du)``, in the group's
    order); ``crossing``, each table read across the tile's edge with the columns
    back those reads reach and its boundary buffer's element with the first three
    dimensions (parity, boundary row, column) left out (``(table, du, Load)``)."""

    rows: int
    depth: int
    back: tuple = ()
    crossing: tuple = ()

    @staticmethod
    def register(table: str, row: int, back) -> str:
        """Row ``row`` of this tile, ``back`` columns back."""
        return f"r_{table}_{row}_{back}"

    @staticmethod
    def boundary(table: str, k: int, back) -> str:
        """Row ``k`` of the previous tile's boundary, ``back`` columns back
        (``n``: the next column's, being loaded)."""
        return f"b_{table}_{k}_{back}"

    def handed(self) -> tuple:
        """Registers the peeled head columns hand to the stream: those a column
        reads back (the boundary values and hoisted reads are loaded again)."""
        return tuple(self.register(table, r, c) for table, back in self.back
                     for r in range(self.rows) for c in range(back))

    def held(self, r: TileRead) -> ir.Name:
        """Where read ``r`` is held: a register of this tile or a boundary register."""
        if not (0 <= r.row < self.rows and r.dt >= 0 and r.du >= 0):
            raise InternalError(f"a tile read outside the tile: {r!r}")
        row = r.row - r.dt
        if row >= 0:
            return ir.Name(self.register(r.table, row, r.du))
        if row + self.depth < 0:
            raise InternalError(f"a tile read past the stored boundary rows: {r!r}")
        return ir.Name(self.boundary(r.table, self.depth + row, r.du))


def scalar_replace(stmts, tile: Tile) -> tuple:
    """``stmts`` with every :class:`TileRead` replaced by the register holding it."""
    def cell(s, ex):  # a store into the cell itself: the assignment of its register
        if isinstance(s, ir.Store) and isinstance(s.target, TileRead):
            return ir.Assign(tile.held(s.target).id, ex(s.value))
        return None
    return walk.stmts(stmts, lambda e: replace_reads(e, tile), cell)


def replace_reads(e, tile: Tile):
    """Expression ``e`` with its tile reads replaced (where a generator still spells
    an expression as text)."""
    return walk.expr(e, lambda x: tile.held(x) if isinstance(x, TileRead) else None)


def reads(stmts) -> list[TileRead]:
    """The tile reads left in ``stmts`` (none after the pass)."""
    return walk.leaves(stmts, lambda e: isinstance(e, TileRead))
