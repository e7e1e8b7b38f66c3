"""pyhmmer's hmmsearch with its default pipeline (MSV, bias, Viterbi and forward filters)
as a whole process: the peer of ``dslc run examples/hmmsearch.bio``. Prints the number of
hits at E <= 0.01.

    python3 benchmarks/pyhmmer_search.py examples/data/PF02826.hmm .whl/proteome.faa --cpus 2
"""

from __future__ import annotations

import argparse

import pyhmmer
from pyhmmer.easel import SequenceFile
from pyhmmer.plan7 import HMMFile


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("hmm")
    ap.add_argument("fasta")
    ap.add_argument("--cpus", type=int, default=0, help="0: every core")
    a = ap.parse_args()
    with HMMFile(a.hmm) as fh:
        hmms = list(fh)
    with SequenceFile(a.fasta, digital=True) as fh:
        seqs = fh.read_block()
    print(sum(1 for hits in pyhmmer.hmmsearch(hmms, seqs, cpus=a.cpus)
              for h in hits if h.evalue <= 0.01))


if __name__ == "__main__":
    main()
