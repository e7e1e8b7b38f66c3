"""The generated task's arguments as typed records (dslc.kernel.ir.TaskArg): kept
by the plan cache as they were made, so a cached run binds them by role."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from dslc.cpu import modules
from dslc.kernel.ir import TASK_ROLES, TaskArg

_OF = {"argument": st.sampled_from(["s", "t", "n"]), "global": st.sampled_from(["m", "W"]),
       "layout": st.tuples(st.sampled_from(["emit", "trans"]), st.sampled_from(["hmm", "m_2"])),
       "window": st.integers(0, 3), "cell": st.integers(0, 2),
       "length": st.sampled_from(["s", "t"]), "base": st.sampled_from(["s", "t"]),
       "thread": st.just("")}


@st.composite
def task_args(draw):
    """Records of every role, each ``of`` of its role's form."""
    roles = draw(st.lists(st.sampled_from(TASK_ROLES), min_size=1, max_size=6))
    return [TaskArg(f"x{k}", r, draw(_OF[r]), draw(st.sampled_from(["any", "int64"])))
            for k, r in enumerate(roles)]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(modules, "_LOADED", {})
    modules.load("X = 1\n")  # the module the plans name
    return tmp_path


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # one key, rewritten
@given(args=task_args())
def test_task_arguments_round_trip_through_the_plan_cache(cache, args):
    modules.store_plan("1" * 32, "X = 1\n", args, (None, 2), "float32")
    source, back, windows, values = modules.cached_plan("1" * 32)
    assert back == args  # roles, sources (a layout's (array, model) a tuple again), dtypes
    assert (source, windows, values) == ("X = 1\n", (None, 2), "float32")


def _stored(cache, edit) -> object:
    modules.store_plan("2" * 32, "X = 1\n", [TaskArg("a_s", "argument", "s")], ())
    path = cache / f"plan_{'2' * 32}.json"
    data = json.loads(path.read_text())
    edit(data["plan"])
    data["check"] = modules._plan_check("2" * 32, data["plan"])  # a consistent plan
    path.write_text(json.dumps(data))
    return modules.cached_plan("2" * 32)


def _format_1(plan: dict) -> None:
    """The entry as it was before records: prefix-coded names, no format."""
    del plan["format"]
    plan["argnames"] = [a["name"] for a in plan.pop("args")]


@pytest.mark.parametrize("edit", [
    _format_1,
    lambda p: p.pop("format"),
    lambda p: p["args"][0].update(role="prefix"),
    lambda p: p["args"][0].update(of={"not": "a name"}),
    lambda p: p["args"][0].update(name="a_s; import os"),
    lambda p: p["args"][0].pop("dtype"),
], ids=["format 1", "no format", "role", "of", "name", "fields"])
def test_a_plan_whose_arguments_are_not_records_is_a_miss(cache, edit):
    assert _stored(cache, edit) is None
