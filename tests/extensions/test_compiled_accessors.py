"""Extension accessors on the compiled backends: HMM and tree programs compile
(no interpreter fallback) through the SDK's device layouts and compiled forms
(dslc.sdk.Layout, Accessor.device), and give the interpreter's values."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import dslc
from dslc import sdk

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: shared HMM texts
from hmm_models import (CASINO2_MODEL, CASINO_ALPHABET, CASINO_MODEL, SILENT_MODEL,  # noqa: E402
                        STDLIB_HMM)

ROOT = Path(__file__).resolve().parents[2]
STDLIB_PHYLO = (ROOT / "stdlib" / "phylo.bio").read_text()

pytestmark = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                                reason="numba/islpy not installed")

CASINO = CASINO_ALPHABET + CASINO_MODEL + CASINO2_MODEL


def close(a, b, rel=1e-9) -> bool:
    a, b = float(a), float(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def both(src: str):
    """The program on the CPU backend (with its engine) and on the interpreter."""
    cpu = dslc.compile(src, backend="cpu")
    cpu.run()
    interp = dslc.compile(src, backend="interp")
    interp.run()
    return cpu, cpu._engine(), interp


def rand_texts(rng, symbols: str, n: int, longest: int) -> list[str]:
    return ["".join(rng.choice(list(symbols), int(k))) for k in rng.integers(0, longest, n)]


# --------------------------------------------------------------------------- HMMs

@pytest.mark.parametrize("func", ["hmm_forward", "hmm_backward", "hmm_viterbi"])
@pytest.mark.parametrize("model,symbols", [("casino", "123456"), ("sil", "ACGT")])
def test_hmm_map_compiled_equals_interpreter(func, model, symbols):
    cpu, engine, interp = both(CASINO + SILENT_MODEL + STDLIB_HMM)
    rng = np.random.default_rng(7)
    texts = rand_texts(rng, symbols, 40, 60) + ["", symbols[0]]  # 42 tasks: the lane path too
    got = cpu.map(func, cpu._globals[model], texts).values.ravel()
    assert func not in engine.fallbacks, engine.fallbacks
    assert any(k[0] == func and v is not None for k, v in engine._memo.items())  # compiled
    want = interp.map(func, interp._globals[model], texts).values.ravel()
    for k, (g, w) in enumerate(zip(got, want)):
        assert close(g, w), (k, texts[k], g, w)


def test_hmm_tables_and_posterior_compiled():
    cpu, engine, interp = both(SILENT_MODEL + STDLIB_HMM)
    h1, h2 = cpu._globals["sil"], interp._globals["sil"]
    text = "ACGTTGCAAC"
    got = cpu.call("hmm_fwd", h1, text).values
    want = interp.call("hmm_fwd", h2, text).values
    assert "hmm_fwd" not in engine.fallbacks, engine.fallbacks
    assert got.shape == want.shape
    assert all(close(a, b) for a, b in zip(got.ravel(), want.ravel()))
    for s in range(6):
        for i in (0, 3, len(text)):
            a = cpu.call("hmm_posterior", h1, text, s, i).log
            b = interp.call("hmm_posterior", h2, text, s, i).log
            assert close(a, b), (s, i, a, b)
    assert "hmm_posterior" not in engine.fallbacks, engine.fallbacks


def test_models_differing_between_tasks():
    cpu, engine, interp = both(CASINO + STDLIB_HMM)
    texts = ["1266", "6666", "", "123456123456"]
    got = cpu.map("hmm_forward", [cpu._globals["casino"], cpu._globals["casino2"]], texts)
    want = interp.map("hmm_forward", [interp._globals["casino"], interp._globals["casino2"]],
                      texts)
    assert "hmm_forward" not in engine.fallbacks, engine.fallbacks
    assert all(close(a, b) for a, b in zip(got.values.ravel(), want.values.ravel()))


def test_accessors_on_the_model_compiled():
    src = SILENT_MODEL + """
int n(hmm h) = sum(s in h.states : 1)
int silent(hmm h) = sum(s in h.states where s.issilent : 1)
int edges(hmm h) = sum(s in h.states : sum(t in s.transitionsfrom : 1))
int ins(hmm h) = sum(t in h.transitions : t.end.number)
bool ends(hmm h) = h.end.isend and h.start.isstart and not h.start.isend
float pe(hmm h, state[h] s) = log(s.emission['A'])
"""
    cpu, engine, _ = both(src)
    h = cpu._globals["sil"]
    assert cpu.call("n", h) == 6 and cpu.call("silent", h) == 4 and cpu.call("edges", h) == 12
    assert cpu.call("ins", h) == sum(t.end for t in h.transitions)
    assert cpu.call("ends", h) is True or cpu.call("ends", h) == True  # noqa: E712
    assert cpu.call("pe", h, 2) == pytest.approx(math.log(0.4))
    assert cpu.call("pe", h, 0) == -math.inf
    # symbol literals of a model's own alphabet are not compiled (not an accessor matter)
    assert set(engine.fallbacks) == {"pe"}, engine.fallbacks


pyhmmer = pytest.importorskip("pyhmmer")
THIO = Path(pyhmmer.__file__).parent / "tests" / "data" / "hmms" / "txt" / "Thioesterase.hmm"


@pytest.mark.skipif(not THIO.exists(), reason="pyhmmer's test data is not installed")
def test_hmmer3_profile_forward_compiled():
    from dslc_extensions.hmm.hmmer3 import AMINO

    src = STDLIB_HMM + f'g = load(hmm, "{THIO}")\n'
    cpu, engine, interp = both(src)
    rng = np.random.default_rng(5)
    texts = rand_texts(rng, "".join(AMINO.symbols), 3, 40) + ["MKV"]
    for func in ("hmm_forward", "hmm_viterbi"):
        got = cpu.map(func, cpu._globals["g"], texts).values.ravel()
        assert func not in engine.fallbacks, engine.fallbacks
        want = interp.map(func, interp._globals["g"], texts).values.ravel()
        assert all(close(a, b) for a, b in zip(got, want)), (func, got, want)


# --------------------------------------------------------------------------- trees

MATRIX = """\
define matrix dnasimple[dna] {
     A  C  G  T
  A  0  1  2  1
  C  1  0  1  2
  G  2  1  0  1
  T  1  2  1  0
}
"""

# Fitch with every table over (node, base) or (node) in separate groups, sets as 0/1
FITCH2 = """
int f2count(tree t, column[dna] c, node[t] u, symbol[dna] a) =
    sum(v in u.children : f2set(v, a))
int f2set(tree t, column[dna] c, node[t] u, symbol[dna] a)
  | u.isleaf = if c[u] == a then 1 else 0
  | otherwise = if f2count(u, a) == max(b in dna : f2count(u, b)) then 1 else 0
int f2changes(tree t, column[dna] c, node[t] u)
  | u.isleaf = 0
  | otherwise = sum(v in u.children : f2changes(v) + 1) - max(b in dna : f2count(u, b))
int fitch2(tree t, column[dna] c) = f2changes(t.root)
"""


def tree_program(write_bio, newick: str, rows: dict[str, str]):
    fasta = "".join(f">{n}\n{s}\n" for n, s in rows.items())
    body = MATRIX + STDLIB_PHYLO + FITCH2 + \
        't = load(tree, "species.nwk")\ncols = load(columns[dna], "aln.fasta")\n'
    path = write_bio(body, species__nwk=newick, aln__fasta=fasta)
    return both(str(path))


@pytest.mark.parametrize("newick", [
    "(((A:0.1,B:0.2):0.05,(C:0.3,(D:0.1,E:0.4):0.2):0.1):0.0,F:0.3);",  # binary
    "((A:0.1,B:0.2,G:0.1):0.05,(C:0.3,(D:0.1,E:0.4):0.2):0.1,F:0.3);",  # polytomies
])
def test_tree_programs_compiled_equal_interpreter(write_bio, newick):
    leaves = [c for c in "ABCDEFG" if c in newick]
    rng = np.random.default_rng(11)
    rows = {n: "".join(rng.choice(list("ACGT"), 40)) for n in leaves}
    cpu, engine, interp = tree_program(write_bio, newick, rows)
    binary = "G" not in newick
    calls = [("sankoff", ("t", "cols", "dnasimple")), ("fitch2", ("t", "cols"))]
    if binary:
        calls += [("jc69", ("t", "cols")), ("k80", ("t", "cols", 2.0))]
    for func, args in calls:
        got = cpu.map(func, *[cpu._globals[a] if isinstance(a, str) else a for a in args])
        assert func not in engine.fallbacks, (func, engine.fallbacks)
        want = interp.map(func, *[interp._globals[a] if isinstance(a, str) else a for a in args])
        assert all(close(a, b) for a, b in zip(got.values.ravel(), want.values.ravel())), func
    # the standard library's Fitch: fitch_best(u) shares a group with fitch_set(u, a)
    # and fitch_count(u, a), padded to (u, 0) so that one schedule orders all three
    got = cpu.map("fitch", cpu._globals["t"], cpu._globals["cols"]).values.ravel()
    assert "fitch" not in engine.fallbacks, engine.fallbacks
    want = interp.map("fitch", interp._globals["t"], interp._globals["cols"]).values.ravel()
    assert got.tolist() == want.tolist()
    assert (cpu.map("fitch2", cpu._globals["t"], cpu._globals["cols"]).values.ravel().tolist()
            == want.tolist())


def test_tree_runtime_errors_reported_by_the_interpreter(write_bio):
    body = 't = load(tree, "species.nwk")\ncols = load(columns[dna], "aln.fasta")\n' + """
float leftlen(tree t, node[t] u) = u.left.length
int sym(tree t, column[dna] c, node[t] u) = if c[u] == 'A' then 1 else 0
"""
    path = write_bio(body, species__nwk="((A:0.5,B:0.25):0.125,C:1.0);",
                     aln__fasta=">A\nA\n>B\nC\n>C\nG\n")
    cpu = dslc.compile(str(path), backend="cpu")
    cpu.run()
    t = cpu._globals["t"]
    assert cpu.call("leftlen", t, 2) == 0.5 and cpu.call("leftlen", t, 4) == 0.125
    with pytest.raises(dslc.errors.DslcError) as e:
        cpu.call("leftlen", t, 0)
    assert "is a leaf" in e.value.message
    col = cpu._globals["cols"][0]
    assert cpu.call("sym", t, col, 0) == 1
    with pytest.raises(dslc.errors.DslcError) as e:
        cpu.call("sym", t, col, 2)
    assert "internal node" in e.value.message


# --------------------------------------------------------------------------- every backend

def test_hmm_and_tree_maps_on_every_backend(backend, write_bio):
    """The CUDA backend (or its simulator) either compiles these or falls back
    cleanly; results are the interpreter's."""
    rng = np.random.default_rng(3)
    texts = rand_texts(rng, "ACGT", 20, 15)
    src = SILENT_MODEL + STDLIB_HMM
    prog = dslc.compile(src, backend=backend)
    prog.run()
    ref = dslc.compile(src, backend="interp")
    ref.run()
    got = prog.map("hmm_forward", prog._globals["sil"], texts).values.ravel()
    want = ref.map("hmm_forward", ref._globals["sil"], texts).values.ravel()
    assert all(close(a, b) for a, b in zip(got, want))


# --------------------------------------------------------------------------- the SDK

def test_compiled_form_rendering():
    from dslc.emit.pyexpr import NotCompilable, render_code
    from dslc.kernel import ir
    from dslc.targets.printer import Printer

    off = sdk.arr("off")
    code = sdk.Each(off[sdk.RECV], off[sdk.RECV + 1], sdk.arr("item")[sdk.ITEM])
    name = lambda a: f"A_{a}"  # noqa: E731

    def text(c, **slots) -> str:  # the kernel IR expression as the CPU printer spells it
        return Printer().expr(render_code(c, name, **slots))
    s, k, c = ir.Name("s"), ir.Name("k"), ir.Name("c")
    assert text(sdk.lift(code.lo), recv=s) == "A_off[s]"
    assert text(code.item, recv=s, item=k) == "A_item[k]"
    assert text(sdk.arr("e")[sdk.checked(sdk.RECV, sdk.arr("e").len), sdk.key(0)],
                recv=s, keys=[c]) == "A_e[_chk(s, len(A_e)), c]"
    assert text(~(sdk.RECV == 0) | sdk.select(sdk.RECV > 1, True, False),
                recv=s) == "((not (s == 0)) or (True if (s > 1) else False))"
    with pytest.raises(NotCompilable):
        render_code(sdk.RECV, name)  # a calling receiver has no element number
    with pytest.raises(ValueError):
        sdk.DeviceArray("bad_name")
    with pytest.raises(ValueError):
        sdk.DeviceArray("x", where="texture")
