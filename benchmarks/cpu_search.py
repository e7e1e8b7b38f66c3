"""One query against a large gzipped protein database on the CPU, as whole processes:
``dslc run`` of a script against a Python process that reads the same gzipped FASTA and
scores it with parasail's fastest function on the development machine (the saturating
striped search: 8-bit lanes, re-run in 16 bits where they saturate), in the same run. Wall
time and peak memory (``ru_maxrss`` of each child) are what a user sees.

    python benchmarks/cpu_search.py --proteome .whl/proteome.faa [--copies 50] [--json out.json]

The database is the proteome repeated ``--copies`` times (2,100 proteins x 50 = 105,000),
gzipped; the query is its first protein of length 375. BLOSUM62, gaps 10 + 1 in the
contract's convention (parasail's open 11, extend 1). Both processes hold the database in
memory (parasail's as a list of Python strings, read with plain Python), then print one
score per protein; the scores must be identical. dslc's run is timed warm (its compiled code is
cached on disk by a first run, which is not counted).
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

SCRIPT = """\
q = load(seq[protein], "query.fasta")
db = load(seq[protein], "db.faa.gz")
print map(sw, blosum62 (*) 10 (*) 1 (*) q (*) db)
"""

PARASAIL = """\
import gzip, sys
import parasail
def records(path):
    name, parts = None, []
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\\x1f\\x8b"
    with (gzip.open(path, "rt") if gz else open(path)) as fh:
        for line in fh:
            if line.startswith(">"):
                if name is not None:
                    yield name, "".join(parts)
                name, parts = line[1:].split(None, 1)[0], []
            else:
                parts.append(line.strip())
    if name is not None:
        yield name, "".join(parts)
query = next(records(sys.argv[1]))[1]
profile = parasail.profile_create_sat(query, parasail.blosum62)
database = list(records(sys.argv[2]))  # held, as dslc holds its loaded database
out = sys.stdout
for name, seq in database:
    out.write(f"{name}\\t{parasail.sw_striped_profile_sat(profile, seq, 11, 1).score}\\n")
"""


def write_data(scratch: Path, proteome: str, copies: int, drawn: int = 0) -> None:
    """The query, the gzipped database (the proteome ``copies`` times, or ``drawn``
    proteins drawn from it as benchmarks.common.database_picks draws them), the script
    and parasail's."""
    text = Path(proteome).read_text()
    records = [">" + r for r in text.split(">")[1:]]
    query = next(r for r in records
                 if len("".join(r.splitlines()[1:]).replace(" ", "")) == 375)
    (scratch / "query.fasta").write_text(query)
    with gzip.open(scratch / "db.faa.gz", "wt", compresslevel=6) as fh:
        if drawn:
            from benchmarks.common import database_picks

            picks = database_picks(len(records), drawn).tolist()
            for start in range(0, drawn, 100_000):
                fh.write("".join(records[k] if records[k].endswith("\n") else
                                 records[k] + "\n" for k in picks[start:start + 100_000]))
        for _ in range(0 if drawn else copies):
            fh.write(text if text.endswith("\n") else text + "\n")
    from benchmarks.common import SW_PROGRAM

    (scratch / "search.bio").write_text(SW_PROGRAM + "\n" + SCRIPT)
    (scratch / "parasail_search.py").write_text(PARASAIL)


def dslc_scores(text: str) -> list[int]:
    """The scores of the printed 1 x N map (a header line, the column labels, then the
    query's row: its name and one score per protein)."""
    return [int(x) for x in text.splitlines()[2].split()[1:]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proteome", required=True)
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--json")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="dslc-search-"))
    write_data(scratch, args.proteome, args.copies)
    env = dict(os.environ)
    env.setdefault("DSLC_CACHE_DIR", str(scratch / "cache"))
    dslc = [sys.executable, "-m", "dslc.cli", "run", "--backend", "cpu", "search.bio"]
    peer = [sys.executable, "parasail_search.py", "query.fasta", "db.faa.gz"]
    subprocess.run(dslc, cwd=scratch, env=env, capture_output=True, check=True)  # warm cache
    figures = {name: measure_process(cmd, env, scratch, f"{name}.out")
               for name, cmd in (("parasail", peer), ("dslc", dslc))}
    ours = dslc_scores(Path(scratch / "dslc.out").read_text())
    theirs = [int(line.split()[1]) for line in Path(scratch / "parasail.out").read_text()
              .splitlines()]
    report = {
        "proteins": len(theirs), "copies": args.copies,
        "identical_scores": ours == theirs,
        "dslc": figures["dslc"], "parasail": figures["parasail"],
        "time_ratio": figures["dslc"]["seconds"] / figures["parasail"]["seconds"],
        "memory_ratio": figures["dslc"]["peak_mb"] / figures["parasail"]["peak_mb"],
    }
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    if ours != theirs:
        raise SystemExit("scores differ from parasail")


if __name__ == "__main__":
    main()
