"""The register-tiled kernel's device functions (dslc.emit.tiles): what each is
passed is what the task's prologue assigns, by the generator's own record.
Generation only: no kernel is compiled or run here."""

from __future__ import annotations

import ast
import builtins
from dataclasses import replace

import pytest

import dslc
from dslc.emit.strategies import build, strategy
from dslc.plan import lower
from dslc.runtime.binding import bind_call
from tests.test_properties import GOTOH

# A reduction bound nested deeper than an expression's text may be
# (pyexpr.HOIST_HEIGHT): computing it leaves a temporary in the task's prologue,
# which no tile reads.
BOUNDED = """
int f0(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i < 2 or j < 2 = i + j
  | otherwise = f0(i - 1, j - 1) + 1 max f0(i - 1, j) max f0(i, j - 1) - 1
int top(seq[dna] s, seq[dna] t) =
    max(i in 0 ... len(s)""" + " - 1 + 1" * 25 + """ : max(j in 0 ... len(t) : f0(i, j)))
"""


def _generator(source: str, entry: str, values: list, kind: str, request=None,
               tiled=None):
    """A float32 register tile of 2 rows for the case and its generated source
    (the generator then holds its tile functions' records); ``tiled``: the table's
    row of the strategy, where not the table's own."""
    prog = dslc.compile(source, backend="interp")
    args = bind_call(prog.checked.functions[entry], values, prog.checked, None) \
        if kind == "value" else values
    plan = lower(prog.checked, entry, kind, args, request).task
    gen = build(tiled or strategy("cuda register-tiled"), prog.checked, plan, frozenset({"s"}),
                rows=2, dtype="float32")
    return gen, gen.generate()[0]


def _generated(source: str, entry: str, values: list, kind: str, request=None, tiled=None):
    return ast.parse(_generator(source, entry, values, kind, request, tiled)[1])


def _cases():
    prog = dslc.compile(GOTOH, backend="interp")
    blosum = prog.checked.defined["blosum62"]
    sw = bind_call(prog.checked.functions["sw"], [blosum, 10, 1, "HEAGAW", "PAWHE"],
                   prog.checked, None)
    return [[GOTOH, "sw", [blosum, 10, 1, "HEAGAW", "PAWHE"], "value", None],
            [GOTOH, "h", sw, "cell", (3, 2)],
            [BOUNDED, "top", ["ACGTA", "ACG"], "value", None]]


def _assigned(statements) -> list[str]:
    """Names assigned by the statements themselves (not inside a loop or a test)."""
    return [n.id for st in statements if isinstance(st, ast.Assign)
            for t in st.targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])
            if isinstance(n, ast.Name)]


def _free(fn: ast.FunctionDef) -> set[str]:
    """Names a function reads that it neither takes nor assigns."""
    stored = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)} | {a.arg for a in fn.args.args}
    return {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)} - stored


@pytest.mark.parametrize("case", range(3))
def test_tile_functions_take_the_task_parameters_and_the_prologue_names(case):
    """A tile function takes the task's parameters, each name the task assigns
    before its tile loop (not the temporaries an expression left there: no
    tile reads them), and ``t0``; every name it reads that is not its own or
    the module's is one of those."""
    source, entry, values, kind, request = _cases()[case]
    module = _generated(source, entry, values, kind, request)
    functions = {f.name: f for f in module.body if isinstance(f, ast.FunctionDef)}
    task = functions["task"]
    tiles = {n: f for n, f in functions.items() if n.startswith("_tile_")}
    assert {"_tile_inner", "_tile_edge"} <= set(tiles), sorted(functions)
    loop = next(k for k, st in enumerate(task.body)
                if isinstance(st, ast.For) and st.target.id == "t0")
    prologue = [n for n in dict.fromkeys(_assigned(task.body[:loop]))
                if not n.startswith("_")]  # a temporary: Lines.fresh's "_stemN"
    expected = list(dict.fromkeys([a.arg for a in task.args.args] + prologue + ["t0"]))
    module_names = set(_assigned(module.body)) | set(functions) | set(dir(builtins)) | {
        n.asname or n.name.split(".")[0] for st in module.body
        if isinstance(st, (ast.Import, ast.ImportFrom)) for n in st.names}
    for name, fn in tiles.items():
        assert [a.arg for a in fn.args.args] == expected, name
        assert _free(fn) <= module_names | set(expected), (name, _free(fn) - module_names)


def test_every_read_of_the_tiled_group_reaches_the_register_tile_pass():
    """The generator leaves where a read is held to the strategy's register-tile pass
    (kernel.register_tile): each tile function holds its reads as records until that
    pass, none after it, and the source is the same."""
    from dslc.kernel import strategies as ks
    from dslc.kernel.register_tile import reads, scalar_replace

    source, entry, values, kind, request = _cases()[0]
    plain = ast.dump(_generated(source, entry, values, kind, request))
    seen = []

    def counted(stmts, tile):
        seen.append(len(reads(stmts)))
        out = scalar_replace(stmts, tile)
        assert not reads(out)
        return out
    tiled = strategy("cuda register-tiled")
    counting = replace(tiled, body=tuple(replace(p, run=counted) if p is ks.REGISTER_TILE
                                         else p for p in tiled.body))
    assert ast.dump(_generated(source, entry, values, kind, request, counting)) == plain
    assert seen[0] == 0 and len(seen) == 4 and min(seen[1:]) > 0, seen  # the task; 3 tiles


# c reads three rows back: past the previous tile where a tile has fewer rows
DEEP = """
int c(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i < 3 or j < 1 = i + j
  | otherwise = max(c(i - 3, j) + 1, c(i, j - 1) - 1)
int top(seq[dna] s, seq[dna] t) = max(i in 0 ... len(s) : max(j in 0 ... len(t) : c(i, j)))
"""


def test_a_tile_shorter_than_a_read_reaches_back_is_refused_not_an_internal_error():
    """Only the previous tile's last rows are kept: a read further back than a tile's
    rows has nowhere to be held, and the generator says so (the backend then runs
    the plain task-per-thread kernel)."""
    from dslc.emit.pyexpr import NotCompilable

    prog = dslc.compile(DEEP, backend="interp")
    args = bind_call(prog.checked.functions["top"], ["ACGTAC", "ACGGA"], prog.checked, None)
    plan = lower(prog.checked, "top", "value", args, None).task
    with pytest.raises(NotCompilable, match="3 rows back"):
        build(strategy("cuda register-tiled"), prog.checked, plan, frozenset({"s"}),
              rows=2).generate()
    assert build(strategy("cuda register-tiled"), prog.checked, plan, frozenset({"s"}),
                 rows=3).generate()


def test_the_tile_functions_call_their_head_and_return_through_records():
    """A tile function's call of the peeled head columns and its return assign and
    return several names at once as records (kernel.ir ``Assign`` to a tuple, a bare
    ``Tuple`` returned), not text: the verifier reads the names they hand over."""
    from dslc.kernel import body as kb
    from dslc.kernel import ir
    gen = _generator(*_cases()[0])[0]
    functions = {fn.name: fn.body.stmts for fn in gen.functions}
    assert all(isinstance(body[-1], kb.Return) for body in functions.values())
    heads = [s for s in functions["_tile_inner"] if isinstance(s, ir.Assign)
             and isinstance(s.value, ir.Call) and s.value.fn == "_tile_head"]
    assert len(heads) == 1 and isinstance(heads[0].target, tuple)
    assert isinstance(functions["_tile_head"][-1].value, ir.Tuple)
    assert not any(isinstance(s, kb.Line) and s.text.startswith("return")
                   for body in functions.values() for s in ir.walk(body))


def test_the_fused_reductions_step_and_bound_tests_are_records():
    """The fused reduction's step (``acc0 = _fmax(acc0, _val3)``) and its bound tests
    are records, not text lines: the verifier reads the accumulator, the cell's value
    and the bounds (a tile function that did not take ``acc0`` is refused)."""
    from dslc.errors import InternalError
    from dslc.kernel import body as kb
    from dslc.kernel import ir
    from dslc.kernel.verify import verify_body
    gen = _generator(*_cases()[2])[0]
    fn = next(fn for fn in gen.functions if fn.name == "_tile_inner")
    stmts = list(ir.walk(fn.body.stmts))
    assert not any(isinstance(s, kb.Line) for s in stmts)
    steps = [s for s in stmts if isinstance(s, ir.Assign) and s.target == "acc0"]
    assert steps and all(s.value == ir.Call("_fmax", (ir.Name("acc0"), s.value.args[1]))
                         and isinstance(s.value.args[1], ir.Name) for s in steps)
    verify_body(tuple(fn.body.stmts), "cuda", fn.known)
    with pytest.raises(InternalError, match="acc0 read before it is defined"):
        verify_body(tuple(fn.body.stmts), "cuda", [n for n in fn.known if n != "acc0"])
