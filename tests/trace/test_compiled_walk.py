"""The compiled walk (dslc.trace.jit) and the step plans give identical derivations
(steps, choices, sequences, or the same error) over tables the CPU backend filled:
on the standard library's alignments (compiled: paths over h, e, f), the casino's
Viterbi and Nussinov (shapes it does not compile: the step plans walk them, through
the one fallback), and on random recurrences (tests/generators.py). A few programs
only: each costs its Numba compiles."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from dslc.lang.stdlib import stdlib_source
from dslc.trace.jit import Shape
from dslc.trace.run import TraceRunner
from tests.conftest import EXAMPLES
from tests.generators import dna, recurrences
from tests.trace.test_filled_tables import entry
from tests.trace.test_walk_arrays import same_alignments


def both(prog, func: str, calls: list) -> int:
    """Traces ``calls`` by both routes, checks them equal; the compiled steps walked."""
    got, walked = [], 0
    for compiled in (False, True):
        engine = prog._engine()  # (binds the script's globals first)
        runner = TraceRunner(prog.checked, prog._globals, engine, compiled=compiled)
        prog._trace_runner = runner
        try:
            ds = prog.traces(func, calls)
            for d in ds:
                same_alignments(d)  # (read off the walk's arrays: as from its steps)
                assert d.recompute() == [s.value for s in d.steps]
            got.append([([(s, repr(s.seqs)) for s in d.steps], d.text()) for d in ds])
        except DslcError as e:
            got.append(("error", e.message))
        if compiled:
            walked = runner.tracer.walks.steps
    assert got[0] == got[1]
    return walked


def test_alignments_walk_compiled():
    prog = dslc.compile(stdlib_source("align"), backend="cpu")
    s, t = "MKVLAAGIVALLLAAGCSSSKEETPAAEGEKKSW", "MKVLAGIVALLLAGCSSKEETPAEGEKW"
    assert both(prog, "sw", [("blosum62", 10, 1, s, t), ("blosum62", 10, 1, t, s),
                             ("blosum62", 10, 1, s[:3], t[5:6]), ("blosum62", 1, 1, s, s)]) > 60


def test_a_walk_and_the_alignment_builder_keep_the_interpreter_lock():
    """Short calls from a thread that the fill ahead shares (Printer.SHORT): a walk that
    released the lock waited for the fill thread's switch interval to take it back."""
    from dslc.trace import align_kernel

    prog = dslc.compile(stdlib_source("align"), backend="cpu")
    prog.align(prog.traces("sw", [("blosum62", 10, 1, "MKVLAAGIV", "MKVLAGIV")] * 2)[0])
    walks = [w for w in prog._trace_runner.tracer.walks._walks.values() if w is not None]
    assert walks and align_kernel._COMPILED
    for fn in [w[0] for w in walks] + list(align_kernel._COMPILED):
        assert fn.targetoptions.get("nogil") is not True, fn


def test_nussinov_a_tree_falls_back_to_the_step_plans():
    nussinov = dslc.compile(str(EXAMPLES / "nussinov.bio"), backend="cpu")
    assert both(nussinov, "n", [("GGGAAAUCCAGUCCA", 0, 15), ("GGGAAAUCC", 0, 9)]) == 0
    assert Shape(nussinov._trace_runner.tracer.interp, "n").why == \
        "a step adding several calls (a tree)"


def test_viterbi_is_a_shape_not_compiled():
    """A reduction over an extension iterable (``t in s.transitionsto``): the step
    plans walk it (decided from the typed IR alone, before anything is compiled)."""
    casino = dslc.compile(str(EXAMPLES / "casino_decode.bio"), backend="interp")
    casino._engine()
    runner = TraceRunner(casino.checked, casino._globals, None)
    assert Shape(runner.tracer.interp, "hmm_vit").why == "a Reduce over calls"


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(max_dim=2, layered=True), op=st.sampled_from(["max", "min"]),
       data=st.data())
def test_compiled_and_planned_walks_give_equal_derivations(rec, op, data):
    calls = [tuple(data.draw(dna(6)) for _ in range(rec.ndim)) for _ in range(2)]
    prog = dslc.compile(rec.source() + entry(rec.ndim, op), backend="cpu")
    both(prog, "best", calls)


BIG = """
int g(const base, seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = base
  | otherwise = g(i - 1, j) + 1 max g(i, j - 1) + 1 max g(i - 1, j - 1) + 2
int best(const base, seq[dna] s, seq[dna] t) =
    max(i in 0 ... len(s) : max(j in 0 ... len(t) : g(i, j)))
"""


def test_values_float64_cannot_decide_go_back_to_the_step_plans():
    """Ints past 2^53 are not compared in float64: the derivation is the step plans'
    (one program: the same shape compiled where its values are small)."""
    prog = dslc.compile(BIG, backend="cpu")
    assert both(prog, "best", [(0, "ACGTA", "AGGT")]) > 0
    assert both(prog, "best", [(2**53 - 3, "ACGTA", "AGGT")]) == 0
