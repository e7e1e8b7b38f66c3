"""The lowering driver (dslc.plan.lower): one call gives every stage's result
for an entry at a run's shapes, as one frozen record, and the generators read
the nest it built rather than building their own."""

from __future__ import annotations

import dataclasses

import pytest

import dslc
from dslc.emit.cpu import build_task
from dslc.plan import Lowered, lower
from dslc.poly import loopir as L
from dslc.runtime.binding import bind_call
from dslc.targets.printer import Printer

EDIT = """
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = j
  | j == 0 = i
  | otherwise = min(d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1),
                    d(i - 1, j) + 1, d(i, j - 1) + 1)
schedule d(i, j) = i + 2 * j
"""


@pytest.fixture(scope="module")
def program():
    return dslc.compile(EDIT, backend="interp").checked


def _lower(program, **kw) -> Lowered:
    f = program.functions["d"]
    bound = bind_call(f, ["ACGT", 4, "AGT", 3], program, None)
    scope = {p.name: bound[p.name] for p in f.calling_params}
    return lower(program, "d", "cell", scope, (4, 3), **kw)


def test_every_stage_in_one_frozen_record(program):
    low = _lower(program)
    (g,) = low.groups
    assert low.graphs == (g.graph,) and {d.callee for d in g.graph.deps} == {"d"}
    assert low.schedules[0].coeffs == (1, 2)  # the script's schedule, verified
    assert g.extents.values == {"E_len_s": 4, "E_len_t": 3}
    calls = [s for s in L.statements(low.nests[0].body) if isinstance(s, L.For)]
    assert calls and calls[0].kind == "partition"
    assert low.module is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        low.entry = "e"


def test_the_generator_is_passed_in_and_walks_the_drivers_nest(program):
    low = _lower(program, emit=lambda task: build_task(None, program, task).module())
    assert "def task(" in Printer().module(low.module) and low.args
    assert low.groups[0].nest is low.nests[0]  # built once, by the driver's plan


def test_assumed_extents_plan_the_entrys_group_only(program):
    low = lower(program, "d", "table", {}, assumed=10)
    assert [g.functions for g in low.groups] == [("d",)]
    assert set(low.groups[0].extents.values.values()) == {10}
