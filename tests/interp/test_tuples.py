"""Tuple values (docs/language.md, "Tuples"), on every backend present: the compiled
backends compile them (emit.tuples) with the interpreter's values and errors."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from tests import reference as ref
from tests.generators import dna, same_outcome, tuple_recurrences

CO_OPTIMAL = """
    tuple[int, int] best(tuple[int, int] a, tuple[int, int] b)
      | a[0] < b[0] = a
      | b[0] < a[0] = b
      | otherwise = (a[0], a[1] + b[1])

    tuple[int, int] d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
      | i == 0 = (j, 1)
      | j == 0 = (i, 1)
      | otherwise = best(best(d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1, 0),
                              d(i - 1, j) + (1, 0)),
                         d(i, j - 1) + (1, 0))

    // a plain int function reading the tuple table: the count alone
    int count(seq[dna] s, seq[dna] t) = d(s, len(s), t, len(t))[1]
"""


def run(src: str, backend: str = "interp") -> dict:
    return dslc.compile(src, backend=backend).run()


def test_co_optimal_counts_on_every_backend(backend):
    s, t = "GATTACA", "GCATGCT"
    out = run(CO_OPTIMAL + f"""
        r = d("{s}", "{t}")
        print r
        print d("{s}", "{t}", 7, 7)
        print count("{s}", "{t}")
        print r[3, 4][0]
    """, backend)
    want = ref.co_optimal_edit_table(s, t)
    table, cell, n, score = out.values()
    assert [[list(v) for v in row] for row in table.values.tolist()] == want
    assert cell == tuple(want[7][7]) and n == want[7][7][1] and score == want[3][4][0]
    assert isinstance(cell, tuple) and all(type(x) is int for x in cell)


@settings(max_examples=15, deadline=None)
@given(st.text("ACGT", max_size=6), st.text("ACGT", max_size=6))
def test_co_optimal_counts_match_the_reference(s, t):
    prog = dslc.compile(CO_OPTIMAL, backend="interp")
    assert list(prog.call("d", s, t, len(s), len(t))) == ref.co_optimal_edit_table(s, t)[-1][-1]


def test_lexicographic_max_min_and_componentwise_sum(backend):
    out = run("""
        tuple[int, float] lex(int k) = max((1, 2), (1, 3.5)) min (0, 9) + (k, k)
        tuple[int, int] top(int n) = max(k in 0 ... n : (k % 3, k))
        tuple[int, int] low(int n) = min(k in 0 ... n : (k % 3, 0 - k))
        tuple[float, int] tot(int n) = sum(k in 0 ... n : (k / 2, 1))
        tuple[int, int] none(int n) = max(k in 1 ... n : (k, k))
        tuple[int, int] pick(int a, int b) = if a < b then (a, b) else (b, a)
        bool same(int a) = (a, 1) == (a, 1.0) and (a, 2) != (a, 1)
        print lex(1)
        print top(7)
        print low(7)
        print tot(3)
        print none(0)
        print pick(5, 2)
        print same(4)
    """, backend)
    assert list(out.values()) == [
        max((1, 2), (1, 3.5)),  # + binds tighter than min: (1, 3.5) min (1, 10)
        max((k % 3, k) for k in range(8)),
        min((k % 3, -k) for k in range(8)),
        (3.0, 4),
        (float("-inf"), float("-inf")),  # an empty max: every component -inf
        (2, 5),
        True,
    ]


def test_int_components_widen_to_float(backend):
    out = run("""
        tuple[float, int] f(int n)
          | n == 0 = (0, 1)
          | otherwise = f(n - 1) + (0.5, n)
        print f(3)
    """, backend)
    (v,) = out.values()
    assert v == (1.5, 7) and type(v[0]) is float and type(v[1]) is int


def test_parentheses_still_group():
    # (e) is e; only a comma makes a tuple
    out = run("""
        int f(int a) = (a + 2) * 3
        print f(1)
        print (2 + 3) * 2
    """)
    assert list(out.values()) == [9, 10]


def test_int_overflow_in_a_component_is_reported(backend):
    with pytest.raises(DslcError, match="integer overflow"):
        run("""
            tuple[int, int] f(int n)
              | n == 0 = (0, 1)
              | otherwise = f(n - 1) + (1, 9223372036854775807)  // the + of a component
            print f(3)
        """, backend)


def test_text_and_json_printing(backend):
    from dslc.runtime.render import render_json, render_text

    prog = dslc.compile(CO_OPTIMAL + """
        r = d("AC", "A")
        print r
        print r[2, 1]
    """, backend=backend)
    printed = list(prog.run().items())
    text = render_text(printed)
    assert "r[2, 1] = (1, 1)" in text
    assert "(0, 1) (1, 1)" in text  # the table's first row
    assert render_json(printed) == ('{"r": [[[0, 1], [1, 1]], [[1, 1], [0, 1]], [[2, 1], '
                                    '[1, 1]]], "r[2, 1]": [1, 1]}')


def test_compiled_backends_compile_tuples(backend):
    """The compiled path runs: no interpreter fallback, generated code for the
    tuple table, the entry reading it and the helper over tuple parameters."""
    from dslc import backends
    from dslc.runtime.script import ScriptRunner

    if backend == "interp":
        pytest.skip("the interpreter is the specification")
    prog = dslc.compile(CO_OPTIMAL + """
        r = d("ACG", "AG")
        print count("ACG", "AG")
        print r[3, 2]
    """)
    runner = ScriptRunner(prog.checked, backends.get(backend), prog.base_dir, quiet=True)
    runner.backend.disk_cache = False  # plan afresh: `generated` records what was compiled
    assert runner.run() == [('count("ACG", "AG")', 1), ("r[3, 2]", (1, 1))]
    assert runner.backend.explain() == {}
    assert {"d", "count"} <= set(runner.backend.generated)
    assert "def fn_best(" in runner.backend.generated["count"][1]


def test_a_tuple_map_on_the_device_runs_the_plain_kernel():
    from dslc.cuda.backend import CudaBackend

    if not CudaBackend.available():
        pytest.skip("no CUDA backend (not even the simulator)")
    prog = dslc.compile(CO_OPTIMAL, backend="cuda")
    got = prog.map("count", ["GATTACA", "GCA", ""], "GCATGCT")
    assert list(got) == [ref.co_optimal_edit_table(s, "GCATGCT")[-1][-1][1]
                         for s in ("GATTACA", "GCA", "")]
    engine = prog._backend
    assert engine.device_fallbacks == {} and engine.reruns == {}
    assert engine.strategy["count"].startswith("task-per-thread")
    assert "the register-tiled kernel does not hold them" in engine.strategy["count"]


def test_three_components_floats_and_fused_reductions(backend):
    """A table of 3-tuples with a float component, reduced whole by the entry
    (a reduction the compiled task fuses into the sweep); the empty reductions:
    test_lexicographic_max_min_and_componentwise_sum and the random recurrences."""
    out = run("""
        tuple[int, float, int] g(seq[dna] s, index[s] i)
          | i == 0 = (0, 0.5, 1)
          | otherwise = max(g(i - 1) + (if s[i - 1] == 'A' then 2 else -1, 0.25, 1),
                            (i, 0, 0))
        tuple[int, float, int] top(seq[dna] s) = max(i in 0 ... len(s) : g(i))
        tuple[int, float, int] total(seq[dna] s) = sum(i in 0 ... len(s) : g(i))
        print g("GATAC")
        print top("GATAC")
        print total("GATAC")
    """, backend)
    cells = [(0, 0.5, 1)]
    for c in "GATAC":
        prev = cells[-1]
        cells.append(max((prev[0] + (2 if c == "A" else -1), prev[1] + 0.25, prev[2] + 1),
                         (len(cells), 0.0, 0)))
    table, top, total = out.values()
    assert [tuple(v) for v in table.values.tolist()] == cells
    assert top == max(cells) and total == tuple(map(sum, zip(*cells)))


def test_tuples_evaluated_on_demand_stay_on_the_interpreter_and_say_why(backend):
    """Data-dependent offsets: the demand evaluator does not hold tuples, so that
    group runs on the interpreter, with its reason."""
    from dslc import backends
    from dslc.runtime.script import ScriptRunner

    prog = dslc.compile("""
        tuple[int, int] h(int n)
          | n <= 1 = (1, 1)
          | otherwise = h(n - h(n - 1)[1]) + (n, 0)
        print h(6)
    """)
    runner = ScriptRunner(prog.checked, backends.get(backend), prog.base_dir, quiet=True)
    assert runner.run() == [("h(6)", (21, 1))]
    if backend != "interp":
        assert "evaluated on demand (not compiled for tuples)" in runner.backend.explain()["h"]


def test_random_tuple_recurrences_match_direct_evaluation(backend):
    """Random (score, count) recurrences (tests/generators.py): choice helpers, tuple
    +, lexicographic max/min, tuple reductions (empty ones included), ``if`` on
    tuples. A whole table (a map on the device: what its kernel runs) equals the
    generator's own meaning, or both give the error."""
    from dslc.runtime.binding import bind_value

    @settings(max_examples=2 if backend == "cpu" else 4, deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(rec=tuple_recurrences(), data=st.data())
    def check(rec, data):
        prog = dslc.compile(rec.source(), backend=backend)
        if backend == "cuda":
            tasks = [tuple(data.draw(dna(4)) for _ in range(rec.rec.ndim)) for _ in range(2)]
            f = prog.checked.functions["f0"]
            bound = [{p.name: bind_value(x, p.type, prog.checked, None)
                      for p, x in zip(f.calling_params, s)} for s in tasks]
            same_outcome(lambda: prog._engine().map("f0", bound, None),
                         lambda: [rec.evaluate(s, tuple(map(len, s))) for s in tasks],
                         rec.source())
            assert prog._engine().device_fallbacks == {} and "f0" in prog._engine().strategy
            return
        seqs = tuple(data.draw(dna(4)) for _ in range(rec.rec.ndim))
        points = list(itertools.product(*(range(len(s) + 1) for s in seqs)))

        def table():
            t = prog.call("f0", *seqs)
            return {p: t[p] for p in points}

        same_outcome(table, lambda: {p: rec.evaluate(seqs, p) for p in points}, rec.source())
        if backend != "interp":  # compiled, not handed to the interpreter
            assert prog._engine().explain() == {}
    check()


@pytest.mark.parametrize("src, message", [
    ("tuple[int, int] f(int a) = (a, a)[2]", r"t\[0\] \.\. t\[1\]"),
    ("tuple[int, int] f(int a) = (a, a)\nint g(int a) = f(a)[a]", r"t\[0\] \.\. t\[1\]"),
    ("tuple[int, int] f(int a) = (a, a) * 2", r"cannot use '\*' on a tuple\[int, int\]"),
    ("tuple[int, int] f(int a) = (a, a) + (a, a, a)", "cannot use '\\+'"),
    ("bool f(int a) = (a, a) < (a, a)", "cannot use '<'"),
    ("tuple[int, bool] f(int a) = (a, true)", "a tuple holds ints and floats, not 'bool'"),
    ("tuple[int, int] f(int a) = (a, true)", "a tuple holds ints and floats, not a bool"),
    ("tuple[int, int] f(int a) = (a, 0.5)",
     r"expected tuple\[int, int\], found tuple\[int, float\]"),
    ("int f(int a) = (a, a)", r"expected int, found tuple\[int, int\]"),
    ("tuple[int, int] f(int a) = (a, a)\nprint (1, 2)", "tuples are built inside functions"),
    ("tuple[int, int] f(tuple[int, int] a) = a\nprint f(3)", "a script has no tuple values"),
    ("pair[int, int] f(int a) = (a, a)", "unknown type 'pair\\[int, int\\]'"),
])
def test_mistakes_are_clear_errors(src, message):
    with pytest.raises(DslcError, match=message) as err:
        run(src)
    assert err.value.span is not None


def test_a_map_over_a_tuple_table(backend):
    """Enough tasks for the CPU's packs, which refuse tuples: the map runs one
    task per call in the plain generator, and the reason is recorded for explain
    (the device: test_a_tuple_map_on_the_device_runs_the_plain_kernel)."""
    prog = dslc.compile(CO_OPTIMAL, backend=backend)
    if backend == "cpu":
        prog._engine().disk_cache = False  # plan afresh: a cached refusal keeps no reason
    got = prog.map("d", ["GATTACA", "GCA", ""] * 6, "GCATGCT")
    want = [ref.co_optimal_edit_table(s, "GCATGCT")[-1][-1] for s in ("GATTACA", "GCA", "")]
    assert [list(got[k]) for k in range(18)] == want * 6
    if backend == "cpu":
        assert prog._backend.explain() == {}
        assert "a SIMD pack does not hold them" in prog._backend.packs.fallbacks["d"]


def test_python_passes_and_gets_tuples(backend):
    prog = dslc.compile(CO_OPTIMAL, backend=backend)
    assert prog.call("best", (1, 2), (1, 3.0)) == (1, 5)
    assert prog.call("best", (0, 2), (1, 3)) == (0, 2)
    with pytest.raises(DslcError, match="component 1 of argument 'a' of best expects an int"):
        prog.call("best", (1, 2.5), (1, 3))
    with pytest.raises(DslcError, match=r"expects a tuple\[int, int\], got a tuple of 1"):
        prog.call("best", (1,), (1, 3))


small = st.integers(-5, 5)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(small, small), min_size=2, max_size=4))
def test_operators_are_pythons_lexicographic_and_componentwise(items):
    # max/min order tuples as Python does, + and sum add components
    lits = [f"({a}, {b})" for a, b in items]
    out = run(f"""
        tuple[int, int] hi(int n) = {" max ".join(lits)}
        tuple[int, int] lo(int n) = min({", ".join(lits)})
        tuple[int, int] plus(int n) = {" + ".join(lits)}
        bool same(int n) = {lits[0]} == {lits[1]}
        print hi(0)
        print lo(0)
        print plus(0)
        print same(0)
    """)
    total = (sum(a for a, _ in items), sum(b for _, b in items))
    assert list(out.values()) == [max(items), min(items), total, items[0] == items[1]]


def test_a_component_beyond_the_exact_range_is_the_interpreters(backend):
    """Compiled ints are doubles: a stored int component beyond 2^53 stops the task
    and the interpreter recomputes it exactly (2^60) or reports the overflow (2^70),
    even where the entry reads the other component only."""
    prog = dslc.compile("""
        tuple[int, int] g(seq[dna] s, index[s] i)
          | i == 0 = (1, 1)
          | otherwise = g(i - 1) + g(i - 1)
        int f(seq[dna] s) = g(s, len(s))[1] - g(s, len(s))[0]
        int first(seq[dna] s) = g(s, len(s))[0] - g(s, len(s))[1]
    """, backend=backend)
    assert list(prog.map("f", ["A" * 60, "AC"])) == [0, 0]
    assert prog.call("first", "A" * 61) == 0
    with pytest.raises(DslcError, match="integer overflow"):
        prog.map("f", ["AC", "A" * 70])


def test_explain_says_which_strategy_holds_tuples(capsys, write_bio):
    """`dslc explain` names the strategy a tuple table's maps and calls get on the
    GPU, and why the specialised ones do not hold it (the CPU's lanes: above)."""
    import textwrap

    from dslc.cli import main

    p = write_bio(textwrap.dedent(CO_OPTIMAL) + 'print d("GATTACA", "GCA")\n'
                  'xs = load(seq[dna], "xs.fa")\nprint map(d, xs (*) "GCA")\n',
                  xs__fa=">a\nGATTACA\n>b\nGCA\n")
    assert main(["explain", "--backend", "cuda", str(p)]) == 0
    out = capsys.readouterr().out
    assert "register tile: none (d uses tuple values (tuple[int, int]): the register-tiled " \
           "kernel does not hold them" in out
    assert "single calls: on the CPU backend's compiled code, whatever their size" in out
    # the table the script asked for: the record of that call says where it ran, and why
    assert "cpu, entry d: cpu plain, float64 (table)\n  why: on the CPU backend's compiled " \
           "code, whatever their size" in out
    assert "interpreted" not in out.lower()


def test_a_map_over_tuple_arguments_says_why_it_is_not_compiled(backend):
    prog = dslc.compile(CO_OPTIMAL, backend=backend)
    got = prog.map("best", [(1, 2), (0, 5), (1, 1)], [(1, 3)])
    assert [tuple(v) for v in got.values.ravel().tolist()] == [(1, 5), (0, 5), (1, 4)]
    if backend != "interp":
        assert "over tuple arguments (a): not compiled" in prog._backend.explain()["best"]


OPERATORS = """
    tuple[int, int] hi(int a, int b, int c, int d, int e, int f, int g, int h) =
      (a, b) max (c, d) max (e, f) max (g, h)
    tuple[int, int] lo(int a, int b, int c, int d, int e, int f, int g, int h) =
      min((a, b), (c, d), (e, f), (g, h))
    tuple[int, int] plus(int a, int b, int c, int d, int e, int f, int g, int h) =
      (a, b) + (c, d) + (e, f) + (g, h)
    int same(int a, int b, int c, int d) =
      (if (a, b) == (c, d) then 1 else 0) + (if (a, b) != (c, d) then 0 else 2)
"""


def test_compiled_operators_are_pythons_lexicographic_and_componentwise(backend):
    """The operators with run-time operands (one compiled module per function,
    called for every example): ties included, since components are small."""
    prog = dslc.compile(OPERATORS, backend=backend)

    @settings(max_examples=25, deadline=None)
    @given(st.lists(st.tuples(small, small), min_size=4, max_size=4))
    def check(items):
        flat = [x for item in items for x in item]
        total = (sum(a for a, _ in items), sum(b for _, b in items))
        assert prog.call("hi", *flat) == max(items)
        assert prog.call("lo", *flat) == min(items)
        assert prog.call("plus", *flat) == total
        assert prog.call("same", *flat[:4]) == (3 if items[0] == items[1] else 0)
    check()
