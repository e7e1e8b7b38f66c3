"""examples/hmmsearch.bio against pyhmmer's hmmsearch: bit scores and E-values.

Runs the example (HMMER3's local multihit forward written in .bio) on
``--backend`` for every profile of each HMMER3 file given (all of a multi-model
file in one run: models x sequences as one map) against the proteome of
pyhmmer's test data, and pyhmmer's ``hmmsearch`` with what ``hmmsearch --max
--nonull2`` sets (every filter passes, no bias filter, no null2 correction), Z the
number of proteins. Prints, per file, the worst bit-score difference over every
sequence pyhmmer reports, and the hits with E <= --evalue of both, best first.

    python benchmarks/hmmsearch.py [--backend cpu] [--n 2100] [FILE.hmm ...]

Without files: the amino-acid profiles in pyhmmer's tests/data/hmms/txt.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import proteome_path  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "hmmsearch.bio"


def pyhmmer_scores(hmm_path: str, fasta: str) -> dict:
    """{(model, protein): (bits, evalue)} for every sequence pyhmmer reports."""
    import pyhmmer
    from pyhmmer.easel import Alphabet, SequenceFile
    from pyhmmer.plan7 import HMMFile

    with SequenceFile(fasta, digital=True, alphabet=Alphabet.amino()) as f:
        seqs = f.read_block()
    with HMMFile(hmm_path) as f:
        hmms = list(f)
    out = {}
    for hits in pyhmmer.hmmer.hmmsearch(hmms, seqs, cpus=1, bias_filter=False, F1=1.0, F2=1.0,
                                        F3=1.0, null2=False, E=1e300, domE=1e300, Z=len(seqs)):
        name = hits.query.name
        name = name.decode() if isinstance(name, bytes) else name
        for hit in hits:
            seq = hit.name.decode() if isinstance(hit.name, bytes) else hit.name
            out[(name, seq)] = (hit.score, hit.evalue)
    return out


def dslc_scores(hmm_path: str, fasta: str, backend: str) -> tuple[dict, float]:
    """{(model, protein): (bits, evalue)} from examples/hmmsearch.bio, and seconds."""
    import dslc

    prog = dslc.compile(str(EXAMPLE), backend=backend)
    t = time.perf_counter()
    r = prog.run(hmms=hmm_path, db=fasta, quiet=True)
    took = time.perf_counter() - t
    bits = {tuple(row.values())[:2]: tuple(row.values())[2] for row in r["score"].records()}
    ev = {tuple(row.values())[:2]: tuple(row.values())[2] for row in r["evalue"].records()}
    return {k: (float(v), float(ev[k])) for k, v in bits.items()}, took


def hits(scores: dict, evalue: float) -> list:
    return sorted(((e, -b, k) for k, (b, e) in scores.items() if e <= evalue))


def compare(hmm_path: str, fasta: str, backend: str, evalue: float) -> float:
    t = time.perf_counter()
    ref = pyhmmer_scores(hmm_path, fasta)
    ref_took = time.perf_counter() - t
    ours, took = dslc_scores(hmm_path, fasta, backend)
    worst = max(abs(ours[k][0] - b) for k, (b, _) in ref.items())
    print(f"== {hmm_path}: {len(ours)} (model, protein) pairs by dslc ({backend}, {took:.1f} s), "
          f"{len(ref)} reported by pyhmmer ({ref_took:.1f} s, one thread); worst bit "
          f"difference {worst:.5f}", flush=True)
    a, b = hits(ours, evalue), hits(ref, evalue)
    print(f"   hits with E <= {evalue}: dslc {len(a)}, pyhmmer {len(b)}; same order: "
          f"{[k for *_, k in a] == [k for *_, k in b]}")
    for (e1, s1, k), (e2, s2, k2) in zip(a, b):
        print(f"   {k[0]:>20} {k[1]:<32} {-s1:9.3f} {e1:10.3g}   |  "
              f"{k2[1]:<32} {-s2:9.3f} {e2:10.3g}")
    return worst


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--n", type=int, default=None, help="the first N proteins only")
    ap.add_argument("--evalue", type=float, default=0.01)
    args = ap.parse_args()
    import pyhmmer

    data = Path(pyhmmer.__file__).parent / "tests" / "data" / "hmms" / "txt"
    files = args.files or [str(p) for p in sorted(data.glob("*.hmm"))
                           if "ALPH  amino" in p.read_text()[:2000]]
    fasta = proteome_path()
    with tempfile.TemporaryDirectory() as tmp:
        if args.n is not None:
            records = Path(fasta).read_text().split(">")[1:args.n + 1]
            fasta = os.path.join(tmp, "proteome.faa")
            Path(fasta).write_text("".join(">" + r for r in records))
        worst = max(compare(f, fasta, args.backend, args.evalue) for f in files)
    print(f"worst bit difference over every file: {worst:.5f}")


if __name__ == "__main__":
    main()
