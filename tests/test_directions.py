"""Declared directions (``int m decreasing``): a data-dependent call bounded by the
declaration gets an affine schedule on the compiled backends, the declaration is
checked at run time on every backend, and a call that breaks it is the interpreter's
error everywhere."""

from __future__ import annotations

import json

import pytest

import dslc
from dslc.cli import main
from dslc.errors import DslcError
from tests import reference as ref
from tests.conftest import EXAMPLES
from tests.test_data_dependent import (COIN, HOFSTADTER, SQUARES, _compiled_everywhere,
                                       fresh_cpu)

COIN_DECLARED = COIN.replace("int ways(int i, int m)", "int ways(int i, int m decreasing)")
SQUARES_DECLARED = SQUARES.replace("int sq(int n)", "int sq(int n decreasing)")
HOFSTADTER_DECLARED = HOFSTADTER.replace("int q(int n)", "int q(int n decreasing)")

# a mutual group: each function compares with the caller's i of the same name
MUTUAL = """
define alphabet dna "ACGT"
int jump(symbol[dna] c) = if c == 'A' then 1 else if c == 'C' then 2 else 3

int f(seq[dna] s, index[s] i decreasing)
  | i < 3 = i
  | otherwise = g(i - jump(s[i - 1])) + 1 max f(i - 1)

int g(seq[dna] s, index[s] i decreasing)
  | i == 0 = 0
  | otherwise = f(i - 1) + 2
"""

# sq(n - k * k + 1) passes n itself for k = 1: the declaration is broken
SQUARES_BROKEN = SQUARES_DECLARED.replace("sq(n - k * k)", "sq(n - k * k + 1)")

# f(0, 3) breaks the declaration (m + 0 * h(m) is not m passed on), but the interpreter
# never asks for it: the compiled sweep meets it and must still give the value
UNREACHED = """
int h(int m) = 0

int f(int i, int m decreasing)
  | i == 0 = (if m == 3 then f(i, m + 0 * h(m)) else m)
  | otherwise = f(i - 1, m - 1 - h(m))
"""


def test_declarations_are_written():
    assert COIN_DECLARED != COIN and SQUARES_DECLARED != SQUARES
    assert HOFSTADTER_DECLARED != HOFSTADTER


@pytest.mark.parametrize("src, func, args, want", [
    (COIN_DECLARED, "ways", (6, 100), ref.coin_change_ways([1, 2, 5, 10, 20, 50], 100)),
    (COIN_DECLARED, "ways", (3, 7), 6),
    (SQUARES_DECLARED, "sq", (43,), ref.fewest_squares(43)),
    (SQUARES_DECLARED, "sq", (0,), 0),
    (HOFSTADTER_DECLARED, "q", (200,), ref.hofstadter_q(200)),
], ids=["coin100", "coin7", "sq43", "sq0", "q200"])
def test_declared_programs_equal_interpreter(backend, src, func, args, want):
    prog = dslc.compile(src, backend=backend)
    assert prog.call(func, *args) == want
    assert dslc.compile(src, backend="interp").call(func, *args) == want
    _compiled_everywhere(prog, func)


def test_map_runs_compiled(backend):
    prog = dslc.compile(SQUARES_DECLARED, backend=backend)
    ns = [3, 12, 43, 0]
    assert prog.map("sq", ns).values.ravel().tolist() == [ref.fewest_squares(n) for n in ns]
    _compiled_everywhere(prog, "sq")


def test_mutual_group(backend):
    seq = "GATTACAGATTACA"
    want = dslc.compile(MUTUAL, backend="interp").call("f", seq)
    prog = dslc.compile(MUTUAL, backend=backend)
    assert prog.call("f", seq).values.tolist() == want.values.tolist()
    _compiled_everywhere(prog, "f")


@pytest.mark.parametrize("src, func, coeffs", [(COIN_DECLARED, "ways", None),
                                                (SQUARES_DECLARED, "sq", (1,))])
def test_declaration_gives_an_affine_schedule(src, func, coeffs):
    prog = fresh_cpu(src)
    prog.call(func, *((3, 7) if func == "ways" else (12,)))
    (g,) = prog._engine().generated[func][0].groups
    assert g.strategy == "affine" and g.schedule is not None
    if coeffs is not None:
        assert g.schedule.coeffs == coeffs


def test_explain_shows_the_schedule_and_the_declaration(write_bio, capsys):
    path = write_bio(COIN_DECLARED + "print ways(6, 100)\n")
    assert main(["explain", str(path)]) == 0
    text = capsys.readouterr().out
    assert "ways: S = " in text and "evaluated on demand" not in text
    assert "-> ways(i, _d0), _d0 < m" in text
    assert "relies on the declaration 'm decreasing' of ways" in text
    assert main(["explain", str(path), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ways"]["schedule"] and rep["ways"].get("strategy") != "demand"
    declared = [x for d in rep["ways"]["dependences"] for x in d.get("declared", ())]
    assert declared == [{"var": "_d0", "param": "m", "direction": "decreasing"}]


def test_explain_of_undeclared_examples_has_no_declared_key(capsys):
    assert main(["explain", str(EXAMPLES / "knapsack.bio"), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert all("declared" not in d for r in rep.values() if isinstance(r, dict)
               for d in r.get("dependences", ()))


def test_a_broken_declaration_is_the_same_error_everywhere(backend):
    with pytest.raises(DslcError) as want:
        dslc.compile(SQUARES_BROKEN, backend="interp").call("sq", 5)
    assert want.value.message.startswith(
        "recursive argument n = 5 is not below the caller's n = 5, as its declaration "
        "'n decreasing' says, in the call sq(n - k * k + 1)")
    with pytest.raises(DslcError) as got:
        dslc.compile(SQUARES_BROKEN, backend=backend).call("sq", 5)
    assert got.value.message == want.value.message
    with pytest.raises(DslcError) as got_map:
        dslc.compile(SQUARES_BROKEN, backend=backend).map("sq", [0, 5])
    assert got_map.value.message.startswith(want.value.message)


def test_a_broken_declaration_the_interpreter_never_meets(backend):
    want = dslc.compile(UNREACHED, backend="interp").call("f", 1, 3)
    assert want == 2
    assert dslc.compile(UNREACHED, backend=backend).call("f", 1, 3) == want


def test_increasing(backend):
    src = """
define alphabet dna "ACGT"
int jump(symbol[dna] c) = if c == 'A' then 1 else if c == 'C' then 2 else 3

int f(seq[dna] s, index[s] i increasing)
  | i + 3 > len(s) = 0
  | otherwise = f(i + jump(s[i])) + 1
"""
    seq = "GATTACAGATTACACCGT"
    want = dslc.compile(src, backend="interp").call("f", seq, 0)
    prog = dslc.compile(src, backend=backend)
    assert prog.call("f", seq, 0) == want == 7
    _compiled_everywhere(prog, "f")
    broken = src.replace("f(i + jump(s[i]))", "f(i + jump(s[i]) - 1)")
    with pytest.raises(DslcError) as err:
        dslc.compile(broken, backend=backend).call("f", seq, 0)
    assert err.value.message.startswith("recursive argument i = 4 is not above the caller's "
                                        "i = 4")


def test_passing_the_parameter_on_is_allowed():
    # ways(i - 1, m) passes m on unchanged: the declaration allows it
    assert dslc.compile(COIN_DECLARED, backend="interp").call("ways", 2, 4) == 3


def test_decreasing_is_still_a_name():
    src = """
int decreasing(int increasing) = increasing + 1
int f(int decreasing) = decreasing * 2
"""
    prog = dslc.compile(src, backend="interp")
    assert prog.call("decreasing", 2) == 3 and prog.call("f", 4) == 8


@pytest.mark.parametrize("src, message", [
    ("int f(int n bigger)\n  | n == 0 = 0\n  | otherwise = f(n - 1)\n",
     "'bigger' after the parameter 'n': expected ',', ')' or a direction"),
    ("float f(float x decreasing) = x\n",
     "only a recursive int or index parameter takes a direction, not 'x'"),
    ("int f(const k decreasing) = 1\n", "expected"),
    ("int f(int n decreasing)\n  | n == 0 = 0\n  | otherwise = g(n - 1, 0)\n"
     "int g(int a, int b)\n  | a == 0 = 0\n  | otherwise = f(a - 1)\n",
     "'f' declares its parameter n decreasing, but 'g' calls it and has no recursive "
     "parameter n"),
])
def test_declaration_errors(src, message):
    with pytest.raises(DslcError, match=message.replace("(", r"\(").replace(")", r"\)")):
        dslc.compile(src, backend="interp")


def test_a_reduction_variable_does_not_stand_for_the_caller(backend):
    # the reduction's n shadows the parameter; the declaration compares with the cell's n
    src = """
int sq(int n decreasing)
  | n < 5 = n
  | otherwise = min(n in 0 ... 3 : sq(4) + n)
"""
    assert dslc.compile(src, backend=backend).call("sq", 5) == 4
