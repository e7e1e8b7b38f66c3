"""CUDASW++4.0 on the same GPU and the same data as benchmarks/sw_gpu.py, so that
dslc's generated Smith-Waterman kernel can be compared with it in one session.

CUDASW++4.0 (Schmidt, Kallenborn, Chacon et al., BMC Bioinformatics 25, 342, 2024;
github.com/asbschmidt/CUDASW4) is built here at run time from its public source,
which lives untracked in .cudasw/src (a `git archive` of that repository; listed in
.git/info/exclude, never committed). The build runs in a copy under --work (default
/tmp/cudasw_bench) with the Makefile's variables overridden on make's command line:

* ``-x cu`` in front of every compile, so nvcc compiles the .cpp sources as CUDA too
  (CUDA 13 keeps thrust and cub under include/cccl, which nvcc adds for CUDA sources
  only; makedb.cpp includes thrust);
* no ``-lnvToolsExt`` (CUDA 13 ships no libnvToolsExt; NVTX 3 is header-only);
* ``-arch=sm_90`` (H100/H200) instead of ``-arch=native``, and ``-O3`` without ``-g``.

Data (shared with sw_gpu.py through benchmarks/common.py): the database is N proteins
drawn with replacement from pyhmmer's 2,100-protein proteome (``sample_database``,
numpy default_rng(1)); the queries are the proteome's proteins of length 144, 375 and
1000 (``pick_query``). Database record k is written as ``>d<k>_<proteome name>``, so
every hit maps back to its position in the database.

Scoring: BLOSUM62, gaps 10 + 1 in dslc's convention (a gap of length L costs 10 + L),
which is CUDASW++'s ``--gop -11 --gex -1`` (its blosum62 default): CUDASW++ adds gop
for a gap's first residue and gex for each further one (E = max(E + gex, H + gop)).
Its BLOSUM62 has the 20 amino acids and one class for every other letter (X, B, Z,
``*``), which scores -4 against everything, itself included; dslc's BLOSUM62 is the
standard 24-letter matrix (X against A is 0, ``*`` against ``*`` is +1). So a protein's
score differs from dslc's when its best alignment touches an X, or ends on the
trailing ``*`` of both query and target (a self-hit: +1 in dslc). The --dslc check
scores a subset with dslc's CPU backend under both matrices; under CUDASW++'s
convention every score must be equal.

GCUPS: CUDASW++'s own per-query figure (its --verbose "Scan time"): query length x
database residues / seconds of the scan, with the database already in GPU memory
(--uploadFull --prefetchDBFile, as in its authors' benchmark scripts). Each query is
scanned --repeats times in one process; the first scan of a length pays lazy kernel
loading, so the figure reported is the best of the later ones (all are kept).
dslc's figure (sw_gpu.py) includes packing and host-device transfers.

Run from the repository root on the GPU machine (no pyhmmer needed; numpy is):

    python3 benchmarks/cudasw_gpu.py --proteome .whl/proteome.faa --n 1000000 --json cudasw_1m.json

--data-only writes the FASTA files and stops (no nvcc or GPU needed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import (  # noqa: E402
    ROOT, SW_GPU_QUERY_LENGTHS, SW_GPU_SEED, SW_PROGRAM, database_picks, load_proteome,
    pick_query)

AMINO20 = "ARNDCQEGHILKMFPSTWYV"
GOP, GEX = -11, -1  # dslc's gaps (10, 1): a gap of length L costs 10 + L
KERNELS = {"default": [],      # Half2 (16-bit lanes) with Float for long sequences/overflows
           "dpx": ["--dpx"]}   # Hopper DPX instructions, 16- and 32-bit
_SCAN = re.compile(r"Scan time: ([-+0-9.eE]+) s, ([-+0-9.eE]+) GCUPS")
_REF = re.compile(r"^d(\d+)_(.*)$")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--proteome", help="FASTA (default: the one in pyhmmer's wheel)")
    ap.add_argument("--n", type=int, default=1_000_000, help="database proteins")
    ap.add_argument("--queries", default=",".join(map(str, SW_GPU_QUERY_LENGTHS)))
    ap.add_argument("--subset", type=int, default=500,
                    help="the first K database proteins get every score reported")
    ap.add_argument("--top", type=int, default=10_000,
                    help="hits reported per query on the full database")
    ap.add_argument("--repeats", type=int, default=3, help="scans per query (first = warm-up)")
    ap.add_argument("--kernels", default="default,dpx", help=f"of {','.join(KERNELS)}")
    ap.add_argument("--src", default=os.path.join(ROOT, ".cudasw", "src"))
    ap.add_argument("--work", default="/tmp/cudasw_bench")
    ap.add_argument("--nvcc", help="default: nvcc on PATH, else /usr/local/cuda/bin/nvcc")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--dslc", choices=("auto", "yes", "no"), default="auto",
                    help="check the subset's scores with dslc's CPU backend (auto: if it imports)")
    ap.add_argument("--data-only", action="store_true", help="write the FASTA files and stop")
    ap.add_argument("--json")
    args = ap.parse_args()
    kernels = [k for k in args.kernels.split(",") if k]
    for k in kernels:
        if k not in KERNELS:
            ap.error(f"unknown kernel set {k!r}")
    t_start = time.perf_counter()
    os.makedirs(args.work, exist_ok=True)

    report: dict = {"engine": "CUDASW++4.0", "gaps": {"gop": GOP, "gex": GEX,
                    "dslc": [10, 1], "gap_of_length_L_costs": "10 + L"},
                    "matrix": "blosum62 (CUDASW++'s 20 + 1 letters)", "phases": {}}

    def save() -> None:
        report["phases"]["total_seconds"] = time.perf_counter() - t_start
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(report, fh, indent=2)

    # The build needs only the source: start it now and write the data meanwhile.
    build = None
    if not args.data_only:
        build = Build(args)
        report["build"] = build.describe()
        build.start()

    t0 = time.perf_counter()
    data = write_data(args)
    report["phases"]["data_seconds"] = time.perf_counter() - t0
    report.update(data["report"])
    print(f"data: {args.n} proteins, {data['report']['residues']} residues, "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    if args.data_only:
        save()
        return

    build.wait()
    report["phases"]["build_seconds"] = build.seconds
    print(f"build: {build.seconds:.1f} s", flush=True)
    save()

    t0 = time.perf_counter()
    for name in ("db", "subset"):
        out = os.path.join(args.work, f"{name}_cudasw", "db")
        shutil.rmtree(os.path.dirname(out), ignore_errors=True)
        os.makedirs(os.path.dirname(out))
        run([build.makedb, data[f"{name}_fasta"], out],
            os.path.join(args.work, f"makedb_{name}.log"))
        data[f"{name}_prefix"] = out
    report["phases"]["makedb_seconds"] = time.perf_counter() - t0
    print(f"makedb: {report['phases']['makedb_seconds']:.1f} s", flush=True)
    save()

    env = dict(os.environ)
    env.setdefault("CUDA_VISIBLE_DEVICES", "0")  # one GPU, as dslc's run uses
    report["cuda_visible_devices"] = env["CUDA_VISIBLE_DEVICES"]
    report["gpu"] = gpu_name()
    qlens = data["query_lengths"]
    subset_scores: dict = {str(q): {} for q in qlens}
    t0 = time.perf_counter()
    for kernel in kernels:
        # Full database: timings and the top hits.
        tsv = os.path.join(args.work, f"db_{kernel}.tsv")
        stdout = run(align_command(build.align, data["queries_fasta"], data["db_prefix"], tsv,
                                   args.top, KERNELS[kernel]),
                     os.path.join(args.work, f"align_db_{kernel}.log"), env)
        scans = [(float(s), float(g)) for s, g in _SCAN.findall(stdout)]
        hits = read_tsv(tsv)
        if len(scans) != len(qlens) * args.repeats:
            raise SystemExit(f"expected {len(qlens) * args.repeats} scans in "
                             f"align_db_{kernel}.log, found {len(scans)}")
        for qi, qlen in enumerate(qlens):
            runs = scans[qi * args.repeats:(qi + 1) * args.repeats]
            later = runs[1:] or runs
            best = min(later, key=lambda r: r[0])
            cells = data["query_len"][qlen] * data["report"]["residues"]
            last = (qi + 1) * args.repeats - 1  # the last scan's hit list
            entry = report["queries"][str(qlen)].setdefault("cudasw", {})
            entry[kernel] = {
                "seconds": best[0], "gcups": best[1],
                "gcups_from_seconds": cells / best[0] / 1e9,
                "scan_seconds_all": [r[0] for r in runs], "gcups_all": [r[1] for r in runs],
                "top": summarise_top(hits.get(last, [])),
            }
            print(f"{kernel} q{qlen}: {best[1]:.1f} GCUPS ({best[0]:.4f} s; "
                  f"all {[r[1] for r in runs]})", flush=True)
        # Subset: every score, in database order.
        tsv = os.path.join(args.work, f"subset_{kernel}.tsv")
        run(align_command(build.align, data["subset_queries_fasta"], data["subset_prefix"], tsv,
                          data["subset"], KERNELS[kernel]),
            os.path.join(args.work, f"align_subset_{kernel}.log"), env)
        hits = read_tsv(tsv)
        for qi, qlen in enumerate(qlens):
            scores = [None] * data["subset"]
            for h in hits.get(qi, []):
                scores[h["db_index"]] = h["score"]
            subset_scores[str(qlen)][kernel] = scores
        save()
    report["phases"]["align_seconds"] = time.perf_counter() - t0

    sub = report["subset"]
    sub["cudasw_scores"] = subset_scores
    sub["kernels_agree"] = all(len({json.dumps(v) for v in per.values()}) == 1
                               for per in subset_scores.values())
    save()
    if args.dslc != "no":
        t0 = time.perf_counter()
        try:
            sub["dslc"] = dslc_check(data, subset_scores, kernels[0])
        except Exception as e:  # noqa: BLE001  (auto: no dslc/Numba environment here)
            if args.dslc == "yes":
                raise
            sub["dslc"] = f"skipped: {type(e).__name__}: {e}"
        report["phases"]["dslc_check_seconds"] = time.perf_counter() - t0
        print("dslc check:", json.dumps(sub["dslc"])[:400], flush=True)
    save()
    print(f"done in {time.perf_counter() - t_start:.1f} s", flush=True)


# -- data ------------------------------------------------------------------

def write_data(args) -> dict:
    """The database, its first --subset proteins and the queries as FASTA under --work,
    from the same selection as sw_gpu.py (benchmarks.common)."""
    path = args.proteome
    if path is None:
        from benchmarks.common import proteome_path
        path = proteome_path()
    proteome = load_proteome(path)
    picks = database_picks(len(proteome), args.n)
    texts = [s.text for s in proteome]
    names = [s.name for s in proteome]
    lengths = [len(s) for s in proteome]
    residues = int(sum(lengths[k] for k in picks.tolist()))
    k_sub = min(args.subset, args.n)

    db_fasta = os.path.join(args.work, "db.fasta")
    sub_fasta = os.path.join(args.work, "subset.fasta")
    with open(db_fasta, "w") as db, open(sub_fasta, "w") as sub:
        chunk: list[str] = []
        for k, p in enumerate(picks.tolist()):
            rec = f">d{k}_{names[p]}\n{texts[p]}\n"
            chunk.append(rec)
            if k < k_sub:
                sub.write(rec)
            if len(chunk) == 100_000:
                db.write("".join(chunk))
                chunk = []
        db.write("".join(chunk))

    qlens = [int(x) for x in args.queries.split(",")]
    queries = {q: pick_query(proteome, q) for q in qlens}
    q_fasta = os.path.join(args.work, "queries.fasta")
    qs_fasta = os.path.join(args.work, "subset_queries.fasta")
    with open(q_fasta, "w") as fh:
        for q in qlens:
            for r in range(args.repeats):
                fh.write(f">q{q}_r{r} {queries[q].name}\n{queries[q].text}\n")
    with open(qs_fasta, "w") as fh:
        for q in qlens:
            fh.write(f">q{q} {queries[q].name}\n{queries[q].text}\n")

    report = {
        "proteins": args.n, "residues": residues, "proteome": os.path.basename(path),
        "seed": SW_GPU_SEED, "first_picks": picks[:5].tolist(),
        "queries": {str(q): {"query": queries[q].name, "length": len(queries[q])} for q in qlens},
        "subset": {"proteins": k_sub, "db_indices": f"0..{k_sub - 1}",
                   "names": [names[p] for p in picks[:k_sub].tolist()]},
    }
    return {"report": report, "db_fasta": db_fasta, "subset_fasta": sub_fasta,
            "queries_fasta": q_fasta, "subset_queries_fasta": qs_fasta, "query_lengths": qlens,
            "query_len": {q: len(queries[q]) for q in qlens}, "queries": queries,
            "proteome": proteome, "picks": picks, "names": names, "subset": k_sub}


# -- build -----------------------------------------------------------------

class Build:
    """make -j align makedb in a copy of .cudasw/src, with CUDA 13 overrides."""

    def __init__(self, args) -> None:
        if not os.path.isfile(os.path.join(args.src, "Makefile")):
            raise SystemExit(f"no CUDASW++4.0 source at {args.src} (see docs/benchmarks.md)")
        self.nvcc = args.nvcc or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if not os.path.exists(self.nvcc):
            raise SystemExit("nvcc not found: pass --nvcc PATH")
        self.dir = os.path.join(args.work, "cudasw4")
        # copy2 keeps the sources' times: a second run finds the objects up to date
        shutil.copytree(args.src, self.dir, dirs_exist_ok=True)
        self.align = os.path.join(self.dir, "align")
        self.makedb = os.path.join(self.dir, "makedb")
        include, zlib = zlib_flags(os.path.join(os.path.dirname(args.src), "zlib-include"))
        nvcc_flags = (f"-arch={args.arch} -lineinfo --expt-relaxed-constexpr -rdc=true "
                      f"--extended-lambda -Xcompiler=-fopenmp {include}").strip()
        self.cmd = ["make", f"-j{args.jobs}", "align", "makedb",
                    f"COMPILER={self.nvcc}", f"NVCC_FLAGS={nvcc_flags}", "OPTIMIZATION=-O3",
                    "COMPILE=$(COMPILER) -x cu $(NVCC_FLAGS) $(DIALECT) $(OPTIMIZATION) "
                    "$(WARNINGS) -c $< -o $@",
                    f"LDFLAGS=-Xcompiler=-pthread $(NVCC_FLAGS) {zlib}"]
        if shutil.which("make") is None:  # the same commands, in parallel through xargs
            self.cmd = ["sh", "-c", _no_make_script(self.nvcc, nvcc_flags, zlib, args.jobs)]
        self.log = os.path.join(args.work, "build.log")
        self.proc = None
        self.seconds = 0.0

    def describe(self) -> dict:
        commit_file = os.path.join(ROOT, ".cudasw", "COMMIT")
        commit = open(commit_file).read().strip() if os.path.exists(commit_file) else None
        version = subprocess.run([self.nvcc, "--version"], capture_output=True, text=True).stdout
        return {"source_commit": commit, "make": self.cmd, "dir": self.dir,
                "nvcc": version.strip().splitlines()[-1] if version.strip() else None}

    def start(self) -> None:
        self._t0 = time.perf_counter()
        self._fh = open(self.log, "w")
        self.proc = subprocess.Popen(self.cmd, cwd=self.dir, stdout=self._fh,
                                     stderr=subprocess.STDOUT)

    def wait(self) -> None:
        rc = self.proc.wait()
        self._fh.close()
        self.seconds = time.perf_counter() - self._t0
        if rc != 0 or not (os.path.exists(self.align) and os.path.exists(self.makedb)):
            tail = open(self.log).read()[-4000:]
            raise SystemExit(f"CUDASW++ build failed (rc {rc}); {self.log} ends:\n{tail}")


# The objects of the Makefile's two targets (for machines without make).
_ALIGN_SOURCES = ("main.cu", "sequence_io.cpp", "dbdata.cpp", "options.cpp", "blosum.cu",
                  "half2_kernel_instantiations.cu", "float_kernel_instantiations.cu",
                  "dpx_s32_kernel_instantiations.cu", "dpx_s16_kernel_instantiations.cu")
_MAKEDB_SOURCES = ("makedb.cpp", "sequence_io.cpp", "dbdata.cpp")


def _no_make_script(nvcc: str, flags: str, zlib: str, jobs: int) -> str:
    sources = sorted(set(_ALIGN_SOURCES + _MAKEDB_SOURCES))
    objs = {t: " ".join(f"build/{os.path.splitext(x)[0]}.o" for x in srcs)
            for t, srcs in (("align", _ALIGN_SOURCES), ("makedb", _MAKEDB_SOURCES))}
    compile_one = (f"{nvcc} -x cu {flags} -std=c++17 -O3 -Xcompiler=-Wall,-Wextra "
                   "-c src/$0 -o build/${0%.*}.o")
    link = f"-Xcompiler=-pthread {flags} {zlib}"
    return (f"set -e; mkdir -p build; echo make not found: compiling with xargs -P{jobs}; "
            f"printf '%s\\n' {' '.join(sources)} | xargs -P{jobs} -n1 sh -c '{compile_one}'; "
            f"{nvcc} {objs['align']} -o align {link}; "
            f"{nvcc} {objs['makedb']} -o makedb {link}")


def zlib_flags(fallback_include: str) -> tuple[str, str]:
    """(-I flag or '', link flag): the system's zlib.h and -lz when a test compile
    finds them; else the headers kept beside the source (.cudasw/zlib-include) and
    the runtime library itself (-l:libz.so.1, present wherever zlib is installed)."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        return "", "-lz"
    prog = "#include <zlib.h>\nint main(){return zlibVersion()[0] == 0;}\n"
    out = os.path.join("/tmp", f"zlib_probe_{os.getpid()}")

    def ok(*flags: str) -> bool:
        r = subprocess.run([cxx, "-x", "c++", "-", "-o", out, *flags], input=prog,
                           text=True, capture_output=True)
        return r.returncode == 0

    try:
        for include in ("", f"-I{fallback_include}"):
            for lib in ("-lz", "-l:libz.so.1"):
                if (include == "" or os.path.isdir(fallback_include)) and \
                        ok(*([include] if include else []), lib):
                    return include, lib
    finally:
        if os.path.exists(out):
            os.remove(out)
    return "", "-lz"  # let make report what is missing


# -- running and reading -----------------------------------------------------

def align_command(align: str, queries: str, db: str, tsv: str, top: int, extra: list) -> list:
    return [align, "--query", queries, "--db", db, "--mat", "blosum62",
            "--gop", str(GOP), "--gex", str(GEX), "--top", str(top), "--tsv", "--of", tsv,
            "--verbose", "--uploadFull", "--prefetchDBFile", *extra]


def run(cmd: list, log: str, env: dict | None = None) -> str:
    """Run ``cmd``; its output goes to ``log`` and is returned. Failure stops the script."""
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    out = r.stdout + r.stderr
    with open(log, "w") as fh:
        fh.write(" ".join(cmd) + "\n" + out)
    if r.returncode != 0:
        raise SystemExit(f"{os.path.basename(cmd[0])} failed (rc {r.returncode}); see {log}:\n"
                         f"{out[-3000:]}")
    return out


def read_tsv(path: str) -> dict:
    """CUDASW++'s --tsv results by query number: lists of hits in rank order. Columns:
    query number, query length, query header, result number, score, reference
    length, reference header, reference id in the (length-sorted) database."""
    hits: dict = {}
    with open(path) as fh:
        header = fh.readline()
        if not header.startswith("Query number"):
            raise SystemExit(f"{path}: unexpected header {header!r}")
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 8:
                continue
            m = _REF.match(cols[6])
            if m is None:
                raise SystemExit(f"{path}: reference header {cols[6]!r} is not d<k>_<name>")
            hits.setdefault(int(cols[0]), []).append(
                {"rank": int(cols[3]), "score": int(float(cols[4])), "length": int(cols[5]),
                 "db_index": int(m.group(1)), "name": m.group(2)})
    return hits


def summarise_top(hits: list, keep: int = 25) -> dict:
    """The hit list collapsed to proteome proteins (the database holds each protein
    about N / 2,100 times; every copy must score the same)."""
    by_name: dict = {}
    for h in hits:
        d = by_name.setdefault(h["name"], {"name": h["name"], "score": h["score"],
                                            "length": h["length"], "copies": 0,
                                            "first_db_index": h["db_index"], "scores": set()})
        d["copies"] += 1
        d["scores"].add(h["score"])
    distinct = sorted(by_name.values(), key=lambda d: (-d["score"], d["name"]))
    consistent = all(len(d["scores"]) == 1 for d in distinct)
    for d in distinct:
        del d["scores"]
    return {"hits": len(hits), "distinct_proteins": len(distinct),
            "copies_score_alike": consistent,
            "lowest_score": hits[-1]["score"] if hits else None,
            "best": distinct[:keep],
            "first_hits": [{k: h[k] for k in ("rank", "score", "db_index", "name")}
                           for h in hits[:10]]}


def gpu_name() -> str | None:
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


# -- dslc's scores for the subset -------------------------------------------------

def cudasw_blosum(blosum):
    """dslc's BLOSUM62 with CUDASW++'s treatment of letters outside the 20 amino acids:
    -4 against everything, themselves included."""
    from dslc.lang.values import Matrix

    values = blosum.values.copy()
    other = [i for i, s in enumerate(blosum.alphabet.symbols) if s not in AMINO20]
    values[other, :] = -4
    values[:, other] = -4
    return Matrix("blosum62_cudasw4", blosum.alphabet, values)


def dslc_check(data: dict, cudasw: dict, kernel: str) -> dict:
    """The subset scored by dslc's CPU backend (the same program as sw_gpu.py, whose
    GPU scores equal these) with the standard BLOSUM62 and with CUDASW++'s variant."""
    import dslc  # noqa: F401  (ImportError: no dslc environment here)
    import numba  # noqa: F401

    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    blosum = prog.checked.defined["blosum62"]
    variant = cudasw_blosum(blosum)
    proteome, picks = data["proteome"], data["picks"]
    sub = [proteome[k] for k in picks[: data["subset"]].tolist()]
    out: dict = {"backend": "cpu", "gaps": [10, 1]}
    for qlen in data["query_lengths"]:
        q = data["queries"][qlen]
        std = prog.map("sw", blosum, 10, 1, q, sub).values.ravel().tolist()
        conv = prog.map("sw", variant, 10, 1, q, sub).values.ravel().tolist()
        cw = cudasw[str(qlen)][kernel]
        differ = [{"db_index": i, "name": sub[i].name, "cudasw": cw[i], "dslc": std[i],
                   "dslc_cudasw_matrix": conv[i],
                   "x_in_target": "X" in sub[i].text, "self_hit": sub[i].name == q.name}
                  for i in range(len(sub)) if cw[i] != std[i]]
        out[str(qlen)] = {
            "proteins": len(sub),
            "equal_to_dslc_blosum62": sum(int(a == b) for a, b in zip(cw, std)),
            "equal_to_dslc_with_cudasw_matrix": sum(int(a == b) for a, b in zip(cw, conv)),
            "differ_from_dslc_blosum62": differ[:50],
            "dslc_blosum62_scores": std,
        }
    return out


if __name__ == "__main__":
    main()
