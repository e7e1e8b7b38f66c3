"""Reading a large protein FASTA file: dslc's reader against Biopython's ``SeqIO``,
each in a fresh process (wall time and peak memory, ``ru_maxrss`` of the child).

    python benchmarks/fasta_read.py --proteome .whl/proteome.faa [--mb 50] [--json out.json]

The file is the proteome repeated to about ``--mb`` megabytes, wrapped at 60 columns
(plain text, then gzipped). dslc encodes every record over the protein alphabet into
one packed buffer (what ``load(seq[protein], file)`` does); Biopython's process makes
``SeqRecord`` objects and keeps them in a list (the usual ``list(SeqIO.parse(...))``),
which holds the text but encodes nothing. Both report the residue count, which must
agree.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import measure_process  # noqa: E402

DSLC = """\
import sys
from dslc.lang.fasta import read_fasta
from dslc.lang.stdlib import standard_alphabets
records = read_fasta(sys.argv[1], standard_alphabets()["protein"])
print(len(records), int(records.pack.codes.size))
"""

BIOPYTHON = """\
import gzip, sys
from Bio import SeqIO
path = sys.argv[1]
with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
    records = list(SeqIO.parse(fh, "fasta"))
print(len(records), sum(len(r.seq) for r in records))
"""



def write_file(path: Path, proteome: str, megabytes: int) -> None:
    text = Path(proteome).read_text()
    records = [r.split("\n", 1) for r in text.split(">")[1:]]
    body = "".join(">" + head + "\n" + "".join(
        seq[k:k + 60] + "\n" for k in range(0, len(seq), 60))
        for head, rest in records for seq in ["".join(rest.split())])
    copies = max(1, megabytes * 2**20 // len(body))
    path.write_text(body * copies)


def measure(cmd: list[str], env: dict) -> dict:
    return measure_process(cmd, env)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proteome", required=True)
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--json")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="dslc-fasta-"))
    plain = scratch / "big.faa"
    write_file(plain, args.proteome, args.mb)
    packed = scratch / "big.faa.gz"
    with open(plain, "rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
        dst.write(src.read())
    (scratch / "dslc_read.py").write_text(DSLC)
    (scratch / "bio_read.py").write_text(BIOPYTHON)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    report = {"file_mb": plain.stat().st_size / 2**20}
    for label, path in (("plain", plain), ("gzip", packed)):
        ours = measure([sys.executable, str(scratch / "dslc_read.py"), str(path)], env)
        theirs = measure([sys.executable, str(scratch / "bio_read.py"), str(path)], env)
        assert ours["printed"] == theirs["printed"], (ours, theirs)
        report[label] = {"dslc": ours, "biopython": theirs,
                         "time_ratio": ours["seconds"] / theirs["seconds"],
                         "memory_ratio": ours["peak_mb"] / theirs["peak_mb"]}
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
