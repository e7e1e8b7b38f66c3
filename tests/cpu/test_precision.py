"""The float32 choice (dslc.emit.precision): which plans qualify, and the bound.

The argument itself is in the module docstring; these tests pin down the
classification on small programs and check the static bound against values the
interpreter actually reaches."""

from __future__ import annotations

import pytest

import dslc
from dslc.plan import lower
from dslc.emit.precision import STATIC, float32_info
from dslc.runtime.binding import bind_call



def _plan(src: str, entry: str, args: list, kind: str = "value"):
    prog = dslc.compile(src, backend="interp")
    c = prog.checked
    f = c.functions[entry]
    bound = bind_call(f, args, c, None)
    scope = {p.name: bound[p.name] for p in (f.calling_params if f.is_table else f.params)}
    request = tuple(bound[p.name] for p in f.rec_params) if f.is_table else None
    return c, lower(c, entry, kind, scope, request).task


LINEAR = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = g(i - 1) + (if s[i - 1] == 'A' then 3 else -2) max 0
int best(seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""

TWO_READS = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 1
  | otherwise = g(i - 1) + g(i - 1)
int best(seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""

PRODUCT = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 1
  | otherwise = g(i - 1) * 2
int best(seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""

SUMMED = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = g(i - 1) + 1
int total(seq[dna] s) = sum(i in 0 ... len(s) : g(i))
"""

FLOATS = """
float g(seq[dna] s, index[s] i)
  | i == 0 = 0.5
  | otherwise = g(i - 1) + 0.25
float best(seq[dna] s) = max(i in 0 ... len(s) : g(i))
"""


def test_a_term_reading_one_cell_is_linear_with_its_leaves_and_literals():
    c, plan = _plan(LINEAR, "best", ["ACGTA"])
    info = float32_info(c, plan)
    assert info is not None and info.linear
    assert info.leaves == 1 and info.literal == 3 and not info.coords
    # one function, schedule coefficient 1: a chain of at most extent + 1 cells
    assert info.chain(5) == 6
    assert info.static_bound(0, 5) == (6 + 1) * 1 * 3


def test_two_cells_in_one_term_is_not_linear():
    c, plan = _plan(TWO_READS, "best", ["ACGT"])
    info = float32_info(c, plan)
    assert info is not None and not info.linear


@pytest.mark.parametrize("src, entry", [(PRODUCT, "best"), (SUMMED, "total"), (FLOATS, "best")],
                         ids=["product", "fused-sum", "float-table"])
def test_what_keeps_float64(src, entry):
    c, plan = _plan(src, entry, ["ACGT"])
    assert float32_info(c, plan) is None


def test_gotoh_qualifies_and_the_static_bound_covers_real_values():
    from dslc.check.registry import standard_matrices
    from dslc.lang.stdlib import stdlib_source

    src = stdlib_source("align")
    prog = dslc.compile(src, backend="interp")
    blosum = prog.checked.defined["blosum62"]
    s, t = "HEAGAWGHEEKLMNPQ", "PAWHEAEWKLMNPQRS"
    c, plan = _plan(src, "sw", [blosum, 10, 1, s, t])
    info = float32_info(c, plan)
    assert info is not None and info.linear
    largest = max(abs(v) for row in standard_matrices()["blosum62"].values for v in row)
    bound = info.static_bound(max(largest, 10), max(len(s), len(t)))
    assert bound < STATIC
    # every value the interpreter computes lies within the bound
    table = prog.call("h", blosum, 10, 1, s, t)
    finite = [abs(v) for v in table.values.ravel().tolist() if abs(v) != float("inf")]
    assert max(finite) <= bound
