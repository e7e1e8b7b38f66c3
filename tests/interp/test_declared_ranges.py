"""Declared ranges of int parameters (``int i in lo ... hi``) on every backend."""

import pytest

from tests.conftest import EXAMPLES
from tests.test_examples_expected import EXPECTED


def _run(path, backend):
    from dslc.api import compile as compile_bio
    return dict(compile_bio(str(path), backend=backend).run_printed(quiet=True))


@pytest.mark.parametrize("name,key", [("matrix_chain.bio", "r"), ("number_triangle.bio", "top")])
def test_examples_with_declared_ranges(backend, name, key):
    out = _run(EXAMPLES / name, backend)
    assert out[key] == EXPECTED[name][key]
    table = out["t"].values.tolist()
    assert table == EXPECTED[name]["t"]  # cells outside the ranges are None


def test_call_outside_declared_range_is_the_interpreters_error(backend, write_bio):
    from dslc.errors import DslcError
    path = write_bio("""
        int f(const n, int r in 0 ... n, int c in 0 ... r)
          | r == n = 1
          | otherwise = f(r + 1, c) + f(r + 1, c + 1)
        x = f(3, 1, 2)
        print x
    """)
    with pytest.raises(DslcError, match=r"c = 2 is outside its domain 0..1"):
        _run(path, backend)


def test_undeclared_int_keeps_first_call_domain(write_bio):
    from dslc.errors import DslcError
    path = write_bio("""
        int t(int n) = if n == 0 then 0 else t(n - 1) + 1
        r = t()
        print r
    """)
    with pytest.raises(DslcError, match="pass all arguments"):
        _run(path, "interp")


MIXED = """
int g(const n, int r in 0 ... n, int c in 0 ... n - r)
  | r == 0 or c == 0 = r + c
  | otherwise = g(r - 1, c) + g(r, c - 1) + 1
x = g(4, 2, 2)
print x
"""


@pytest.mark.parametrize("name", ["number_triangle.bio", "matrix_chain.bio", None])
def test_declared_ranges_compile_as_polyhedra(name, write_bio, capsys):
    """The triangle's ``c in 0 ... r`` and the mixed ``c in 0 ... n - r`` compile: the
    proofs know each extent is at least its bound's largest value."""
    import json

    from dslc.cli import main

    path = EXAMPLES / name if name else write_bio(MIXED)
    assert main(["explain", str(path), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert "_interpreted" not in rep, rep["_interpreted"]
    (f, r), = [(f, r) for f, r in rep.items() if not f.startswith("_") and f != "v"
               and f != "dim"]
    assert r["partitions"] >= 1 and r["extents_assumed"] is False and r["loops"]


BALLOT = """
int w(const n, int i in 0 ... n, int j in 0 ... i)
  | j == 0 = 1
  | i == j = w(i, j - 1) + w(i - 1, j - 1)
  | otherwise = w(i - 1, j) + w(i, j - 1)
"""


def _ballot(n: int) -> int:
    w = {}
    for i in range(n + 1):
        for j in range(i + 1):
            w[i, j] = 1 if j == 0 else (w[i, j - 1] + w[i - 1, j - 1] if i == j
                                        else w[i - 1, j] + w[i, j - 1])
    return w[n, n]


@pytest.mark.parametrize("ns", [[0, 1, 2, 5], [3] * 20])
def test_map_over_declared_ranges_is_compiled(backend, ns):
    """A map passes the calling arguments; each task's value is its table's final
    cell (the corner of the box of the ranges), compiled where the group compiles."""
    import dslc

    prog = dslc.compile(BALLOT, backend=backend)
    assert prog.map("w", ns).values.tolist() == [_ballot(n) for n in ns]
    if backend != "interp":
        assert "w" not in prog._engine().fallbacks, prog._engine().fallbacks


def test_map_whose_final_cell_is_outside_is_the_interpreters_error(backend):
    from dslc.errors import DslcError
    import dslc

    src = ("int g(const n, int r in 0 ... n, int c in 0 ... n - r)\n"
           "  | r == 0 = c\n  | otherwise = g(r - 1, c) + 1\n")
    errors = []
    for b in ("interp", backend):
        with pytest.raises(DslcError) as e:
            dslc.compile(src, backend=b).map("g", [2, 3])
        errors.append(e.value.message)
    assert errors[0] == errors[1] and "outside its domain" in errors[0]
