"""Demand-driven evaluation in generated code: a group no affine schedule orders.

A group whose calls reach cells at offsets that depend on data
(``ways(i, m - coin(i - 1))``, ``q(m - q(m - 1))``) has no schedule the compiler
can prove, so the planner marks it ``DEMAND`` (dslc.plan.task) and this module
generates what the interpreter does (interp.tables.demand), compiled: a full
memo table per function, a state per cell (0 not computed, 1 on the stack, 2
done) and an explicit stack of cells (no recursion, so no depth limit but the
table's size).

The cell on top of the stack runs its body. A read of a cell that is done is a
table load; the first read of one that is not records it in ``_need`` (the
function's number and the cell) and yields 0, and the body runs on to its end
with that placeholder, its value then thrown away. Only the first such read
counts: its arguments were computed before any placeholder existed, so it is
exactly the cell the interpreter's ``Need`` would name. The driver pushes that
cell and retries the body once it is done. A cell read while it is on the stack
is a cycle: the task stops (``_chk(-1, 0)``) and the interpreter reports "the
recursion never ends" with the chain. Domain checks behave alike: an argument
outside its domain stops the task only when no placeholder was read before it
(``_ddom``); after one, it is clamped and the body's value is discarded anyway.
Any other check a placeholder makes fail stops the task, and the interpreter
reruns it: never a wrong value, at worst the interpreter's speed.

The evaluator runs for the cells the task asks for: the requested cell, or
every cell of a whole table in order (as the interpreter's ``table``).
"""

from __future__ import annotations

from dslc.lang import types as T
from dslc.emit.loopexpr import loop_expr
from dslc.emit.pyexpr import Lines, NotCompilable
from dslc.kernel import ir
from dslc.poly import loopir as L
from dslc.targets.printer import Printer


def read_helper(arity: int) -> str:
    """``_rdN(T, S, nd, fid, a0, ...)``: a cell of an ``N``-dimensional table of a
    group evaluated on demand, or 0 after recording the first cell not done yet
    (state 1 when it is on the stack: a cycle)."""
    xs = [f"a{k}" for k in range(arity)]
    cell = tuple(ir.Name(x) for x in xs)
    s, nd = ir.Name("s"), "nd"
    b = Lines()
    b.assign("s", ir.Load("S", cell, comma=arity == 1))
    done = b.child()
    done.return_(ir.Load("T", cell, comma=arity == 1))
    b.if_(ir.bare("==", s, ir.Const(2)), done)
    first = b.child()
    first.store(ir.Load(nd, (ir.Const(0),)), ir.bare("+", ir.Const(1), s))
    first.store(ir.Load(nd, (ir.Const(1),)), ir.Name("fid"))
    for k, x in enumerate(cell):
        first.store(ir.Load(nd, (ir.Const(2 + k),)), x)
    asked = first.child()
    asked.store(ir.Load("S", cell, comma=arity == 1), ir.Const(1))
    first.if_(ir.bare("==", s, ir.Const(0)), asked)
    b.if_(ir.bare("==", ir.Load(nd, (ir.Const(0),)), ir.Const(0)), first)
    b.return_(ir.Const(0.0))
    return "\n" + Printer().function(f"_rd{arity}", ["T", "S", "nd", "fid", *xs],
                                     b.render(1), "HELPER")


def check_entry(gen, g) -> None:
    """A group evaluated on demand is read only by the task's own request (its
    cell, or its whole table); a table read by a later group or a plain entry
    would need the evaluator inside that code."""
    plan = gen.plan
    if plan.entry not in g.functions or plan.kind not in ("cell", "table"):
        raise NotCompilable(f"{', '.join(g.functions)} evaluated on demand but read from "
                            "another function (only a call or table of it is compiled)")
    for f in g.functions:
        ret = gen.program.functions[f].ret
        if isinstance(ret, T.TupleT):  # (one memo row per cell: not done, emit.tuples)
            raise NotCompilable(f"{f} holds tuples and is evaluated on demand (not compiled "
                                "for tuples)")
        if ret not in (T.INT, T.FLOAT, T.PROB, T.BOOL):
            raise NotCompilable(f"a table of {ret} values")


def emit_group(gen, b: Lines, gi: int, g) -> None:
    """Storage, the evaluator, and the demands of the task's request."""
    check_entry(gen, g)
    funcs = list(g.functions)
    dims = {f: [L.Add(L.Var(e), L.Const(1)) for e in g.extents.names[f]] for f in funcs}
    width = max(len(d) for d in dims.values())
    for f in funcs:
        gen.allocate(b, f, dims[f])
        gen.host_allocations += 1
        b.alloc(f"S_{f}", [loop_expr(d) for d in dims[f]], "uint8", comma=True)
        gen.demand_arities.add(len(dims[f]))
    cells = [ir.Paren(ir.bare("*", *(ir.Paren(loop_expr(d)) for d in dims[f]))) for f in funcs]
    b.alloc(f"_stk{gi}", [ir.bare("+", *cells, ir.Const(1)), ir.Const(1 + width)], "int64",
            "empty")
    b.alloc("_need", ir.Const(2 + width), "int64")
    bodies = {f: gen.demand_cell(f, f"_stk{gi}") for f in funcs}
    entry = gen.plan.entry
    qs = [f"_q{k}" for k in range(len(dims[entry]))]
    if gen.plan.kind == "cell":
        for k, q in enumerate(qs):
            b.assign(q, ir.Name(f"q_{k}"))
        _demand(b, gi, funcs, funcs.index(entry), qs, bodies, width, gen.pr)
        return
    # the whole table: every cell demanded in order, as the interpreter does
    body = b.child()
    _demand(body, gi, funcs, funcs.index(entry), qs, bodies, width, gen.pr)
    for q, d in reversed(list(zip(qs, dims[entry]))):
        outer = b.child()
        outer.loop(q, (loop_expr(d),), body)
        body = outer
    b.extend(body)


def _demand(b: Lines, gi: int, funcs: list[str], fid: int, qs: list[str], bodies: dict,
            width: int, pr) -> None:
    """The value of cell ``qs`` of function number ``fid``, and first of every
    cell it needs (the explicit stack)."""
    f = funcs[fid]
    stk = f"_stk{gi}"
    run = b.child()
    sp = ir.Name("_sp")
    run.assign(sp.id, ir.Const(0))
    run.store(_at(stk, ir.Const(0), ir.Const(0)), ir.Const(fid))
    for k, q in enumerate(qs):
        run.store(_at(stk, ir.Const(0), ir.Const(1 + k)), ir.Name(q))
    run.store(_state(f, qs), ir.Const(1))
    loop = run.child()
    loop.store(_NEED, ir.Const(0))
    loop.assign("_fid", _at(stk, sp, ir.Const(0)))
    for k, h in enumerate(funcs):
        branch = loop.child()
        branch.extend(bodies[h])
        (loop.elif_ if k else loop.if_)(_is(ir.Name("_fid"), k), branch)
    cycle, push = loop.child(), loop.child()
    cycle.eval(pr.ir_check("_chk", ir.Const(-1), ir.Const(0)),
               "a cell that needs itself: the interpreter reports the chain")
    push.augment(sp.id, "+", ir.Const(1))
    copy = push.child()
    copy.store(_at(stk, sp, ir.Name("_k")), _at("_need", ir.bare("+", ir.Const(1), ir.Name("_k"))))
    push.loop("_k", (ir.Const(1 + width),), copy)
    loop.if_(_is(_NEED, 2), cycle)
    loop.elif_(_is(_NEED, 1), push)
    run.while_(ir.Bin(">=", sp, ir.Const(0), bare=True), loop)
    b.if_(ir.Bin("!=", _state(f, qs), ir.Const(2), bare=True), run)


# what the cell's body met: 0 nothing, 1 a cell not done (to push), 2 a cycle
_NEED = ir.Load("_need", (ir.Const(0),))


def _is(x: ir.Expr, k: int) -> ir.Expr:
    """``x == k`` (a test of the evaluator's own state)."""
    return ir.Bin("==", x, ir.Const(k), bare=True)


def _at(array: str, *index: ir.Expr) -> ir.Load:
    """An element of one of the evaluator's own arrays (the task allocates them)."""
    return ir.Load(array, index)


def _state(func: str, coords: list[str]) -> ir.Load:
    """Cell ``coords``'s state in ``func``'s evaluation: 0 not asked, 1 asked, 2 stored."""
    return ir.Load(f"S_{func}", tuple(ir.Name(c) for c in coords), comma=True)


def cell_body(gen, func: str, stack: str, value: Lines, val: str) -> Lines:
    """One cell of ``func`` at the top of the stack: its coordinates, its body
    (value ``val``), and, when no placeholder was read, the stored value."""
    f = gen.program.functions[func]
    out = value.child()
    for k, p in enumerate(f.rec_params):
        out.assign(f"x_{p.name}", _at(stack, ir.Name("_sp"), ir.Const(1 + k)))
    out.extend(value)
    xs = [f"x_{p.name}" for p in f.rec_params]
    store = out.child()
    store.store(gen.cell_ref(func, xs), ir.Name(val))
    store.store(_state(func, xs), ir.Const(2))
    store.augment("_sp", "-", ir.Const(1))
    out.if_(_is(_NEED, 0), store)
    return out
