"""Checking a whole script: alphabets, define blocks, constants, function
bodies and the static shape of the script statements.

Statements are taken top to bottom, so a function sees the constants, matrices
and models defined above it; every function signature is known from the start
so functions may call each other in any order (mutual recursion).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dslc.check import tir
from dslc.lang import types as T
from dslc.check.consteval import const_value, eval_number_text
from dslc.check.ranges import check_bound, fold_array_lengths
from dslc.check.exprs import ExprChecker, Scope, coerce
from dslc.check.script import ScriptTyper
from dslc.check.signatures import ConstIsFloat, Signature, signature, table_functions
from dslc.check.verify import verify_functions
from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.check.arrays import NumArray
from dslc.check.grids import NumGrid
from dslc.check import words
from dslc.lang.values import Alphabet
from dslc.check.registry import make_registry, standard_matrices
from dslc.lang.fasta import resolve_path
from dslc.lang.stdlib import standard_alphabets
from dslc.sdk import ExtContext, Registry


@dataclass(frozen=True)
class CheckedProgram:
    """The checker's output: everything later stages need, nothing re-derived."""

    ast: ast.Program
    alphabets: dict[str, Alphabet]
    functions: dict[str, tir.TFunction]
    signatures: dict[str, Signature]
    consts: dict[str, int | float]
    defined: dict[str, Any]  # values fixed before the run: stdlib matrices, define blocks
    global_types: dict[str, T.Type]
    schedules: tuple[ast.ScheduleDef, ...]
    registry: Registry
    float_consts: frozenset = frozenset()  # (function, const parameter) typed float
    params: tuple = ()  # the script's ParamSpecs (dslc.check.params), in order

    @property
    def param_specs(self) -> dict:
        return {p.name: p for p in self.params}

    def ext_context(self) -> ExtContext:
        return ExtContext(self.alphabets, self.ast.source_name, eval_number_text)


def standard_globals(reg: Registry) -> tuple[dict, dict, dict]:
    """Predefined alphabets and matrices (shadowable by the script)."""
    alphabets = dict(standard_alphabets())
    values, types = {}, {}
    if "matrix" in reg.types:
        for name, m in standard_matrices(reg).items():
            values[name] = m
            types[name] = T.ExtT("matrix", alpha=T.AlphaRef("named", m.alphabet.name))
    return alphabets, values, types


def check_program(program: ast.Program, overrides: dict[str, int | float] | None = None,
                  registry: Registry | None = None, base_dir: str | None = None,
                  float_consts: frozenset = frozenset(), verify: bool = False) -> CheckedProgram:
    """Check a script (``verify``: the typed IR verified as it is built, the
    CompileOptions' ``verify_ir``). A ``const`` parameter takes its type from its arguments:
    an int unless some call (in a function or in the script; ``float_consts``
    for calls made from Python) passes it a float. Each such call found restarts
    the check with that const typed float, until none is left; the program is
    then typed once for every backend. Imports (a program parsed but not yet
    resolved) are resolved first, relative to ``base_dir``."""
    from dslc.check.imports import has_imports, resolve

    if has_imports(program):  # (dslc.api resolves a script's, through the parsed-file cache)
        from dslc.frontend.parser import parse

        program = resolve(program, base_dir, parse)
    floats = frozenset(float_consts)
    while True:
        try:
            return _check_program(program, overrides, registry, base_dir, floats, verify)
        except ConstIsFloat as e:
            if e.key in floats:  # cannot happen: a float const is never an int const
                raise
            floats = floats | {e.key}


def _check_program(program: ast.Program, overrides: dict[str, int | float] | None,
                   registry: Registry | None, base_dir: str | None,
                   float_consts: frozenset, verify: bool = False) -> CheckedProgram:
    reg = registry if registry is not None else make_registry()
    overrides = dict(overrides or {})
    alphabets, defined, gtypes = standard_globals(reg)
    stmts = program.stmts
    for st in stmts:
        if isinstance(st, ast.DefineAlphabet):
            if not st.symbols:
                raise DslcError(f"alphabet '{st.name}' has no symbols", st.span)
            try:
                alphabets[st.name] = Alphabet(st.name, tuple(st.symbols),
                                              stand_ins=tuple(st.stand_ins))
            except DslcError as e:
                raise DslcError(e.message, st.span) from None
    _unique_definitions(stmts)
    funcdefs: dict[str, ast.FuncDef] = {st.name: st for st in stmts
                                        if isinstance(st, ast.FuncDef)}
    tables = table_functions(funcdefs)
    consts: dict[str, int | float] = {}
    ctx = ExtContext(alphabets, program.source_name, eval_number_text)
    sigs: dict[str, Signature] = {}
    for fd in funcdefs.values():
        sigs[fd.name] = signature(fd, alphabets, reg, gtypes, float_consts)
    functions: dict[str, tir.TFunction] = {}
    schedules = []
    params: list = []
    typer = ScriptTyper(sigs, alphabets, reg, gtypes, tables, functions)
    for st in stmts:
        match st:
            case ast.DefineBlock():
                spec = reg.defines.get(st.kind)
                if spec is None:
                    raise DslcError(f"no extension defines '{st.kind}' blocks", st.span,
                                    hint="known: " + ", ".join(sorted(reg.defines)) if reg.defines
                                    else None)
                value = spec.parse(st.name, st.args, st.body, st.body_span, ctx)
                defined[st.name] = value
                gtypes[st.name] = spec.type_of(value)
            case ast.ConstDef():
                load = functools.partial(_load_const, reg=reg, ctx=ctx, base_dir=base_dir)
                consts[st.name] = value = _const(st, overrides, consts, load)
                gtypes[st.name] = _const_type(value)
            case ast.FuncDef():
                functions[st.name] = check_function(sigs[st.name], st.name in tables,
                                                    Scope(sigs[st.name], dict(gtypes), sigs,
                                                          alphabets, reg), consts)
            case ast.ScheduleDef():
                schedules.append(st)
            case ast.ParamDef():
                params.append(_param(st, sigs, consts, params))
                gtypes[st.name] = _PARAM_TYPES[params[-1].kind]
            case ast.Assign():
                if st.name in sigs:
                    raise DslcError(f"'{st.name}' is a function; choose another name", st.span)
                gtypes[st.name] = typer.type_of(st.expr)
            case ast.Print():
                typer.type_of(st.expr)
    if overrides:
        name = sorted(overrides)[0]
        raise DslcError(f"-D {name}=...: the script has no 'const {name}'",
                        hint="known constants: " + (", ".join(consts) or "none"))
    for sd in schedules:
        _check_schedule_target(sd, sigs, tables)
    _check_directions(functions)
    if verify:
        verify_functions(functions, gtypes, alphabets)
    return CheckedProgram(program, alphabets, functions, sigs, consts, defined, gtypes,
                          tuple(schedules), reg, float_consts, tuple(params))


_PARAM_TYPES = {"str": T.StrT(), "int": T.INT, "float": T.FLOAT}


def _param(st: ast.ParamDef, sigs: dict, consts: dict, params: list):
    """A ``param`` declaration, refused where its name is taken already."""
    from dslc.check.params import declare

    for p in params:
        if p.name == st.name:
            raise DslcError(f"param '{st.name}' is declared twice (first at line {p.span.line})",
                            st.span)
    if st.name in sigs or st.name in consts:
        what = "a function" if st.name in sigs else "a constant"
        raise DslcError(f"'{st.name}' is {what}; choose another name for the param", st.span)
    return declare(st)


def _check_directions(functions: dict[str, tir.TFunction]) -> None:
    """A declared direction compares a call's argument with the caller's parameter
    of the same name, so every function of the group that calls the declaring one
    must have that recursive parameter (a declaration that silently does not apply
    to some calls would promise the schedule what nobody checks)."""
    for grp in tir.groups(functions):
        for caller in grp:
            f = functions[caller]
            mine = {p.name for p in f.rec_params}
            for call in (e for g in f.guards for part in (g.cond, g.body) if part is not None
                         for e in tir.walk(part)):
                if not isinstance(call, tir.Call) or call.func not in grp:
                    continue
                for p in functions[call.func].rec_params:
                    if p.direction is not None and p.name not in mine:
                        raise DslcError(
                            f"'{call.func}' declares its parameter {p.name} {p.direction}, "
                            f"but '{caller}' calls it and has no recursive parameter "
                            f"{p.name} to compare with", call.span)


def _const(st: ast.ConstDef, overrides: dict, consts: dict, load):
    """A ``const`` statement's value, or its ``-D`` replacement (a number; an
    array constant is data and is not replaced from the command line)."""
    if st.name not in overrides:
        return const_value(st.expr, consts, st.name, load)
    if isinstance(st.expr, (ast.ArrayLit, ast.Load)):
        raise DslcError(f"-D {st.name}=...: '{st.name}' is an array constant, which -D cannot "
                        "replace", st.span, hint="put the numbers in a file: load(ints, file)")
    return overrides.pop(st.name)


def _load_const(e: ast.Load, name: str, reg: Registry, ctx: ExtContext, base_dir):
    """``const w = load(ints, "w.txt")``: the file is read when the script is checked,
    so the numbers are as fixed as a literal array's (the dependence analysis may
    use them, dslc.deps)."""
    from dslc.check.arrays import KINDS
    from dslc.check.grids import GRID_KINDS

    if e.type.name not in KINDS + GRID_KINDS:
        raise DslcError(f"a constant cannot hold a {e.type}; load it with NAME = load(...)",
                        e.span, hint="const NAME = load(ints, file), load(floats, file), "
                                     "load(ints2d, file) or load(floats2d, file)")
    if not isinstance(e.path, ast.Str):
        raise DslcError("load needs a file name (a string)", e.path.span)
    full = str(resolve_path(e.path.value, Path(base_dir) if base_dir else Path.cwd()))
    value = reg.loaders[e.type.name].load(e.type.arg, full, e.span, ctx)
    return dataclasses.replace(value, name=name)


def _const_type(value) -> T.Type:
    if isinstance(value, (NumArray, NumGrid)):
        return T.ExtT(value.kind)
    if isinstance(value, words.WordTexts):
        return T.ExtT(words.SEQS)
    # an infinite constant is the int infinity, which widens as needed
    return T.FLOAT if isinstance(value, float) and not math.isinf(value) else T.INT


def check_function(sig: Signature, is_table: bool, scope: Scope,
                   consts: dict | None = None) -> tir.TFunction:
    fd = sig.node
    if is_table and not sig.rec_names:
        raise DslcError(f"'{fd.name}' calls itself but has no recursive parameters "
                        "(int, index[s], symbol[A] or an element type)", fd.span)
    if fd.guarded and (not fd.guards or fd.guards[-1].cond is not None):
        last = fd.guards[-1] if fd.guards else fd
        raise DslcError(f"the guards of '{fd.name}' must end with '| otherwise = ...'", last.span,
                        hint="add a last guard '| otherwise = EXPR'")
    checker = ExprChecker(scope)
    guards = []
    for i, g in enumerate(fd.guards):
        if g.cond is None and i != len(fd.guards) - 1:
            raise DslcError("'otherwise' must be the last guard", g.span)
        cond = None if g.cond is None else checker.boolean(g.cond, "a guard")
        body = coerce(checker.check(g.body, sig.ret), sig.ret, f"the result of '{fd.name}'",
                      g.body.span)
        for part in (cond, body):
            if part is not None:
                words.refuse_whole_words(part)
        guards.append(tir.TGuard(cond, body, g.span))
    params = tuple(tir.TParam(n, t, r, p.span, _range(sig, k, scope, consts or {}),
                              _direction(sig, k))
                   for k, ((n, t, r), p) in enumerate(zip(sig.params, fd.params)))
    return tir.TFunction(fd.name, params, sig.ret, tuple(guards), is_table, fd.span,
                         tuple(checker.links))


def _direction(sig: Signature, k: int) -> str | None:
    """The declared direction of parameter ``k``: only a recursive ``int`` or
    ``index[s]`` one (a position that calls can move along) takes one."""
    p = sig.node.params[k]
    name, t, rec = sig.params[k]
    if p.direction is not None and not (rec and (t == T.INT or isinstance(t, T.IndexT))):
        raise DslcError(f"only a recursive int or index parameter takes a direction, not "
                        f"'{name}' ({p.type})", p.span)
    return p.direction


def _range(sig: Signature, k: int, scope: Scope, consts: dict):
    """The checked ``lo ... hi`` of parameter ``k`` (an ``int``), seeing only the
    parameters declared before it. ``len(w)`` of a constant array is its length, a
    number, from here on (``int i in 0 ... len(w) - 1``)."""
    p = sig.node.params[k]
    if p.range is None:
        return None
    name, t, rec = sig.params[k]
    if not (rec and t == T.INT):
        raise DslcError(f"only an int parameter takes a declared range, not '{name}' "
                        f"({p.type})", p.span)
    earlier = dataclasses.replace(sig, params=sig.params[:k])
    checker = ExprChecker(dataclasses.replace(scope, sig=earlier))
    out = tuple(fold_array_lengths(coerce(checker.check(b, T.INT), T.INT,
                                          f"the range of '{name}'", b.span), consts)
                for b in p.range)
    for b in out:
        check_bound(b, {n: bt for n, bt, _ in earlier.params})
    return out


def _what(st) -> str:
    """What a definition statement defines, for messages."""
    match st:
        case ast.ConstDef():
            return "constant"
        case ast.FuncDef():
            return "function"
        case ast.DefineBlock():
            return st.kind
    return "definition"


def _first_at(first, st) -> str:
    """Where the first of two definitions is: its line in the same file, or its
    ``file:line:col`` where an import brought one of them from another file."""
    if first.span.file == st.span.file:
        return f"line {first.span.line}"
    return str(first.span)


def _unique_definitions(stmts) -> None:
    """A name is defined once in a script: a second definition is refused at the
    second, naming the first (which of the two would the script mean, and which
    would -D override?). Alphabets have their own names; constants, functions and
    ``define`` blocks (matrices, models, ...) share one; a function has at most
    one ``schedule``. The standard library's names (``dna``, ``blosum62``, ...)
    are not the script's: a script may define its own once."""
    alphabets: dict[str, ast.DefineAlphabet] = {}
    values: dict[str, ast.Stmt] = {}
    schedules: dict[str, ast.ScheduleDef] = {}
    for st in stmts:
        match st:
            case ast.DefineAlphabet():
                first, alphabets[st.name] = alphabets.get(st.name), st
                what = "alphabet"
            case ast.ScheduleDef():
                first, schedules[st.func] = schedules.get(st.func), st
                if first is not None:
                    raise DslcError(f"function '{st.func}' has two schedules (first at "
                                    f"{_first_at(first, st)})", st.span,
                                    hint=f"the first schedule is at {first.span}; keep one")
                continue
            case ast.ConstDef() | ast.FuncDef() | ast.DefineBlock():
                first, values[st.name] = values.get(st.name), st
                what = _what(st)
            case _:
                continue
        if first is None:
            continue
        at = _first_at(first, st)
        if what == _what(first) or isinstance(st, ast.DefineAlphabet):
            msg = f"{what} '{st.name}' is defined twice (first at {at})"
        else:
            msg = (f"'{st.name}' is defined twice (first at {at}, as a {_what(first)}; "
                   f"here as a {what})")
        raise DslcError(msg, st.span, hint=f"the first definition is at {first.span}; "
                                           "rename one of them")


def _check_schedule_target(sd: ast.ScheduleDef, sigs: dict[str, Signature], tables: set) -> None:
    sig = sigs.get(sd.func)
    if sig is None:
        raise DslcError(f"schedule for an undefined function '{sd.func}'", sd.span)
    if sd.func not in tables:
        raise DslcError(f"'{sd.func}' is not recursive, so it has no table to schedule", sd.span)
    if len(sd.params) != len(sig.rec_names):
        raise DslcError(f"schedule {sd.func}(...) must name its {len(sig.rec_names)} recursive "
                        f"parameters ({', '.join(sig.rec_names)})", sd.span)
