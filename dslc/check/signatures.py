"""Parameter types, function signatures and the recursion structure.

A parameter is *recursive* (a dimension of the function's table) when its type
is ``int``, ``index[s]``, ``symbol[A]`` or a recursive extension type; it is a
*calling* parameter (fixed for one task) otherwise. A function has a table
exactly when it lies on a cycle of the call graph.
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.lang import types as T
from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.sdk import Registry

VALUE_TYPES = {"int": T.INT, "float": T.FLOAT, "prob": T.PROB, "bool": T.BOOL}


@dataclass(frozen=True)
class Signature:
    name: str
    params: tuple[tuple[str, T.Type, bool], ...]  # (name, type, recursive)
    ret: T.Type
    node: ast.FuncDef

    @property
    def rec_names(self) -> tuple[str, ...]:
        return tuple(n for n, _, r in self.params if r)

    @property
    def calling_names(self) -> tuple[str, ...]:
        return tuple(n for n, _, r in self.params if not r)

    def int_const(self, pname: str) -> bool:
        """Is ``pname`` a ``const`` parameter typed ``int`` (no call passes it a float)?"""
        return any(p.name == pname and p.type.name == "const" for p in self.node.params) \
            and any(n == pname and t == T.INT for n, t, _ in self.params)


class ConstIsFloat(Exception):
    """A call passes a float to a ``const`` parameter typed int so far: the
    checker starts again with that const typed float (see check.program)."""

    def __init__(self, func: str, param: str):
        super().__init__(func, param)
        self.key = (func, param)


def param_type(p: ast.Param, prior: dict[str, T.Type], alphabets: dict, reg: Registry,
               globals_: dict[str, T.Type], const_float: bool = False) -> tuple[T.Type, bool]:
    """The static type of one parameter and whether it is recursive. ``prior``
    holds the parameters declared before it (``index[s]`` must name one). A
    ``const`` is an int unless some call passes it a float (``const_float``)."""
    te = p.type
    name, arg = te.name, te.arg
    if te.items:
        return tuple_type(te), False
    if name == "const":
        return (T.FLOAT if const_float else T.INT), False
    if name in ("float", "bool", "prob"):
        _no_arg(te)
        return VALUE_TYPES[name], False
    if name == "int":
        _no_arg(te)
        return T.INT, True
    if name == "seq":
        if arg is None:
            raise DslcError("seq needs an alphabet: seq[dna], or seq[*] for any", te.span)
        if arg == "*":
            return T.SeqT(T.AlphaRef("var", p.name)), False
        return T.SeqT(_alphabet(arg, alphabets, te)), False
    if name == "index":
        if arg is None or not isinstance(prior.get(arg), T.SeqT):
            raise DslcError(f"index[{arg or ''}] must name a sequence parameter declared before it",
                            te.span, hint="e.g. seq[dna] s, index[s] i")
        return T.IndexT(arg), True
    if name == "symbol":
        if arg is None or arg == "*":
            raise DslcError("symbol needs a named alphabet, e.g. symbol[dna]", te.span)
        return T.SymT(_alphabet(arg, alphabets, te)), True
    spec = reg.types.get(name)
    if spec is None:
        raise DslcError(f"unknown type '{name}'", te.span,
                        hint="types: int, float, bool, prob, const, seq[A], index[s], symbol[A]"
                             + "".join(f", {t}" for t in sorted(reg.types)))
    recursive = spec.role == "recursive"
    if spec.bracket == "owner":
        if arg is None or (arg not in prior and arg not in globals_):
            raise DslcError(f"{name}[...] must name the model it belongs to, a parameter declared "
                            f"before it", te.span)
        return T.ExtT(name, owner=arg), recursive
    if spec.bracket == "alphabet":
        if arg is None:
            raise DslcError(f"{name} needs an alphabet, e.g. {name}[dna]", te.span)
        return T.ExtT(name, alpha=_alphabet(arg, alphabets, te)), recursive
    if arg is not None:
        # matrix[protein]: a calling value with a fixed alphabet
        return T.ExtT(name, alpha=_alphabet(arg, alphabets, te)), recursive
    alpha = T.AlphaRef("var", p.name) if spec.alphabet is not None else None
    return T.ExtT(name, alpha=alpha), recursive


def tuple_type(te: ast.TypeExpr) -> T.TupleT:
    """``tuple[int, float]``: a calling value (a parameter) or a function's result."""
    if te.name != "tuple":
        raise DslcError(f"unknown type '{te}'", te.span,
                        hint="a tuple type is written tuple[int, int]")
    for item in te.items:
        if item not in T.TUPLE_ITEMS:
            raise DslcError(f"a tuple holds ints and floats, not '{item}'", te.span)
    return T.TupleT(tuple(VALUE_TYPES[x] for x in te.items))


def return_type(te: ast.TypeExpr, alphabets: dict) -> T.Type:
    if te.items:
        return tuple_type(te)
    if te.name in VALUE_TYPES:
        _no_arg(te)
        return VALUE_TYPES[te.name]
    if te.name == "symbol" and te.arg:
        return T.SymT(_alphabet(te.arg, alphabets, te))
    raise DslcError(f"a function returns int, float, prob, bool, symbol[A] or tuple[...], "
                    f"not '{te}'", te.span)


def _no_arg(te: ast.TypeExpr) -> None:
    if te.arg is not None:
        raise DslcError(f"type '{te.name}' takes no [...]", te.span)


def _alphabet(name: str, alphabets: dict, te: ast.TypeExpr) -> T.AlphaRef:
    if name not in alphabets:
        raise DslcError(f"unknown alphabet '{name}'", te.span,
                        hint="known alphabets: " + ", ".join(sorted(alphabets)))
    return T.AlphaRef("named", name)


def signature(fd: ast.FuncDef, alphabets: dict, reg: Registry,
              globals_: dict[str, T.Type], float_consts: frozenset = frozenset()) -> Signature:
    seen: dict[str, T.Type] = {}
    params = []
    for p in fd.params:
        if p.name in seen:
            raise DslcError(f"parameter '{p.name}' is declared twice", p.span)
        t, rec = param_type(p, seen, alphabets, reg, globals_, (fd.name, p.name) in float_consts)
        seen[p.name] = t
        params.append((p.name, t, rec))
    return Signature(fd.name, tuple(params), return_type(fd.ret, alphabets), fd)


def called_names(e: ast.Expr):
    """Names of functions called anywhere inside an AST expression."""
    if isinstance(e, ast.Call):
        yield e.func
    for v in vars(e).values():
        if isinstance(v, ast.Expr):
            yield from called_names(v)
        elif isinstance(v, tuple):
            for x in v:
                if isinstance(x, ast.Expr):
                    yield from called_names(x)


def table_functions(funcs: dict[str, ast.FuncDef]) -> set[str]:
    """Functions on a cycle of the call graph (Tarjan's SCC, iterative)."""
    graph = {name: sorted({c for g in fd.guards for e in (g.cond, g.body) if e is not None
                           for c in called_names(e) if c in funcs})
             for name, fd in funcs.items()}
    index, low, on, stack, out, counter = {}, {}, set(), [], set(), [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(graph[w])))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in graph[v]:
                    out.update(comp)
    return out
