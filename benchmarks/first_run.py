"""First runs against second runs: whole ``dslc run`` processes of the examples.

A *first run* is a script's first run after installation: ``DSLC_CACHE_DIR`` empty
(no parsed script, plan, generated module or machine code of it), while the
installed package is as an installation leaves it after its first use: Python's
bytecode written, and Numba's caches of dslc's own compiled runtime functions (the
FASTA reader's, the packs' fill) warm. So before anything is timed, every case runs
once into a throwaway cache (``--no-warm-up`` leaves that out). A *second run* is
the same command again on the first run's cache.

Each repetition takes a fresh cache directory per case, runs the case first and then
second, each a fresh process timed from outside: wall-clock seconds and CPU seconds
(user + system of the process and its threads: on a machine shared with others the
steadier of the two), and the compile seconds ``--timings`` reports. The figures are
the minimum over ``--repeat`` repetitions, and the first run's cost is the difference
of the minima (wall and CPU).

    python benchmarks/first_run.py --proteome .whl/proteome.faa [--repeat 3] [--json out.json]

Cases: ``examples/search.bio`` with 10 queries (the proteome's first ten proteins)
against the proteome, ``examples/hmmsearch.bio`` with PF02826 against the proteome
(``--max-evalue 0.01``), and both examples on their own small data. ``--only WORD``
keeps the cases whose name holds WORD. ``--backend`` is the run's (default: the
command's own default, ``auto``). ``--src DIR`` times the dslc found in DIR instead of
the installed one (a before/after comparison with the same interpreter and machine).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def cases(proteome: str | None, scratch: Path) -> dict[str, list[str]]:
    """Case name -> the ``dslc run`` arguments after ``run``."""
    out = {
        "search.bio, its own data": [str(EXAMPLES / "search.bio"), "--format", "tsv"],
        "hmmsearch.bio, its own data": [str(EXAMPLES / "hmmsearch.bio"), "--format", "tsv"],
    }
    if proteome:
        records = Path(proteome).read_text().split(">")[1:]
        queries = scratch / "queries10.fasta"
        queries.write_text("".join(">" + r for r in records[:10]))
        out["search.bio, 10 queries x the proteome"] = [
            str(EXAMPLES / "search.bio"), "--set", f"queries={queries}", "--set",
            f"db={proteome}", "--format", "tsv"]
        out["hmmsearch.bio, PF02826 x the proteome"] = [
            str(EXAMPLES / "hmmsearch.bio"), "--set", f"db={proteome}", "--format", "tsv",
            "--max-evalue", "0.01"]
    return out


def once(args: list[str], cache: Path, backend: str | None, src: str | None = None) -> dict:
    """One whole process: wall and CPU seconds, and what ``--timings`` says."""
    env = dict(os.environ, DSLC_CACHE_DIR=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    cmd = [sys.executable, "-m", "dslc.cli", "run", "--quiet", "--timings", *args]
    if backend:
        cmd[4:4] = ["--backend", backend]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, cwd=cache.parent)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    run = re.search(r"run: ([\d.]+) s wall, ([\d.]+) s compiling", done.stderr)
    return {"wall": round(wall, 3),
            "cpu": round((after.ru_utime - before.ru_utime)
                         + (after.ru_stime - before.ru_stime), 3),
            "compile": float(run.group(2)) if run else None, "timings": done.stderr}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--proteome", help="the proteome FASTA (adds the two proteome cases)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--backend")
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--no-warm-up", action="store_true")
    ap.add_argument("--src", help="a dslc source tree to time instead of the installed one "
                    "(a before/after comparison with the same interpreter and machine)")
    ap.add_argument("--json")
    args = ap.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="first_run_"))
    try:
        jobs = {k: v for k, v in cases(args.proteome, scratch).items()
                if not args.only or any(w in k for w in args.only)}
        if not args.no_warm_up:
            for name, job in jobs.items():
                once(job, scratch / "warm-up", args.backend, args.src)
        rows = {name: {"first": [], "second": []} for name in jobs}
        for rep in range(args.repeat):
            for name, job in jobs.items():
                cache = scratch / f"cache-{rep}-{len(rows[name]['first'])}-{abs(hash(name))}"
                for which in ("first", "second"):
                    got = once(job, cache, args.backend, args.src)
                    rows[name][which].append(got)
                    print(f"{name}: {which} {got['wall']:.2f} s wall, {got['cpu']:.2f} s CPU, "
                          f"compile {got['compile']} s", file=sys.stderr, flush=True)
                shutil.rmtree(cache, ignore_errors=True)
        print(f"| case | first run s (CPU s) | second run s (CPU s) | first - second s "
              f"(CPU s) | first run's compile s |")
        print("|---|---|---|---|---|")
        for name, r in rows.items():
            f_wall = min(x["wall"] for x in r["first"])
            s_wall = min(x["wall"] for x in r["second"])
            f_cpu = min(x["cpu"] for x in r["first"])
            s_cpu = min(x["cpu"] for x in r["second"])
            comp = min(x["compile"] or 0.0 for x in r["first"])
            r["summary"] = {"first": f_wall, "second": s_wall, "first_cpu": f_cpu,
                            "second_cpu": s_cpu, "cost": round(f_wall - s_wall, 3),
                            "cost_cpu": round(f_cpu - s_cpu, 3), "compile": comp}
            print(f"| {name} | {f_wall:.2f} ({f_cpu:.2f}) | {s_wall:.2f} ({s_cpu:.2f}) | "
                  f"{f_wall - s_wall:.2f} ({f_cpu - s_cpu:.2f}) | {comp:.2f} |")
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
