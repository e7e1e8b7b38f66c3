"""The language's meaning, one rule at a time, on every backend present."""

from __future__ import annotations

import math

import pytest

import dslc
from dslc.errors import DslcError
from dslc.lang.results import MapResult, Prob, TableResult


def run(src: str, backend: str = "interp", **defines):
    return dslc.compile(src, defines or None, backend=backend).run()


def test_precedence_of_infix_max(backend):
    out = run("""
        int f(int x, int y, int d) = x + 1 max y - d
        print f(3, 10, 4)
        print f(3, 1, 4)
    """, backend)
    assert list(out.values()) == [6, 4]


def test_arithmetic_precedence_and_real_division(backend):
    out = run("""
        float f(int a) = 1 + 2 * a / 4 - -1
        int g(int a) = a % 3 * 2
        print f(3)
        print g(7)
    """, backend)
    assert list(out.values()) == [3.5, 2]


def test_int_infinities_absorb_addition(backend):
    out = run("""
        int f(int n) = -inf + 3 max n
        int g(int n) = inf - n
        bool h(int n) = inf > n and -inf < n
        print f(5)
        print g(5)
        print h(1000000)
    """, backend)
    assert list(out.values()) == [5, math.inf, True]


def test_empty_reductions(backend):
    out = run("""
        int s(int n) = sum(k in 1 ... n : k)
        int mx(int n) = max(k in 1 ... n : k)
        int mn(int n) = min(k in 1 ... n : k)
        float fs(int n) = sum(k in 1 ... n : 0.5)
        print s(0)
        print mx(0)
        print mn(0)
        print fs(0)
        print s(4)
    """, backend)
    assert list(out.values()) == [0, -math.inf, math.inf, 0.0, 10]


def test_where_filters_the_reduction(backend):
    out = run("""
        int evens(int n) = sum(k in 0 ... n where k % 2 == 0 : k)
        print evens(10)
    """, backend)
    assert out["evens(10)"] == 30


def test_reduction_over_an_alphabet_and_symbol_literals(backend):
    out = run("""
        int gc(seq[dna] s) = sum(i in 0 ... len(s) - 1 where s[i] == 'G' or s[i] == 'C' : 1)
        int count(seq[dna] s) = sum(a in dna : sum(i in 0 ... len(s) - 1 where s[i] == a : 1))
        print gc("GATTACAGC")
        print count("GATTACA")
    """, backend)
    assert list(out.values()) == [4, 7]


def test_probabilities_are_log_space(backend):
    out = run("""
        prob tiny(int n)
          | n == 0 = 1.0
          | otherwise = tiny(n - 1) * 0.001
        prob half(int n) = sum(k in 1 ... n : 0.5)
        float lg(int n) = log(tiny(n))
        print tiny(200)
        print half(2)
        print lg(200)
    """, backend)
    t = out["tiny(200)"]
    assert isinstance(t, Prob)
    assert t.log == pytest.approx(200 * math.log(0.001))
    assert out["half(2)"].p == pytest.approx(1.0)
    assert out["lg(200)"] == pytest.approx(200 * math.log(0.001))


def test_prob_division_and_max(backend):
    out = run("""
        prob r(int n) = (0.2 max 0.3) / 0.5
        print r(0)
    """, backend)
    assert out["r(0)"].p == pytest.approx(0.6)


def test_mutual_recursion_shares_calling_parameters(backend):
    out = run("""
        bool even(int n)
          | n == 0 = true
          | otherwise = odd(n - 1)
        bool odd(int n)
          | n == 0 = false
          | otherwise = even(n - 1)
        print even(10)
        print odd(7)
    """, backend)
    assert list(out.values()) == [True, True]


def test_whole_table_and_single_value(backend):
    out = run("""
        int c(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
          | i == 0 or j == 0 = 0
          | otherwise = c(i - 1, j) + c(i, j - 1) + 1
        r = c("AC", "GTA")
        print r
        print r[2, 3]
        print c("AC", 1, "GTA", 2)
    """, backend)
    table = out["r"]
    assert isinstance(table, TableResult) and table.shape == (3, 4)
    assert out["r[2, 3]"] == table.values[2, 3]
    assert out['c("AC", 1, "GTA", 2)'] == table.values[1, 2]


def test_map_over_cross_product_shapes(backend):
    out = run("""
        int l(seq[dna] s, seq[dna] t, const k) = len(s) * k + len(t)
        a = "A"
        print map(l, a (*) a (*) 10)
    """, backend)
    assert out["map(l, a (*) a (*) 10)"].values.shape == ()


def test_const_override(backend):
    out = run("""
        const gap = 4
        int g(int n) = n * gap
        print g(2)
    """, backend, gap=6)
    assert out["g(2)"] == 12


def test_non_recursive_function_reads_a_table_by_inheritance(backend):
    out = run("""
        int h(seq[dna] s, index[s] i)
          | i == 0 = 0
          | otherwise = h(i - 1) + (if s[i - 1] == 'A' then 2 else -1)
        int best(seq[dna] s) = max(i in 0 ... len(s) : h(i))
        print best("AATAAT")
    """, backend)
    assert out['best("AATAAT")'] == 7


def test_three_recursive_dimensions(backend):
    out = run("""
        int p(int a, int b, int c)
          | a == 0 or b == 0 or c == 0 = 1
          | otherwise = p(a - 1, b, c) + p(a, b - 1, c) + p(a, b, c - 1)
        print p(3, 3, 3)
    """, backend)
    # reference by direct recursion
    from functools import cache

    @cache
    def ref(a, b, c):
        if 0 in (a, b, c):
            return 1
        return ref(a - 1, b, c) + ref(a, b - 1, c) + ref(a, b, c - 1)
    assert out["p(3, 3, 3)"] == ref(3, 3, 3)


def test_symbol_recursive_parameter(backend):
    out = run("""
        define alphabet ab "AB"
        int w(seq[ab] x, index[x] i, symbol[ab] a)
          | i == 0 = if a == 'A' then 0 else 1
          | otherwise = min(b in ab : w(i - 1, b) + (if a == b then 0 else 1))
                + (if x[i - 1] == a then 0 else 1)
        int cost(seq[ab] x) = min(a in ab : w(len(x), a))
        print cost("ABBA")
    """, backend)
    assert out['cost("ABBA")'] == 2


def test_deep_recursion_needs_no_native_stack():
    out = run("""
        int f(int n)
          | n == 0 = 0
          | otherwise = f(n - 1) + 1
        print f(100000)
    """)
    assert out["f(100000)"] == 100000


def test_type_errors_are_caught_before_running():
    with pytest.raises(DslcError, match="expected int, found float"):
        dslc.compile("int f(int n) = n / 2\n")
    with pytest.raises(DslcError, match="cannot tell which alphabet"):
        dslc.compile("bool f(int n) = 'A' == 'A'\n")
    with pytest.raises(DslcError, match="probability cannot be negated"):
        dslc.compile("prob f(prob p) = -p\n")


def test_full_calls_accept_contract_order_and_declaration_order(backend):
    out = run("""
        int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
            if i == 0 then j
            else if j == 0 then i
            else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
            else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
        int w(seq[dna] a, seq[dna] b) = d(a, b, len(a), len(b)) + d(a, len(a), b, len(b))
        print d("ACGT", "AGT", 4, 3)
        print d("ACGT", 4, "AGT", 3)
        print w("ACGT", "AGT")
    """, backend)
    assert list(out.values()) == [1, 1, 2]


def test_map_over_a_table_with_an_int_parameter(backend):
    prog = dslc.compile("""
        int fib(int n)
          | n < 2 = n
          | otherwise = fib(n - 1) + fib(n - 2)
        print map(fib, 10)
    """, backend=backend)
    assert prog.run()["map(fib, 10)"].values[()] == 55
    assert prog.map("fib", [5, 10, 20]).values.tolist() == [5, 55, 6765]


@pytest.mark.long
def test_interpreter_finishes_a_2000_by_2000_edit_distance():
    """Evaluation in dependence order on an explicit stack: no recursion limit."""
    import random

    rng = random.Random(3)
    s = "".join(rng.choice("ACGT") for _ in range(2000))
    t = "".join(rng.choice("ACGT") for _ in range(2000))
    prog = dslc.compile("""
        int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
            if i == 0 then j
            else if j == 0 then i
            else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
            else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
    """, backend="interp")
    from tests.reference import edit_distance

    assert prog.call("d", s, t, 2000, 2000) == edit_distance(s, t)
