"""Start-up: the whole ``dslc run`` process for a small script, cache warm.

Each run is a fresh ``python -m dslc.cli run`` process, timed from outside (the
interpreter's own start, imports, parsing, checking, running, printing). One
untimed run fills the cache first (and writes the modules' bytecode, as an installed
package has it: ``PYTHONDONTWRITEBYTECODE`` is dropped); the figures are the best of
``--repeat``, wall-clock and CPU seconds (user + system: on a loaded machine the
steadier of the two).

    python benchmarks/startup.py [--backend cpu] [--repeat 5] [--json out.json] [SCRIPT ...]

With no script, the issue's one-number program and a table over two sequences.
``--src DIR`` times the dslc found in DIR instead of the installed one (a
before/after comparison with the same interpreter, machine and moment).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAMS = {
    "one_number": "const x = 6\nint f(int n) = n * x + 1\nprint f(7)\n",
    "edit_cell": ("int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =\n"
                  "    if i == 0 then j\n    else if j == 0 then i\n"
                  "    else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)\n"
                  "    else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1\n"
                  'print d("ACGTAC", 6, "AGTTC", 5)\n'),
}


def once(script: str, backend: str, env: dict) -> tuple[float, float]:
    """Wall-clock seconds and CPU seconds (user + system) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dslc.cli", "run", "--backend", backend, script],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("scripts", nargs="*")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--src", help="a dslc source tree to time instead of the installed one")
    ap.add_argument("--json")
    args = ap.parse_args()
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.src:
        env["PYTHONPATH"] = str(Path(args.src).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        env.setdefault("DSLC_CACHE_DIR", str(Path(tmp) / "cache"))
        scripts = {Path(s).stem: s for s in args.scripts}
        for name, text in ({} if scripts else PROGRAMS).items():
            scripts[name] = str(Path(tmp) / f"{name}.bio")
            Path(scripts[name]).write_text(text)
        out = {}
        for name, script in scripts.items():
            once(script, args.backend, env)  # fills the cache
            runs = [once(script, args.backend, env) for _ in range(args.repeat)]
            times, cpu = [w for w, _ in runs], [c for _, c in runs]
            out[name] = {"best": min(times), "all": times, "cpu_best": min(cpu), "cpu_all": cpu}
            print(f"{name}: best {min(times):.3f} s of {args.repeat} "
                  f"({', '.join(f'{t:.2f}' for t in times)}); CPU best {min(cpu):.3f} s "
                  f"({', '.join(f'{t:.2f}' for t in cpu)})")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
