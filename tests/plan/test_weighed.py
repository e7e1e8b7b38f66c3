"""Compile time is a cost the planner weighs (dslc.plan.task.weighed): a group
ordered at run time whose guard pieces isl would peel into many copies of its
cells is swept over boxes, each cell testing its guards; a group ordered by its
schedule alone keeps its peeled base cases."""

from __future__ import annotations

import dslc
from dslc.plan import lower
from dslc.plan.task import SEPARATED_CAP, nest_size
from dslc.runtime.binding import bind_call
from tests.conftest import ROOT
from tests.cpu.test_runtime_order import PROFILE, PROTEINS
from tests.plan.test_driver import EDIT


def _hmmsearch_core() -> str:
    """examples/hmmsearch.bio's functions, its model loaded and nothing run: six
    functions ordered at run time (silent delete states), whose guards on the node
    and the position would peel six copies of each."""
    text = (ROOT / "examples" / "hmmsearch.bio").read_text().split("\nprofile = load")[0]
    return text.replace('"data/PF02826.hmm"', f'"{PROFILE}"') + "\nprofile = load(hmms, hmms)\n"


def _groups(program, entry: str, args: list, kind: str = "value", request=None) -> tuple:
    f = program.functions[entry]
    bound = bind_call(f, args, program, None)
    params = f.params if kind == "value" else f.calling_params
    return lower(program, entry, kind, {p.name: bound[p.name] for p in params}, request).groups


def test_a_group_ordered_at_run_time_is_not_peeled_into_many_copies(write_bio):
    prog = dslc.compile(str(write_bio(_hmmsearch_core())), backend="interp")
    prog.run()
    groups = _groups(prog.checked, "bits", [prog._globals["profile"][0], PROTEINS[1]])
    (core,) = [g for g in groups if g.runtime_order]
    assert core.pieces == ()
    assert nest_size(core.nest) == nest_size(core.box_nest) == len(core.functions)


def test_a_group_ordered_by_its_schedule_keeps_its_peeled_base_cases():
    prog = dslc.compile(EDIT, backend="interp").checked
    (g,) = _groups(prog, "d", ["ACGT", 4, "AGT", 3], "cell", (4, 3))
    assert g.pieces and nest_size(g.nest) > SEPARATED_CAP * nest_size(g.box_nest)
