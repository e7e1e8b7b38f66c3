"""Would score profiles and packed 16-bit lanes pay on the GPU under numba-cuda? A probe,
not a compiler path: three hand-written variants of the register-tiled Smith-Waterman
kernel the CUDA backend generates (benchmarks.common.SW_PROGRAM: BLOSUM62, a gap of
length L costs 10 + L), timed on the same data as benchmarks/sw_gpu.py and checked
against dslc's CPU backend. It measures what the strategies the compiler does not build
yet would buy before they are built.

Variants (one thread per task unless said; a tile of ROWS query rows in registers, the
tile's last row of h and f per column in global memory, laid out as the database is,
interleaved by blocks of BLOCK tasks, longest first, as the generated kernel does):

  f32        float32 values, every cell reads the matrix in shared memory at
             (query symbol, subject symbol): what the generated kernel does
  f32-prof   float32, the tile's score profile (its rows' matrix rows: a row per query
             position, a column per subject symbol) built by the block in shared memory
             once per tile, so a cell reads (column's symbol + row * alphabet): no 2-D gather
  f32-gprof  float32, the whole query's profile built on the host and read from global
             memory (L1) at (column's symbol + query position * alphabet): what a
             profile passed as a launch argument would give, without shared memory
  i16x2      two tasks per thread, h, e and f of both in one 32-bit register as two
             int16 lanes; the profile as f32-prof, in int16; on a GPU each lane operation
             is one PTX instruction (add.s16x2, max.s16x2, max.relu.s16x2: Hopper's DPX
             forms, fused by ptxas), in the simulator plain Python. e and f start at -1000
             instead of -inf: both are only ever compared by max against values that a
             max with 0 keeps at or above -11, so the floor is exact; a task whose score
             comes within two gap costs of int16's top may have wrapped and is re-run in
             f32 (counted as ``rerun``)

    python3 benchmarks/packed_probe.py --proteome .whl/proteome.faa --n 1000000 --json probe.json

``--simulate`` runs a tiny case in Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1 is set
by it): the variants' scores against the CPU backend, nothing timed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ROWS = 32
BLOCK = 128
NEG = -1000  # e and f's start: see the module docstring
OPEN, EXT = 10, 1  # dslc's convention: a gap of length L costs OPEN + L * EXT
VARIANTS = ("f32", "f32-prof", "f32-gprof", "i16x2")
TOP = 32767 - 2 * (OPEN + EXT)  # an i16x2 score at or above this is re-run in f32


# ------------------------------------------------------------------ kernel text
def _rows_f32(variant: str, A: int) -> str:
    """One column of the tile, unrolled over its rows (float32)."""
    out = []
    for r in range(ROWS):
        s = {"f32": f"sM[q{r}, c]", "f32-prof": f"sP[{r * A} + c]",
             "f32-gprof": f"G[pb + {r * A}]"}[variant]
        out.append(f"""\
            e = max(E{r} - EXT, H{r} - OE)
            E{r} = e
            f = max(fu - EXT, hu - OE)
            h = max(max(ZERO, e), max(f, hd + {s}))
            hd = H{r}
            H{r} = h
            hu = h
            fu = f
            acc = max(acc, h)""")
    return "\n".join(out)


def _rows_i16(A: int) -> str:
    """One column of the tile for two tasks, unrolled over its rows (int16 lanes)."""
    out = []
    for r in range(ROWS):
        out.append(f"""\
            e = max2(add2(E{r}, MEXT2), add2(H{r}, MOE2))
            E{r} = e
            f = max2(add2(fu, MEXT2), add2(hu, MOE2))
            h = max2relu(max2(e, f), add2(hd, sLo[{r * A} + ca] | sHi[{r * A} + cb]))
            hd = H{r}
            H{r} = h
            hu = h
            fu = f
            acc = max2(acc, h & live)""")
    return "\n".join(out)


def _pair(v: int) -> int:
    """``v`` in both int16 lanes of a 32-bit word, as a signed int32."""
    w = ((v & 0xFFFF) << 16) | (v & 0xFFFF)
    return w - (1 << 32) if w >= 1 << 31 else w


def _regs(names: str, value: str) -> str:
    return "\n".join(f"        {n}{r} = {value}" for n in names for r in range(ROWS))


def source(variant: str, A: int, simulated: bool) -> str:
    """The kernel module of ``variant`` for an alphabet of ``A`` symbols (the matrix
    given with a row ``A`` of NEG for the query's padding)."""
    head = f"""\
import math
import numpy as np
from numba import cuda, int32, float32
ROWS = {ROWS}
BLOCK = {BLOCK}
A = {A}
NEG = {NEG}
EXT = float32({EXT})
OE = float32({OPEN + EXT})
ZERO = float32(0)
"""
    if variant in ("f32", "f32-prof", "f32-gprof"):
        profile = variant == "f32-prof"
        load_q = "\n".join(f"        q{r} = q[t0 + {r}]" for r in range(ROWS))
        build = f"""\
        cuda.syncthreads()
        z = cuda.threadIdx.x
        while z < ROWS * A:
            sP[z] = sM[q[t0 + z // A], z % A]
            z += cuda.blockDim.x
        cuda.syncthreads()""" if profile else load_q
        return head + f"""
@cuda.jit
def kern(buf, base, lens, q, qlen, M, G, T_h, T_f, out, n):
    sM = cuda.shared.array(({A + 1}, {A}), float32)
    sP = cuda.shared.array({ROWS * A}, float32)
    z = cuda.threadIdx.x
    while z < {(A + 1) * A}:
        sM[z // A, z % A] = M[z // A, z % A]
        z += cuda.blockDim.x
    cuda.syncthreads()
    tid = cuda.grid(1)
    L = lens[tid] if tid < n else 0
    bs = base[tid // BLOCK]
    ln = tid % BLOCK
    for j in range(L):
        T_h[bs + j * BLOCK + ln] = ZERO
        T_f[bs + j * BLOCK + ln] = float32(NEG)
    acc = ZERO
    for t0 in range(0, qlen, ROWS):
{build}
{_regs("H", "ZERO")}
{_regs("E", "float32(NEG)")}
        bprev = ZERO
        for j in range(L):
            c = int32(buf[bs + j * BLOCK + ln])
            hd = bprev
            at = bs + j * BLOCK + ln
            hu = T_h[at]
            fu = T_f[at]
            bprev = hu
            pb = t0 * A + c
{_rows_f32(variant, A)}
            T_h[at] = hu
            T_f[at] = fu
    if tid < n:
        out[tid] = acc
"""
    half = BLOCK // 2
    if simulated:
        ops = """\
def _lanes(a):
    a = int(a) & 0xFFFFFFFF
    lo, hi = a & 0xFFFF, a >> 16
    return (lo - 0x10000 if lo >= 0x8000 else lo), (hi - 0x10000 if hi >= 0x8000 else hi)


def _pack(lo, hi):
    v = (lo & 0xFFFF) | ((hi & 0xFFFF) << 16)
    return v - 0x100000000 if v >= 0x80000000 else v


def add2(a, b):
    (a0, a1), (b0, b1) = _lanes(a), _lanes(b)
    return _pack(a0 + b0, a1 + b1)


def max2(a, b):
    (a0, a1), (b0, b1) = _lanes(a), _lanes(b)
    return _pack(max(a0, b0), max(a1, b1))


def max2relu(a, b):
    (a0, a1), (b0, b1) = _lanes(a), _lanes(b)
    return _pack(max(a0, b0, 0), max(a1, b1, 0))
"""
    else:
        ops = """\
from llvmlite import ir as _ir
from numba import types as _types
try:
    from numba.cuda.extending import intrinsic as _intrinsic
except ImportError:
    from numba.core.extending import intrinsic as _intrinsic


def _ptx(asm):
    @_intrinsic
    def op(typingctx, a, b):
        sig = _types.int32(_types.int32, _types.int32)

        def codegen(context, builder, sig, args):
            fnty = _ir.FunctionType(_ir.IntType(32), [_ir.IntType(32)] * 2)
            return builder.asm(fnty, asm, "=r,r,r", args, side_effect=False)
        return sig, codegen
    return op


add2 = _ptx("add.s16x2 $0, $1, $2;")
max2 = _ptx("max.s16x2 $0, $1, $2;")
max2relu = _ptx("max.relu.s16x2 $0, $1, $2;")
"""
    if simulated:
        ops = ops.replace("\ndef ", "\n@cuda.jit(device=True)\ndef ")
        ops = ops.replace("@cuda.jit(device=True)\ndef _lanes", "def _lanes")
        ops = ops.replace("@cuda.jit(device=True)\ndef _pack", "def _pack")
    return head + ops + f"""
MEXT2 = int32({_pair(-EXT)})  # (PTX has add.s16x2, no sub.s16x2)
MOE2 = int32({_pair(-(OPEN + EXT))})
NEG2 = int32({_pair(NEG)})
MASK_LO = int32(0xFFFF)
MASK_HI = int32(-65536)
ALL = int32(-1)


@cuda.jit
def kern(buf, base, lens, q, qlen, P, Th, Tf, out, n):
    sLo = cuda.shared.array({ROWS * A}, int32)
    sHi = cuda.shared.array({ROWS * A}, int32)
    l = cuda.threadIdx.x
    b = cuda.blockIdx.x
    ta = b * BLOCK + l
    tb = ta + {half}
    La = lens[ta] if ta < n else 0
    Lb = lens[tb] if tb < n else 0
    L = max(La, Lb)
    bs = base[b]
    for j in range(L):
        Th[bs + j * BLOCK + l] = int32(0)
        Tf[bs + j * BLOCK + l] = NEG2
    acc = int32(0)
    for t0 in range(0, qlen, ROWS):
        cuda.syncthreads()
        z = cuda.threadIdx.x
        while z < ROWS * A:
            v = P[q[t0 + z // A], z % A]
            sLo[z] = v & 0xFFFF
            sHi[z] = v << 16
            z += cuda.blockDim.x
        cuda.syncthreads()
{_regs("H", "int32(0)")}
{_regs("E", "NEG2")}
        bprev = int32(0)
        for j in range(L):
            ca = int32(buf[bs + j * BLOCK + l]) if j < La else int32(0)
            cb = int32(buf[bs + j * BLOCK + l + {half}]) if j < Lb else int32(0)
            live = (MASK_LO if j < La else int32(0)) | (MASK_HI if j < Lb else int32(0))
            hd = bprev
            at = bs + j * BLOCK + l
            hu = Th[at]
            fu = Tf[at]
            bprev = hu
{_rows_i16(A)}
            Th[at] = hu
            Tf[at] = fu
    a0 = acc & 0xFFFF
    a1 = (acc >> 16) & 0xFFFF
    if ta < n:
        out[ta] = a0
    if tb < n:
        out[tb] = a1
"""


# ------------------------------------------------------------------ data and launches
def interleave(codes: list) -> tuple:
    """The database as the tiled kernel reads it: tasks in blocks of BLOCK, a block's
    residue ``p`` of lane ``l`` at ``base[b] + p * BLOCK + l``; and the lengths."""
    lens = np.array([len(c) for c in codes], np.int64)
    nb = (len(codes) + BLOCK - 1) // BLOCK
    base = np.zeros(nb + 1, np.int64)
    for b in range(nb):
        base[b + 1] = base[b] + int(lens[b * BLOCK:(b + 1) * BLOCK].max()) * BLOCK
    buf = np.zeros(int(base[-1]) + BLOCK, np.uint8)
    k = np.arange(len(codes))
    starts = base[k // BLOCK] + k % BLOCK  # each task's residue 0
    offsets = np.concatenate([[0], np.cumsum(lens)])
    within = np.arange(offsets[-1]) - np.repeat(offsets[:-1], lens)  # residue numbers
    buf[np.repeat(starts, lens) + within * BLOCK] = np.concatenate(codes)
    return buf, base, lens


def load(text: str, work: str):
    """The kernel module of ``text``, from a file (Numba's CUDA target wants one)."""
    import importlib.util

    path = os.path.join(work, f"probe_{abs(hash(text))}.py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run(variant, mod, data, query, matrix, cuda, repeats: int):
    """``(scores in the sorted order, best kernel seconds, reruns)``."""
    buf, base, lens = data
    n, A = len(lens), matrix.shape[1]
    qpad = np.full(((len(query) + ROWS - 1) // ROWS) * ROWS + ROWS, A, np.int32)
    qpad[:len(query)] = query
    d = {k: cuda.to_device(v) for k, v in (("buf", buf), ("base", base), ("lens", lens),
                                          ("q", qpad))}
    out = cuda.to_device(np.full(n, -1, np.int64 if variant == "i16x2" else np.float64))
    padded = np.vstack([matrix, np.full((1, A), NEG)])
    if variant == "i16x2":
        Th = cuda.device_array(len(buf), np.int32)
        Tf = cuda.device_array(len(buf), np.int32)
        P = cuda.to_device(padded.astype(np.int32))
        args = (d["buf"], d["base"], d["lens"], d["q"], len(query), P, Th, Tf, out, n)
        grid, block = (n + BLOCK - 1) // BLOCK, BLOCK // 2
    else:
        T_h = cuda.device_array(len(buf), np.float32)
        T_f = cuda.device_array(len(buf), np.float32)
        M = cuda.to_device(padded.astype(np.float32))
        G = cuda.to_device(np.ascontiguousarray(padded[qpad].astype(np.float32)).ravel())
        args = (d["buf"], d["base"], d["lens"], d["q"], len(query), M, G, T_h, T_f, out, n)
        grid, block = (n + BLOCK - 1) // BLOCK, BLOCK
    best = None
    for _ in range(repeats):
        began, ended = cuda.event(), cuda.event()
        began.record()
        mod.kern[grid, block](*args)
        ended.record()
        ended.synchronize()
        try:
            s = cuda.event_elapsed_time(began, ended) / 1e3
        except Exception:  # the simulator's events carry no time
            s = float("nan")
        best = s if best is None or s < best else best
    scores = out.copy_to_host().astype(np.float64)
    rerun = int((scores >= TOP).sum()) if variant == "i16x2" else 0
    return scores, best, rerun


def reference(query_seq, db_subset) -> tuple:
    """dslc's CPU backend scores of the subset (the interpreter's values), and the
    matrix as numbers."""
    import dslc
    from dslc.cpu.backend import CpuBackend
    from dslc.runtime.binding import bind_call
    from dslc.runtime.script import backend_globals

    from benchmarks.common import SW_PROGRAM

    prog = dslc.compile(SW_PROGRAM, backend="interp")
    checked = prog.checked
    blosum = checked.defined["blosum62"]
    cpu = CpuBackend(checked, backend_globals(checked))
    tasks = [bind_call(checked.functions["sw"], [blosum, OPEN, EXT, query_seq, t], checked,
                       None) for t in db_subset]
    matrix = np.asarray(cpu.convert(blosum), np.float64)
    return np.array(cpu.map("sw", tasks, None), np.float64), matrix


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--proteome")
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--queries", default="144,375,1000")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--check", type=int, default=300, help="proteins checked on the CPU")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--simulate", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.simulate:
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    from numba import cuda

    from benchmarks.common import load_proteome, pick_query, proteome_path, sample_database

    proteome = load_proteome(args.proteome or proteome_path())
    if args.simulate:  # a handful of short proteins and a short query
        short = sorted(proteome, key=len)[:300]
        db = short[::2]  # 150 proteins: two blocks, both lanes of a pair
        queries = [pick_query(short, 12)]
        args.repeats = 1
    else:
        db = sample_database(proteome, args.n)
        queries = [pick_query(proteome, int(x)) for x in args.queries.split(",")]
    order = sorted(range(len(db)), key=lambda k: -len(db[k]))  # longest first
    codes = [np.asarray(db[k].codes, np.uint8) for k in order]
    data = interleave(codes)
    residues = int(data[2].sum())
    work = tempfile.mkdtemp(prefix="packed_probe_")
    report = {"proteins": len(db), "residues": residues, "device": None, "queries": {}}
    if not args.simulate:
        name = cuda.get_current_device().name
        report["device"] = name.decode() if isinstance(name, bytes) else str(name)
    check = min(args.check, len(db))
    modules: dict = {}
    for query in queries:
        ref, matrix = reference(query, [db[k] for k in range(check)])
        qcodes = np.asarray(query.codes, np.int32)
        entry = {"length": len(query)}
        for variant in args.variants.split(","):
            try:
                t0 = time.perf_counter()
                if variant not in modules:  # compiled once, for every query
                    modules[variant] = load(source(variant, matrix.shape[1], args.simulate),
                                            work)
                mod = modules[variant]
                run(variant, mod, data, qcodes, matrix, cuda, 1)  # compile and warm up
                warm = time.perf_counter() - t0
                scores, seconds, rerun = run(variant, mod, data, qcodes, matrix, cuda,
                                             args.repeats)
            except Exception as e:  # noqa: BLE001 - a variant that fails is reported
                entry[variant] = {"error": f"{type(e).__name__}: {str(e)[:800]}"}
                print(json.dumps({len(query): {variant: entry[variant]}}), flush=True)
                continue
            back = np.empty(len(db))
            back[np.array(order)] = scores
            same = back[:check] == ref
            entry[variant] = {
                "kernel_seconds": seconds,
                "gcups": len(query) * residues / seconds / 1e9 if seconds == seconds else None,
                "first_call_seconds": warm, "rerun": rerun,
                "checked": check, "equal_to_cpu": int(same.sum()),
                "wrong": [int(k) for k in np.flatnonzero(~same)[:5]]}
            print(json.dumps({len(query): {variant: entry[variant]}}), flush=True)
        report["queries"][str(len(query))] = entry
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
    bad = [(q, v) for q, e in report["queries"].items() for v, r in e.items()
           if isinstance(r, dict) and r.get("equal_to_cpu") != r.get("checked")]
    print("all variants equal the CPU backend" if not bad else f"DIFFERENT: {bad}")


if __name__ == "__main__":
    main()
