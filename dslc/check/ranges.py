"""Declared ranges of ``int`` parameters: ``int i in lo ... hi``.

An undeclared ``int`` parameter takes its domain ``0 .. v`` from the first call;
a declared one has the domain ``max(0, lo) .. hi``, where ``lo`` and ``hi`` are
int expressions of numbers, script constants, ``len(s)`` of sequence
parameters and parameters declared before it (calling ``const`` ones and
recursive ones, so ``int c in 0 ... r`` makes a triangle). ``int`` dimensions
are never negative, as with undeclared ones, so tables stay 0-based boxes.

One module serves every stage, so the interpreter and the compiler agree:

* :func:`check_bound` (checker): which expressions a bound may be;
* :func:`bound_value` / :func:`outside` (interpreter and hosts): the value of a
  bound and the first parameter a call's arguments leave;
* :func:`box_extent`: the largest value a parameter can take (interval
  arithmetic over the earlier parameters' boxes), the table's extent;
* :func:`dslc.deps.ranges.domain_constraints` (dependences, isl): the bounds as
  affine constraints over the recursive parameters (the dependence stage's).
"""

from __future__ import annotations

from dslc.check import tir
from dslc.lang import types as T
from dslc.errors import DslcError


def check_bound(e: tir.TExpr, earlier: dict[str, T.Type]) -> None:
    """A bound uses only numbers, constants, earlier ``int``/``const``/``index``
    parameters, ``len`` of earlier sequences, ``+ - *`` and negation."""
    for x in tir.walk(e):
        match x:
            case tir.Lit(value=v) if isinstance(v, int) and not isinstance(v, bool):
                continue
            case tir.Var(scope="global", type=t) if t == T.INT:
                continue
            case tir.Var(scope="param", name=n) if n in earlier and (
                    earlier[n] == T.INT or isinstance(earlier[n], T.IndexT)):
                continue
            case tir.Var(scope="param", name=n) if n in earlier and (
                    isinstance(earlier[n], T.SeqT) or _is_array(earlier[n])):
                continue  # only as len(s), len(w): checked by the parent Builtin
            case tir.Arith(op="+" | "-" | "*") | tir.Neg():
                continue
            case tir.Builtin(name="len"):
                continue
            case tir.ExtAttr(base=tir.Var(scope="param", name=n), accessor=a) if n in earlier \
                    and a.name in GRID_EXTENTS and _is_array(earlier[n]):
                continue  # g.rows, g.cols of a 2-D array parameter: its extents
        raise DslcError("a declared range may use numbers, constants, len(s) of a sequence, "
                        "len(w) of an array (a parameter or a const), g.rows and g.cols of a "
                        "2-D one, and the int, const and "
                        "index parameters declared before it, with + - *", x.span,
                        hint="e.g. int i in 1 ... n, int j in i ... len(s), "
                             "int k in 0 ... len(w) - 1")
    if any(isinstance(x, tir.Var) and (isinstance(x.type, T.SeqT) or _is_array(x.type))
           for x in _non_len(e)):
        raise DslcError("a sequence or an array is used in a range only through its len",
                        e.span)


def _is_array(t: T.Type) -> bool:
    from dslc.check.exprs import is_array

    return is_array(t)


def fold_array_lengths(e: tir.TExpr, consts: dict) -> tir.TExpr:
    """``e`` with ``len(w)`` of a constant array ``w`` replaced by its length: the
    array is known when the script is checked, so the bound is a number to every
    later stage (the interpreter's domains, isl's constraints, the compiled extents)."""
    import dataclasses

    if isinstance(e, tir.Builtin) and e.name == "len":
        (a,) = e.args
        if isinstance(a, tir.Var) and a.scope == "global" and _is_array(a.type) \
                and a.name in consts:
            return tir.Lit(len(consts[a.name]), T.INT, e.span)
        return e
    if isinstance(e, tir.ExtAttr) and e.accessor.name in GRID_EXTENTS:
        a = e.base
        if isinstance(a, tir.Var) and a.scope == "global" and a.name in consts:
            return tir.Lit(e.accessor.evaluate(None, consts[a.name]), T.INT, e.span)
        return e
    kids = {f.name: getattr(e, f.name) for f in dataclasses.fields(e)
            if isinstance(getattr(e, f.name), tir.TExpr)}
    if not kids:
        return e
    return dataclasses.replace(e, **{k: fold_array_lengths(v, consts) for k, v in kids.items()})


GRID_EXTENTS = ("rows", "cols")  # a 2-D array's extents (check.grids), usable in a range


def _non_len(e: tir.TExpr):
    if isinstance(e, tir.Builtin) and e.name == "len" or isinstance(e, tir.ExtAttr):
        return
    yield e
    for c in tir.children(e):
        yield from _non_len(c)


def extent_name(f: tir.TFunction, p: tir.TParam) -> str:
    """The isl parameter of an ``int`` parameter's extent (shared by every stage).
    A declared range whose upper bound is a calling expression is named after
    that expression (``E_n`` for ``... n``, ``E_len_s`` for ``... len(s)``), so
    parameters bounded by the same expression share one extent, as ``index[s]``
    parameters of the same ``s`` do."""
    if p.range is not None and calling_only(f, p.range[1]):
        return "E_" + _name_of(p.range[1])
    return f"E_int_{f.name}_{p.name}"


def calling_only(f: tir.TFunction, e: tir.TExpr) -> bool:
    rec = {p.name for p in f.rec_params}
    return not any(isinstance(x, tir.Var) and x.name in rec for x in tir.walk(e))


_OPS = {"+": "plus", "-": "minus", "*": "times"}


def _name_of(e: tir.TExpr) -> str:
    match e:
        case tir.Lit(value=v):
            return str(v)
        case tir.Var(name=n):
            return n
        case tir.Neg(operand=a):
            return f"neg_{_name_of(a)}"
        case tir.Builtin(name="len", args=(s,)):
            return f"len_{s.name}"
        case tir.ExtAttr(base=s, accessor=a):
            return f"{a.name}_{s.name}"
        case tir.Arith(op=op, left=a, right=b):
            return f"{_name_of(a)}_{_OPS[op]}_{_name_of(b)}"
    raise TypeError(f"not a bound: {e}")


def calling_extents(f: tir.TFunction) -> list[tuple[tir.TExpr, str]]:
    """``(hi, extent name)`` of each declared parameter whose upper bound is a
    calling expression (``int i in 1 ... n``): that expression *is* the extent, so
    a guard ``i == n`` is the affine ``i == E_n``."""
    return [(p.range[1], extent_name(f, p)) for p in f.rec_params
            if p.range is not None and calling_only(f, p.range[1])]


def same_expr(a: tir.TExpr, b: tir.TExpr) -> bool:
    """Structural equality, spans aside."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tir.Var):
        return a.name == b.name and a.scope == b.scope
    if isinstance(a, tir.Lit):
        return a.value == b.value
    if isinstance(a, (tir.Arith, tir.Builtin)) and getattr(a, "op", None) != getattr(b, "op", None):
        return False
    if isinstance(a, tir.Builtin) and a.name != b.name:
        return False
    if isinstance(a, tir.ExtAttr) and a.accessor.name != b.accessor.name:
        return False
    ca, cb = tir.children(a), tir.children(b)
    return bool(ca) and len(ca) == len(cb) and all(same_expr(x, y) for x, y in zip(ca, cb))


def bound_value(e: tir.TExpr, env: dict, consts: dict) -> int:
    """The value of a bound with the parameters in ``env`` (script constants from
    ``consts``; sequences have a length)."""
    match e:
        case tir.Lit(value=v):
            return v
        case tir.Var(scope="global", name=n):
            return consts[n]
        case tir.Var(name=n):
            return env[n]
        case tir.Neg(operand=a):
            return -bound_value(a, env, consts)
        case tir.Builtin(name="len", args=(s,)):
            return len(env[s.name])
        case tir.ExtAttr(base=s, accessor=a):
            return a.evaluate(None, env[s.name])
        case tir.Arith(op=op, left=a, right=b):
            x, y = bound_value(a, env, consts), bound_value(b, env, consts)
            return x + y if op == "+" else x - y if op == "-" else x * y
    raise TypeError(f"not a bound: {e}")


def declared(f: tir.TFunction) -> bool:
    """Has ``f`` a recursive parameter with a declared range?"""
    return any(p.range is not None for p in f.rec_params)


def outside(f: tir.TFunction, rec: tuple, env: dict, consts: dict):
    """The first declared parameter the point ``rec`` leaves, as
    ``(k, lo, hi)``; None when it is inside every declared range. ``env`` holds the
    calling arguments."""
    scope = dict(env)
    for k, (p, v) in enumerate(zip(f.rec_params, rec)):
        scope[p.name] = v
        if p.range is None:
            continue
        lo = max(0, bound_value(p.range[0], scope, consts))
        hi = bound_value(p.range[1], scope, consts)
        if not (type(v) is int and lo <= v <= hi):
            return k, lo, hi
    return None


def box_extent(f: tir.TFunction, k: int, env: dict, boxes: dict, consts: dict) -> int:
    """The largest value parameter ``k`` can take: ``hi`` maximised over the
    boxes ``0 .. boxes[q]`` of the parameters before it (interval arithmetic,
    exact for bounds where each parameter appears once). Negative when empty."""
    return _interval(f.rec_params[k].range[1], env, boxes, consts)[1]


def box_code(f: tir.TFunction, k: int, atom, boxes: dict) -> str:
    """:func:`box_extent` as Python source for generated code: ``atom(e)`` renders
    a calling value (a name, ``len(s)``), ``boxes`` the earlier parameters' extent
    names."""
    def iv(e) -> tuple[str, str]:
        match e:
            case tir.Lit(value=v):
                return str(v), str(v)
            case tir.Var(scope="param", name=n) if n in boxes:
                return "0", boxes[n]
            case tir.Neg(operand=a):
                lo, hi = iv(a)
                return f"(-{hi})", f"(-{lo})"
            case tir.Arith(op="+" | "-" as op, left=a, right=b):
                (a0, a1), (b0, b1) = iv(a), iv(b)
                return (f"({a0} + {b0})", f"({a1} + {b1})") if op == "+" else \
                    (f"({a0} - {b1})", f"({a1} - {b0})")
            case tir.Arith(op="*", left=a, right=b):
                (a0, a1), (b0, b1) = iv(a), iv(b)
                ps = f"{a0} * {b0}, {a0} * {b1}, {a1} * {b0}, {a1} * {b1}"
                return f"min({ps})", f"max({ps})"
        v = atom(e)
        return v, v
    return iv(f.rec_params[k].range[1])[1]


def _interval(e: tir.TExpr, env: dict, boxes: dict, consts: dict) -> tuple[int, int]:
    match e:
        case tir.Var(scope="param", name=n) if n in boxes:
            return 0, boxes[n]
        case tir.Neg(operand=a):
            lo, hi = _interval(a, env, boxes, consts)
            return -hi, -lo
        case tir.Arith(op=op, left=a, right=b):
            (a0, a1), (b0, b1) = (_interval(a, env, boxes, consts),
                                  _interval(b, env, boxes, consts))
            if op == "+":
                return a0 + b0, a1 + b1
            if op == "-":
                return a0 - b1, a1 - b0
            prods = [a0 * b0, a0 * b1, a1 * b0, a1 * b1]
            return min(prods), max(prods)
    v = bound_value(e, env, consts)
    return v, v


def request_outside(program, func: str, args: dict) -> bool:
    """Is the cell a call asks for outside its function's declared ranges?"""
    f = program.functions[func]
    if not f.is_table or not declared(f):
        return False
    return final_outside(program, f, args, tuple(args[p.name] for p in f.rec_params))


def final_outside(program, f: tir.TFunction, args: dict, cell) -> bool:
    """Is ``cell`` of ``f`` (called with ``args``) outside its declared ranges?"""
    return outside(f, tuple(cell), args, program.consts) is not None
