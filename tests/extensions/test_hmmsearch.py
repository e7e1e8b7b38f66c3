"""examples/hmmsearch.bio scores as ``hmmsearch --max --nonull2`` (pyhmmer).

Two small profiles built by pyhmmer (so their STATS lines are HMMER's own), in
one file, against a handful of short proteins with a degenerate ``X`` and a stop
``*``: every model of the file in one run, bit scores within 0.01 of pyhmmer's,
E-values from STATS LOCAL FORWARD. The interpreter only: compiling the example's
group for the CPU takes Numba minutes; benchmarks/hmmsearch.py compares the CPU
backend over the whole proteome.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pyhmmer = pytest.importorskip("pyhmmer")

import dslc  # noqa: E402
from dslc.errors import DslcError  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "hmmsearch.bio"

FAMILIES = {
    "fam1": ["MKVLAAGIWE", "MKVLSAGLWE", "MRVLAAGIWD"],
    "fam2": ["PQHHWNC", "PEHHWNC", "PQHYWNC"],
}
PROTEINS = {
    "p1": "GGMKVLAAGIWEGGSTPMKVLSAGLWEAA",
    "p2": "PQHHWNCLLLKVLXAGIWE*",
    "p3": "ACDEFGHIKLMNPQRSTVWY",
    "p4": "PQHHWNCPQHHWNC",
}


def _profiles(tmp_path) -> Path:
    """The two families' profiles, built and calibrated by pyhmmer, in one file."""
    from pyhmmer.easel import Alphabet, DigitalMSA, TextSequence
    from pyhmmer.plan7 import Background, Builder

    abc = Alphabet.amino()
    builder, bg = Builder(abc), Background(abc)
    out = io.BytesIO()
    for name, rows in FAMILIES.items():
        msa = DigitalMSA(abc, name=name.encode(), sequences=[
            TextSequence(name=f"{name}{k}".encode(), sequence=r).digitize(abc)
            for k, r in enumerate(rows)])
        hmm, _, _ = builder.build_msa(msa, bg)
        hmm.write(out)
    path = tmp_path / "two.hmm"
    path.write_bytes(out.getvalue())
    return path


def _pyhmmer(hmm_path: Path, fasta: Path) -> dict:
    from pyhmmer.easel import Alphabet, SequenceFile
    from pyhmmer.plan7 import HMMFile

    with SequenceFile(str(fasta), digital=True, alphabet=Alphabet.amino()) as f:
        seqs = f.read_block()
    with HMMFile(str(hmm_path)) as f:
        hmms = list(f)
    out = {}
    for hits in pyhmmer.hmmer.hmmsearch(hmms, seqs, cpus=1, bias_filter=False, F1=1.0, F2=1.0,
                                        F3=1.0, null2=False, E=1e300, domE=1e300, Z=len(seqs)):
        for hit in hits:
            out[(_text(hits.query.name), _text(hit.name))] = (hit.score, hit.evalue)
    return out


def _text(s) -> str:
    return s.decode() if isinstance(s, bytes) else s


def test_scores_and_evalues_match_pyhmmer(tmp_path):
    hmms = _profiles(tmp_path)
    fasta = tmp_path / "db.fasta"
    fasta.write_text("".join(f">{k}\n{v}\n" for k, v in PROTEINS.items()))
    prog = dslc.compile(str(EXAMPLE), backend="interp")
    r = prog.run(hmms=str(hmms), db=str(fasta), quiet=True)
    assert r["score"].values.shape == (2, 4)  # models x sequences, one map
    ours = {(row["profile"], row["target"]): row["bits"] for row in r["score"].records()}
    evalues = {(row["profile"], row["target"]): row["seq_evalue"]
               for row in r["evalue"].records()}
    ref = _pyhmmer(hmms, fasta)
    assert len(ref) >= 4
    for key, (bits, evalue) in ref.items():
        assert ours[key] == pytest.approx(bits, abs=0.01), key
        assert evalues[key] == pytest.approx(evalue, rel=0.01), key


def test_a_profile_without_stats_is_one_error(tmp_path):
    hmms = _profiles(tmp_path)
    text = "\n".join(line for line in hmms.read_text().splitlines()
                     if not line.startswith("STATS LOCAL FORWARD"))
    bare = tmp_path / "bare.hmm"
    bare.write_text(text + "\n")
    src = f'float tau(hmm h) = h.fwdtau\nm = load(hmms, "{bare}")\nprint map(tau, m)\n'
    with pytest.raises(DslcError, match="STATS LOCAL FORWARD"):
        dslc.compile(src, backend="interp").run(quiet=True)


def test_one_model_load_names_the_list_loader(tmp_path):
    hmms = _profiles(tmp_path)
    src = f'h = load(hmm, "{hmms}")\nprint 1\n'
    with pytest.raises(DslcError, match="load\\(hmms"):
        dslc.compile(src, backend="interp").run(quiet=True)


# A chain along the node dimension (k.prev at the same position) beside a read of
# node 0 anywhere (h.firstnode, h.lastnode: '?' to the analysis): the node
# dimension is ordered inside each partition at run time, and the chain with it.
RUNTIME_CHAIN = """
prob ch_a(hmm h, pnode[h] k, seq[*] x, index[x] i)
  | k.number == 0 or i == 0 = 0.0
  | otherwise = ch_a(k.prev, i) * 0.5 + ch_b(h.firstnode, i - 1) * k.entry
prob ch_b(hmm h, pnode[h] k, seq[*] x, index[x] i)
  | k.number > 0 = 0.0
  | i == 0 = 1.0
  | otherwise = ch_b(k, i - 1) * 0.25 + ch_a(h.lastnode, i)
prob chain(hmm h, seq[*] x) = ch_b(h.firstnode, len(x))
g = load(hmms, "PROFILE")
xs = load(seq[protein], "DB")
print map(chain, g (*) xs)
"""


def test_chain_inside_a_runtime_ordered_partition_compiles(tmp_path):
    """Before: 'no affine schedule' (the chain needs the node coefficient > 0,
    the '?' reads need it 0) and the CPU backend fell back to the interpreter."""
    if not dslc.backends.get("cpu").available():
        pytest.skip("numba/islpy not installed")
    fasta = tmp_path / "db.fasta"
    fasta.write_text("".join(f">{k}\n{v}\n" for k, v in PROTEINS.items()))
    src = RUNTIME_CHAIN.replace("PROFILE", str(_profiles(tmp_path))).replace("DB", str(fasta))
    cpu, interp = dslc.compile(src, backend="cpu"), dslc.compile(src, backend="interp")
    cpu.run(quiet=True)
    interp.run(quiet=True)
    texts = list(PROTEINS.values())
    got = cpu.map("chain", cpu._globals["g"], texts).values.ravel()
    engine = cpu._engine()
    assert any(k[0] == "chain" and v is not None for k, v in engine._memo.items())  # compiled
    assert "chain" not in engine.fallbacks, engine.fallbacks
    assert engine.reruns == {}, engine.reruns  # and its tasks finish compiled
    want = interp.map("chain", interp._globals["g"], texts).values.ravel()
    assert len(got) == len(want) == 8
    for g, w in zip(got, want):
        assert float(g) == pytest.approx(float(w), rel=1e-9)
