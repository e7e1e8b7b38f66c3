"""Would int16 lanes pay on the CPU? A probe, not a compiler path: the generated
Smith-Waterman lane kernel (benchmarks.common.SW_PROGRAM, float32 under the static
bound) is re-typed by text into int16 and timed against the float32 kernel on the
2,100-protein proteome, one thread, CPU time (best of 5), in a fresh cache each run.

Modes:
  f32-f64args  float32 tables, the gap costs passed as float64 numbers (before the lanes
               took shared numbers in the value type): Numba computes e and f in float64
  f32          float32 tables and arguments (what the lanes run)
  i16          int16 tables: infinities as +-16384, each stored value clamped to them,
               every sum narrowed to int16 (``DT(a - b)``: Numba types small-integer
               arithmetic as int64, and LLVM keeps int64 vectors unless each result is
               truncated), the matrix as int32 (no 16-bit gather)

    python benchmarks/int16_probe.py MODE LANES [--asm] [--no-narrow]

``--asm`` counts the kernel's vector instructions (a fresh Numba cache is needed for
``inspect_asm``). Scores are printed as a sum and must agree between modes.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SUMS = (r"\((T_\w+\[[^\]]*\]) - a_ext\)", r"DT(\1 - a_ext)"), \
    (r"\(\((T_\w+\[[^\]]*\]) - a_open\) - a_ext\)", r"DT(DT(\1 - a_open) - a_ext)"), \
    (r"\((T_h\[[^\]]*\] \+ a_sm\[.*?\]\])\)", r"DT(\1)")
_STORED = r"(\n(\s+)_val1 = (max\(max.*|max\(\(T_.*))"


def int16_text(src: str, narrow: bool = True) -> str:
    """The float32 lane module re-typed into int16 (see the module docstring);
    ``narrow=False`` leaves the sums as Numba types them (int64)."""
    if "DT = np.int16" in src:
        return src
    src = src.replace("DT = np.float32\nINF = DT(np.inf)",
                      "DT = np.int16\nINF = DT(16384)\nNINF = DT(-16384)").replace("-INF", "NINF")
    src = re.sub(_STORED, r"\1\n\2_val1 = min(max(_val1, NINF), INF)", src)
    for pattern, repl in _SUMS if narrow else ():
        src = re.sub(pattern, repl, src)
    return src


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("f32-f64args", "f32", "i16"))
    ap.add_argument("lanes", type=int)
    ap.add_argument("--asm", action="store_true")
    ap.add_argument("--no-narrow", action="store_true", help="i16: sums left int64")
    args = ap.parse_args()

    import numba
    import numpy as np

    import dslc
    import dslc.cpu.packs as P
    import dslc.emit.packs as EP
    from benchmarks.common import SW_PROGRAM, load_proteome

    P.PACK = EP.PACK = args.lanes
    loaded, load = [], P.modules.load

    def retyped(src):
        src = src.replace("LANES = 16", f"LANES = {args.lanes}")
        loaded.append(load(int16_text(src, not args.no_narrow) if args.mode == "i16"
                           else src))
        return loaded[-1]
    P.modules.load = retyped
    given = P._in_value_type
    if args.mode == "f32-f64args":
        P._in_value_type = lambda v, dt: v if isinstance(v, float) else given(v, dt)
    elif args.mode == "i16":
        P._dtype = lambda variant: "int16"

        def in_int16(v, dt):
            if isinstance(v, np.ndarray) and v.ndim == 2:
                return v.astype(np.int32)
            return np.int16(v) if isinstance(v, float) else v
        P._in_value_type = in_int16

    db = load_proteome()
    query = next(s for s in db if len(s) == 375)
    prog = dslc.compile(SW_PROGRAM, backend="cpu")
    blosum = prog.checked.defined["blosum62"]
    prog.map("sw", blosum, 10, 1, query, db[:4 * args.lanes])
    numba.set_num_threads(1)
    times, scores = [], None
    for _ in range(5):
        c0 = time.process_time()
        scores = prog.map("sw", blosum, 10, 1, query, db).values.ravel()
        times.append(time.process_time() - c0)
    print(f"{args.mode} lanes={args.lanes} cpu_seconds={min(times):.3f} "
          f"score_sum={int(scores.sum())}")
    if args.asm:
        asm = "\n".join(next(m for m in reversed(loaded) if hasattr(m, "batch"))
                        .lanes.inspect_asm().values())
        ops = collections.Counter(line.split()[0] for line in asm.splitlines()
                                  if line.startswith("\t") and line.split())
        print({k: v for k, v in sorted(ops.items())
               if re.search(r"max|min|gather|sub|add|pinsr|pextr", k) and k.startswith("v")})


if __name__ == "__main__":
    main()
