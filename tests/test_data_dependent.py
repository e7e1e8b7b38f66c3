"""Calls whose offsets depend on data (coin change, 0/1 knapsack, fewest
squares, Hofstadter's Q, random recurrences of that kind): every backend gives
the interpreter's value or error, compiled (no interpreter fallback), in an
order the planner records and ``dslc explain`` shows."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import dslc
from dslc.errors import DslcError
from tests import reference as ref
from tests.conftest import EXAMPLES
from tests.generators import data_recurrences

COIN = (EXAMPLES / "coin_change.bio").read_text().split("print")[0]
KNAPSACK = (EXAMPLES / "knapsack.bio").read_text().split("print")[0]
SQUARES = (EXAMPLES / "fewest_squares.bio").read_text().split("print")[0]
HOFSTADTER = (EXAMPLES / "hofstadter_q.bio").read_text().split("print")[0]

CASES = [  # (source, function, arguments, independent value)
    (COIN, "ways", (6, 100), ref.coin_change_ways([1, 2, 5, 10, 20, 50], 100)),
    (COIN, "ways", (4, 37), ref.coin_change_ways([1, 2, 5, 10], 37)),
    (COIN, "ways", (2, 0), 1),
    (KNAPSACK, "best", (5, 15), ref.knapsack([12, 2, 1, 1, 4], [4, 2, 1, 2, 10], 15)),
    (KNAPSACK, "best", (3, 2), ref.knapsack([12, 2, 1], [4, 2, 1], 2)),
    (SQUARES, "sq", (43,), ref.fewest_squares(43)),
    (SQUARES, "sq", (0,), 0),
    (HOFSTADTER, "q", (300,), ref.hofstadter_q(300)),
    (HOFSTADTER, "q", (1,), 1),
]


def fresh_cpu(src: str):
    """A CPU program that plans afresh (no disk cache), so its plan can be read."""
    prog = dslc.compile(src, backend="cpu")
    prog._engine().disk_cache = False
    return prog


def _compiled_everywhere(prog, func: str) -> None:
    """The compiled backends ran ``func`` as generated code, not the interpreter."""
    engine = prog._engine()
    assert func not in getattr(engine, "fallbacks", {}), engine.fallbacks


@pytest.mark.parametrize("src, func, args, want", CASES,
                         ids=[f"{f}{a}" for _, f, a, _ in CASES])
def test_programs_equal_interpreter(backend, src, func, args, want):
    prog = dslc.compile(src, backend=backend)
    assert prog.call(func, *args) == want
    _compiled_everywhere(prog, func)


def test_map_of_data_dependent_tasks(backend):
    prog = dslc.compile(SQUARES, backend=backend)
    ns = [3, 12, 43, 100, 0]
    assert prog.map("sq", ns).values.ravel().tolist() == [ref.fewest_squares(n) for n in ns]
    _compiled_everywhere(prog, "sq")


def test_knapsack_index_from_a_helper_compiles():
    # c - weight(i - 1) is an int64 index in generated code (a float index
    # failed Numba's typing before)
    prog = fresh_cpu(KNAPSACK)
    assert prog.call("best", 5, 15) == 15
    plan, source = prog._engine().generated["best"]
    assert plan.groups[0].strategy == "affine" and plan.groups[0].schedule.coeffs == (1, 0)
    # (the difference checked against 2^53 first: a helper's value is outside the
    # linear argument, emit.pyexpr.ExprEmitter.exact)
    assert "_to_index(_inexact((float(x_c) - fn_weight(" in source


def test_strategy_and_reason_are_recorded():
    prog = fresh_cpu(HOFSTADTER)
    assert prog.call("q", 50) == ref.hofstadter_q(50)
    (g,) = prog._engine().generated["q"][0].groups
    assert g.on_demand and g.schedule is None
    assert g.reason.startswith("the offsets of q(?) depend on data")


CYCLE = """
int q(int n)
  | n <= 2 = 1
  | otherwise = q(n - q(n - 1) + 1)
"""

OUTSIDE = """
int q(int n)
  | n <= 2 = 1
  | otherwise = q(n - q(n - 1) - 5)
"""


@pytest.mark.parametrize("src", [CYCLE, OUTSIDE], ids=["cycle", "outside"])
def test_errors_are_the_interpreters(backend, src):
    with pytest.raises(DslcError) as want:
        dslc.compile(src, backend="interp").call("q", 6)
    with pytest.raises(DslcError) as got:
        dslc.compile(src, backend=backend).call("q", 6)
    assert got.value.message == want.value.message


def test_a_placeholder_never_reports_an_error():
    # q(n - 1) is not known on the first try: its placeholder 0 makes the next
    # argument n + 3, outside the domain, but only the real value decides
    src = """
int q(int n)
  | n <= 1 = 1
  | otherwise = q(n - 3 * q(n - 1) + 2)
"""
    want = dslc.compile(src, backend="interp").call("q", 40)
    prog = dslc.compile(src, backend="cpu")
    assert prog.call("q", 40) == want
    _compiled_everywhere(prog, "q")


def test_user_schedule_over_data_dependent_calls_is_accepted(backend, write_bio):
    path = write_bio("schedule sq(n) = n\n" + SQUARES + "print sq(43)\n")
    from dslc.cli import main

    assert main(["run", str(path), "--backend", backend, "--quiet"]) == 0


def test_user_schedule_broken_by_an_affine_call_is_still_an_error():
    src = """
schedule best(i, c) = c
""" + KNAPSACK
    with pytest.raises(DslcError, match="not valid for the call best"):
        dslc.compile(src, backend="cpu").call("best", 5, 15)


def test_explain_says_which_and_why(capsys):
    import json

    from dslc.cli import main

    assert main(["explain", str(EXAMPLES / "coin_change.bio"), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["ways"]["strategy"] == "demand" and rep["ways"]["schedule"] is None
    assert "ways(i, ?) depend on data" in rep["ways"]["why"]
    assert main(["explain", str(EXAMPLES / "hofstadter_q.bio")]) == 0
    text = capsys.readouterr().out
    assert "q: evaluated on demand (no schedule)" in text and "order: found at run time" in text


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rec=data_recurrences())
def test_random_data_dependent_recurrences(backend, rec):
    prog = dslc.compile(rec.source(), backend=backend)
    assert prog.call("f0", *rec.point) == rec.evaluate(), rec.source()
    _compiled_everywhere(prog, "f0")


MUTUAL = """
define alphabet dna "ACGT"
int jump(symbol[dna] c) = if c == 'A' then 1 else if c == 'C' then 2 else 3

int f(seq[dna] s, index[s] i)
  | i < 3 = i
  | otherwise = g(i - jump(s[i - 1])) + 1 max f(i - 1)

int g(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = f(i - 1) + (if odd(i - 1) then 2 else 0)

bool odd(seq[dna] s, index[s] i)
  | i == 0 = false
  | otherwise = not odd(i - 1 - f(i - 1) % 2 * 0)
"""


def test_whole_table_of_a_mutual_group_with_a_bool_table(backend):
    # three functions evaluated on demand together, one of them a bool table,
    # the whole table asked for (every cell demanded in order)
    want = dslc.compile(MUTUAL, backend="interp").call("f", "GATTACAGATTACA")
    prog = dslc.compile(MUTUAL, backend=backend)
    assert prog.call("f", "GATTACAGATTACA").values.tolist() == want.values.tolist()
    assert prog.call("f", "ACGTTGCA", 8) == dslc.compile(MUTUAL, backend="interp").call(
        "f", "ACGTTGCA", 8)
    _compiled_everywhere(prog, "f")
