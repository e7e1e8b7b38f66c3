"""HMM programs: the contract's forward pass, the standard library's forward,
backward, Viterbi and posterior (stdlib/hmm.bio), HMMER3 profiles loaded into a
script, and the errors a user meets, all checked against the numpy reference in
tests/hmm_reference.py on the default backend and on the interpreter."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import dslc
from dslc.errors import DslcError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the reference helpers
import hmm_reference as ref  # noqa: E402
from hmm_models import CASINO_ALPHABET, CASINO_MODEL, SILENT_MODEL, STDLIB_HMM  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = [None, "interp"]  # None: the default backend
IDS = ["default", "interp"]

CONTRACT_CASINO = CASINO_ALPHABET + CASINO_MODEL + """\
prob fwd(hmm h, state[h] s, seq[*] x, index[x] i)
  | i == 0 = if s.isstart then 1.0 else 0.0
  | s.isstart or s.isend = 0.0
  | otherwise = s.emission[x[i - 1]] * sum(t in s.transitionsto : t.prob * fwd(t.start, i - 1))

prob px(hmm h, seq[*] x) = sum(t in h.end.transitionsto : t.prob * fwd(t.start, len(x)))
rolls = load(seq[dice], "rolls.fasta")
p = map(px, casino (*) rolls)        // P(x | casino) for every sequence in rolls
print p
"""



def compile_program(path, backend):
    return dslc.compile(str(path)) if backend is None else dslc.compile(str(path), backend=backend)


def fasta(records: dict[str, str]) -> str:
    return "".join(f">{name}\n{text}\n" for name, text in records.items())


def logs(result) -> list[float]:
    return [float(v) for v in np.asarray(result.values, dtype=float).ravel()]


def close(got: float, want: float, rel: float = 1e-9) -> bool:
    if math.isinf(want):
        return got == want
    return abs(got - want) <= rel * max(1.0, abs(want))


def sample(h, rng, length: int) -> list[int]:
    """``length`` symbol codes emitted along random paths of ``h`` (a new path
    from the start state whenever one reaches the end state): sequences that
    look like the model's output."""
    a = len(h.alphabet)
    out, s = [], 0
    trans = {}
    for t in h.transitions:
        trans.setdefault(t.start, []).append((t.end, t.prob))
    while len(out) < length:
        ends, probs = zip(*trans[s])
        s = int(rng.choice(ends, p=np.array(probs) / sum(probs)))
        if s == h.n_states - 1:
            s = 0
            continue
        if h.states[s].emission is not None:
            out.append(int(rng.choice(a, p=h.states[s].emission)))
    return out


def dice_text(codes) -> str:
    return "".join("123456"[c] for c in codes)


# --------------------------------------------------------------------------- the contract's casino

@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_contract_casino_forward_equals_reference(backend, write_bio):
    rng = np.random.default_rng(20240611)
    path = write_bio(CONTRACT_CASINO, rolls__fasta="")
    prog = compile_program(path, backend)  # checking reads no data
    h = prog.checked.defined["casino"]
    seqs = {}
    for k, n in enumerate([1, 2, 3, 17, 60, 250, 600]):
        seqs[f"r{k}"] = rng.integers(0, 6, n) if k % 2 else np.array(sample(h, rng, n))
    (path.parent / "rolls.fasta").write_text(fasta({n: dice_text(c) for n, c in seqs.items()}))
    got = logs(prog.run()["p"])
    assert len(got) == len(seqs)
    for (name, codes), g in zip(seqs.items(), got):
        want, _ = ref.forward(h, codes)
        assert close(g, want), (name, g, want)


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_contract_casino_forward_100000_rolls(backend, write_bio):
    rng = np.random.default_rng(7)
    path = write_bio(CONTRACT_CASINO, rolls__fasta="")
    prog = compile_program(path, backend)
    h = prog.checked.defined["casino"]
    codes = np.array(sample(h, rng, 100_000))
    text = dice_text(codes)
    (path.parent / "rolls.fasta").write_text(
        ">long\n" + "\n".join(text[k:k + 80] for k in range(0, len(text), 80)) + "\n")
    (got,) = logs(prog.run()["p"])
    want, _ = ref.forward(h, codes)
    assert math.isfinite(got) and got < -1e5
    assert close(got, want), (got, want)


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_casino_example_states_its_values(backend):
    prog = compile_program(ROOT / "examples" / "casino.bio", backend)
    got = logs(prog.run()["p"])
    assert [round(v, 6) for v in got] == [-119.019896, -192.231314, -344.173138, -495.723176]


# --------------------------------------------------------------------------- the standard library

def stdlib_program(write_bio, prelude: str, alphabet: str, records: dict[str, str], *maps):
    """The standard library, ``prelude`` (alphabets, models), the records of
    ``records`` loaded as ``xs`` and one printed ``NAME = map(FUNC, MODEL (*) xs)``
    per entry of ``maps``."""
    body = STDLIB_HMM + "\n" + prelude + f'xs = load(seq[{alphabet}], "xs.fasta")\n'
    body += "".join(f"{name} = map({func}, {m} (*) xs)\nprint {name}\n" for name, func, m in maps)
    return write_bio(body, xs__fasta=fasta(records))


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_stdlib_forward_backward_viterbi_casino(backend, write_bio):
    rng = np.random.default_rng(11)
    lengths = [1, 5, 40, 300]
    records = {f"x{k}": dice_text(rng.integers(0, 6, n)) for k, n in enumerate(lengths)}
    path = stdlib_program(write_bio, CASINO_ALPHABET + CASINO_MODEL, "dice", records,
                          ("f", "hmm_forward", "casino"), ("b", "hmm_backward", "casino"),
                          ("v", "hmm_viterbi", "casino"))
    prog = compile_program(path, backend)
    out = prog.run()
    h = prog.checked.defined["casino"]
    for k, text in enumerate(records.values()):
        codes = np.array(["123456".index(c) for c in text])
        lf, _ = ref.forward(h, codes)
        lv, best = ref.viterbi(h, codes)
        assert close(logs(out["f"])[k], lf)
        assert close(logs(out["b"])[k], lf)
        assert close(logs(out["v"])[k], lv)
        assert close(lv, ref.path_logprob(h, codes, best))


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_stdlib_with_silent_states(backend, write_bio):
    rng = np.random.default_rng(3)
    records = {f"x{k}": "".join(rng.choice(list("ACGT"), n))
               for k, n in enumerate([1, 2, 7, 30, 120])}
    path = stdlib_program(write_bio, SILENT_MODEL, "dna", records,
                          ("f", "hmm_forward", "sil"), ("b", "hmm_backward", "sil"),
                          ("v", "hmm_viterbi", "sil"))
    prog = compile_program(path, backend)
    out = prog.run()
    h = prog.checked.defined["sil"]
    assert [s.name for s in h.states if s.emission is None] == ["b", "skip", "d2", "e"]
    for k, text in enumerate(records.values()):
        codes = np.array(["ACGT".index(c) for c in text])
        lf, _ = ref.forward(h, codes)
        lb, _ = ref.backward(h, codes)
        lv, _ = ref.viterbi(h, codes)
        assert close(lf, lb)
        assert close(logs(out["f"])[k], lf), (k, logs(out["f"])[k], lf)
        assert close(logs(out["b"])[k], lf)
        assert close(logs(out["v"])[k], lv)


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_stdlib_posterior(backend, write_bio):
    path = write_bio(STDLIB_HMM + SILENT_MODEL)
    prog = compile_program(path, backend)
    h = prog.checked.defined["sil"]
    text = "GATTACA"
    codes = np.array(["ACGT".index(c) for c in text])
    lp, f = ref.forward(h, codes)
    _, b = ref.backward(h, codes)
    for i in range(1, len(text) + 1):
        total = 0.0
        for s in h.states:
            got = prog.hmm_posterior(h, text, s.index, i).log
            want = f[i, s.index] + b[i, s.index] - lp
            assert close(got, want), (i, s.name, got, want)
            if s.emission is not None:
                total += math.exp(got)
        assert abs(total - 1.0) < 1e-9  # x[i - 1] was emitted by exactly one emitting state


# --------------------------------------------------------------------------- HMMER3 profiles

pyhmmer = pytest.importorskip("pyhmmer")
THIO = Path(pyhmmer.__file__).parent / "tests" / "data" / "hmms" / "txt" / "Thioesterase.hmm"


@pytest.mark.skipif(not THIO.exists(), reason="pyhmmer's test data is not installed")
@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_hmmer3_profile_forward(backend, write_bio):
    from dslc_extensions.hmm.hmmer3 import AMINO

    rng = np.random.default_rng(5)
    records = {f"p{k}": "".join(rng.choice(list(AMINO.symbols), n)) for k, n in enumerate([3, 25])}
    body = STDLIB_HMM + f'g = load(hmm, "{THIO}")\n' + \
        'xs = load(seq[protein], "xs.fasta")\nf = map(hmm_forward, g (*) xs)\nprint f\n'
    prog = compile_program(write_bio(body, xs__fasta=fasta(records)), backend)
    out = prog.run()
    g = prog._globals["g"]
    assert g.alphabet.name == "protein" and len(g.alphabet) == 24
    for k, text in enumerate(records.values()):
        want = ref.profile_forward(g.profile, np.array([AMINO.code(c) for c in text]))
        assert close(logs(out["f"])[k], want), (k, want)


@pytest.mark.long
@pytest.mark.skipif(not THIO.exists(), reason="pyhmmer's test data is not installed")
@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_profile_forward_is_a_node_position_wavefront(backend, write_bio):
    """The standard library's profile_forward, written over (node, position):
    the same P(x | h) as the independent numpy forward, scheduled S = k + i."""
    from dslc.explain import report
    from dslc_extensions.hmm.hmmer3 import AMINO

    rng = np.random.default_rng(9)
    records = {f"p{k}": "".join(rng.choice(list(AMINO.symbols), n)) for k, n in enumerate([0, 4, 30])}
    body = STDLIB_HMM + f'g = load(hmm, "{THIO}")\n' + \
        'xs = load(seq[protein], "xs.fasta")\nf = map(profile_forward, g (*) xs)\nprint f\n' + \
        'v = map(profile_viterbi, g (*) xs)\nprint v\nw = map(hmm_viterbi, g (*) xs)\nprint w\n'
    prog = compile_program(write_bio(body, xs__fasta=fasta(records)), backend)
    out = prog.run()
    g = prog._globals["g"]
    for k, text in enumerate(records.values()):
        want = ref.profile_forward(g.profile, np.array([AMINO.code(c) for c in text], dtype=int))
        assert close(logs(out["f"])[k], want), (k, want)
        assert close(logs(out["v"])[k], logs(out["w"])[k]), k  # the node-level Viterbi
    assert logs(out["v"])[2] <= logs(out["f"])[2]
    if backend is None and dslc.backends.resolve("auto") == "cpu":
        assert "profile_forward" not in prog._engine().fallbacks
        rep = report(prog)
        assert rep["pf_m"]["schedule"] == {"k": 1, "i": 1}, rep["pf_m"]["schedule"]
        assert rep["pf_d"]["dependences"][0]["args"] == ["k - 1", "i"]


def profile_records(seed: int, lengths) -> dict[str, str]:
    from dslc_extensions.hmm.hmmer3 import AMINO

    rng = np.random.default_rng(seed)
    return {f"p{k}": "".join(rng.choice(list(AMINO.symbols), n)) for k, n in enumerate(lengths)}


def amino_codes(text: str) -> np.ndarray:
    from dslc_extensions.hmm.hmmer3 import AMINO

    return np.array([AMINO.code(c) for c in text], dtype=int)


@pytest.mark.skipif(not THIO.exists(), reason="pyhmmer's test data is not installed")
def test_profile_backward_on_every_backend(backend, write_bio):
    """profile_backward, the backward pass over (node, position) (k.next, i + 1),
    gives P(x | h): profile_forward's value and the numpy forward's, on the
    interpreter, the CPU backend and the CUDA backend (or its simulator: short
    sequences there); the CPU backend compiles it, scheduled S = -k - i."""
    from dslc.explain import report

    lengths = [0, 3, 9] if backend == "cuda" else [0, 4, 30]
    records = profile_records(9, lengths)
    body = STDLIB_HMM + f'g = load(hmm, "{THIO}")\n' + \
        'xs = load(seq[protein], "xs.fasta")\nf = map(profile_forward, g (*) xs)\nprint f\n' + \
        'b = map(profile_backward, g (*) xs)\nprint b\n'
    prog = dslc.compile(str(write_bio(body, xs__fasta=fasta(records))), backend=backend)
    out = prog.run()
    g = prog._globals["g"]
    for k, text in enumerate(records.values()):
        want = ref.profile_forward(g.profile, amino_codes(text))
        assert close(logs(out["b"])[k], want), (k, logs(out["b"])[k], want)
        assert close(logs(out["b"])[k], logs(out["f"])[k]), k
    if backend == "cpu":
        assert "profile_backward" not in prog._engine().fallbacks, prog._engine().fallbacks
        rep = report(prog)
        for func in ("pb_m", "pb_i", "pb_d"):
            assert rep[func]["schedule"] == {"k": -1, "i": -1}, (func, rep[func]["schedule"])
        assert {tuple(d["args"]) for d in rep["pb_d"]["dependences"]} == \
            {("k + 1", "i"), ("k + 1", "i + 1")}
    if backend == "cuda":  # the map through the API: a kernel, no task left to the CPU
        engine = prog._engine()
        got = logs(prog.map("profile_backward", g, list(records.values())))
        assert all(close(a, b) for a, b in zip(got, logs(out["b"]))), got
        assert "profile_backward" not in engine.device_fallbacks, engine.device_fallbacks
        assert "profile_backward" in engine.strategy and not engine.reruns, engine.reruns


@pytest.mark.long
@pytest.mark.skipif(not THIO.exists(), reason="pyhmmer's test data is not installed")
@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_profile_backward_tables_and_posterior(backend, write_bio):
    """pb_m, pb_i, pb_d cell by cell against the independent numpy backward, and
    profile_posterior_match against numpy forward * backward / P(x)."""
    text = profile_records(13, [12])["p0"]
    prog = compile_program(write_bio(STDLIB_HMM + f'g = load(hmm, "{THIO}")\n'), backend)
    prog.run()
    g = prog._globals["g"]
    M, L = g.profile.M, len(text)
    lp, bm, bi, bd = ref.profile_backward(g.profile, amino_codes(text))
    lf, fm, _, _ = ref.profile_forward_tables(g.profile, amino_codes(text))
    assert close(lp, lf) and close(lp, ref.profile_forward(g.profile, amino_codes(text)))
    cells = [(0, 0), (0, 5), (1, 1), (7, 4), (M // 2, L // 2), (M - 3, L - 1), (M - 1, L),
             (M, L), (M, L - 1)]
    for k, i in cells:
        for func, table in (("pb_m", bm), ("pb_i", bi), ("pb_d", bd)):
            got = getattr(prog, func)(g, k, text, i).log
            assert close(got, table[k, i]), (func, k, i, got, table[k, i])
    assert close(prog.profile_backward(g, text).log, lp)
    for k, i in [(0, 0), (0, 3), (1, 1), (5, 3), (M // 2, L // 2), (M - 2, L - 1), (M, L)]:
        got = prog.profile_posterior_match(g, text, k, i).log
        want = fm[k, i] + bm[k, i] - lp
        assert close(got, want), (k, i, got, want)
    assert prog.profile_posterior_match(g, text, 0, 0).log == pytest.approx(0.0, abs=1e-9)
    if backend is None and dslc.backends.resolve("auto") == "cpu":
        fallbacks = prog._engine().fallbacks
        assert not {"pb_m", "pb_i", "pb_d", "profile_posterior_match"} & set(fallbacks), fallbacks


@pytest.mark.parametrize("step,node,message", [
    ("k.next", "h.lastnode", "node M has no next node (test k.islast first)"),
    ("k.prev", "h.firstnode", "node 0 has no previous node (test k.isfirst first)")])
def test_stepping_off_the_profile_is_an_error(backend, write_bio, capsys, step, node, message):
    """k.next at node M, k.prev at node 0: the extension's message at the accessor,
    on every backend (the compiled forms are checked, so a compiled run hands the
    call to the interpreter, which says why)."""
    from dslc.cli import main

    body = (f'g = load(hmm, "{ROOT / "examples" / "data" / "PF02826.hmm"}")\n'
            f'prob step(hmm h, pnode[h] k) = k.match.to[{step}.match]\n'
            f'prob atend(hmm h) = step(h, {node})\n'
            'print atend(g)\n')
    path = write_bio(body)
    assert main(["run", "--backend", backend, str(path)]) == 2
    err = capsys.readouterr().err
    col = body.splitlines()[1].index(step) + 1
    assert err.startswith(f"{path}:2:{col}: error: "), err
    assert message in err and "^" in err


@pytest.mark.parametrize("backend", ["interp", "cpu"])
def test_profile_nodes_need_a_profile(backend, write_bio, capsys):
    from dslc.cli import main

    body = CASINO_ALPHABET + CASINO_MODEL + STDLIB_HMM + 'print profile_forward(casino, "1234")\n'
    path = write_bio(body)
    assert main(["run", "--backend", backend, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:") and "needs a profile HMM" in err and "^" in err


# --------------------------------------------------------------------------- types and errors

def test_model_elements_belong_to_their_model(write_bio):
    src = STDLIB_HMM + """
prob two(hmm g, hmm h, seq[*] x) = hmm_fwd(g.end, len(x))
"""
    with pytest.raises(DslcError) as e:
        dslc.compile(src)
    assert "a state of 'g' where one of 'h' is expected" in e.value.message
    assert e.value.span is not None


def test_accessor_types():
    src = SILENT_MODEL + """
int n(hmm h) = sum(s in h.states : 1)
int silent(hmm h) = sum(s in h.states where s.issilent : 1)
int edges(hmm h) = sum(s in h.states : sum(t in s.transitionsfrom : 1))
bool ends(hmm h) = h.end.isend and h.start.isstart and not h.start.isend
float pe(hmm h, state[h] s) = log(s.emission['A'])
print n(sil)
print silent(sil)
print edges(sil)
print ends(sil)
print pe(sil, 2)
print pe(sil, 0)
"""
    for backend in BACKENDS:
        out = compile_program_text(src, backend).run()
        assert out["n(sil)"] == 6 and out["silent(sil)"] == 4 and out["edges(sil)"] == 12
        assert out["ends(sil)"] is True
        assert out["pe(sil, 2)"] == pytest.approx(math.log(0.4))
        assert out["pe(sil, 0)"] == -math.inf  # a silent state emits nothing


def compile_program_text(src, backend):
    return dslc.compile(src) if backend is None else dslc.compile(src, backend=backend)


def test_define_error_points_into_the_script(write_bio):
    src = CONTRACT_CASINO.replace("fair -> loaded 0.05;", "fair -> loaded 0.06;")
    with pytest.raises(DslcError) as e:
        dslc.compile(str(write_bio(src)))
    assert "sum to" in e.value.message
    line = next(k for k, ln in enumerate(src.splitlines(), 1) if "0.06" in ln)
    assert e.value.span.line == line


def test_missing_profile_file(write_bio):
    path = write_bio('g = load(hmm, "nowhere.hmm")\n')
    with pytest.raises(DslcError) as e:
        dslc.compile(str(path)).run()
    assert "nowhere.hmm" in e.value.message and e.value.span.line == 1


def test_kmer_state_emission_is_a_clear_error():
    src = """
define hmm codons {
  alphabet dna;
  startstate s;
  state c emits atg;
  endstate e;
  s -> c 1;  c -> e 1;
  emission atg = ATG : 1, * : 0;
}
float pe(hmm h, state[h] s) = log(s.emission['A'])
print pe(codons, 1)
"""
    with pytest.raises(DslcError) as e:
        dslc.compile(src, backend="interp").run()
    assert "emits 3 symbols" in e.value.message


@pytest.mark.parametrize("walk,start,message", [
    ("int walk(hmm h, pnode[h] k)\n  | k.isfirst = k.prev.number\n"
     "  | otherwise = walk(k.prev) + 1\n", 3, "node 0 has no previous node"),
    ("int walk(hmm h, pnode[h] k)\n  | k.islast = k.next.number\n"
     "  | otherwise = walk(k.next) + 1\n", 175, "node M has no next node")])
def test_a_compiled_step_off_the_profile_stops_as_on_the_interpreter(
        backend, write_bio, walk, start, message):
    """A recursion that steps off node 0 or node M only in a value it returns
    (no call, no array read there): the compiled forms of k.prev and k.next are
    checked, so a compiled run stops and the interpreter says why, at the accessor."""
    path = write_bio(f'g = load(hmm, "{ROOT / "examples" / "data" / "PF02826.hmm"}")\n' + walk)
    prog = dslc.compile(str(path), backend=backend)
    prog.run()
    with pytest.raises(DslcError, match=message) as e:
        prog.walk(prog._globals["g"], start)
    assert e.value.span is not None and e.value.span.line == 3
