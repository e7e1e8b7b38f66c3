"""The top hits' alignments of a search, as whole processes: ``dslc run --format tsv
--top N --align`` against the same search without ``--align``, and against parasail
scoring every protein and then tracing the top N (``sw_trace_striped_16``, its CIGAR
decoded), all in the same run. First run (a fresh cache: every plan and module compiled)
and second run (the same cache), wall seconds and peak memory (``ru_maxrss``) each, and
each dslc run's own ``--timings`` rows: the map's and ``alignments of N tasks`` (the
rows' tracebacks and alignments, made as the table is printed).

    python benchmarks/align_search.py --proteome .whl/proteome.faa [--copies 50 | --database N]
                                      [--top 100] [--backend cpu] [--repeat 1] [--json out.json]

The data are benchmarks/cpu_search.py's: the proteome repeated ``--copies`` times, or
``--database N`` proteins drawn from it (benchmarks.common.database_picks, the draw of the
GPU benchmarks), gzipped, one query of length 375, BLOSUM62 with gaps 10 + 1 in the
contract's convention (parasail's open 11, extend 1). ``--backend`` is dslc's;
``--repeat R`` times R second runs of each (with and without ``--align`` in turn) and
reports the medians, every sample kept. The alignments' share is their ``--timings`` row
against the second run without ``--align``: its whole process, dslc's own run (the
table's ``run:`` line) and its map's row. Every dslc row's score must equal parasail's
for the same protein, and the top N scores must be the same multiset.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import SW_PROGRAM, measure_process, timings_table  # noqa: E402
from benchmarks.cpu_search import PARASAIL, SCRIPT, write_data  # noqa: E402

PEER = PARASAIL[:PARASAIL.index("out = sys.stdout")] + """
top = int(sys.argv[3])
scored = sorted(((parasail.sw_striped_profile_16(profile, seq, 11, 1).score, k)
                 for k, (_, seq) in enumerate(database)), key=lambda x: -x[0])[:top]
for score, k in scored:
    name, seq = database[k]
    r = parasail.sw_trace_striped_16(query, seq, 11, 1, parasail.blosum62)
    cigar = r.cigar.decode.decode() if isinstance(r.cigar.decode, bytes) else r.cigar.decode
    sys.stdout.write(f"{name}\\t{r.score}\\t{cigar}\\n")
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--proteome", required=True)
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--database", type=int, default=0,
                    help="N proteins drawn from the proteome instead of its copies")
    ap.add_argument("--top", type=int, default=100)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="dslc-align-"))
    write_data(scratch, args.proteome, args.copies, args.database)
    (scratch / "search.bio").write_text(SW_PROGRAM + "\n" + SCRIPT)
    (scratch / "parasail_top.py").write_text(PEER)
    runs = {"align": ["--align"], "no_align": []}
    report: dict = {"proteins": args.database or 2100 * args.copies, "top": args.top,
                    "backend": args.backend}

    def measured(name: str, run: str) -> dict:
        env = dict(os.environ, DSLC_CACHE_DIR=str(scratch / f"cache_{name}"))  # fresh
        cmd = [sys.executable, "-m", "dslc.cli", "run", "--backend", args.backend,
               "--quiet", "search.bio", "--format", "tsv", "--top", str(args.top),
               "--timings", *runs[name]]
        got = measure_process(cmd, env, scratch, f"{name}_{run}.tsv", stderr=True)
        rows, wall = timings_table(got.pop("stderr"))
        got["timings"] = {"run_s": wall, **{row["what"].split()[0] + "_s": row["total_s"]
                                            for row in rows}}
        return got
    samples: dict = {name: [] for name in runs}
    for name in runs:
        report[name] = {"first": measured(name, "first")}
    for _ in range(args.repeat):
        for name in runs:
            samples[name].append(measured(name, "second"))
    for name in runs:
        report[name]["second"] = sorted(samples[name], key=lambda m: m["seconds"])[
            (len(samples[name]) - 1) // 2]  # (the median sample)
        if args.repeat > 1:
            report[name]["second_samples"] = samples[name]
    report["parasail"] = measure_process(
        [sys.executable, "parasail_top.py", "query.fasta", "db.faa.gz", str(args.top)],
        dict(os.environ), scratch, "parasail.tsv")
    ours = [line.split("\t") for line in (scratch / "align_second.tsv").read_text()
            .splitlines()[1:]]
    theirs = [line.split("\t") for line in (scratch / "parasail.tsv").read_text()
              .splitlines()]
    report["same_top_scores"] = sorted(int(r[2]) for r in ours) == \
        sorted(int(r[1]) for r in theirs)
    report["align_over_no_align"] = {
        run: round(report["align"][run]["seconds"] / report["no_align"][run]["seconds"], 3)
        for run in ("first", "second")}
    report["second_over_parasail"] = round(
        report["align"]["second"]["seconds"] / report["parasail"]["seconds"], 3)
    aligned = statistics.median(m["timings"].get("alignments_s", 0.0) for m in samples["align"])
    plain = samples["no_align"]
    report["alignments_share"] = {  # (medians: the alignments' row against the plain run)
        "alignments_s": round(aligned, 3),
        "of_the_process": round(aligned / statistics.median(m["seconds"] for m in plain), 3),
        "of_dslc_s_run": round(aligned / statistics.median(m["timings"]["run_s"] for m in plain),
                               3),
        "of_the_map": round(aligned / statistics.median(m["timings"]["map_s"] for m in plain), 3)}
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    if not report["same_top_scores"]:
        raise SystemExit("the top scores differ from parasail's")


if __name__ == "__main__":
    main()
