"""Shared by the benchmarks: real data from installed packages, timing helpers."""

from __future__ import annotations

import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

def _sw_program() -> str:
    """The standard library's Gotoh Smith-Waterman (the contract's h, e, f, sw)."""
    from dslc.lang.stdlib import stdlib_source

    return stdlib_source("align")


SW_PROGRAM = _sw_program()


def proteome_path() -> str:
    """The 2,100-protein proteome shipped in pyhmmer's wheel (test data)."""
    import pyhmmer

    return os.path.join(os.path.dirname(pyhmmer.__file__), "tests", "data", "seqs",
                        "938293.PRJEB85.HG003687.faa")


def load_proteome(path: str | None = None):
    """The proteome's records over the protein alphabet, read by dslc's own FASTA
    reader; ``path`` defaults to :func:`proteome_path` (pyhmmer's copy). Needs only
    numpy, so it also runs where pyhmmer and Numba are absent."""
    from dslc.lang.fasta import read_fasta
    from dslc.lang.stdlib import standard_alphabets

    return read_fasta(path or proteome_path(), standard_alphabets()["protein"])


# The GPU Smith-Waterman benchmark's data (benchmarks/sw_gpu.py and, for the same
# proteins, benchmarks/cudasw_gpu.py): a database of N proteins drawn with replacement
# from the proteome, and queries picked from the proteome by length.
SW_GPU_SEED = 1
SW_GPU_QUERY_LENGTHS = (144, 375, 1000)


def database_picks(proteome_size: int, n: int, seed: int = SW_GPU_SEED):
    """Indices into the proteome of the database's N proteins, in database order:
    ``numpy.random.default_rng(seed).integers(0, proteome_size, size=n)``."""
    import numpy as np

    return np.random.default_rng(seed).integers(0, proteome_size, size=n)


def sample_database(proteome, n: int, seed: int = SW_GPU_SEED) -> list:
    """The database: N proteins drawn with replacement from ``proteome`` (so lengths
    and composition follow the real proteome), in the order of :func:`database_picks`."""
    return [proteome[k] for k in database_picks(len(proteome), n, seed)]


def pick_query(proteome, length: int):
    """The query of about ``length`` residues: the protein whose length is nearest,
    ties broken by record name."""
    return min(proteome, key=lambda s: (abs(len(s) - length), s.name))


def run_with_engine(prog, backend: str):
    """Run a compiled script (``dslc.compile``) on ``backend``: its printed values
    and the backend object that ran them, so that a benchmark can say how it ran."""
    from dslc import backends
    from dslc.runtime.script import ScriptRunner

    holder = {}

    def make(program, globals_):
        holder["engine"] = backends.get(backend)(program, globals_)
        return holder["engine"]

    printed = ScriptRunner(prog.checked, make, prog.base_dir, quiet=True).run()
    return dict(printed), holder["engine"]


def device_report(engine, entry: str) -> dict | None:
    """How the CUDA backend ran the maps over ``entry``: the kernel it chose (or
    why the map stayed on the CPU), how many tasks it left to the CPU, and the
    seconds spent inside kernels so far; None for the other backends."""
    if not hasattr(engine, "device_fallbacks"):
        return None
    return {"strategy": engine.strategy.get(entry),
            "not_on_the_device": engine.device_fallbacks.get(entry),
            "tasks_rerun_on_cpu": engine.reruns.get(entry, 0),
            "kernel_seconds": engine.kernel_seconds}


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


# Run in a fresh interpreter per measured command, so that ru_maxrss (the peak of the
# largest child so far) is that command's alone. argv: the output file ("-": keep the
# printed words in the result), then the command.
_MEASURE = """\
import json, resource, subprocess, sys, time
target, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
if target == "-":
    printed = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
else:
    with open(target, "w") as out:
        subprocess.run(cmd, stdout=out, check=True)
    printed = None
wall = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": wall, "peak_mb": peak, "printed": printed}))
"""


def measure_process(cmd: list[str], env: dict | None = None, cwd=None,
                    output: str = "-", stderr: bool = False) -> dict:
    """Wall seconds and peak memory (MB) of one whole process ``cmd``, measured from
    a fresh parent; its standard output goes to the file ``output`` (or, ``-``,
    comes back as ``printed``, split into words); ``stderr``: its standard error
    comes back too (``stderr``: a ``--timings`` table, :func:`timings_table`)."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _MEASURE, output, *cmd], cwd=cwd, env=env,
                          capture_output=True, text=True, check=True)
    got = json.loads(done.stdout.splitlines()[-1])
    if stderr:
        got["stderr"] = done.stderr
    return got


def timings_table(text: str) -> tuple[list[dict], float | None]:
    """The rows of the ``dslc run --timings`` table in ``text`` (a run's standard error),
    each ``{"what", "function", "backend", "total_s"}``, read by the header's column
    positions (``what`` holds spaces: ``map of 10 tasks``), and the run's wall seconds
    (its ``run:`` line); ``([], None)`` where there is no table."""
    lines = text.split("timings:\n", 1)[1].splitlines() if "timings:\n" in text else []
    if not lines or lines[0].split()[:2] != ["what", "function"]:
        return [], None
    head = lines[0]
    at = [head.index(c) for c in ("function", "backend", "from")]
    rows, wall = [], None
    for line in lines[1:]:
        if line.lstrip().startswith("run: "):
            wall = float(line.split()[1])
            break
        if line[at[2]:].split()[:1] not in (["compiled"], ["cache"], ["-"]):
            continue  # (auto's decision lines, after the rows)
        rows.append({"what": line[:at[0]].strip(), "function": line[at[0]:at[1]].split()[0],
                     "backend": line[at[1]:].split()[0], "total_s": float(line.split()[-1])})
    return rows, wall


def traced_bindings(prog, calls: list):
    """How a traceback's fill binds the first tables of ``calls`` (``sw`` calls,
    traced together: dslc.cpu.tables.whole_tables, its call captured): the
    generated table module, the callings (bound values by name) and each one's
    task arguments as the module's ``task`` takes them. For the probes that time
    the fill apart from the walks."""
    from dslc.cpu import tables

    seen = []
    whole = tables.whole_tables

    def spy(cpu, func, callings, span, description="", after=None):
        seen.append((cpu, func, callings))
        return whole(cpu, func, callings, span, description, after)
    tables.whole_tables = spy
    try:
        prog.traces("sw", calls[:2])  # (the program's trace runner made)
        prog._trace_runner.chunk = len(calls)
        prog.traces("sw", calls)
    finally:
        tables.whole_tables = whole
    cpu, func, callings = [s for s in seen if len(s[2]) == len(calls)][-1]
    module, names, windows = cpu._ran(cpu.choose(func, "table", callings[0])).compiled
    return module, callings, [cpu._task_args(names, c, windows, None) for c in callings]
