"""Whole ``dslc run`` processes as a user sees them: wall-clock seconds of the first run
(empty cache: every plan and kernel compiled) and of the second (same cache), per backend.

    python3 benchmarks/whole_run.py --backends cpu,cuda,auto --json whole_run.json
    python3 benchmarks/whole_run.py --proteome .whl/proteome.faa   # adds the 10 x 2,100 job
    python3 benchmarks/whole_run.py --proteome .whl/proteome.faa --million 1000000 \
        --cudasw /tmp/cudasw_bench/cudasw4      # adds 1 and 10 queries x 1,000,000 proteins

``--million N`` adds two searches of a database of N proteins drawn with replacement from
the proteome (the same draw as benchmarks/sw_gpu.py and cudasw_gpu.py): one query of
length 375, and ten queries. ``--cudasw DIR`` (a CUDASW++4.0 build with ``makedb`` and
``align``, as benchmarks/cudasw_gpu.py makes it) times CUDASW++'s whole run on the same
files beside them: ``makedb`` of the FASTA, then one ``align`` process (its scores use
its own BLOSUM62 convention, so they are timed, not compared).

Each job is a .bio script written into a scratch folder with its data; each backend gets
its own fresh cache directory, so its first run is cold: no plan, module or kernel of any
job in it. What ``auto`` measures about the machine (dslc.calibrate: once per machine) is
measured once, by ``dslc calibrate`` at the start (timed: its own row), and that file is
put in each fresh cache, as a user's cache holds it after their first run on the machine;
``--calibrate-each`` leaves it out, so every first ``auto`` run measures the machine too.
The printed output of every run must equal the CPU backend's (itself tested against the
interpreter), so a fast wrong answer cannot pass. Every run is timed with ``--timings``
(which a run collects whether it prints it or not), and each row keeps the backends its
calls and maps ran on (``ran_on``): ``auto``'s choice, set beside the faster backend's in
the verdict, so that a cell over 10% shows whether ``auto`` chose otherwise or chose the
same and was slower by the host's spread.

``--repeat N`` measures every job on every backend N times, each time with fresh caches
and the backends in turn (the turn rotated each repetition), and reports the medians
(every sample kept in the JSON); with ``auto`` among the backends, a verdict row per job
says by how much ``auto``'s median exceeds the faster backend's, first run and second.

``--later K`` takes up to K later runs on each first run's cache (each the same run again:
nothing is left to compile; after every backend's first run of the job, the backends in turn
round by round) while they take under ``--later-budget`` seconds together, and reports their
median as the second run: a few later samples of the short jobs cost seconds,
where ``--repeat`` repeats the first runs too, the CPU's 10 x 1,000,000 among them (300 s of
the 600 a command may run on the H200), so it cannot fit in the benchmark's one command.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import timings_table  # noqa: E402

LCS = """\
int lcs(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = 0
  | s[i - 1] == t[j - 1] = lcs(i - 1, j - 1) + 1
  | otherwise = lcs(i - 1, j) max lcs(i, j - 1)
a = load(seq[dna], "a.fasta")
b = load(seq[dna], "b.fasta")
print map(lcs, a (*) b)
"""

ONE_NUMBER = "const x = 6\nint f(int n) = n * x + 1\nprint f(7)\n"

SW_QUERIES = """\
q = load(seq[protein], "queries.fasta")
db = load(seq[protein], "proteome.faa")
print map(sw, blosum62 (*) 11 (*) 1 (*) q (*) db)
"""


def _fasta(names_seqs) -> str:
    return "".join(f">{n}\n{s}\n" for n, s in names_seqs)


def make_jobs(scratch: Path, proteome: str | None) -> dict[str, Path]:
    """Write every job's script and data; returns name -> script path."""
    rng = random.Random(7)
    jobs = {}
    lcs = scratch / "lcs"
    lcs.mkdir()
    (lcs / "a.fasta").write_text(_fasta((f"a{k}", "".join(rng.choice("ACGT") for _ in range(30)))
                                        for k in range(4)))
    (lcs / "b.fasta").write_text(_fasta((f"b{k}", "".join(rng.choice("ACGT") for _ in range(40)))
                                        for k in range(5)))
    (lcs / "lcs.bio").write_text(LCS)
    jobs["lcs 4x5 dna"] = lcs / "lcs.bio"
    one = scratch / "one"
    one.mkdir()
    (one / "one.bio").write_text(ONE_NUMBER)
    jobs["one number"] = one / "one.bio"
    jobs["examples/smith_waterman.bio"] = ROOT / "examples" / "smith_waterman.bio"
    jobs["examples/edit_distance.bio"] = ROOT / "examples" / "edit_distance.bio"
    if proteome:
        sw = scratch / "sw"
        sw.mkdir()
        text = Path(proteome).read_text()
        (sw / "proteome.faa").write_text(text)
        records = [r for r in text.split(">")[1:]][:10]
        (sw / "queries.fasta").write_text("".join(">" + r for r in records))
        from benchmarks.common import SW_PROGRAM

        (sw / "sw.bio").write_text(SW_PROGRAM + "\n" + SW_QUERIES)
        jobs["sw 10 x proteome"] = sw / "sw.bio"
    return jobs


def make_million_jobs(scratch: Path, proteome: str, n: int) -> dict[str, Path]:
    """The 1- and 10-query searches of N proteins drawn from ``proteome``."""
    import numpy as np

    from benchmarks.common import SW_GPU_SEED, SW_PROGRAM

    records = [r.split("\n", 1) for r in Path(proteome).read_text().split(">")[1:]]
    names = [h.split()[0] for h, _ in records]
    texts = [b.replace("\n", "") for _, b in records]
    picks = np.random.default_rng(SW_GPU_SEED).integers(0, len(texts), size=n)
    big = scratch / f"sw{n}"
    big.mkdir()
    with open(big / "db.fasta", "w") as fh:
        for start in range(0, n, 100_000):
            fh.write("".join(f">d{k}_{names[p]}\n{texts[p]}\n"
                             for k, p in enumerate(picks[start:start + 100_000].tolist(),
                                                   start)))
    by_length = sorted(range(len(texts)), key=lambda k: (abs(len(texts[k]) - 375), names[k]))
    jobs = {}
    for count in (1, 10):
        sub = big / f"q{count}"
        sub.mkdir()
        (sub / "queries.fasta").write_text(
            "".join(f">{names[k]}\n{texts[k]}\n" for k in by_length[:count]))
        (sub / "sw.bio").write_text(SW_PROGRAM + "\n" + SW_QUERIES.replace(
            '"proteome.faa"', '"../db.fasta"'))
        jobs[f"sw {count} x {n:,}"] = sub / "sw.bio"
    return jobs


def run_cudasw(build: Path, script: Path, work: Path) -> float:
    """CUDASW++4.0's whole run on a search job's files: makedb, then align (seconds)."""
    from benchmarks.cudasw_gpu import align_command, run

    db = next(p for p in (script.parent / "db.fasta", script.parent.parent / "db.fasta",
                          script.parent / "proteome.faa") if p.exists())
    out = work / "cudasw_db"
    out.mkdir(exist_ok=True)
    t0 = time.perf_counter()
    run([str(build / "makedb"), str(db), str(out / "db")], str(work / "makedb.log"))
    run(align_command(str(build / "align"), str(script.parent / "queries.fasta"),
                      str(out / "db"), str(work / "hits.tsv"), 10, []), str(work / "align.log"),
        dict(os.environ, CUDA_VISIBLE_DEVICES=os.environ.get("CUDA_VISIBLE_DEVICES", "0")))
    return time.perf_counter() - t0


def wait_ahead(cache: Path, limit: float = 300.0) -> float:
    """Seconds waited, after a first run, for the kernels `auto` compiles ahead in
    the background (dslc.warm) to be done: a second run is a later run, and a
    later run finds them."""
    t0 = time.perf_counter()
    while list(cache.glob("ahead_*.pickle")) and time.perf_counter() - t0 < limit:
        time.sleep(0.5)
    return round(time.perf_counter() - t0, 2)


def calibrate_once(cache: Path) -> tuple[dict, list[Path]]:
    """``dslc calibrate`` into ``cache``: its row (seconds) and the file it wrote."""
    env = dict(os.environ, DSLC_CACHE_DIR=str(cache))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "calibrate"], capture_output=True,
                       text=True, env=env)
    wall = round(time.perf_counter() - t0, 2)
    if r.returncode != 0:
        sys.stderr.write(f"dslc calibrate failed:\n{r.stderr[-3000:]}\n")
    return ({"job": "dslc calibrate (once per machine)", "backend": "auto", "first_s": wall},
            sorted(cache.glob("calibration_*.json")))


def run_once(script: Path, backend: str, cache: Path) -> tuple[float, str, list]:
    """Wall seconds of one ``dslc run``, its output (None where it failed) and the
    backends its calls and maps ran on (from ``--timings``, which every run collects
    anyway: for ``auto``, what it chose)."""
    env = dict(os.environ, DSLC_CACHE_DIR=str(cache))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", str(script), "--backend",
                        backend, "--quiet", "--format", "json", "--timings"],
                       capture_output=True, text=True, cwd=script.parent, env=env)
    wall = time.perf_counter() - t0
    if r.returncode != 0:  # recorded, and the benchmark goes on (its exit status says so)
        sys.stderr.write(f"{script} on {backend} failed:\n{r.stderr[-3000:]}\n")
        return wall, None, []
    return wall, r.stdout, ran_on(r.stderr)


def later_runs(script: Path, order: list, caches: dict, most: int, budget: float) -> dict:
    """Each backend's later runs on its first run's cache (nothing left to compile, so
    each is the same run again), the backends in turn round by round, so that the
    host's drift over a minute hits each alike: at least one each, then more while a
    backend has fewer than ``most`` and its runs have taken under ``budget`` seconds
    together. A later run of a one-second process varies on a shared host by more than
    the 10% ``auto`` is held to, and the median of a few is steadier; the budget keeps
    the long jobs (the CPU's 10 x 1,000,000) at one run, all a command has room for."""
    runs = {b: [] for b in order}
    for round_ in range(max(1, most)):
        for backend in order:
            done = runs[backend]
            if round_ == 0 or (len(done) < most and sum(w for w, _, _ in done) < budget):
                done.append(run_once(script, backend, caches[backend]))
    return runs


def ran_on(timings: str) -> list:
    """The backends of a ``--timings`` table's rows, in order, each once."""
    seen = []
    for row in timings_table(timings)[0]:
        if row["backend"] not in seen:
            seen.append(row["backend"])
    return seen


def _row(job: str, backend: str, samples: list, checked: bool) -> dict:
    """One job on one backend: the median first and second runs of its samples, and
    every sample (a single sample of a one-second process on a shared machine varies
    by more than the 10% that ``auto`` is held to)."""
    firsts, seconds = [s[0] for s in samples], [s[1] for s in samples]
    row = {"job": job, "backend": backend, "first_s": round(statistics.median(firsts), 2),
           "second_s": round(statistics.median(seconds), 2),
           "waited_for_ahead_s": max(s[2] for s in samples),
           "same_output_as_cpu" if checked else "same_output_across_runs":
               all(s[3] for s in samples),
           "ran_on": {"first": [s[4] for s in samples], "second": [s[5] for s in samples]}}
    if len(samples) > 1:
        row["first_samples"] = [round(x, 2) for x in firsts]
        row["second_samples"] = [round(x, 2) for x in seconds]
    if any(len(s[6]) > 1 for s in samples):  # each sample's later runs (--later)
        row["later_runs"] = [s[6] for s in samples]
    return row


def _verdict(job: str, rows: list[dict]) -> dict:
    """``auto`` against the faster of the other backends, first and second run
    (medians): its excess over the faster, as a fraction."""
    by = {r["backend"]: r for r in rows}
    auto, others = by["auto"], [r for b, r in by.items() if b != "auto"]
    out = {"job": job, "verdict": "auto against the faster backend (medians)"}
    for run in ("first_s", "second_s"):
        best = min(others, key=lambda r: r[run])
        excess = auto[run] / best[run] - 1 if best[run] else 0.0
        which = run.replace("_s", "")
        out[which] = {"auto": auto[run], "faster": best["backend"], "faster_s": best[run],
                      "excess": round(excess, 3), "within_10_percent": excess <= 0.10,
                      # what auto ran on against what the faster one is, each sample: a
                      # cell over 10% with the same choice is the host's spread, not auto's
                      "auto_ran_on": auto["ran_on"][which],
                      "faster_ran_on": best["ran_on"][which]}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backends", default="cpu,cuda,auto")
    ap.add_argument("--proteome", help="a protein FASTA file for the 10-query search job")
    ap.add_argument("--million", type=int, help="add 1 and 10 queries x this many proteins")
    ap.add_argument("--cudasw", help="a CUDASW++4.0 build folder (makedb, align) to time beside")
    ap.add_argument("--only", help="run only the jobs whose name contains this")
    ap.add_argument("--no-reference", metavar="TEXT",
                    help="jobs whose name contains this are not run on the CPU for a "
                         "reference (too long): their runs are compared with each other")
    ap.add_argument("--calibrate-each", action="store_true",
                    help="no machine calibration in the fresh caches: each first auto run "
                         "measures the machine")
    ap.add_argument("--repeat", type=int, default=1,
                    help="measure every job and backend this many times (fresh caches each "
                         "time, backends in turn) and report the medians")
    ap.add_argument("--later", type=int, default=1,
                    help="up to this many later runs on each first run's cache (the "
                         "second run's figure is their median), while they take under "
                         "--later-budget seconds together")
    ap.add_argument("--later-budget", type=float, default=10.0,
                    help="seconds of later runs after which no more are started")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        seeded = []
        if "auto" in args.backends.split(",") and not args.calibrate_each:
            row, seeded = calibrate_once(scratch / "calibration")
            print(json.dumps(row), flush=True)
            results.append(row)
        jobs = make_jobs(scratch, args.proteome)
        if args.million:
            jobs.update(make_million_jobs(scratch, args.proteome, args.million))
        backends = args.backends.split(",")
        # the CPU backend's first run is the reference where it is measured anyway
        backends = ["cpu", *[b for b in backends if b != "cpu"]] if "cpu" in backends else backends
        for job, script in jobs.items():
            if args.only and args.only not in job:
                continue
            checked = not (args.no_reference and args.no_reference in job)
            want = None
            if "cpu" not in backends and checked:
                _, want, _ = run_once(script, "cpu", scratch / "reference-cache")
            samples: dict[str, list] = {b: [] for b in backends}
            for rep in range(args.repeat):
                # backends in turn, so drift hits each alike, and the turn rotated each
                # repetition (the first stays the CPU's, whose output is the reference),
                # so no backend always runs right after the same other one
                turn = rep % len(backends)
                order = backends[turn:] + backends[:turn]
                caches, firsts = {}, {}
                for backend in order:
                    caches[backend] = cache = scratch / f"cache-{backend}-{abs(hash(job))}-{rep}"
                    cache.mkdir(mode=0o700)
                    for f in seeded:
                        (cache / f.name).write_bytes(f.read_bytes())
                    firsts[backend] = run_once(script, backend, cache)
                    want = firsts[backend][1] if want is None else want
                    firsts[backend] += (wait_ahead(cache),)
                later = later_runs(script, order, caches, args.later, args.later_budget)
                for backend in order:
                    first, out1, ran1, ahead = firsts[backend]
                    runs = later[backend]
                    same = out1 is not None and out1 == want and all(o == want for _, o, _ in runs)
                    samples[backend].append((first, statistics.median(w for w, _, _ in runs),
                                             ahead, same, ran1, runs[0][2],
                                             [round(w, 2) for w, _, _ in runs]))
            for backend in backends:
                row = _row(job, backend, samples[backend], checked)
                print(json.dumps(row), flush=True)
                results.append(row)
                if args.json:  # after every row: a run cut short keeps what it measured
                    Path(args.json).write_text(json.dumps(results, indent=1))
            if "auto" in backends and len(backends) > 1:
                row = _verdict(job, [r for r in results if r.get("job") == job])
                print(json.dumps(row), flush=True)
                results.append(row)
            if args.cudasw and job.startswith("sw "):
                work = scratch / f"cudasw-{abs(hash(job))}"
                work.mkdir()
                row = {"job": job, "backend": "CUDASW++4.0 (makedb + align)",
                       "first_s": round(run_cudasw(Path(args.cudasw), script, work), 2)}
                print(json.dumps(row), flush=True)
                results.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0 if all(r.get("same_output_as_cpu", r.get("same_output_across_runs", True))
                    for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
