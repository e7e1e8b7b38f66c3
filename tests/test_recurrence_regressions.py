"""Recurrences people write that compiled backends got wrong, on every backend:
each must give the interpreter's value (written out here, as the interpreter
computes it)."""

from __future__ import annotations

import pytest

import dslc


def run(src: str, backend: str) -> dict:
    return dslc.compile(src, backend=backend).run()


NUM = "int num(seq[dna] x, index[x] i, index[x] j) | j <= i = 0 | otherwise = num(i, j - 1) + 1\n"


def test_table_read_at_any_cell_by_another_group(backend):
    """``num`` alone would fit in a window of 2; ``f``, another group, reads it at
    every ``j``, so its whole table must be kept."""
    src = NUM + """
int f(seq[dna] x, index[x] i, index[x] j) | j <= i = 0 | otherwise = num(i, j) + f(i, j - 1)
r = f("ACG", 0, 2)
print r
"""
    assert run(src, backend)["r"] == 3


def test_table_read_by_another_groups_reduction(backend):
    src = NUM + """
int f(seq[dna] x, index[x] i, index[x] j)
  | j <= i = 0
  | otherwise = num(i, j) max max(k in i + 1 ... j - 1 : f(i, k) + f(k, j))
print f("ACGT", 0, 4)
t = f("ACGT")
print t[0, 4]
"""
    assert list(run(src, backend).values()) == [4, 4]


def test_helper_call_in_a_recursive_argument(backend):
    """``c - w(i - 1)`` is an int computed with a helper's value: a table
    coordinate all the same (and a data-dependent one)."""
    src = """
int w(int k) = k + 1
int best(int i, int c)
  | i == 0 = 0
  | w(i - 1) > c = best(i - 1, c)
  | otherwise = best(i - 1, c) max best(i - 1, c - w(i - 1)) + 1
print best(3, 5)
print best(4, 9)
"""
    assert list(run(src, backend).values()) == [2, 3]


def test_helper_of_calling_parameters_in_a_recursive_argument(backend):
    src = """
int w(int k) = k + 1
int best(const k, int i, int c)
  | i == 0 = 0
  | w(k) > c = best(i - 1, c)
  | otherwise = best(i - 1, c) max best(i - 1, c - w(k)) + 1
print best(2, 3, 7)
"""
    assert list(run(src, backend).values()) == [2]


FLOAT_CONSTS = """
float h(const g, int i) | i == 0 = g | otherwise = h(i - 1) + g * 2
float f(const g, const n, int i) | i == 0 = g + n | otherwise = f(i - 1) * g + h(2)
float twice(const g) = g * 2
float k(int i) | i == 0 = twice(0.25) | otherwise = k(i - 1) + twice(i)
const half = 0.5
"""


def test_const_takes_a_float_argument(backend):
    """A ``const`` is an int or a float, from its argument: given a float (a
    literal, a script constant, a call inside a function) it is typed float, and
    inherited by the functions it is passed on to."""
    src = FLOAT_CONSTS + """
print f(0.5, 3, 3)
print f(half, 2, 2)
print k(3)
"""
    assert list(run(src, backend).values()) == [4.8125, 4.375, 12.5]


def test_const_float_from_python_and_a_map_of_mixed_kinds(backend):
    """From Python too; a map whose tasks mix int and float consts types it float."""
    prog = dslc.compile(FLOAT_CONSTS, backend=backend)
    assert prog.f(0.5, 3, 3) == 4.8125
    got = prog.map("f", [0.5, 2, 1.5], 1, 2).values.ravel().tolist()
    assert got == [4.125, 42.0, 24.375]


def test_const_float_where_an_int_is_needed_is_a_clear_error(backend):
    import pytest

    from dslc.errors import DslcError
    with pytest.raises(DslcError, match="expected int, found float"):
        run("int f(const g, int i) | i == 0 = g | otherwise = f(i - 1) + 1\nprint f(0.5, 2)\n",
            backend)


OVERFLOW_CANCELS = """
int g(seq[dna] s, index[s] i)
  | i == 0 = 1
  | otherwise = g(i - 1) * 2
int f(seq[dna] s) = g(s, len(s)) - g(s, len(s))
print f("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
"""


@pytest.mark.parametrize("doubling", ["g(i - 1) * 2", "g(i - 1) + g(i - 1)"])
def test_an_int_overflow_inside_a_table_is_an_error_on_every_backend(backend, doubling):
    """``g`` passes 2^63 at i = 63: the interpreter's integer overflow. Compiled
    code holds ints in doubles; an int sum, difference or product is checked where
    it is made (past 2^53 the interpreter recomputes it), so the two huge cells no
    longer cancel to a printed 0, as they did before (a silent wrong answer;
    tests/test_big_ints.py draws the class)."""
    from dslc.errors import DslcError

    with pytest.raises(DslcError, match="integer overflow"):
        run(OVERFLOW_CANCELS.replace("g(i - 1) * 2", doubling), backend)


LOCAL = """
int h(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = 0
  | otherwise = h(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 2 else -1)
                max h(i - 1, j) - 1 max h(i, j - 1) - 1 max 0
"""


@pytest.mark.parametrize("over", [
    "max(i in 0 ... len(s) + 1 : max(j in 0 ... len(t) : h(i, j)))",
    "max(i in 0 ... len(s) : max(j in 0 ... len(s) : h(i, j)))",  # t's dimension, s's length
    "max(i in -1 ... len(s) : max(j in 0 ... len(t) : h(i, j)))",
])
def test_a_whole_table_reduction_past_the_domain_is_an_error(backend, over):
    """A reduction over every cell of a table in the entry is fused into the sweep;
    its range named cells outside the table, which the sweep skipped (or read from
    the lanes' padding) and the compiled backends printed a number where the
    interpreter reports the recursive argument outside its domain."""
    from dslc.errors import DslcError

    src = LOCAL + f"int over(seq[dna] s, seq[dna] t) = {over}\n" \
        "print over(\"ACGTTA\", \"AGT\")\n"
    with pytest.raises(DslcError, match="outside its domain"):
        run(src, backend)
    src = src.replace('over("ACGTTA", "AGT")', 'map(over, "ACGTTA" (*) "ACG")')
    with pytest.raises(DslcError, match="outside its domain"):
        run(src, backend)


def test_a_whole_table_reduction_inside_the_domain_is_fused_and_right(backend):
    src = LOCAL + "int over(seq[dna] s, seq[dna] t) = " \
        "max(i in 1 ... len(s) - 1 : max(j in 0 ... len(t) : h(i, j)))\n" \
        "print over(\"ACGTTA\", \"AGT\")\n"
    assert run(src, backend) == run(src, "interp") == {'over("ACGTTA", "AGT")': 5}


@pytest.mark.parametrize("schedule", ["-2 * i - j", "i * -2 - j", "(-2) * i + -1 * j"])
def test_a_schedule_with_a_negative_literal_coefficient_is_read(backend, schedule):
    """``-2 * i`` parses as a negated literal times ``i``: it was refused as not
    affine, while ``-(2 * i)`` was read."""
    src = f"""
schedule suf(i, j) = {schedule}
int suf(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == len(s) = 0
  | j == len(t) = 0
  | otherwise = suf(i + 1, j + 1) + (if s[i] == t[j] then 2 else -1)
                max suf(i + 1, j) - 1 max suf(i, j + 1) - 1
print suf("ACG", "TACGT", 0, 0)
"""
    assert list(run(src, backend).values()) == [5]
