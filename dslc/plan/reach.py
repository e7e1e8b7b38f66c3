"""How far a non-recursive entry's calls reach into a table whose int parameter
has no declared range (``int row(int n) = sum(k in 0 ... n : c(n, k))``).

Such a parameter's domain is what the calls reach: the interpreter grows the
table to every call (dslc.interp.tables). A compiled entry sweeps a box, so the
box must be known before the sweep: it is the largest value each of the entry's
calling expressions takes, found by interval arithmetic over the entry's own
argument values (known when the call is planned), script constants, sequence
lengths and the ranges of the reductions around the call. A ``where`` filter or
a guard only narrows what is called, so ignoring them keeps the box covering
every call (cells the calls never reach are computed and not read, as in any
swept table); a call outside the box anyway (below 0) is checked at run time.
Anything the arithmetic cannot bound (an array element, a call's value) leaves
the extent unknown, and the entry runs on the interpreter, as it says."""

from __future__ import annotations

from collections.abc import Sequence

from dslc.check import tir
from dslc.check.arrays import NumArray
from dslc.lang import types as T

Interval = tuple[int, int]


def reader_extent(program, entry: str, args: dict, func: str, k: int) -> int | None:
    """The largest value the ``k``-th recursive argument of ``func`` takes in the
    calls of non-recursive ``entry`` (bound to ``args``), or None where a call is
    not bounded or ``func`` is called by another function outside its own group."""
    fns = program.functions
    if fns[entry].is_table or _called_elsewhere(program, entry, func):
        return None
    env = {}
    for p in fns[entry].params:
        v = args.get(p.name)
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            env[("param", p.name)] = (v, v)
    tops: list[int | None] = []
    for guard in fns[entry].guards:
        for part in (guard.cond, guard.body):
            if part is not None:
                _visit(program, part, env, args, func, k, tops)
    if not tops or None in tops:
        return None
    return max(0, max(tops))


def _called_elsewhere(program, entry: str, func: str) -> bool:
    """Called by a function other than ``entry``, the helpers it calls (non-recursive
    functions, followed through their calls) and ``func``'s own group (whose calls
    are checked against the box at run time); or such a helper called from
    elsewhere (its arguments then unknown here)."""
    fns = program.functions
    own = next((g for g in tir.groups(fns) if func in g), (func,))
    readers = {entry} | _helpers(program, entry)
    for name, f in fns.items():
        if name in readers:
            continue
        called = {e.func for guard in f.guards for part in (guard.cond, guard.body)
                  if part is not None for e in tir.walk(part) if isinstance(e, tir.Call)}
        if called & (readers - {entry}) or (func in called and name not in own):
            return True
    return False


def _helpers(program, entry: str) -> set[str]:
    """The non-recursive functions ``entry`` reaches through such functions only."""
    out, todo = set(), [entry]
    while todo:
        f = program.functions[todo.pop()]
        for guard in f.guards:
            for part in (guard.cond, guard.body):
                for e in tir.walk(part) if part is not None else ():
                    if isinstance(e, tir.Call) and not program.functions[e.func].is_table \
                            and e.func not in out:
                        out.add(e.func)
                        todo.append(e.func)
    return out


def _visit(program, e, env: dict, args: dict, func: str, k: int, tops: list) -> None:
    if isinstance(e, tir.Reduce):
        _visit(program, e.iterable, env, args, func, k, tops)
        inner = dict(env)
        inner.pop(("local", e.var), None)
        if isinstance(e.iterable, tir.RangeIter):
            lo = interval(e.iterable.lo, env, args, program.consts)
            hi = interval(e.iterable.hi, env, args, program.consts)
            if lo is not None and hi is not None:
                inner[("local", e.var)] = (lo[0], hi[1])
        for part in (e.where, e.body):
            if part is not None:
                _visit(program, part, inner, args, func, k, tops)
        return
    if isinstance(e, tir.Call) and e.func == func:
        f = program.functions[func]
        rec = [a for a, p in zip(e.args, f.params) if p.recursive]
        got = interval(rec[k], env, args, program.consts)
        tops.append(None if got is None else got[1])
    elif isinstance(e, tir.Call) and not program.functions[e.func].is_table:
        _visit_helper(program, e, env, args, func, k, tops)
    for c in tir.children(e):
        _visit(program, c, env, args, func, k, tops)


def _visit_helper(program, e, env: dict, args: dict, func: str, k: int, tops: list) -> None:
    """The calls of ``func`` inside helper call ``e``: its parameters bound to the
    intervals of the call's arguments (sequences to the caller's values)."""
    h = program.functions[e.func]
    inner, values = {}, {}
    for p, a in zip(h.params, e.args):
        got = interval(a, env, args, program.consts)
        if got is not None:
            inner[("param", p.name)] = got
        if isinstance(a, tir.Var) and a.scope == "param" and a.name in args:
            values[p.name] = args[a.name]
    for guard in h.guards:
        for part in (guard.cond, guard.body):
            if part is not None:
                _visit(program, part, inner, values, func, k, tops)


def interval(e, env: dict, args: dict, consts: dict) -> Interval | None:
    """The least and largest value of int expression ``e``, or None."""
    match e:
        case tir.Lit(value=v) if type(v) is int:
            return (v, v)
        case tir.Var(scope="global", name=n):
            v = consts.get(n)
            return (v, v) if type(v) is int else None
        case tir.Var(scope=s, name=n):
            return env.get((s, n))
        case tir.Builtin(name="len", args=(tir.Var(scope="param", name=n),)):
            v = args.get(n)
            return (len(v), len(v)) if isinstance(v, (Sequence, NumArray)) else None
        case tir.Coerce(expr=x):
            return interval(x, env, args, consts)
        case tir.Neg(operand=x):
            a = interval(x, env, args, consts)
            return None if a is None else (-a[1], -a[0])
        case tir.Arith(op="+" | "-" | "*" as op, left=l, right=r):
            a, b = interval(l, env, args, consts), interval(r, env, args, consts)
            if a is None or b is None:
                return None
            if op == "+":
                return (a[0] + b[0], a[1] + b[1])
            if op == "-":
                return (a[0] - b[1], a[1] - b[0])
            ends = [x * y for x in a for y in b]
            return (min(ends), max(ends))
        case tir.MinMax(op=op, left=l, right=r):
            a, b = interval(l, env, args, consts), interval(r, env, args, consts)
            if a is None or b is None:
                return None
            pick = max if op == "max" else min
            return (pick(a[0], b[0]), pick(a[1], b[1]))
        case tir.Cond(then=t, orelse=o):
            a, b = interval(t, env, args, consts), interval(o, env, args, consts)
            if a is None or b is None:
                return None
            return (min(a[0], b[0]), max(a[1], b[1]))
    return None
