"""A mutually recursive group is evaluated in one order, so it follows one schedule:
two ``schedule`` lines of one group that disagree are refused, naming both (one of
them would otherwise go unused, silently); two that agree run. Drawn from
tests/generators.recurrences (two functions calling each other) with the schedule
lines of tests/generators.conflicting_schedule_lines; the refusal comes before any
schedule is verified, so the interpreter suffices."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.cli import main
from tests.generators import (DIMS, conflicting_schedule_lines, recurrences, schedule_line)

LOCATED = re.compile(r"^(?P<file>\S+?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$", re.M)
SEQS = ("ACG", "GT")


def _script(rec, schedules: tuple[str, ...]) -> str:
    args = ", ".join(f'"{s}", {len(s)}' for s in SEQS[: rec.ndim])
    return rec.source() + "\n" + "\n".join(schedules) + f"\nprint f0({args})\n"


def _run(tmp_path, capsys, text: str):
    path = tmp_path / "s.bio"
    path.write_text(text)
    code = main(["run", str(path), "--backend", "interp", "--quiet"])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


two_functions = recurrences(max_dim=2, mutual=True, specials=False).filter(
    lambda r: len(r.funcs) == 2)


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rec=two_functions, data=st.data())
def test_disagreeing_schedules_of_one_group_are_refused_naming_both(tmp_path, capsys, rec,
                                                                    data):
    first, second = conflicting_schedule_lines(data.draw, rec)
    text = _script(rec, (first, second))
    code, _, err = _run(tmp_path, capsys, text)
    assert code == 2, err
    m = LOCATED.search(err)
    assert m, err
    assert int(m["line"]) == text.splitlines().index(second) + 1 and m["col"] == "1", err
    first_line = text.splitlines().index(first) + 1
    assert m["msg"] == (f"the schedules of 'f0' (line {first_line}) and 'f1' disagree: they "
                        "are mutually recursive (f0, f1), evaluated in one order"), err


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rec=two_functions)
def test_the_same_schedule_written_for_both_runs(tmp_path, capsys, rec):
    dims = DIMS[: rec.ndim]
    both = (schedule_line("f0", dims, rec.schedule), schedule_line("f1", dims, rec.schedule))
    code, out, err = _run(tmp_path, capsys, _script(rec, both))
    assert code == 0, err
    seqs = SEQS[: rec.ndim]
    want = rec.evaluate(seqs, tuple(len(s) for s in seqs))
    assert out.strip().rsplit("= ", 1)[1] == str(want)


ROWS = """\
define alphabet dna "ACGT"
int g(seq[dna] s, seq[dna] t, index[s] i)
  | i == 0 = 0
  | otherwise = max(j in 0 ... len(t) : f(i, j))
int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = j
  | j == 0 = g(i - 1) - 1
  | otherwise = f(i - 1, j - 1) max g(i - 1) + (if s[i - 1] == t[j - 1] then 3 else -1)
schedule f(i, j) = i
schedule g(i) = {g}
print f("ACGT", 4, "GTA", 3)
"""


def test_a_smaller_function_agrees_when_its_schedule_is_the_padded_one(tmp_path, capsys):
    code, out, err = _run(tmp_path, capsys, ROWS.format(g="i"))
    assert code == 0 and out.startswith('f("ACGT", 4, "GTA", 3) = '), err
    code, _, err = _run(tmp_path, capsys, ROWS.format(g="2 * i"))
    assert code == 2
    assert err.startswith(f"{tmp_path / 's.bio'}:10:1: error: the schedules of 'f' (line 9) and "
                          "'g' disagree"), err
