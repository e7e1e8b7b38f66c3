"""The typed IR's and the loop IR's verifiers (dslc.check.verify, dslc.poly.verify):
each refuses IR broken on purpose, one rule at a time, and passes every example and
random recurrences. (tests/conftest.py sets DSLC_VERIFY_IR=1, so every program any
test compiles is verified as it is built, too.)"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings

import dslc
from dslc import settings as dslc_settings
from dslc.check import tir
from dslc.check.program import check_program
from dslc.check.verify import verify_functions
from dslc.errors import InternalError, NotCompilable, Span
from dslc.frontend.parser import parse
from dslc.lang import types as T
from dslc.plan import lower
from dslc.poly import loopir as L
from dslc.poly.verify import verify_nest
from tests.conftest import EXAMPLES
from tests.generators import recurrences

SP = Span("v.bio", 1, 1)


def checked(source: str):
    return check_program(parse(source, "v.bio"))


def verify(c) -> None:
    verify_functions(c.functions, c.global_types, c.alphabets)


def test_the_tests_verify_every_stage():
    assert dslc_settings.verify_ir()


# --------------------------------------------------------------------------- typed IR

SOURCE = """
const k = 2
int f(seq[dna] s, index[s] i)
  | i == 0 = k
  | otherwise = f(i - 1) + 1
int g(int n) = sum(j in 0...n : j * k)
"""


@pytest.fixture(scope="module")
def good():
    c = checked(SOURCE)
    verify(c)
    return c


def broken(c, name: str, *, guards=None, params=None):
    f = c.functions[name]
    g = dataclasses.replace(f, guards=f.guards if guards is None else guards,
                            params=f.params if params is None else params)
    return {**c.functions, name: g}


def refused(c, functions, words: str) -> None:
    with pytest.raises(InternalError, match=words):
        verify_functions(functions, c.global_types, c.alphabets)


def test_an_unbound_parameter_is_refused(good):
    f = good.functions["f"]
    body = tir.Var("nope", "param", T.INT, SP)
    refused(good, broken(good, "f", guards=(f.guards[0], tir.TGuard(None, body, SP))),
            "nope is no parameter")


def test_a_reduction_variable_outside_its_reduction_is_refused(good):
    refused(good, broken(good, "g", guards=(tir.TGuard(None, tir.Var("j", "local", T.INT, SP),
                                                       SP),)), "bound by no reduction")


def test_an_unknown_global_and_a_wrong_type_are_refused(good):
    f = good.functions["g"]
    for var, words in [(tir.Var("zz", "global", T.INT, SP), "no name of the script"),
                       (tir.Var("k", "global", T.FLOAT, SP), "read as float"),
                       (tir.Var("n", "param", T.FLOAT, SP), "read as float")]:
        refused(good, broken(good, "g", guards=(tir.TGuard(None, var, SP),)), words)
    assert f  # (the original stays as it was: frozen IR)


def test_mixed_operand_types_are_refused(good):
    bad = tir.Arith("+", tir.Lit(1, T.INT, SP), tir.Lit(1.0, T.FLOAT, SP), T.INT, SP)
    refused(good, broken(good, "g", guards=(tir.TGuard(None, bad, SP),)), "'\\+' of int and float")


def test_a_narrowing_coercion_is_refused(good):
    bad = tir.Coerce(tir.Lit(1.0, T.FLOAT, SP), T.INT, SP)
    refused(good, broken(good, "g", guards=(tir.TGuard(None, bad, SP),)), "coercion from float")


def test_guards_otherwise_last_and_boolean_conditions(good):
    f = good.functions["f"]
    refused(good, broken(good, "f", guards=f.guards[:1]), "no 'otherwise' last")
    refused(good, broken(good, "f", guards=(f.guards[1], f.guards[1])), "'otherwise' not last")
    not_bool = tir.TGuard(tir.Lit(1, T.INT, SP), f.guards[0].body, SP)
    refused(good, broken(good, "f", guards=(not_bool, f.guards[1])), "not bool")


def test_a_guard_of_another_type_than_the_function_is_refused(good):
    f = good.functions["g"]
    bad = tir.TGuard(None, tir.Lit(True, T.BOOL, SP), SP)
    refused(good, broken(good, "g", guards=(bad,)), "the function returns int")
    assert f.ret == T.INT


def test_calls_need_a_function_its_arity_and_inherited_calling_arguments(good):
    f = good.functions["f"]
    call = next(e for e in tir.walk(f.guards[1].body) if isinstance(e, tir.Call))
    for bad, words in [(dataclasses.replace(call, func="h"), "no function of the program"),
                       (dataclasses.replace(call, args=call.args[:1]), "with 1 arguments"),
                       (dataclasses.replace(call, type=T.FLOAT), "typed float"),
                       (dataclasses.replace(call, args=(tir.Var("k", "global", T.INT, SP),)
                                            + call.args[1:]),
                        "calling argument s not inherited")]:
        refused(good, broken(good, "f", guards=(f.guards[0], tir.TGuard(None, bad, SP))), words)


def test_a_parameter_named_twice_is_refused(good):
    f = good.functions["g"]
    refused(good, broken(good, "g", params=f.params + f.params), "named twice")


# --------------------------------------------------------------------------- loop IR

def nest(body, params=("E",)):
    return L.LoopNest(body, params, "c0")


def call(*args):
    return L.Call("f", args)


GOOD = nest(L.For("c0", L.Const(0), L.Var("E"),
                  L.For("c1", L.Max((L.Const(0), L.Sub(L.Var("c0"), L.Var("E")))),
                        L.Min((L.Var("c0"), L.FloorDiv(L.Var("E"), L.Const(2)))),
                        L.Guard(L.Cmp("<=", L.Var("c1"), L.Var("c0")),
                                call(L.Var("c1"), L.Sub(L.Var("c0"), L.Var("c1"))))),
                  "partition"))


def test_a_well_formed_nest_passes():
    assert verify_nest(GOOD, {"f": 2}) is GOOD


@pytest.mark.parametrize("bad, words", [
    (nest(L.For("c0", L.Const(0), L.Var("x"), call(L.Var("c0")), "partition")),
     "reads x, bound by no loop"),
    (nest(L.Body((L.For("c0", L.Const(0), L.Var("E"), call(L.Var("c0")), "partition"),
                  call(L.Var("c0"))))), "reads c0"),
    (nest(L.For("c0", L.Const(0), L.Var("E"), L.For("c0", L.Const(0), L.Var("E"),
                                                    call(L.Var("c0"))), "partition")),
     "inside a loop or parameter"),
    (nest(L.For("E", L.Const(0), L.Const(3), call(L.Var("E")))), "inside a loop or parameter"),
    (nest(L.For("c0", L.Const(0), L.Var("E"), call(L.Var("c0")), "partition", 0)), "steps by 0"),
    (nest(L.For("c0", L.Const(0), L.Var("E"), call(L.Var("c0")), "parallel")),
     "the partition variable is c0"),
    (nest(L.For("c0", L.Const(0), L.Var("E"), call(L.Var("c0")), "sideways")), "unknown kind"),
    (nest(L.For("c0", L.Const(0), L.FloorDiv(L.Var("E"), L.Var("E")), call(L.Var("c0")),
                "partition")), "not a positive constant"),
    (nest(L.Guard(L.Var("E"), call(L.Const(0)))), "no comparison"),
    (nest(L.For("c0", L.Const(0), L.Min(()), call(L.Var("c0")), "partition")), "of nothing"),
    (nest(call(L.Const(0), L.Const(1), L.Const(2))), "at 3 coordinates"),
    (nest(call(L.Const(1.5), L.Const(0))), "no integer"),
    (nest(L.Body((call(L.Const(0), L.Const(0)), "f(0, 0)"))), "no loop IR statement"),
    (L.LoopNest(call(L.Const(0), L.Const(0)), ("E", "E"), "c0"), "named twice"),
])
def test_a_broken_nest_is_refused(bad, words):
    with pytest.raises(InternalError, match=words):
        verify_nest(bad, {"f": 2} if "coordinates" in words else None)


# --------------------------------------------------------------------------- across programs

@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.bio")), ids=lambda p: p.stem)
def test_every_example_verifies_at_both_levels(path):
    prog = dslc.compile(str(path), backend="interp")
    c = prog.checked
    verify(c)
    nests = 0
    for f in c.functions.values():
        if not f.is_table:
            continue
        try:
            low = lower(c, f.name, "table", {}, assumed=4)
        except NotCompilable:  # (evaluated on demand: no loop nest)
            continue
        for g in low.groups:
            for n in (g.nest, g.box_nest):
                if n is not None:
                    verify_nest(n, {fn: len(c.functions[fn].rec_params) for fn in g.functions})
                    nests += 1
    assert nests or all(not f.is_table for f in c.functions.values()) or path.stem in (
        "coin_change", "fewest_squares", "hofstadter_q")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recurrences())
def test_random_recurrences_verify(rec):
    c = checked(rec.source())
    verify(c)
    for grp in tir.groups(c.functions):
        low = lower(c, grp[0], "table", {}, assumed=3)
        for g in low.groups:
            if g.nest is not None:
                verify_nest(g.nest)
