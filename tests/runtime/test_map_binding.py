"""How a script's ``map`` binds its operands (dslc.runtime.script): an operand
every task shares is bound once, so every task holds the same object."""

from __future__ import annotations

from dslc import backends
from dslc.runtime.script import ScriptRunner

import dslc

SRC = """
define alphabet dna "ACGT"
int score(seq[dna] q, seq[dna] t, int bonus) = bonus + len(q) * 10 + len(t)
xs = load(seq[dna], "xs.fasta")
print map(score, "ACGTAC" (*) xs (*) 3)
"""


def _run(src, tmp_path):
    (tmp_path / "xs.fasta").write_text(">a\nACG\n>b\nT\n>c\nGGTA\n")
    (tmp_path / "s.bio").write_text(src)
    prog = dslc.compile(str(tmp_path / "s.bio"), backend="interp")
    seen = {}

    def make(program, globals_):
        engine = backends.get("interp")(program, globals_)
        run_map = engine.map

        def recording(func, tasks, span, progress=None):
            seen["tasks"] = tasks
            return run_map(func, tasks, span, progress)

        engine.map = recording
        return engine

    printed = dict(ScriptRunner(prog.checked, make, prog.base_dir, quiet=True).run())
    return printed, seen["tasks"]


def test_a_shared_operand_is_bound_once_for_every_task(tmp_path):
    printed, tasks = _run(SRC, tmp_path)
    assert [t["t"].codes.tolist() for t in tasks] == [[0, 1, 2], [3], [2, 2, 3, 0]]
    assert all(t["q"] is tasks[0]["q"] for t in tasks)  # the string query, encoded once
    assert [t["bonus"] for t in tasks] == [3, 3, 3]
    (values,) = printed.values()
    assert values.values.tolist() == [66, 64, 67]


def test_a_bad_shared_operand_is_still_reported_at_its_operand(tmp_path):
    import pytest

    from dslc.errors import DslcError

    with pytest.raises(DslcError, match=r"s\.bio:5:18: error: sequence \"ACGTXC\": symbol 'X'"):
        _run(SRC.replace('"ACGTAC"', '"ACGTXC"'), tmp_path)
