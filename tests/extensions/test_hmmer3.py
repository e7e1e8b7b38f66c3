"""HMMER3 profile files: reading, checking against pyhmmer, conversion to an HMM."""

from __future__ import annotations

import gzip
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from dslc.errors import DslcError, Span
from dslc.lang.values import Alphabet
from dslc_extensions.hmm.hmmer3 import (AMINO, DD, DM, II, IM, MD, MI, MM, load_hmmer3, parse_hmmer3_text,
                                        profile_to_hmm, read_profiles)
from dslc_extensions.hmm.model import EMITTING, END, SILENT, START

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the reference helpers
import hmm_reference as ref  # noqa: E402

pyhmmer = pytest.importorskip("pyhmmer")
DATA = Path(os.path.dirname(pyhmmer.__file__)) / "tests" / "data" / "hmms"
TXT = sorted((DATA / "txt").glob("*.hmm"))
THIO = DATA / "txt" / "Thioesterase.hmm"
SPAN = Span("prog.bio", 3, 5)
PROTEIN = Alphabet("protein", tuple("ARNDCQEGHILKMFPSTWYVBZX*"))

if not THIO.exists():  # pragma: no cover
    pytest.skip("pyhmmer's test data is not installed", allow_module_level=True)


def pyhmmer_models(path):
    with pyhmmer.plan7.HMMFile(str(path)) as f:
        return list(f)


@pytest.mark.parametrize("path", TXT, ids=[p.name for p in TXT])
def test_profiles_match_pyhmmer(path):
    mine = read_profiles(path, SPAN)
    theirs = pyhmmer_models(path)
    assert len(mine) == len(theirs)
    for p, h in zip(mine, theirs):
        assert p.name == (h.name.decode() if isinstance(h.name, bytes) else h.name)
        assert p.M == h.M
        assert "".join(p.alphabet.symbols) == h.alphabet.symbols[:len(p.alphabet)]
        np.testing.assert_allclose(p.match_emissions, np.asarray(h.match_emissions)[1:], atol=1e-6)
        np.testing.assert_allclose(p.insert_emissions, np.asarray(h.insert_emissions), atol=1e-6)
        t = np.asarray(h.transition_probabilities)
        np.testing.assert_allclose(p.transitions[1:], t[1:], atol=1e-6)
        np.testing.assert_allclose(p.transitions[0, :5], t[0, :5], atol=1e-6)  # D0 does not exist


def test_thioesterase_values():
    (p,) = read_profiles(THIO, SPAN)
    assert p.name == "Thioesterase" and p.M == 243 and p.alphabet is AMINO
    assert "".join(AMINO.symbols) == "ACDEFGHIKLMNPQRSTVWY"
    assert p.match_emissions.shape == (243, 20)
    assert p.insert_emissions.shape == (244, 20)
    assert p.transitions.shape == (244, 7)
    # node 1, match emission of A is exp(-2.07737); node 0: m->i is '*'
    assert p.match_emissions[0, 0] == pytest.approx(math.exp(-2.07737))
    assert p.match_emissions[0, AMINO.code("P")] == pytest.approx(math.exp(-1.20747))
    assert p.transitions[0, MI] == 0.0 and p.transitions[0, MM] == pytest.approx(math.exp(-0.00511))
    assert p.transitions[1, II] == pytest.approx(math.exp(-0.77267))
    assert p.transitions[243].tolist() == [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert p.compo is None
    assert p.consensus.startswith("pPLFcvHP")
    assert p.tags["LENG"] == "243"


def test_rna_profile_with_compo():
    (p,) = read_profiles(DATA / "txt" / "RF00001.hmm")
    assert p.alphabet.symbols == tuple("ACGU") and p.M == 119
    assert p.accession == "RF00001" and p.description == "5S ribosomal RNA"
    assert p.compo == pytest.approx(np.exp(-np.array([1.44549, 1.37725, 1.25977, 1.47676])))


def test_multi_model_file():
    ps = read_profiles(DATA / "txt" / "RREFam.hmm")
    assert len(ps) == 10
    hs = load_hmmer3(DATA / "txt" / "RREFam.hmm", SPAN)
    assert [h.name for h in hs] == [p.name for p in ps]
    assert all(h.profile.M == p.M for h, p in zip(hs, ps))


def test_gzip_file(tmp_path):
    gz = tmp_path / "t.hmm.gz"
    gz.write_bytes(gzip.compress(THIO.read_bytes()))
    (p,) = read_profiles(gz)
    assert p.M == 243


# --------------------------------------------------------------------------- the model built

def test_core_model_structure():
    (h,) = load_hmmer3(THIO, SPAN)
    p = h.profile
    M = p.M
    assert h.n_states == 3 * M + 2 == p.n_states
    assert h.alphabet is AMINO
    names = [s.name for s in h.states]
    assert names[:5] == ["B", "I0", "M1", "I1", "D1"]
    assert names[-3:] == [f"M{M}", f"D{M}", "E"]
    for k in range(1, M + 1):
        assert names[p.match_state(k)] == f"M{k}"
        assert names[p.delete_state(k)] == f"D{k}"
        assert h.states[p.match_state(k)].kind == EMITTING
        assert h.states[p.delete_state(k)].kind == SILENT
    for k in range(M):
        assert names[p.insert_state(k)] == f"I{k}"
    assert h.states[0].kind == START and h.states[-1].kind == END
    np.testing.assert_array_equal(h.states[p.match_state(5)].emission, p.match_emissions[4])
    np.testing.assert_array_equal(h.states[p.insert_state(5)].emission, p.insert_emissions[5])
    # silent-to-silent transitions go up the numbering: index order is a column order
    for t in h.transitions:
        if h.states[t.start].issilent and h.states[t.end].issilent:
            assert t.start < t.end
        assert t.start < t.end or t.start == t.end  # only insert self-loops stay put
    assert h.column_order == tuple(range(h.n_states))
    # the file's transitions, unrenormalised; outgoing sums are 1 up to the file's rounding
    T = {(t.start, t.end): t.prob for t in h.transitions}
    assert T[(0, p.match_state(1))] == p.transitions[0, MM]
    assert T[(0, p.delete_state(1))] == p.transitions[0, MD]
    assert (0, p.insert_state(0)) not in T  # probability 0: left out
    k = 17
    assert T[(p.match_state(k), p.insert_state(k))] == p.transitions[k, MI]
    assert T[(p.insert_state(k), p.match_state(k + 1))] == p.transitions[k, IM]
    assert T[(p.delete_state(k), p.delete_state(k + 1))] == p.transitions[k, DD]
    assert T[(p.delete_state(k), p.match_state(k + 1))] == p.transitions[k, DM]
    assert T[(p.match_state(M), h.end.index)] == 1.0
    for s in h.states[:-1]:
        if s.transitions_from:
            assert sum(h.transitions[t].prob for t in s.transitions_from) == pytest.approx(1, abs=1e-4)


def test_generic_forward_equals_profile_forward():
    ps = read_profiles(DATA / "txt" / "RREFam.hmm")
    p = min(ps, key=lambda q: q.M)
    h = profile_to_hmm(p)
    cons = "".join(c for c in p.consensus.upper() if c in "ACDEFGHIKLMNPQRSTVWY")
    rng = np.random.default_rng(3)
    for text in (cons, cons[: len(cons) // 2], "".join(rng.choice(list("ACDEFGHIKLMNPQRSTVWY"), 12)), ""):
        x = AMINO.encode(text)
        lp_profile = ref.profile_forward(p, x)
        lp_generic, _ = ref.forward(h, x)
        assert lp_generic == pytest.approx(lp_profile, rel=1e-9)
        assert np.isfinite(lp_profile)
    # the consensus is far more likely than a random sequence of its length
    x = AMINO.encode(cons)
    y = AMINO.encode("".join(rng.choice(list("ACDEFGHIKLMNPQRSTVWY"), len(cons))))
    assert ref.profile_forward(p, x) > ref.profile_forward(p, y) + 20


def test_generic_forward_equals_profile_forward_thioesterase():
    (h,) = load_hmmer3(THIO, SPAN)
    p = h.profile
    x = AMINO.encode("".join(c for c in p.consensus.upper() if c.isalpha()))
    assert len(x) == 243
    lp = ref.profile_forward(p, x)
    assert ref.forward(h, x)[0] == pytest.approx(lp, rel=1e-9)
    assert -400 < lp < -300


def test_generic_viterbi_backward_on_profile():
    ps = read_profiles(DATA / "txt" / "RREFam.hmm")
    p = min(ps, key=lambda q: q.M)
    h = profile_to_hmm(p)
    x = AMINO.encode("".join(c for c in p.consensus.upper() if c.isalpha())[:20])
    lf, _ = ref.forward(h, x)
    lb, _ = ref.backward(h, x)
    lv, path = ref.viterbi(h, x)
    assert lb == pytest.approx(lf, rel=1e-9)
    assert lv <= lf and ref.path_logprob(h, x, path) == pytest.approx(lv)


def test_remap_to_another_alphabet():
    (h,) = load_hmmer3(THIO, SPAN, alphabet=PROTEIN)
    (g,) = load_hmmer3(THIO, SPAN)
    assert h.alphabet is PROTEIN
    p = h.profile
    m1 = h.states[p.match_state(1)].emission
    raw = p.match_emissions[0]
    assert m1.shape == (24,)
    for sym in "ACDEFGHIKLMNPQRSTVWY":
        assert m1[PROTEIN.code(sym)] == raw[AMINO.code(sym)]
    assert m1[PROTEIN.code("B")] == pytest.approx(raw[AMINO.code("D")] + raw[AMINO.code("N")])
    assert m1[PROTEIN.code("Z")] == pytest.approx(raw[AMINO.code("E")] + raw[AMINO.code("Q")])
    assert m1[PROTEIN.code("X")] == pytest.approx(raw.sum())
    assert m1[PROTEIN.code("*")] == 0.0
    # the same sequence scores the same under both layouts
    text = "PLFCVHPGGG"
    assert ref.forward(h, PROTEIN.encode(text))[0] == pytest.approx(ref.forward(g, AMINO.encode(text))[0])


def test_remap_refuses_a_foreign_alphabet():
    dna = Alphabet("dna", tuple("ACGT"))
    with pytest.raises(DslcError) as info:
        load_hmmer3(THIO, SPAN, alphabet=dna)
    assert "not symbols of alphabet 'dna'" in info.value.message and info.value.span == SPAN


def test_tiny_profile_by_hand():
    text = TINY
    (p,) = parse_hmmer3_text(text, "tiny.hmm")
    h = profile_to_hmm(p)
    assert p.M == 2 and p.alphabet.symbols == tuple("ACGT")
    assert [s.name for s in h.states] == ["B", "I0", "M1", "I1", "D1", "M2", "D2", "E"]
    # enumerate paths by hand for "A": B->M1->(D2)->E and B->D1->M2->E and B->I0->M1->D2? (needs 2 symbols)
    e = lambda v: math.exp(-v)  # noqa: E731
    pA = (e(0.22314) * e(0.91629) * e(1.60944) * 1.0    # B->M1 (emit A) ->D2 ->E
          + e(1.89712) * e(1.20397) * e(0.69315) * 1.0)  # B->D1 ->M2 (emit A) ->E
    assert ref.profile_forward(p, [0]) == pytest.approx(math.log(pA))
    assert ref.forward(h, [0])[0] == pytest.approx(math.log(pA))
    assert ref.profile_forward(p, []) == pytest.approx(math.log(e(1.89712) * e(0.35667)))


TINY = """HMMER3/f [3.3 | Nov 2019]
NAME  tiny
LENG  2
ALPH  DNA
HMM          A        C        G        T
            m->m     m->i     m->d     i->m     i->i     d->m     d->d
          1.38629  1.38629  1.38629  1.38629
          0.22314  2.99573  1.89712  0.51083  0.91629  0.00000        *
      1   0.91629  1.60944  1.60944  1.60944      1 a - - -
          1.38629  1.38629  1.38629  1.38629
          0.35667  2.30259  1.60944  0.69315  0.69315  1.20397  0.35667
      2   0.69315  2.30259  1.60944  1.60944      2 a - - -
          1.38629  1.38629  1.38629  1.38629
          0.00000        *        *  0.00000        *  0.00000        *
//
"""


# --------------------------------------------------------------------------- errors

def error(text: str) -> DslcError:
    with pytest.raises(DslcError) as info:
        parse_hmmer3_text(text, "bad.hmm", SPAN)
    assert info.value.span == SPAN
    return info.value


def lines_of(text):
    return text.splitlines(keepends=True)


def test_error_missing_hmm_line():
    e = error("".join(l for l in lines_of(TINY) if not l.startswith("HMM ")))
    assert "bad.hmm, line 5" in e.message and "header tag" in e.message


def test_error_file_ends_before_hmm_line():
    e = error("HMMER3/f\nNAME x\nLENG 2\n")
    assert "'HMM' line" in e.message and "line 3" in e.message


def test_error_missing_name():
    e = error(TINY.replace("NAME  tiny\n", ""))
    assert "no NAME line" in e.message


def test_error_wrong_field_count():
    e = error(TINY.replace("0.35667  2.30259  1.60944  0.69315  0.69315  1.20397  0.35667",
                           "0.35667  2.30259  1.60944  0.69315  0.69315  1.20397"))
    assert "bad.hmm, line 11" in e.message and "node 1 transitions" in e.message
    assert "expected 7 fields, found 6" in e.message


def test_error_bad_number():
    e = error(TINY.replace("0.91629  1.60944", "0.9x629  1.60944"))
    assert "bad.hmm, line 9" in e.message and "'0.9x629' is not a number" in e.message


def test_error_negative():
    e = error(TINY.replace("0.91629  1.60944", "-0.91629  1.60944"))
    assert "line 9" in e.message and "negative" in e.message


def test_error_node_numbers():
    e = error(TINY.replace("      2   0.69", "      3   0.69"))
    assert "expected node 2, found '3'" in e.message and "line 12" in e.message


def test_error_leng_too_large():
    e = error(TINY.replace("LENG  2", "LENG  3"))
    assert "node 3" in e.message


def test_error_huge_leng_is_checked_against_the_nodes_before_allocating():
    """LENG 999999999 once asked for arrays of that many rows (149 GiB for an
    amino-acid profile) before finding the file has two nodes."""
    e = error(TINY.replace("LENG  2", "LENG  999999999"))
    assert "bad.hmm, line 3" in e.message and "LENG is 999999999" in e.message
    assert "2 node(s)" in e.message
    e = error(TINY.replace("LENG  2", "LENG  3").replace("//\n", "\n\n//\n"))
    assert "bad.hmm, line 3" in e.message and "no node 3" in e.message


def test_header_errors_point_at_the_field_line():
    # LENG and ALPH errors were reported at the 'HMM' line (5), not at their own
    for text, line, words in ((TINY.replace("LENG  2", "LENG  0"), 3, "LENG is 0"),
                              (TINY.replace("LENG  2", "LENG  two"), 3, "LENG 'two'"),
                              (TINY.replace("ALPH  DNA", "ALPH  klingon"), 4, "'klingon'")):
        e = error(text)
        assert f"bad.hmm, line {line}:" in e.message and words in e.message, e.message


def test_error_file_cut_inside_a_node():
    # a file cut short (no '//') was blamed on a correct LENG: "LENG is 2, but the
    # profile has 0 node(s)"; it ends inside node 1, at its last line
    lines = lines_of(TINY)
    e = error("".join(lines[:10]))  # node 1's match and insert lines, no transitions
    assert "bad.hmm, line 10:" in e.message and "ends inside node 1" in e.message, e.message
    assert "LENG is 2" in e.message and "0 node(s)" not in e.message
    e = error("".join(lines[:12]) + "\n")  # node 1 whole, node 2's first line
    assert "bad.hmm, line 12:" in e.message and "ends inside node 2" in e.message, e.message
    e = error("".join(lines[:11]))  # node 1 whole, nothing after
    assert "bad.hmm, line 11:" in e.message and "ends after node 1" in e.message, e.message
    e = error("".join(lines[:7]))  # node 0's insert emissions only
    assert "bad.hmm, line 7:" in e.message and "ends inside node 0" in e.message, e.message


def test_error_missing_terminator():
    e = error(TINY.replace("//\n", "garbage\n"))
    assert "expected '//'" in e.message and "line 15" in e.message


def test_error_not_hmmer():
    e = error(">seq\nACGT\n")
    assert "HMMER3/f" in e.message and "line 1" in e.message
    e = error("")
    assert "no HMM" in e.message


def test_error_hmmer2():
    e = error((DATA / "txt2" / "Thioesterase.hmm2").read_text())
    assert "HMMER2" in e.message and "hmmconvert" in e.hint


def test_error_wrong_residue_line():
    e = error(TINY.replace("HMM          A        C        G        T",
                           "HMM          A        C        G        U"))
    assert "residues" in e.message


def test_error_missing_file(tmp_path):
    with pytest.raises(DslcError) as info:
        load_hmmer3(tmp_path / "nope.hmm", SPAN)
    assert "no such file" in info.value.message and info.value.span == SPAN


# --------------------------------------------------------------------------- binary and multi-model files

def test_binary_file_reads_as_its_text(tmp_path):
    """A binary (hmmpress .h3m) file gives the same profiles as its ASCII form."""
    from pyhmmer.plan7 import HMMFile

    h3m = tmp_path / "rre.h3m"
    with HMMFile(DATA / "txt" / "RREFam.hmm") as models, open(h3m, "wb") as out:
        for hmm in models:
            hmm.write(out, binary=True)
    got, want = read_profiles(h3m), read_profiles(DATA / "txt" / "RREFam.hmm")
    assert [p.name for p in got] == [p.name for p in want]
    for a, b in zip(got, want):
        for x, y in ((a.match_emissions, b.match_emissions),
                     (a.insert_emissions, b.insert_emissions), (a.transitions, b.transitions)):
            np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-7)
    gz = tmp_path / "rre.h3m.gz"
    gz.write_bytes(gzip.compress(h3m.read_bytes()))
    assert [p.M for p in read_profiles(gz)] == [p.M for p in want]


_UNDER_ULIMIT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (8_000_000 * 1024, 8_000_000 * 1024))  # ulimit -v 8000000
import numpy as np
from dslc_extensions.hmm.hmmer3 import read_profiles
got, want = read_profiles(sys.argv[1]), read_profiles(sys.argv[2])
assert [p.name for p in got] == [p.name for p in want] and len(got) == 10
for a, b in zip(got, want):
    for x, y in ((a.match_emissions, b.match_emissions),
                 (a.insert_emissions, b.insert_emissions), (a.transitions, b.transitions)):
        np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-7)
print("same", len(got))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is Linux's address-space limit")
def test_binary_file_reads_under_an_ordinary_memory_limit(tmp_path):
    """A .h3m was read with one read() of the whole load limit, which reserves 16 GiB
    up front: under ``ulimit -v 8000000`` every binary file was a MemoryError."""
    import subprocess

    h3m = tmp_path / "rre.h3m"
    h3m.write_bytes((DATA / "bin" / "RREFam.h3m").read_bytes())
    gz = tmp_path / "rre.h3m.gz"
    gz.write_bytes(gzip.compress(h3m.read_bytes()))
    for path in (h3m, gz):
        argv = [sys.executable, "-c", _UNDER_ULIMIT, str(path), str(DATA / "txt" / "RREFam.hmm")]
        run = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0 and run.stdout.strip() == "same 10", run.stderr[-2000:]


def test_binary_file_past_the_load_limit_is_one_error(tmp_path, monkeypatch):
    h3m = tmp_path / "rre.h3m"
    h3m.write_bytes((DATA / "bin" / "RREFam.h3m").read_bytes())
    monkeypatch.setenv("DSLC_MAX_LOAD_BYTES", str(h3m.stat().st_size - 1))
    with pytest.raises(DslcError) as e:
        read_profiles(h3m, SPAN)
    assert "holds more than DSLC_MAX_LOAD_BYTES" in e.value.message and e.value.span == SPAN
    monkeypatch.setenv("DSLC_MAX_LOAD_BYTES", str(h3m.stat().st_size))
    assert len(read_profiles(h3m, SPAN)) == 10


def test_load_of_a_multi_model_file_refuses_to_pick_one(tmp_path):
    """load(hmm, ...) used to read the first of several models silently."""
    import dslc

    script = tmp_path / "s.bio"
    script.write_text(f'h = load(hmm, "{DATA / "txt" / "RREFam.hmm"}")\nprint 1\n')
    with pytest.raises(DslcError) as e:
        dslc.compile(str(script), backend="interp").run()
    assert "holds 10 models" in e.value.message and "load_hmmer3" in (e.value.hint or "")


# ------------------------------------------------------------------ malformed and unnormalised rows

from hmm_mutants import body_rows, mutants, neg_ln, prob, row_of, set_fields  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dslc_extensions.hmm.hmmer3_rows import TOLERANCE  # noqa: E402

RF5S = DATA / "txt" / "RF00001.hmm"


def thio_lines():
    return THIO.read_text().splitlines(keepends=True)


def damaged(lines, row, values):
    """The file with fields of one row replaced; the row's 1-based line number."""
    out = list(lines)
    out[row.index] = set_fields(lines[row.index], values)
    return "".join(out), row.index + 1


def col_of(line, field):
    import re
    return [m.start() + 1 for m in re.finditer(r"\S+", line)][field]


def same_profiles(a, b):
    assert len(a) == len(b)
    for p, q in zip(a, b):
        for x, y in ((p.match_emissions, q.match_emissions), (p.insert_emissions, q.insert_emissions),
                     (p.transitions, q.transitions)):
            np.testing.assert_array_equal(x, y)
        assert (p.compo is None) == (q.compo is None)
        if p.compo is not None:
            np.testing.assert_array_equal(p.compo, q.compo)


def test_a_match_line_short_of_one_emission_is_refused():
    """19 of 20 emissions on a match line were read with the MAP column as the 20th
    (the forward changed in the first decimal); the correct file reads as pyhmmer does."""
    lines = thio_lines()
    parse_hmmer3_text("".join(lines), "good.hmm", SPAN)
    row = row_of(body_rows(lines, 20), "match", 7)
    text, ln = damaged(lines, row, {20: ""})  # drop the emission of Y
    e = error(text)
    assert f"bad.hmm, line {ln}, column " in e.message
    assert "node 7 match emissions: expected 26 fields, found 25" in e.message
    assert "the node number, 20 emissions, MAP, CONS, RF, MM, CS" in e.message
    end = len(text.splitlines()[ln - 1].rstrip()) + 1
    assert f"column {end}:" in e.message  # where the missing field would be


@pytest.mark.parametrize("kind,node,field", [("insert", 0, 3), ("trans", 0, 6), ("insert", 5, 0),
                                             ("trans", 243, 2), ("match", 1, 0)])
def test_a_line_with_a_field_dropped_or_added_is_refused(kind, node, field):
    lines = thio_lines()
    row = row_of(body_rows(lines, 20), kind, node)
    for values, found in (({field: ""}, -1), ({field: "0.5 " + lines[row.index].split()[field]}, 1)):
        e = error(damaged(lines, row, values)[0])
        assert f"bad.hmm, line {row.index + 1}, column " in e.message, e.message
        want = {"insert": 20, "trans": 7, "match": 26}[kind]
        if kind == "match":  # the node number is the field that moved
            assert f"expected node {node}" in e.message
        else:
            assert f"expected {want} fields, found {want + found}" in e.message, e.message


def test_compo_line_field_count_and_sum():
    lines = RF5S.read_text().splitlines(keepends=True)
    row = row_of(body_rows(lines, 4), "compo", 0)
    e = error(damaged(lines, row, {4: ""})[0])
    assert f"line {row.index + 1}, column " in e.message and "COMPO line: expected 5 fields" in e.message
    e = error(damaged(lines, row, {2: "9.00000"})[0])
    assert f"line {row.index + 1}, column {col_of(lines[row.index], 1)}:" in e.message
    assert "COMPO (fields 2 to 5) sum to" in e.message


def test_every_probability_one_is_refused():
    """All '0.00000' (every probability 1) was read as a model."""
    lines = thio_lines()
    rows = body_rows(lines, 20)
    out = list(lines)
    for r in rows:
        out[r.index] = set_fields(lines[r.index], {i: "0.00000" for lo, hi in r.spans
                                                   for i in range(lo, hi)})
    e = error("".join(out))
    first = rows[0]  # node 0's insert emissions: the first distribution of the body
    assert f"bad.hmm, line {first.index + 1}, column {col_of(lines[first.index], 0)}:" in e.message
    assert "node 0 insert emissions (fields 1 to 20) sum to 20, not 1" in e.message
    assert f"within {TOLERANCE:g}" in e.message
    # every match line alone, too: the first is refused
    out = list(lines)
    for r in rows:
        if r.kind == "match":
            out[r.index] = set_fields(lines[r.index], dict.fromkeys(range(1, 21), "0.00000"))
    match1 = row_of(rows, "match", 1)
    e = error("".join(out))
    assert f"bad.hmm, line {match1.index + 1}, column {col_of(lines[match1.index], 1)}:" in e.message
    assert "node 1 match emissions (fields 2 to 21) sum to 20, not 1" in e.message


@pytest.mark.parametrize("kind,node,span", [("match", 12, (1, 21)), ("insert", 40, (0, 20)),
                                            ("trans", 9, (0, 3)), ("trans", 9, (3, 5)),
                                            ("trans", 9, (5, 7)), ("trans", 0, (5, 7))])
def test_a_distribution_that_does_not_sum_to_one_is_refused(kind, node, span):
    lines = thio_lines()
    row = row_of(body_rows(lines, 20), kind, node)
    fields = lines[row.index].split()
    lo, hi = span
    text, ln = damaged(lines, row, {i: neg_ln(prob(fields[i]) * 0.5) for i in range(lo, hi)})
    e = error(text)
    assert f"bad.hmm, line {ln}, column {col_of(lines[row.index], lo)}:" in e.message, e.message
    assert f"(fields {lo + 1} to {hi}) sum to 0.5" in e.message, e.message


def test_the_tolerance_is_what_the_docs_say():
    """A value moved so its row sums to 1 +- 0.5 * TOLERANCE is read (HMMER's own rounding
    is far inside it); 2 * TOLERANCE is refused."""
    lines = thio_lines()
    row = row_of(body_rows(lines, 20), "match", 3)
    fields = lines[row.index].split()
    p = prob(fields[10])  # L: 0.657
    for off, ok in ((0.5 * TOLERANCE, True), (-0.5 * TOLERANCE, True), (2 * TOLERANCE, False),
                    (-2 * TOLERANCE, False)):
        text, ln = damaged(lines, row, {10: f"{-math.log(p + off):.7f}"})
        if ok:
            (q,) = parse_hmmer3_text(text, "bad.hmm", SPAN)
            assert q.match_emissions[2, 9] == pytest.approx(p + off)
        else:
            assert f"line {ln}, column" in error(text).message


def test_the_last_node_cannot_delete():
    lines = thio_lines()
    row = row_of(body_rows(lines, 20), "trans", 243)
    for j, name in ((2, "m->d"), (6, "d->d")):
        e = error(damaged(lines, row, {j: "3.00000", 0: "0.05000"} if j == 2 else
                          {j: "3.00000", 5: "0.05000"})[0])
        assert f"line {row.index + 1}, column {col_of(lines[row.index], j)}:" in e.message
        assert f"node 243 transition {name} is '3.00000': it must be '*'" in e.message


def test_annotations_are_checked_against_the_header():
    lines = thio_lines()
    row = row_of(body_rows(lines, 20), "match", 4)
    e = error(damaged(lines, row, {21: "-"})[0])  # MAP yes: a number is required
    assert f"column {col_of(lines[row.index], 21)}:" in e.message and "MAP annotation is '-'" in e.message
    e = error(damaged(lines, row, {22: "pp"})[0])
    assert "CONS annotation is 'pp', expected one character" in e.message


def test_older_formats_have_their_own_annotation_columns():
    """3/e has no MM column, 3/a .. 3/d no CONS and no MM (HMMER's reader):
    the same numbers, read with each version's field count."""
    lines = thio_lines()
    rows = body_rows(lines, 20)
    want = parse_hmmer3_text("".join(lines), "t.hmm")
    for version, drop in (("e", (24,)), ("c", (22, 24))):
        out = list(lines)
        out[0] = out[0].replace("HMMER3/f", f"HMMER3/{version}")
        for r in rows:
            if r.kind == "match":
                out[r.index] = set_fields(lines[r.index], dict.fromkeys(drop, ""))
        got = parse_hmmer3_text("".join(out), "t.hmm")
        same_profiles(got, want)
        assert got[0].consensus == (want[0].consensus if version == "e" else "-" * 243)
        with pytest.raises(DslcError, match="expected 26 fields, found"):  # read as 3/f
            parse_hmmer3_text(lines[0] + "".join(out[1:]), "t.hmm")
    e = error("".join(lines).replace("HMMER3/f", "HMMER3/g"))
    assert "'HMMER3/g' is not a HMMER3 format" in e.message and "line 1" in e.message


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_damaged_real_files_are_refused_at_the_damaged_line(data):
    """Hostile input: a real profile with one line damaged (a field dropped or added,
    a distribution that does not sum to 1, a value moved far past the tolerance, the
    file cut short) is one located error, never a traceback and never another model."""
    path, K = data.draw(st.sampled_from([(THIO, 20), (RF5S, 4)]))
    original = read_profiles(path)
    m = data.draw(mutants(path.read_text(), K))
    try:
        got = parse_hmmer3_text(m.text, "bad.hmm", SPAN)
    except DslcError as e:
        assert e.span == SPAN and e.message.startswith("bad.hmm, line "), e.message
        if m.line is not None:
            assert e.message.startswith(f"bad.hmm, line {m.line}, column "), (m.kind, e.message)
        return
    same_profiles(got, original)  # never another model ...
    raise AssertionError(f"a damaged file ({m.kind}) was read")  # ... and these all are damaged


@pytest.mark.parametrize("value", ["٠.٩١٦٢٩", "0.91_629", "nan", "inf", "0x1p-1", "1e"])
def test_a_value_is_a_decimal_in_ascii_digits(value):
    """Python's float() reads Arabic-Indic digits, underscores, 'nan' and 'inf'; HMMER writes
    none of them, so a value spelt so is not a number of a HMMER3 file."""
    e = error(TINY.replace("0.91629  1.60944", f"{value}  1.60944"))
    assert f"bad.hmm, line 9, column 11: '{value}' is not a number" in e.message, e.message


@pytest.mark.parametrize("leng", ["٢", "0_2", "+2"])
def test_leng_is_a_whole_number_in_ascii_digits(leng):
    e = error(TINY.replace("LENG  2", f"LENG  {leng}"))
    assert f"bad.hmm, line 3: LENG '{leng}' is not a number" in e.message, e.message
