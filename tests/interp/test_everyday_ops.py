"""Integer division, symbol codes and arrays of numbers, on every backend present."""

from __future__ import annotations

import pytest

import dslc
from dslc.errors import DslcError


def run(src: str, backend: str = "interp", **defines):
    return dslc.compile(src, defines or None, backend=backend).run()


def test_div_is_floored_and_pairs_with_remainder(backend):
    out = run("""
        int f(int a, int b) = div(a, b) * 100 + a % b
        print f(-7, 2)
        print f(7, -2)
        print f(-7, -2)
        print f(7, 2)
        print f(0, -3)
    """, backend)
    want = [(a // b) * 100 + a % b for a, b in [(-7, 2), (7, -2), (-7, -2), (7, 2), (0, -3)]]
    assert list(out.values()) == want
    assert want[0] == -4 * 100 + 1  # floored: div(-7, 2) == -4, -7 % 2 == 1


def test_div_inside_a_recursion(backend):
    out = run("""
        // the number of halvings to reach 0, and a sum of floored quotients
        int h(int n)
          | n == 0 = 0
          | otherwise = h(n - 1) + div(n * n - 50, 7) - div(n, -3)
        print h(20)
    """, backend)
    assert list(out.values()) == [sum((n * n - 50) // 7 - n // -3 for n in range(1, 21))]


def test_div_errors_are_the_interpreters(backend):
    with pytest.raises(DslcError, match="integer division by zero"):
        run("""
            int g(int n)
              | n == 0 = 0
              | otherwise = g(n - 1) + div(10, n - 2)
            print g(3)
        """, backend)
    with pytest.raises(DslcError, match="integer division with an infinite operand"):
        run("""
            int g(int n)
              | n == 0 = -inf
              | otherwise = div(g(n - 1), 2)
            print g(3)
        """, backend)


def test_code_and_digits(backend):
    out = run("""
        define alphabet digits "0123456789"
        int value(seq[digits] s, index[s] i)
          | i == 0 = 0
          | otherwise = value(i - 1) * 10 + code(s[i - 1])
        int gc(seq[dna] s, index[s] i)
          | i == 0 = 0
          | otherwise = gc(i - 1) * 4 + code(s[i - 1])
        print value("40719", 5)
        print gc("TGCA", 4)
    """, backend)
    assert list(out.values()) == [40719, int("3210", 4)]


COINS = """
    const w = [1, 3, 4]
    const half = [0.5, 2, 1e3]
    // ordered ways to write n as a sum of parts from w: the offset n - w[k] is data
    int ways(int n)
      | n == 0 = 1
      | otherwise = sum(k in 0 ... len(w) - 1 where w[k] <= n : ways(n - w[k]))
    float fsum(int n)
      | n == 0 = 0.0
      | otherwise = fsum(n - 1) + half[n % len(half)]
    print ways(12)
    print fsum(7)
"""


def _ways(n: int, parts=(1, 3, 4)) -> int:
    t = [1] + [0] * n
    for m in range(1, n + 1):
        t[m] = sum(t[m - p] for p in parts if p <= m)
    return t[n]


def test_array_constants(backend):
    out = run(COINS, backend)
    assert list(out.values()) == [_ways(12), 2 + 1000 + 0.5 + 2 + 1000 + 0.5 + 2]


def test_an_array_offset_is_scheduled_not_refused():
    prog = dslc.compile(COINS, backend="cpu")
    prog.run()
    assert "ways" not in prog._engine().fallbacks


def test_array_index_outside_is_the_interpreters_error(backend):
    with pytest.raises(DslcError, match=r"index 3 is outside the array 'w' \(positions 0..2\)"):
        run("""
            const w = [1, 3, -inf]
            int f(int n)
              | n == 0 = 0
              | otherwise = f(n - 1) max w[n]
            print f(3)
        """, backend)


def test_loaded_numbers(backend, write_bio):
    path = write_bio("""
        const w = load(ints, "parts.txt")
        c = load(floats, "costs.txt")
        int ways(int n)
          | n == 0 = 1
          | otherwise = sum(k in 0 ... len(w) - 1 where w[k] <= n : ways(n - w[k]))
        float cost(floats c, int n)
          | n == 0 = 0.0
          | otherwise = cost(n - 1) + c[n - 1]
        print ways(10)
        print cost(c, 3)
    """, parts__txt="# coin sizes\n1 3\n4  # the largest\n", costs__txt="0.5\n1.5\n-2\n")
    out = dslc.compile(str(path), backend=backend).run()
    assert list(out.values()) == [_ways(10), 0.0]


def test_malformed_number_files_name_the_line(write_bio):
    path = write_bio("""
        const w = load(ints, "parts.txt")
        print len(w)
    """, parts__txt="1 2\n3 2.5\n")
    with pytest.raises(DslcError, match="'2.5' is not an int") as e:
        dslc.compile(str(path))
    assert (e.value.span.line, e.value.span.col) == (2, 3)
    assert e.value.span.file.endswith("parts.txt")
    path = write_bio("c = load(floats, \"x.txt\")\nprint c\n", "p2.bio", x__txt="1\n\n 2 x3\n")
    with pytest.raises(DslcError, match="'x3' is not a number") as e:
        dslc.compile(str(path)).run()
    assert (e.value.span.line, e.value.span.col) == (3, 4)


def test_array_constants_in_constant_expressions():
    out = run("""
        const w = [4, -inf, 9]
        const n = len(w)
        const last = w[n - 1] + div(-7, 2)
        int f(int x) = x + n + last
        print f(0)
    """)
    assert list(out.values()) == [3 + 9 - 4]


@pytest.mark.parametrize("src, message", [
    ("int f(float x) = div(x, 2)\nprint f(1.0)", "div needs ints, found float"),
    ("int f(int x) = div(x)\nprint f(1)", "div takes 2 arguments, got 1"),
    ("int f(int x) = code(x)\nprint f(1)", "code needs a symbol, found int"),
    ("int f(int x) = len(x)\nprint f(1)", "len needs a sequence or an array"),
    ("const w = [1, 2]\nint f(int x) = x + w\nprint f(1)", "cannot add"),
    ("const w = [1, 2]\nconst v = w + 1", "an array is not a number here"),
    ("const w = [1, 2]\nconst v = w[2]", r"index 2 is outside the array 'w'"),
    ("const w = [1, 2]\nint f(int x) = w[1.5]\nprint f(1)", "expected int, found float"),
    ("const w = [1, 2.5]\nint f(int x) = w[x]\nprint f(1)", "expected int, found float"),
    ("const m = load(matrix[dna], \"m.txt\")", "a constant cannot hold a matrix"),
])
def test_static_errors(src, message):
    with pytest.raises(DslcError, match=message):
        dslc.compile(src)


def test_an_array_constant_is_not_replaced_by_define():
    with pytest.raises(DslcError, match="'w' is an array constant"):
        dslc.compile("const w = [1, 2]\nprint 1", {"w": 3})


def test_div_and_code_are_shadowed_by_user_functions(backend):
    out = run("""
        int div(int a, int b) = a + b
        int f(int x) = div(x, 2)
        print f(5)
    """, backend)
    assert list(out.values()) == [7]


def test_printing_an_array():
    out = run("const w = [1, -inf, 3]\nprint w")
    assert str(list(out.values())[0]) == "[1, -inf, 3]"


def test_printing_an_array_as_json():
    from dslc.runtime.render import to_json_value

    out = run("const w = [1, -inf, 3]\nconst f = [0.5, 2]\nprint w\nprint f")
    assert [to_json_value(v) for v in out.values()] == [[1, "-inf", 3], [0.5, 2.0]]
