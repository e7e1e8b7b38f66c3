"""One big problem on the whole GPU (dslc.emit.wavefront) against the CPU backend,
in the same run: Nussinov folds of random RNA (lengths 2,000 and 10,000; Li's
hand-written kernel on a 2011 Tesla C2050: 0.1 s and 1.9 s) and one 20,000 x
20,000 global alignment (Needleman-Wunsch, BLOSUM62, linear gap 4; the final
cell, so the table is held as a window). The CPU backend runs a single call as
one task on one core; the CPU side is skipped above --cpu-max cells of work.

    python benchmarks/gpu_whole.py [--nussinov 2000,10000] [--align 20000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NUSSINOV = """
define alphabet rna "ACGU"
bool pairs(symbol[rna] a, symbol[rna] b) =
    (a == 'A' and b == 'U') or (a == 'U' and b == 'A') or (a == 'G' and b == 'C')
 or (a == 'C' and b == 'G') or (a == 'G' and b == 'U') or (a == 'U' and b == 'G')
int n(seq[rna] x, index[x] i, index[x] j)
  | j <= i + 4 = 0
  | otherwise = n(i + 1, j)
        max max(k in i + 4 ... j - 1 where pairs(x[i], x[k]) : 1 + n(i + 1, k) + n(k + 1, j))
"""

NW = """
int nw(matrix sm, const gap, seq[protein] s, index[s] i, seq[protein] t, index[t] j)
  | i == 0 = -gap * j
  | j == 0 = -gap * i
  | otherwise = nw(i - 1, j - 1) + sm[s[i - 1], t[j - 1]] max nw(i - 1, j) - gap
                max nw(i, j - 1) - gap
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nussinov", default="2000,10000")
    ap.add_argument("--align", type=int, default=20000)
    ap.add_argument("--cpu-max", type=float, default=2e10, help="largest work run on the CPU")
    ap.add_argument("--cpu-only", action="store_true",
                    help="the CPU backend alone, every size (for a machine without a GPU)")
    ap.add_argument("--json")
    args = ap.parse_args()

    import numpy as np

    import dslc
    from dslc.cpu.backend import CpuBackend
    from dslc.cuda.backend import CudaBackend
    from dslc.runtime.binding import bind_call
    from dslc.runtime.script import backend_globals

    rng = np.random.default_rng(7)
    report = {"nussinov": {}, "alignment": {}}

    def timed(backend, func, call_args, prog):
        f = prog.checked.functions[func]
        bound = bind_call(f, call_args, prog.checked, None)
        t0 = time.perf_counter()
        v = backend.value(func, bound, None)
        return v, time.perf_counter() - t0

    def both(src, func, call_args, small, work, key, label):
        prog = dslc.compile(src, backend="interp")
        cpu = CpuBackend(prog.checked, backend_globals(prog.checked))
        if args.cpu_only:
            entry = {}
        else:
            gpu = CudaBackend(prog.checked, backend_globals(prog.checked))
            timed(gpu, func, call_args, prog)  # plan and compile once
            v_gpu, t_gpu = timed(gpu, func, call_args, prog)
            entry = {"gpu_seconds": t_gpu, "gpu_value": v_gpu,
                     "strategy": gpu.strategy.get(func),
                     "gpu_fallback": gpu.device_fallbacks.get(func)}
        if args.cpu_only:
            timed(cpu, func, small, prog)
            entry["cpu_value"], entry["cpu_seconds"] = timed(cpu, func, call_args, prog)
        elif work <= args.cpu_max:
            timed(cpu, func, small, prog)
            v_cpu, t_cpu = timed(cpu, func, call_args, prog)
            entry.update(cpu_seconds=t_cpu, cpu_value=v_cpu, speedup=t_cpu / t_gpu,
                         equal=v_cpu == v_gpu)
        report[key][label] = entry
        print(json.dumps({key: {label: entry}}), flush=True)

    for n in (int(x) for x in args.nussinov.split(",") if x):
        x = "".join(rng.choice(list("ACGU"), size=n))
        both(NUSSINOV, "n", [x, 0, n], [x[:8], 0, 8], n ** 3 / 6, "nussinov", str(n))
    if args.align:
        aa = list("ACDEFGHIKLMNPQRSTVWY")
        s = "".join(rng.choice(aa, size=args.align))
        t = "".join(rng.choice(aa, size=args.align))
        prog = dslc.compile(NW, backend="interp")
        blosum = prog.checked.defined["blosum62"]
        both(NW, "nw", [blosum, 4, s, args.align, t, args.align],
             [blosum, 4, s[:8], 8, t[:8], 8], 3.0 * args.align ** 2,
             "alignment", f"{args.align}x{args.align}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)


if __name__ == "__main__":
    main()
