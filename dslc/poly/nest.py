"""Loop nests for a group's sweep, from isl's AST builder (thesis §5.4).

Each function of the group is an isl statement over its box
``0 <= x_k <= E_k`` (parametric in the extent names). The schedule maps a
point to ``[t, pos, x...]``: the partition ``t = a . x`` first, so the
outermost loop is the partition loop, then ``pos`` - the function's place in
the within-partition order - so a partition's cells of a callee come before
its callers', then the point itself to make the order total. When every
same-partition call is to the very same point, ``pos`` goes last instead
(``[t, x..., pos]``): the functions then run point by point, which keeps one
cell's values together.

Everything inside one iteration of the partition loop is independent (up to
the function order, expressed by the statement order), so the loops below it
are marked ``parallel``.

A function's domain may also be split by its guards into *pieces* (``pieces``
maps a function to ``((k, DNF), ...)``, the exact DNF of "guard ``k`` holds and
no earlier one does"): each piece is a statement of its own, and isl's
``separate`` option then peels base cases into loops of their own instead of
testing the guards in every cell.

A function with fewer recursive parameters than the group has positions is a
statement over all of them, its padding positions fixed at 0 (the schedule's
embedding), so the one ``t = a . x`` orders it with the others; its statement
instances (``loopir.Call``) carry its own parameters only.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import islpy as isl

from dslc.deps.ir import Constraint
from dslc.errors import InternalError
from dslc.poly import loopir as L
from dslc.poly.verify import verify_nest
from dslc.deps.polyhedra import constraint_text
from dslc.schedule.model import Extents, Schedule, default_extent_name

Pieces = Mapping[str, Sequence[tuple[int, Sequence[Sequence[Constraint]]]]]


def build_loop_nest(schedule: Schedule,
                    extents: Extents | Mapping[str, Sequence[str]] | None = None,
                    pieces: Pieces | None = None, verify: bool = False) -> L.LoopNest:
    """The loop nest sweeping a group in ``schedule`` order.

    ``extents``: the isl parameter name of each position of each function (an
    :class:`Extents`, or ``{func: names}``); by default ``E_<func>_<param>``.
    Only the names matter: the nest is parametric in them. ``verify``: the nest is
    verified (:func:`verify_group_nest`; the CompileOptions' ``verify_ir``).
    """
    names = _extent_names(schedule, extents)
    params = sorted({p for f in schedule.order for p in names[f]})
    n = len(schedule.coeffs)
    xs = [f"x{k}" for k in range(n)]
    t = " + ".join(f"{c}*{x}" for c, x in zip(schedule.coeffs, xs)) or "0"
    embedding = schedule.embedding
    domains, maps, stmts = [], [], {}
    for pos, f in enumerate(schedule.order):
        own = embedding.of(f)
        box = [f"0 <= {xs[k]} <= {e}" for k, e in zip(own, names[f])]
        box += [f"{x} = 0" for k, x in enumerate(xs) if k not in own]  # padding
        inner = xs + [str(pos)] if schedule.same_point_order else [str(pos)] + xs
        env = dict(zip(schedule.param_names(f), (xs[k] for k in own)))
        for piece, dnf in _pieces(f, pieces):
            name = f"S{len(stmts)}"  # isl-safe; mapped back to (function, piece, positions)
            stmts[name] = (f, piece, own)
            for conj in dnf:
                cons = box + [constraint_text(c, env) for c in conj]
                domains.append(f"{name}[{', '.join(xs)}] : {' and '.join(cons)}")
            maps.append(f"{name}[{', '.join(xs)}] -> [{t}, {', '.join(inner)}]")
    ps = ", ".join(params)
    if not domains:
        return L.LoopNest(L.Body(()), tuple(params), "c0")
    dom = isl.UnionSet(f"[{ps}] -> {{ {'; '.join(domains)} }}")
    smap = isl.UnionMap(f"[{ps}] -> {{ {'; '.join(maps)} }}").intersect_domain(dom)
    ctx = isl.Set(f"[{ps}] -> {{ : {' and '.join(f'{p} >= 0' for p in params) or '1 = 1'} }}")
    build = isl.AstBuild.from_context(ctx)
    if pieces:
        dims = ", ".join(f"d{k}" for k in range(n + 2))
        build = build.set_options(isl.UnionMap(f"{{ [{dims}] -> separate[x] }}"))
    root = build.node_from_schedule_map(smap)
    nest = L.LoopNest(_block(_node(root, stmts)), tuple(params), "c0")
    if verify:
        verify_group_nest(nest, schedule)
    return nest


def verify_group_nest(nest: L.LoopNest, schedule: Schedule) -> None:
    """The loop IR's invariants over a nest built for ``schedule``
    (dslc.poly.verify; an InternalError names a broken one)."""
    verify_nest(nest, {f: len(schedule.embedding.of(f)) for f in schedule.order})


def _extent_names(schedule: Schedule, extents) -> dict[str, tuple[str, ...]]:
    if extents is None:
        return {f: tuple(default_extent_name(f, p) for p in ps) for f, ps in schedule.params}
    if isinstance(extents, Extents):
        return {f: tuple(extents.names[f]) for f in schedule.functions}
    return {f: tuple(extents[f]) for f in schedule.functions}


def _pieces(f: str, pieces: Pieces | None):
    if not pieces or f not in pieces:
        return [(None, ((),))]
    return [(k, dnf) for k, dnf in pieces[f]]


# ----------------------------------------------------------------------------- isl AST -> IR
def _block(stmts: list) -> L.Stmt:
    return stmts[0] if len(stmts) == 1 else L.Body(tuple(stmts))


def _node(node: isl.AstNode, stmts: dict) -> list:
    t = node.get_type()
    if t == isl.ast_node_type.for_:
        var = node.for_get_iterator().get_id().get_name()
        lower = _expr(node.for_get_init())
        upper = _upper(node.for_get_cond(), var)
        step = node.for_get_inc().get_val().to_python()
        body = _block(_node(node.for_get_body(), stmts))
        return [L.For(var, lower, upper, body, "partition" if var == "c0" else "parallel", step)]
    if t == isl.ast_node_type.block:
        children = node.block_get_children()
        out = []
        for k in range(children.n_ast_node()):
            out += _node(children.get_at(k), stmts)
        return out
    if t == isl.ast_node_type.if_:
        cond = _expr(node.if_get_cond())
        then = _block(_node(node.if_get_then_node(), stmts))
        orelse = _block(_node(node.if_get_else_node(), stmts)) if node.if_has_else_node() \
            else None
        return [L.Guard(cond, then, orelse)]
    if t == isl.ast_node_type.user:
        call = node.user_get_expr()
        func, piece, own = stmts[call.get_op_arg(0).get_id().get_name()]
        args = tuple(_expr(call.get_op_arg(k + 1)) for k in own)  # padding left out
        return [L.Call(func, args, piece)]
    if t == isl.ast_node_type.mark:
        return _node(node.mark_get_node(), stmts)
    raise InternalError(f"unexpected isl AST node {t}")


def _upper(cond: isl.AstExpr, var: str) -> L.Expr:
    """isl writes a loop condition as ``var <= u`` or ``var < u`` (a conjunction
    of those becomes the minimum of the bounds)."""
    op = cond.get_op_type()
    args = [cond.get_op_arg(k) for k in range(cond.get_op_n_arg())]
    if op in (isl.ast_expr_op_type.and_, isl.ast_expr_op_type.and_then):
        return L.Min(tuple(_upper(a, var) for a in args))
    lhs = _expr(args[0])
    if lhs == L.Var(var):
        if op == isl.ast_expr_op_type.le:
            return _expr(args[1])
        if op == isl.ast_expr_op_type.lt:
            return L.Sub(_expr(args[1]), L.Const(1))
    raise InternalError(f"unexpected loop condition {cond.to_C_str()}")


_T = isl.ast_expr_op_type
_BINARY = {_T.add: L.Add, _T.sub: L.Sub, _T.mul: L.Mul, _T.div: L.FloorDiv,
           _T.fdiv_q: L.FloorDiv, _T.pdiv_q: L.FloorDiv, _T.pdiv_r: L.Mod, _T.zdiv_r: L.Mod}
_COMPARE = {_T.eq: "==", _T.le: "<=", _T.lt: "<", _T.ge: ">=", _T.gt: ">"}


def _expr(e: isl.AstExpr) -> L.Expr:
    t = e.get_type()
    if t == isl.ast_expr_type.int:
        return L.Const(e.get_val().to_python())
    if t == isl.ast_expr_type.id:
        return L.Var(e.get_id().get_name())
    op = e.get_op_type()
    a = [_expr(e.get_op_arg(k)) for k in range(e.get_op_n_arg())]
    if op in _BINARY:
        return _BINARY[op](a[0], a[1])
    if op in _COMPARE:
        return L.Cmp(_COMPARE[op], a[0], a[1])
    if op == _T.minus:
        return L.Neg(a[0])
    if op == _T.min:
        return L.Min(tuple(a))
    if op == _T.max:
        return L.Max(tuple(a))
    if op in (_T.and_, _T.and_then):
        return L.And(tuple(a))
    if op in (_T.or_, _T.or_else):
        return L.Or(tuple(a))
    if op in (_T.select, _T.cond):
        return L.Select(a[0], a[1], a[2])
    raise InternalError(f"unexpected isl expression {e.to_C_str()}")
