"""Loop nests from isl's AST builder, converted into the project's loop IR.

Each function of a group is an isl statement over its box domain (parametric
in the extents). The schedule maps a point to ``[t, ...]`` with the partition
``t = a . x`` first, so the outermost loop is the partition loop and everything
inside one iteration of it is independent (up to the order of functions).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from dslc.errors import InternalError
from dslc.schedule.search import Extents, Schedule


# ----------------------------------------------------------------------------- loop IR
class LExpr:
    def to_python(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class LVar(LExpr):
    name: str

    def to_python(self) -> str:
        return self.name


@dataclass(frozen=True)
class LInt(LExpr):
    value: int

    def to_python(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class LOp(LExpr):
    """``op`` in + - * neg min max floordiv mod == <= < >= > and or select."""

    op: str
    args: tuple[LExpr, ...]

    def to_python(self) -> str:
        a = [x.to_python() for x in self.args]
        match self.op:
            case "neg":
                return f"(-{a[0]})"
            case "min" | "max":
                return f"{self.op}({', '.join(a)})"
            case "floordiv":
                return f"({a[0]} // {a[1]})"
            case "mod":
                return f"({a[0]} % {a[1]})"
            case "select":
                return f"({a[1]} if {a[0]} else {a[2]})"
            case "and" | "or":
                return "(" + f" {self.op} ".join(a) + ")"
        return "(" + f" {self.op} ".join(a) + ")"


@dataclass(frozen=True)
class LFor:
    """``for var in lower .. upper`` (inclusive) step ``step``; ``kind`` is
    ``partition`` for the outermost loop, ``parallel`` inside it."""

    var: str
    lower: LExpr
    upper: LExpr
    step: int
    body: tuple
    kind: str


@dataclass(frozen=True)
class LIf:
    cond: LExpr
    then: tuple
    orelse: tuple


@dataclass(frozen=True)
class LCompute:
    """Compute ``func`` at the point ``args`` (one expression per recursive parameter)."""

    func: str
    args: tuple[LExpr, ...]


@dataclass(frozen=True)
class LoopNest:
    body: tuple
    partition_var: str


# ----------------------------------------------------------------------------- building
PIECE = "__"  # statement name of guard piece k of f: f__k


def loop_nest(schedule: Schedule, ext: Extents, pieces: dict | None = None) -> LoopNest:
    """``pieces`` maps a function to its guard pieces ``((k, DNF), ...)``: each
    becomes its own statement ``f__k`` over its part of the domain, so isl
    generates separate loops for base cases instead of a test per cell."""
    params = sorted({p for f in schedule.order for p in ext.names[f]})
    ps = ", ".join(params)
    domains, maps = [], []
    n = len(schedule.coeffs)
    for pos, f in enumerate(schedule.order):
        xs = [f"x{k}" for k in range(n)]
        box = " and ".join(f"0 <= {x} <= {e}" for x, e in zip(xs, ext.names[f]))
        t = " + ".join(f"{c}*{x}" for c, x in zip(schedule.coeffs, xs))
        inner = [f"{pos}"] + xs if not schedule.same_point_order else xs + [f"{pos}"]
        rename = dict(zip(schedule.params[f], xs))
        for name, cond in _statements(f, (pieces or {}).get(f), rename):
            for conj in cond:
                domains.append(f"{name}[{', '.join(xs)}] : {' and '.join([box] + list(conj))}")
            maps.append(f"{name}[{', '.join(xs)}] -> [{t}, {', '.join(inner)}]")
    dom = isl.UnionSet(f"[{ps}] -> {{ {'; '.join(domains)} }}")
    smap = isl.UnionMap(f"[{ps}] -> {{ {'; '.join(maps)} }}").intersect_domain(dom)
    ctx = isl.Set(f"[{ps}] -> {{ : {' and '.join(f'{p} >= 0' for p in params)} }}")
    build = isl.AstBuild.from_context(ctx)
    if pieces:
        # peel the pieces into loops of their own instead of testing them per cell
        dims = ", ".join(f"d{k}" for k in range(n + 2))
        build = build.set_options(isl.UnionMap(f"{{ [{dims}] -> separate[x] }}"))
    node = build.node_from_schedule_map(smap)
    body = _node(node, depth=0)
    return LoopNest(body, "c0")


def _statements(f: str, pieces, rename: dict):
    """(statement name, DNF as constraint strings) for each piece of ``f``."""
    if pieces is None:
        return [(f, ((),))]
    out = []
    for k, dnf in pieces:
        conds = tuple(tuple(_constraint(c, rename) for c in conj) for conj in dnf)
        out.append((f"{f}{PIECE}{k}", conds))
    return out


def _constraint(c, rename: dict) -> str:
    terms = [f"{coef}*{rename[v]}" for v, coef in c.expr.coeffs] + [str(c.expr.const)]
    return f"{' + '.join(terms)} {'>=' if c.kind == 'ge' else '='} 0"


def _node(node, depth: int) -> tuple:
    t = node.get_type()
    if t == isl.ast_node_type.for_:
        var = node.for_get_iterator().get_id().get_name()
        lower = _expr(node.for_get_init())
        cond = node.for_get_cond()
        upper = _upper(cond, var)
        step = node.for_get_inc().get_val().to_python()
        body = _node(node.for_get_body(), depth + 1)
        return (LFor(var, lower, upper, step, body, "partition" if depth == 0 else "parallel"),)
    if t == isl.ast_node_type.block:
        children = node.block_get_children()
        out = ()
        for k in range(children.n_ast_node()):
            out += _node(children.get_at(k), depth)
        return out
    if t == isl.ast_node_type.if_:
        cond = _expr(node.if_get_cond())
        then = _node(node.if_get_then_node(), depth)
        orelse = _node(node.if_get_else_node(), depth) if node.if_has_else_node() else ()
        return (LIf(cond, then, orelse),)
    if t == isl.ast_node_type.user:
        call = node.user_get_expr()
        name = call.get_op_arg(0).get_id().get_name()
        args = tuple(_expr(call.get_op_arg(k)) for k in range(1, call.get_op_n_arg()))
        return (LCompute(name, args),)
    if t == isl.ast_node_type.mark:
        return _node(node.mark_get_node(), depth)
    raise InternalError(f"unexpected isl AST node {t}")


def _upper(cond, var: str) -> LExpr:
    """isl writes loop conditions as ``var <= u`` or ``var < u``."""
    op = cond.get_op_type()
    rhs = _expr(cond.get_op_arg(1))
    if op == isl.ast_expr_op_type.le:
        return rhs
    if op == isl.ast_expr_op_type.lt:
        return LOp("-", (rhs, LInt(1)))
    raise InternalError(f"unexpected loop condition {cond.to_C_str()}")


_OPS = {
    "add": "+", "sub": "-", "mul": "*", "min": "min", "max": "max", "minus": "neg",
    "fdiv_q": "floordiv", "pdiv_q": "floordiv", "div": "floordiv", "pdiv_r": "mod",
    "zdiv_r": "mod", "eq": "==", "le": "<=", "lt": "<", "ge": ">=", "gt": ">",
    "and_": "and", "and_then": "and", "or_": "or", "or_else": "or", "select": "select",
    "cond": "select",
}


def _expr(e) -> LExpr:
    t = e.get_type()
    if t == isl.ast_expr_type.int:
        return LInt(e.get_val().to_python())
    if t == isl.ast_expr_type.id:
        return LVar(e.get_id().get_name())
    op = e.get_op_type()
    name = str(op).split(".")[-1]
    if name not in _OPS:
        raise InternalError(f"unexpected isl expression {e.to_C_str()}")
    args = tuple(_expr(e.get_op_arg(k)) for k in range(e.get_op_n_arg()))
    if _OPS[name] in ("min", "max") and len(args) > 2:
        acc = args[0]
        for a in args[1:]:
            acc = LOp(_OPS[name], (acc, a))
        return acc
    return LOp(_OPS[name], args)


# ----------------------------------------------------------------------------- printing
def render(nest: LoopNest | tuple, indent: int = 0) -> str:
    body = nest.body if isinstance(nest, LoopNest) else nest
    lines = []
    pad = "  " * indent
    for node in body:
        if isinstance(node, LFor):
            step = f" step {node.step}" if node.step != 1 else ""
            lines.append(f"{pad}for {node.var} in {node.lower.to_python()} .. "
                         f"{node.upper.to_python()}{step}   # {node.kind}")
            lines.append(render(node.body, indent + 1))
        elif isinstance(node, LIf):
            lines.append(f"{pad}if {node.cond.to_python()}:")
            lines.append(render(node.then, indent + 1))
            if node.orelse:
                lines.append(f"{pad}else:")
                lines.append(render(node.orelse, indent + 1))
        elif isinstance(node, LCompute):
            lines.append(f"{pad}{node.func}({', '.join(a.to_python() for a in node.args)})")
    return "\n".join(x for x in lines if x)
