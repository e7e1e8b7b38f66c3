"""Chosen schedules checked independently of isl and of dslc's own dependence
extraction: the dependence graph is enumerated point by point from the random
recurrence's own description on a small domain."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings

import dslc
from dslc.check.tir import groups
from dslc.deps.extract import dependence_graph
from dslc.plan.task import extent_names
from dslc.errors import DslcError
from dslc.schedule import Extents, checked_schedule, find_schedule
from tests.generators import Recurrence, recurrences

SIZE = 6  # every dependence vector (|d| <= 2) occurs well inside a box this big


def edges(rec: Recurrence, size: int):
    """(caller fn, x, callee fn, y) for every call the recurrence really makes."""
    lo, hi = rec.margins()
    for n, fn in enumerate(rec.funcs):
        for x in itertools.product(range(size + 1), repeat=rec.ndim):
            if any(x[k] < lo[k] or x[k] > size - hi[k] for k in range(rec.ndim)):
                continue
            if fn.extra_guard is not None and x[fn.extra_guard[0]] == fn.extra_guard[1]:
                continue
            for t in fn.terms:
                yield n, x, t.fn, tuple(a - b for a, b in zip(x, t.delta))


def legal_by_enumeration(rec: Recurrence, coeffs, size: int = SIZE) -> bool:
    s = lambda p: sum(c * v for c, v in zip(coeffs, p))  # noqa: E731
    same = set()
    for f, x, g, y in edges(rec, size):
        d = s(x) - s(y)
        if d >= 1:
            continue
        if d == 0 and f != g:
            same.add((g, f))
            continue
        return False
    return not ({(0, 1), (1, 0)} <= same)


def partitions(coeffs, size: int) -> int:
    return sum(abs(c) for c in coeffs) * size + 1


def chosen(rec: Recurrence, size: int = SIZE):
    prog = dslc.compile(rec.source(), backend="interp").checked
    (grp,) = [g for g in groups(prog.functions) if "f0" in g]
    graph = dependence_graph(prog.functions, grp, prog.consts)
    names = {f: extent_names(prog, f) for f in grp}
    ext = Extents(names, {n: size for ns in names.values() for n in ns})
    return find_schedule(graph, ext), graph, ext


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences())
def test_chosen_schedule_is_legal_and_has_fewest_partitions(rec):
    sched, _, _ = chosen(rec)
    assert legal_by_enumeration(rec, sched.coeffs), (rec.source(), sched.coeffs)
    best = min(partitions(c, SIZE) for c in itertools.product(range(-3, 4), repeat=rec.ndim)
               if any(c) and legal_by_enumeration(rec, c))
    assert sched.partitions == best, (rec.source(), sched.coeffs)


def test_non_diagonal_schedule_when_it_is_better():
    src = """
        int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
          | i == 0 or j == len(t) = 0
          | otherwise = f(i - 1, j + 1) max f(i - 1, j) + 1
        print f("ACGTA", "GGT")
    """
    prog = dslc.compile(src, backend="interp").checked
    graph = dependence_graph(prog.functions, ("f",), prog.consts)
    names = {"f": extent_names(prog, "f")}
    sched = find_schedule(graph, Extents(names, {n: 9 for n in names["f"]}))
    assert sched.coeffs == (1, 0) and sched.partitions == 10


def test_nussinov_prefers_the_row_schedule():
    src = """
        define alphabet rna "ACGU"
        bool pairs(symbol[rna] a, symbol[rna] b) = (a == 'A' and b == 'U') or (a == 'U' and b == 'A')
        int n(seq[rna] x, index[x] i, index[x] j)
          | j <= i + 4 = 0
          | otherwise = n(i + 1, j)
                max max(k in i + 4 ... j - 1 where pairs(x[i], x[k]) : 1 + n(i + 1, k) + n(k + 1, j))
    """
    prog = dslc.compile(src, backend="interp").checked
    graph = dependence_graph(prog.functions, ("n",), prog.consts)
    names = {"n": extent_names(prog, "n")}
    sched = find_schedule(graph, Extents(names, {n: 50 for n in names["n"]}))
    assert sched.coeffs == (-1, 0) and sched.partitions == 51


def test_user_schedule_verified_with_witness():
    src = """
        int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
          | i == 0 or j == 0 = 0
          | otherwise = d(i - 1, j) max d(i, j - 1) max d(i - 1, j - 1)
    """
    prog = dslc.compile(src, backend="interp").checked
    graph = dependence_graph(prog.functions, ("d",), prog.consts)
    names = {"d": extent_names(prog, "d")}
    ext = Extents(names, {n: 5 for n in names["d"]})
    assert checked_schedule(graph, (2, 1), ext).partitions == 16
    with pytest.raises(DslcError, match="not valid.*partition"):
        checked_schedule(graph, (1, 0), ext)


def test_invalid_user_schedule_is_an_error_from_the_command(tmp_path, capsys):
    from dslc.cli import main

    p = tmp_path / "s.bio"
    p.write_text("""int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = 0
  | otherwise = d(i - 1, j) max d(i, j - 1)
schedule d(i, j) = i - j
print d("ACG", "GT")
""")
    assert main(["run", "--backend", "cpu", str(p)]) == 2
    err = capsys.readouterr().err
    assert "s.bio:3:" in err and "not valid" in err and "Traceback" not in err


def test_three_dimensions_and_search_time():
    import time

    src = """
        int a(seq[dna] s, index[s] i, seq[dna] t, index[t] j, seq[dna] u, index[u] k)
          | i == 0 or j == 0 or k == 0 = 0
          | otherwise = a(i - 1, j, k) max a(i, j - 1, k) max a(i, j, k - 1) max a(i - 1, j - 1, k)
              max a(i - 1, j, k - 1) max a(i, j - 1, k - 1) max a(i - 1, j - 1, k - 1) + 1
    """
    prog = dslc.compile(src, backend="interp").checked
    graph = dependence_graph(prog.functions, ("a",), prog.consts)
    names = {"a": extent_names(prog, "a")}
    t0 = time.perf_counter()
    sched = find_schedule(graph, Extents(names, {n: 100 for n in names["a"]}))
    assert time.perf_counter() - t0 < 1.0
    assert sched.coeffs == (1, 1, 1)
