"""The HMM value and the ``define hmm`` block parser."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.errors import DslcError, Span
from dslc.lang.values import Alphabet
from dslc_extensions.hmm.define_parser import default_eval_expr, parse_hmm_block
from dslc_extensions.hmm.model import EMITTING, END, SILENT, START, build_hmm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the reference helpers
import hmm_reference as ref  # noqa: E402
from hmm_models import CASINO_BODY  # noqa: E402

DICE = Alphabet("dice", tuple("123456"))
DNA = Alphabet("dna", tuple("ACGT"))
ALPHABETS = {"dice": DICE, "dna": DNA}


GENEFINDER_BODY = """
    alphabet dna;
    startstate start;
    state background emits emitbackground;
    state startcodon emits emitstart;
    state gene emits emitcodon;
    state stop emits emitstop;
    endstate end;

    const gene_density = 0.001;
    const gene_length = 100;

    start -> background 1.0;
    background -> background (1.0 - 0.0001 - gene_density);
    background -> startcodon gene_density;
    background -> end 0.0001;
    startcodon -> gene 1.0;
    gene -> gene (1 - 1/gene_length);
    gene -> stop (1/gene_length);
    stop -> background 1.0;

    emission emitbackground = * : 0.25;
    emission emitstart = ATG : 1, * : 0 ;
    emission emitstop = TAG : 1/3, TAA : 1/3, TGA : 1/3, * : 0 ;
    emission emitcodon = TAG : 0, TAA: 0, TGA : 0, * : 1/61 ;
"""


def parse_source(source: str, file: str = "prog.bio", eval_expr=None):
    """Cut the body out of ``define hmm NAME { ... }`` in ``source`` the way the
    front end does, and parse it with the span of its first character."""
    m = re.search(r"define hmm (\w+) \{", source)
    start = m.end()
    end = source.rindex("}")
    line = source.count("\n", 0, start) + 1
    col = start - (source.rfind("\n", 0, start) + 1) + 1
    return parse_hmm_block(m.group(1), source[start:end], Span(file, line, col), ALPHABETS, eval_expr)


def model(body: str, name: str = "m"):
    return parse_source(f"define hmm {name} {{{body}}}\n")


def position(source: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, col) of the nth occurrence of needle."""
    at = -1
    for _ in range(nth + 1):
        at = source.index(needle, at + 1)
    return source.count("\n", 0, at) + 1, at - (source.rfind("\n", 0, at) + 1) + 1


def casino():
    return model(CASINO_BODY, "casino")


# --------------------------------------------------------------------------- the casino

def test_casino_states_and_numbering():
    h = casino()
    assert h.name == "casino" and h.alphabet is DICE and h.order == 1
    assert [s.name for s in h.states] == ["start", "fair", "loaded", "end"]
    assert [s.index for s in h.states] == [0, 1, 2, 3]
    assert [s.kind for s in h.states] == [START, EMITTING, EMITTING, END]
    assert h.start.isstart and h.end.isend and not h.states[1].issilent
    assert h.start.emission is None and h.end.emission is None
    np.testing.assert_allclose(h.states[1].emission, [1 / 6] * 6)
    np.testing.assert_allclose(h.states[2].emission, [0.1] * 5 + [0.5])
    assert h.states[1].emission_name == "fairemission"


def test_casino_transitions_ordered_by_pairs():
    h = casino()
    got = [(h.states[t.start].name, h.states[t.end].name, t.prob) for t in h.transitions]
    assert got == [("start", "fair", 1.0), ("fair", "fair", 0.94999), ("fair", "loaded", 0.05),
                   ("fair", "end", 0.00001), ("loaded", "fair", 0.02), ("loaded", "loaded", 0.97999),
                   ("loaded", "end", 0.00001)]
    assert [t.index for t in h.transitions] == list(range(7))
    fair = h.states[1]
    assert fair.transitions_from == (1, 2, 3)
    assert sorted(fair.transitions_to) == [0, 1, 4]
    assert h.end.transitions_from == () and h.start.transitions_to == ()
    assert sorted(h.end.transitions_to) == [3, 6]


def test_casino_arrays():
    h = casino()
    T = h.log_transition
    assert T.shape == (4, 4)
    assert T[0, 1] == 0.0 and math.isclose(T[1, 2], math.log(0.05)) and T[0, 2] == -np.inf
    assert np.all(T[:, 0] == -np.inf) and np.all(T[3] == -np.inf)
    E = h.log_emission
    assert E.shape == (4, 6)
    assert np.all(E[0] == -np.inf) and np.all(E[3] == -np.inf)
    assert math.isclose(E[2, 5], math.log(0.5))
    # CSR in-edges agree with the transition records
    for s in h.states:
        lo, hi = h.in_offsets[s.index], h.in_offsets[s.index + 1]
        got = sorted(zip(h.in_source[lo:hi].tolist(), h.in_logprob[lo:hi].tolist()))
        want = sorted((h.transitions[t].start, math.log(h.transitions[t].prob)) for t in s.transitions_to)
        # sources exactly, log-probabilities to rounding (approx takes flat sequences only)
        assert [src for src, _ in got] == [src for src, _ in want]
        assert [lp for _, lp in got] == pytest.approx([lp for _, lp in want])
        assert sorted(h.in_transition[lo:hi].tolist()) == sorted(s.transitions_to)
        olo, ohi = h.out_offsets[s.index], h.out_offsets[s.index + 1]
        assert list(range(olo, ohi)) == list(s.transitions_from)
    assert h.widths.tolist() == [0, 1, 1, 0]
    assert h.column_order == (0, 1, 2, 3)


def test_casino_forward_matches_enumeration():
    h = casino()
    for rolls in ([0], [5, 5], [0, 5, 2], [5, 5, 5, 1]):
        lp, _ = ref.forward(h, rolls)
        assert lp == pytest.approx(math.log(brute_force(h, rolls)), rel=1e-10)
        lb, _ = ref.backward(h, rolls)
        assert lb == pytest.approx(lp, rel=1e-10)
        lv, path = ref.viterbi(h, rolls)
        assert lv == pytest.approx(ref.path_logprob(h, rolls, path))
        assert lv == pytest.approx(math.log(brute_force(h, rolls, best=True)), rel=1e-10)


def test_casino_long_sequence_no_underflow():
    h = casino()
    rng = np.random.default_rng(1)
    rolls = rng.integers(0, 6, 2000)
    lp, f = ref.forward(h, rolls)
    lb, _ = ref.backward(h, rolls)
    assert np.isfinite(lp) and lp == pytest.approx(lb, rel=1e-9)
    assert lp < -2000


# --------------------------------------------------------------------------- syntax

def test_comments_constants_and_expressions():
    h = model("""
      /* a two-state model
         with a block comment */
      alphabet dna;           // the alphabet
      const p = 0.25;
      const q = 1 - p;        // later constants use earlier ones
      const half = (p + q) / 2;
      startstate s; state a emits e; endstate t;
      s -> a 1; a -> a p * 4 - half; a -> t half;
      emission e = [p, p, -(-p), 1 - 3 * p];
    """)
    a = h.states[1]
    assert [h.transitions[t].prob for t in a.transitions_from] == pytest.approx([0.5, 0.5])
    np.testing.assert_allclose(a.emission, [0.25] * 4)


def test_transition_expression_using_later_constant():
    h = model("""
      alphabet dna; startstate s; state a emits e; endstate t;
      s -> a 1; a -> t stay_not; a -> a 1 - stay_not;
      const stay_not = 0.1;
      emission e = * : 0.25;
    """)
    assert h.transitions[h.states[1].transitions_from[1]].prob == pytest.approx(0.1)


def test_keyed_emissions():
    h = model("""
      alphabet dna; startstate s; state a emits e1; state b emits e2; state c emits e3; endstate t;
      s -> a 1; a -> b 1; b -> c 1; c -> t 1;
      emission e1 = A : 0.3, * : 0.7 / 3;
      emission e2 = C : 0.5, 'G' : 0.5;       // unlisted symbols get 0
      emission e3 = * : 0.25;
    """)
    np.testing.assert_allclose(h.states[1].emission, [0.3, 0.7 / 3, 0.7 / 3, 0.7 / 3])
    np.testing.assert_allclose(h.states[2].emission, [0, 0.5, 0.5, 0])
    np.testing.assert_allclose(h.states[3].emission, [0.25] * 4)


def test_keyed_emission_over_dice():
    h = model("""
      alphabet dice; startstate s; state a emits e; endstate t;
      s -> a 1; a -> t 1;
      emission e = 6 : 0.5, * : 0.1;
    """)
    np.testing.assert_allclose(h.states[1].emission, [0.1] * 5 + [0.5])


def test_silent_states_and_column_order():
    # 'late' is declared before 'early', but early -> late: visit early first in a column
    h = model("""
      alphabet dna; startstate s;
      state late; state a emits e; state early;
      endstate t;
      s -> early 0.5; s -> a 0.5;
      early -> late 1;
      late -> a 0.4; late -> t 0.6;
      a -> early 0.5; a -> t 0.5;
      emission e = * : 0.25;
    """)
    names = [s.name for s in h.states]
    assert names == ["s", "late", "a", "early", "t"]
    assert [s.kind for s in h.states] == [START, SILENT, EMITTING, SILENT, END]
    order = [names[i] for i in h.column_order]
    assert order.index("early") < order.index("late") < order.index("t")
    assert h.is_silent.tolist() == [True, True, False, True, True]
    for x in ([], [0], [1, 2], [3, 3, 0]):
        p = brute_force(h, x)
        lp, _ = ref.forward(h, x)
        assert lp == pytest.approx(math.log(p), rel=1e-10)
        assert ref.backward(h, x)[0] == pytest.approx(lp, rel=1e-10)
        lv, path = ref.viterbi(h, x)
        assert lv == pytest.approx(math.log(brute_force(h, x, best=True)), rel=1e-10)
        assert ref.path_logprob(h, x, path) == pytest.approx(lv)


# --------------------------------------------------------------------------- k-mer emissions

def test_genefinder_kmer_emissions():
    h = model(GENEFINDER_BODY, "genefinder")
    assert [s.name for s in h.states] == ["start", "background", "startcodon", "gene", "stop", "end"]
    assert h.order == 3
    assert h.widths.tolist() == [0, 1, 3, 3, 3, 0]
    start_codon = h.states[2].emission
    assert start_codon.shape == (64,)
    atg = h.kmer_code([DNA.code(c) for c in "ATG"])
    assert atg == 0 * 16 + 3 * 4 + 2
    assert start_codon[atg] == 1.0 and start_codon.sum() == 1.0
    codon = h.states[3].emission
    for stop in ("TAG", "TAA", "TGA"):
        assert codon[h.kmer_code([DNA.code(c) for c in stop])] == 0
    assert codon.sum() == pytest.approx(1.0)
    assert h.states[1].emission.shape == (4,)
    # the log emission matrix reads windows of 3: background uses the last symbol
    E = h.log_emission
    assert E.shape == (6, 64)
    for code in range(64):
        assert E[1, code] == pytest.approx(math.log(0.25))
    assert E[2, atg] == 0.0 and E[2, atg + 1] == -np.inf
    tx = [t.prob for t in h.transitions if h.states[t.start].name == "background"]
    assert sorted(tx) == pytest.approx(sorted([1 - 0.0001 - 0.001, 0.001, 0.0001]))


def test_genefinder_forward_matches_enumeration():
    h = model(GENEFINDER_BODY, "genefinder")
    for text in ("A", "ATGAAATAG", "CATGCCCTAAG", "ATGTAGTGA"):
        x = DNA.encode(text)
        p = brute_force(h, x)
        lp, _ = ref.forward(h, x)
        assert lp == pytest.approx(math.log(p), rel=1e-10)
        assert ref.backward(h, x)[0] == pytest.approx(lp, rel=1e-10)
        lv, path = ref.viterbi(h, x)
        assert lv == pytest.approx(math.log(brute_force(h, x, best=True)), rel=1e-10)
    # a gene is only possible through ATG ... stop codon
    lv, path = ref.viterbi(h, DNA.encode("CATGAAATAGC"))
    names = [h.states[i].name for i in path]
    assert names[0] == "start" and names[-1] == "end"
    gene_path = [0, 1, 2, 3, 4, 1, 5]
    assert ref.path_logprob(h, DNA.encode("CATGAAATAGC"), gene_path) == pytest.approx(
        math.log(0.25 * 0.001 * 1 * 1 * (1 / 61) * 0.01 * (1 / 3) * 1 * 0.25 * 0.0001))
    assert ref.path_logprob(h, DNA.encode("CATGAAATAGC"), [0, 1, 2, 3, 3, 5]) == -np.inf


def test_kmer_vector_emission():
    vals = ", ".join(["1/16"] * 16)
    h = model(f"""
      alphabet dna; startstate s; state a emits e; endstate t;
      s -> a 1; a -> t 1;
      emission e = [{vals}];
    """)
    assert h.states[1].width == 2 and h.order == 2


# --------------------------------------------------------------------------- errors

def error_of(body: str, name: str = "m", **kw) -> tuple[DslcError, str]:
    source = f"define hmm {name} {{{body}}}\n"
    with pytest.raises(DslcError) as info:
        parse_source(source, **kw)
    return info.value, source


def at(err: DslcError, source: str, needle: str, nth: int = 0):
    assert (err.span.line, err.span.col) == position(source, needle, nth), err.render()
    assert err.span.file == "prog.bio"


OK = """
  alphabet dice;
  startstate start;
  state fair emits fe;
  endstate end;
  start -> fair 1;
  fair -> fair 0.5; fair -> end 0.5;
  emission fe = [1/6, 1/6, 1/6, 1/6, 1/6, 1/6];
"""


def test_ok_model_parses():
    assert model(OK).n_states == 3


def test_error_outgoing_sum():
    e, src = error_of(CASINO_BODY.replace("fair -> loaded 0.05", "fair -> loaded 0.06"))
    assert "'fair'" in e.message and "1.01" in e.message
    at(e, src, "fair -> end")
    assert "fair -> loaded 0.06" in e.hint


def test_error_state_without_transitions():
    e, src = error_of(OK.replace("endstate end;", "state dead emits fe; endstate end;")
                      .replace("fair -> end 0.5;", "fair -> end 0.25; fair -> dead 0.25;"))
    assert "'dead'" in e.message and "sum to 0" in e.message
    at(e, src, "dead")


def test_error_unreachable_state():
    e, src = error_of(OK.replace("endstate end;", "state lost emits fe; endstate end;")
                      + "lost -> end 1;")
    assert "'lost'" in e.message and "cannot be reached" in e.message
    at(e, src, "lost")


def test_error_zero_probability_edge_does_not_reach():
    e, src = error_of(OK.replace("endstate end;", "state lost emits fe; endstate end;")
                      .replace("fair -> end 0.5;", "fair -> end 0.5; fair -> lost 0;") + "lost -> end 1;")
    assert "'lost'" in e.message and "cannot be reached" in e.message


def test_error_cannot_reach_end():
    e, src = error_of(OK.replace("endstate end;", "state trap emits fe; endstate end;")
                      .replace("fair -> end 0.5;", "fair -> end 0.25; fair -> trap 0.25;") + "trap -> trap 1;")
    assert "cannot be reached from state 'trap'" in e.message
    at(e, src, "trap")


def test_error_symbol_outside_alphabet():
    e, src = error_of(OK.replace("[1/6, 1/6, 1/6, 1/6, 1/6, 1/6]", "7 : 0.5, * : 0.1"))
    assert "'7'" in e.message and "dice" in e.message
    at(e, src, "7 :")


def test_error_emission_wrong_length():
    e, src = error_of(OK.replace("[1/6, 1/6, 1/6, 1/6, 1/6, 1/6]", "[0.2, 0.2, 0.2, 0.2, 0.2]"))
    assert "5 values" in e.message and "6 symbols" in e.message
    at(e, src, "emission fe")


def test_error_emission_sum():
    e, src = error_of(OK.replace("[1/6, 1/6, 1/6, 1/6, 1/6, 1/6]", "[0.2, 0.2, 0.2, 0.2, 0.2, 0.2]"))
    assert "'fe'" in e.message and "1.2" in e.message
    at(e, src, "emission fe")


def test_error_keyed_emission_sum():
    e, _ = error_of(OK.replace("[1/6, 1/6, 1/6, 1/6, 1/6, 1/6]", "6 : 0.5, * : 0.2"))
    assert "sums to 1.5" in e.message


def test_error_mixed_key_lengths():
    e, src = error_of(OK.replace("alphabet dice", "alphabet dna")
                      .replace("[1/6, 1/6, 1/6, 1/6, 1/6, 1/6]", "A : 0.5, AT : 0.5"))
    assert "2 symbols" in e.message
    at(e, src, "AT :")


def test_error_duplicate_key():
    e, src = error_of(OK.replace("[1/6, 1/6, 1/6, 1/6, 1/6, 1/6]", "1 : 0.5, 1 : 0.5"))
    assert "twice" in e.message
    at(e, src, "1 : 0.5", 1)


@pytest.mark.parametrize("extra, needle, words", [
    ("state fair;", "fair;", "state 'fair' is declared twice"),
    ("emission fe = * : 1/6;", "fe = *", "emission 'fe' is defined twice"),
    ("const c = 1; const c = 2;", "c = 2", "constant 'c' is defined twice"),
    ("startstate other;", "other", "second start state"),
    ("endstate other;", "other", "second end state"),
    ("alphabet dna;", "alphabet dna", "already given"),
    ("fair -> end 0.5;", "fair -> end 0.5;", "given twice"),
])
def test_error_duplicates(extra, needle, words):
    e, src = error_of(OK + extra)
    assert words in e.message
    at(e, src, needle, src.count(needle) - 1)


def test_error_undefined_state():
    e, src = error_of(OK.replace("fair -> end 0.5;", "fair -> ned 0.5;"))
    assert "undefined state 'ned'" in e.message and "state ned" in e.hint
    at(e, src, "ned")


def test_error_undefined_emission():
    e, src = error_of(OK.replace("emits fe", "emits ef"))
    assert "undefined emission 'ef'" in e.message
    at(e, src, "ef;")


def test_error_undefined_constant():
    e, src = error_of(OK.replace("fair -> fair 0.5", "fair -> fair 1 - stay"))
    assert "undefined name 'stay'" in e.message
    at(e, src, "stay")


def test_error_constant_used_before_declared():
    e, src = error_of(OK + "const a = b; const b = 0.5;")
    assert "undefined name 'b'" in e.message
    at(e, src, "b;")


def test_error_missing_start_and_end():
    e, src = error_of(OK.replace("startstate start;", "").replace("start -> fair 1;", ""))
    assert "no start state" in e.message
    assert (e.span.line, e.span.col) == (1, 15)  # just after '{'
    e, _ = error_of(OK.replace("endstate end;", "state end;"))
    assert "no end state" in e.message


def test_error_missing_alphabet():
    e, _ = error_of(OK.replace("alphabet dice;", ""))
    assert "no 'alphabet NAME;'" in e.message
    e, src = error_of(OK.replace("alphabet dice;", "alphabet dic;"))
    assert "unknown alphabet 'dic'" in e.message and "dice" in e.hint
    at(e, src, "dic;")


def test_error_transition_into_start_and_out_of_end():
    e, src = error_of(OK.replace("fair -> end 0.5;", "fair -> end 0.25; fair -> start 0.25;"))
    assert "into the start state" in e.message
    at(e, src, "start 0.25")
    e, src = error_of(OK + "end -> fair 1;")
    assert "out of the end state" in e.message
    at(e, src, "end -> fair")


def test_error_emitting_start_and_end():
    e, src = error_of(OK.replace("startstate start;", "startstate start emits fe;"))
    assert "start state 'start' cannot emit" in e.message
    at(e, src, "fe;")
    e, _ = error_of(OK.replace("endstate end;", "endstate end emits fe;"))
    assert "end state 'end' cannot emit" in e.message


def test_error_probability_out_of_range():
    e, src = error_of(OK.replace("fair -> fair 0.5", "fair -> fair 1.5 - 2"))
    assert "-0.5" in e.message and "between 0 and 1" in e.message
    at(e, src, "1.5 - 2")


def test_error_silent_cycle():
    e, src = error_of(OK.replace("endstate end;", "state x; state y; endstate end;")
                      .replace("fair -> end 0.5;", "fair -> end 0.25; fair -> x 0.25; x -> y 1; y -> x 0.5; y -> end 0.5;"))
    assert "cycle" in e.message and "x -> y -> x" in e.message


def test_error_syntax():
    e, src = error_of(OK.replace("fair -> fair 0.5;", "fair -> fair 0.5"))
    assert "unexpected" in e.message or "expected" in e.message
    e, src = error_of(OK + "  state tail")
    assert "missing ';'" in e.message
    at(e, src, "state tail")
    e, src = error_of(OK + "  banana split;")
    assert "unexpected statement" in e.message and "startstate" in e.hint
    at(e, src, "banana")
    e, src = error_of(OK + " /* never closed")
    assert "unterminated comment" in e.message
    at(e, src, "/*")
    e, src = error_of(OK + " fair -> end;")
    assert "missing probability" in e.message


def test_error_positions_on_later_lines_and_first_line():
    # a statement on the first line of the body: the column counts from the '{'
    source = "x = 1\ndefine hmm m { alphabet nope;\n}\n"
    with pytest.raises(DslcError) as info:
        parse_source(source)
    assert (info.value.span.line, info.value.span.col) == position(source, "nope")


def test_custom_evaluator_receives_text_span_and_constants():
    calls = []

    def ev(text, span, constants):
        calls.append((text, span, dict(constants)))
        return default_eval_expr(text, span, constants)

    source = "define hmm m {" + OK + "const k = 0.5;}\n"
    parse_source(source, eval_expr=ev)
    texts = [c[0] for c in calls]
    assert "1/6" in texts and "0.5" in texts
    text, span, consts = next(c for c in calls if c[0] == "1")
    assert (span.line, span.col) == position(source, "1;")
    assert consts == {"k": 0.5}


def test_evaluator_result_must_be_number():
    with pytest.raises(DslcError) as info:
        parse_source("define hmm m {" + OK + "}", eval_expr=lambda t, s, c: "x")
    assert "must be a number" in info.value.message


# --------------------------------------------------------------------------- the default evaluator

@pytest.mark.parametrize("text, value", [
    ("1", 1.0), ("1/6", 1 / 6), ("1 - 2 * 3", -5.0), ("(1 - 2) * 3", -3.0), ("-2", -2.0), ("- -2", 2.0),
    ("2e-3", 0.002), (".5 + 1.", 1.5), ("a / b", 0.25), ("1 / (a + b)", 0.2), ("8 / 2 / 2", 2.0),
    ("1 - 1/gene_length", 0.99),
])
def test_default_eval(text, value):
    got = default_eval_expr(text, Span("f", 1, 1), {"a": 1.0, "b": 4.0, "gene_length": 100})
    assert got == pytest.approx(value)


@pytest.mark.parametrize("text, words, col", [
    ("1 +", "expected an expression", None), ("x", "undefined name 'x'", 3), ("1 / 0", "division by zero", 5),
    ("(1", "expected ')'", None), ("1 2", "unexpected '2'", 5), ("__import__(1)", "undefined name '__import__'", 3), ("open('f')", "unexpected", None),
    ("2 ** 3", "unexpected '*'", 6), ("1 @ 2", "unexpected '@'", 5),
])
def test_default_eval_errors(text, words, col):
    with pytest.raises(DslcError) as info:
        default_eval_expr(text, Span("f", 4, 3), {})
    assert words in info.value.message
    assert info.value.span.line == 4
    if col is not None:
        assert info.value.span.col == col


# --------------------------------------------------------------------------- build_hmm and random models

def test_build_hmm_requires_start_first_end_last():
    with pytest.raises(ValueError):
        build_hmm("x", DNA, [("a", EMITTING, np.full(4, 0.25), 1, None), ("e", END, None, 0, None)], [])


@st.composite
def random_models(draw):
    """Small models with emitting and silent states; silent states only point
    forward (by number) to each other, so there is no silent cycle."""
    n_inner = draw(st.integers(1, 4))
    kinds = [draw(st.sampled_from([EMITTING, EMITTING, SILENT])) for _ in range(n_inner)]
    n = n_inner + 2
    names = ["s"] + [f"q{i}" for i in range(n_inner)] + ["e"]
    rows = [("s", START, None, 0, None)]
    for i, k in enumerate(kinds):
        if k == EMITTING:
            w = draw(st.lists(st.floats(0.05, 1.0), min_size=4, max_size=4))
            rows.append((names[i + 1], k, np.array(w) / sum(w), 1, None))
        else:
            rows.append((names[i + 1], k, None, 0, None))
    rows.append(("e", END, None, 0, None))
    silent = [r[1] != EMITTING for r in rows]
    edges = []
    for a in range(n - 1):
        targets = [b for b in range(1, n) if not (silent[a] and silent[b] and b <= a)]
        chosen = draw(st.lists(st.sampled_from(targets), min_size=1, max_size=3, unique=True))
        if n - 1 not in chosen and draw(st.booleans()):
            chosen.append(n - 1)
        ws = draw(st.lists(st.floats(0.05, 1.0), min_size=len(chosen), max_size=len(chosen)))
        edges += [(a, b, w / sum(ws)) for b, w in zip(chosen, ws)]
    return build_hmm("r", DNA, rows, edges)


@settings(max_examples=60, deadline=None)
@given(random_models(), st.lists(st.integers(0, 3), max_size=4))
def test_reference_algorithms_on_random_models(h, x):
    p = brute_force(h, x)
    lp, _ = ref.forward(h, x)
    if p == 0:
        assert lp == -np.inf
        return
    assert lp == pytest.approx(math.log(p), rel=1e-9, abs=1e-12)
    assert ref.backward(h, x)[0] == pytest.approx(lp, rel=1e-9, abs=1e-12)
    lv, path = ref.viterbi(h, x)
    assert lv == pytest.approx(math.log(brute_force(h, x, best=True)), rel=1e-9, abs=1e-12)
    assert ref.path_logprob(h, x, path) == pytest.approx(lv, rel=1e-9, abs=1e-12)
    # the flat arrays agree with the records
    for t in h.transitions:
        assert h.log_transition[t.start, t.end] == pytest.approx(math.log(t.prob))
    order = h.column_order
    assert sorted(order) == list(range(h.n_states))
    pos = {s: k for k, s in enumerate(order)}
    for t in h.transitions:
        if h.states[t.start].issilent and h.states[t.end].issilent:
            assert pos[t.start] < pos[t.end]


# --------------------------------------------------------------------------- enumeration

def brute_force(h, x, best: bool = False) -> float:
    """Sum (or max) over every path from the start state to the end state that
    emits exactly ``x``: explicit enumeration, no dynamic programming."""
    x = [int(c) for c in x]
    a = len(h.alphabet)
    out = {s.index: [(h.transitions[t].end, h.transitions[t].prob) for t in s.transitions_from]
           for s in h.states}
    end = h.end.index
    total = 0.0

    def walk(state: int, pos: int, prob: float, depth: int):
        nonlocal total
        if prob == 0 or depth > 3 * len(x) + 3 * h.n_states + 2:
            return
        if state == end:
            if pos == len(x):
                total = max(total, prob) if best else total + prob
            return
        for nxt, p in out[state]:
            s = h.states[nxt]
            if s.emission is None:
                walk(nxt, pos, prob * p, depth + 1)
            elif pos + s.width <= len(x):
                code = 0
                for c in x[pos:pos + s.width]:
                    code = code * a + c
                walk(nxt, pos + s.width, prob * p * s.emission[code], depth + 1)

    walk(h.start.index, 0, 1.0, 0)
    return total


def test_brute_force_counts_paths():
    h = casino()
    # one roll: start -> fair|... only fair can follow start, then end
    assert brute_force(h, [0]) == pytest.approx(1 / 6 * 0.00001)


def test_quoted_symbol_keys_and_comments_with_quotes():
    prot = Alphabet("prot", tuple("AC*"))
    body = """
      alphabet prot;   // the model's alphabet (it's got a stop symbol)
      startstate s; state a emits e; endstate t;   /* don't mind the quotes */
      s -> a 1; a -> t 1;
      emission e = '*' : 0.5, * : 0.25;
    """
    h = parse_hmm_block("q", body, Span("p.bio", 1, 1), {"prot": prot})
    np.testing.assert_allclose(h.states[1].emission, [0.25, 0.25, 0.5])
    with pytest.raises(DslcError) as info:
        parse_hmm_block("q", body.replace("'*' : 0.5", "A * : 0.5"), Span("p.bio", 1, 1), {"prot": prot})
    assert "quote it" in info.value.message
