"""Score profiles as a pass over a pack's body (kernel.body): a model read at a
symbol of a shared operand and a symbol of the per-lane operand, ``M[s[x], t[y, l]]``,
becomes a contiguous read of a profile built once per pack, ``P[s[x], y, l]``.

In a pack (emit.packs) the shared operand's symbol is one number for every lane
but the per-lane operand's symbols differ, so the read is a gather: one scalar
load per lane, which in a 32-lane int16 pack costs more than the rest of the
cell. The profile holds, for each position ``y`` of the per-lane operand and each
symbol ``a`` of the model's other axis, the lanes' row ``M[a, t[y, l]]``: built
with ``symbols x rows x lanes`` gathers once per pack (before the sweep), it turns
every cell's gather into one vector load (SWIPE's and parasail's query profile,
found here from the access pattern alone). A pack's sweep reads ``rows x len(s)``
cells, so the profile costs ``symbols / len(s)`` of the gathers it replaces.

The pass's input (:class:`Profiles`) names the arrays that may take part: the
shared models (``models``), the shared sequences (``shared``), the per-lane
sequences (``lane_seqs``, blocks ``(rows, LANES)``) and the lane variable. The
generator finds the profiles first (:func:`find`), so that their storage is made
by the caller like every scratch array of the pack, then the pass rewrites the
reads and puts the building loops first.
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.kernel import body as kb
from dslc.kernel import ir, walk


@dataclass(frozen=True)
class Profile:
    """One profile: array ``name`` holding ``model[a, seq[y, l]]`` (``axis`` 1: the
    per-lane symbol is the model's second key) or ``model[seq[y, l], a]`` (``axis``
    0), indexed ``[a, y, l]``."""

    name: str
    model: str
    seq: str
    axis: int

    @property
    def shape(self) -> str:
        """Its shape as the caller's ``scratch`` spells it (symbols, rows, lanes)."""
        return f"({self.model}.shape[{1 - self.axis}], {self.seq}.shape[0], LANES)"


@dataclass(frozen=True)
class Profiles:
    """The pass's input (module docstring)."""

    models: frozenset
    shared: frozenset
    lane_seqs: frozenset
    lane: str = "l"
    found: tuple[Profile, ...] = ()


def _name(e) -> str | None:
    match e:
        case ir.Name(id=n) | ir.Text(text=n):
            return n
    return None


def _symbol(e, ctx: Profiles):
    """``("shared", key)`` for ``np.int64(s[x])``, ``("lane", seq, y)`` for
    ``np.int64(t[y, l])``; None otherwise."""
    match e:
        case ir.Call(fn="np.int64", args=(ir.Index(base=b, index=idx),)):
            n = _name(b)
            if n in ctx.shared and len(idx) == 1:
                return ("shared", e)
            if n in ctx.lane_seqs and len(idx) == 2 and _name(idx[1]) == ctx.lane:
                return ("lane", n, idx[0])
    return None


def _match(e, ctx: Profiles):
    """(model, seq, axis, shared key, row) where ``e`` is a profiled read."""
    if not (isinstance(e, ir.Index) and _name(e.base) in ctx.models and len(e.index) == 2):
        return None
    a, b = (_symbol(k, ctx) for k in e.index)
    if a is None or b is None or {a[0], b[0]} != {"shared", "lane"}:
        return None
    shared, lane = (a, b) if a[0] == "shared" else (b, a)
    axis = 1 if b[0] == "lane" else 0
    return _name(e.base), lane[1], axis, shared[1], lane[2]


def find(stmts, ctx: Profiles) -> tuple[Profile, ...]:
    """The profiles ``stmts`` read (each model, sequence and axis once)."""
    found: dict = {}

    def leaf(e):
        m = _match(e, ctx)
        if m is not None and m[:3] not in found:
            found[m[:3]] = Profile(f"P_{m[0]}_{m[1]}_{m[2]}".replace(".", "_"), *m[:3])
        return None
    walk.stmts(tuple(stmts), lambda e: walk.expr(e, leaf))
    return tuple(found.values())


def profiled(stmts, ctx: Profiles) -> tuple:
    """The pass: each profiled read of ``stmts`` replaced by its profile's, the
    profiles built first."""
    by_key = {(p.model, p.seq, p.axis): p for p in ctx.found}
    if not by_key:
        return tuple(stmts)
    lane = ir.Name(ctx.lane)

    def leaf(e):
        m = _match(e, ctx)
        if m is None or m[:3] not in by_key:
            return None
        return ir.Index(ir.Name(by_key[m[:3]].name), (m[3], m[4], lane))
    body = walk.stmts(tuple(stmts), lambda e: walk.expr(e, leaf))
    return tuple(_build(p, ctx.lane) for p in ctx.found) + tuple(body)


def _build(p: Profile, lane: str) -> kb.Loop:
    """``for y: for a: for l: P[a, y, l] = model[a, seq[y, l]]`` (or the transpose)."""
    y, a, ln = ir.Name("_py"), ir.Name("_pa"), ir.Name(lane)
    sym = ir.Call("np.int64", (ir.Index(ir.Name(p.seq), (y, ln)),))
    keys = (a, sym) if p.axis == 1 else (sym, a)
    store = ir.Store(ir.Load(p.name, (a, y, ln), "global"), ir.Index(ir.Name(p.model), keys))
    lanes = kb.Loop((store,), "lanes", lane, ("LANES",))
    symbols = ir.Text(f"{p.model}.shape[{1 - p.axis}]")
    over_a = kb.Loop((lanes,), "sequential", "_pa", (symbols,))
    return kb.Loop((over_a,), "sequential", "_py", (ir.Text(f"{p.seq}.shape[0]"),))
