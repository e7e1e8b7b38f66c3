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
