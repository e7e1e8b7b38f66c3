"""Compile time of a script's CUDA kernels, measured without a GPU.

    python benchmarks/cuda_compile.py SCRIPT.bio [--cc 9.0] [--python PY] [--top 12]

First the script runs on ``--backend cuda`` in Numba's simulator (this process,
``NUMBA_ENABLE_CUDASIM=1``, a fresh ``DSLC_CACHE_DIR``): that writes every generated
kernel module and records each launch's argument types. Then, for each kernel, a
child process (``--python``, default this interpreter) loads its module the way a
GPU run would and times ``numba.cuda.compile_ptx`` for compute capability ``--cc``,
with Numba's device query answered by that capability, so no GPU is needed; it
profiles the compile and reports the passes that took longest. Times are CPU
seconds of the compiling process (wall seconds too): on a shared machine the wall
clock measures the neighbours. Where ``ptxas`` is
found (``--ptxas``, else on PATH or in the nvidia-cuda-nvcc wheel beside the child's
Numba), the PTX -> SASS step the driver does at load is timed too.

Requirements of ``--python``: numba-cuda (the GPU's Numba CUDA target, not the
simulator bundled with numba) and NVIDIA's NVRTC/NVVM (the ``nvidia-cuda-nvrtc-cu12``
wheel, or a CUDA toolkit); ``nvidia-cuda-nvcc-cu12`` provides ``ptxas``. Those need no
GPU. The simulator's module differs from a GPU run's only in how a float32 kernel
spells max and min (``dslc.emit.tiles.fmax_source``): the GPU's spelling is put back
before compiling.

The simulator chooses a thread per task (``dslc.cuda.rules``); set
``DSLC_CUDA_STRATEGY=block`` to measure the block-per-task kernels instead.
"""

from __future__ import annotations

import argparse
import cProfile
import glob
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- generating (simulator)
def _arg_spec(x) -> list:
    """A launch argument's Numba type, as JSON the child rebuilds (:func:`_arg_type`)."""
    import numpy as np

    ary = getattr(x, "_ary", x)  # the simulator's device arrays wrap a numpy array
    if isinstance(ary, np.ndarray):
        layout = "C" if ary.flags.c_contiguous else "F" if ary.flags.f_contiguous else "A"
        return ["array", ary.dtype.str, ary.ndim, layout]
    if isinstance(x, (bool, np.bool_)):
        return ["scalar", "bool"]
    if isinstance(x, (int, np.integer)):
        return ["scalar", np.dtype(type(x)).name if isinstance(x, np.integer) else "int64"]
    return ["scalar", np.dtype(type(x)).name if isinstance(x, np.floating) else "float64"]


def generate(script: Path, cache: Path) -> list[dict]:
    """Run ``script`` on the simulated device; every kernel launched, once: its
    module, its name and its argument types."""
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    os.environ["DSLC_CACHE_DIR"] = str(cache)
    sys.path.insert(0, str(ROOT))
    from numba.cuda.simulator import kernel as sim

    launches: dict = {}
    call = sim.FakeCUDAKernel.__call__

    def recording(self, *args):
        if not self._device:
            key = (self.fn.__code__.co_filename, self.fn.__name__)
            launches.setdefault(key, [_arg_spec(a) for a in args])
        return call(self, *args)

    sim.FakeCUDAKernel.__call__ = recording
    try:
        from dslc.cli import main as dslc_main

        with redirect_stdout(io.StringIO()):
            rc = dslc_main(["run", str(script), "--backend", "cuda"])
    finally:
        sim.FakeCUDAKernel.__call__ = call
    if rc:
        raise SystemExit(f"dslc run {script} failed ({rc})")
    return [{"module": m, "kernel": k, "args": a} for (m, k), a in launches.items()]


def gpu_module(path: str, out_dir: Path) -> Path:
    """The module as a GPU run generates it (see the module docstring)."""
    from dslc.emit.tiles import fmax_source

    text = Path(path).read_text().replace(fmax_source(True), fmax_source(False))
    out = out_dir / Path(path).name
    out.write_text(text)
    return out


def module_shape(path: Path) -> dict:
    """Lines and device functions of a generated module."""
    text = path.read_text()
    return {"lines": text.count("\n"), "functions": text.count("\ndef ")}


# ---------------------------------------------------------------- compiling (child)
def _arg_type(spec):
    import numpy as np
    from numba import from_dtype, types

    if spec[0] == "array":
        return types.Array(from_dtype(np.dtype(spec[1])), spec[2], spec[3])
    return types.boolean if spec[1] == "bool" else from_dtype(np.dtype(spec[1]))


def compile_child(job: dict) -> dict:
    """In the child: ``compile_ptx`` of one kernel, timed and profiled."""
    import importlib.util

    from numba import cuda
    import numba.cuda.dispatcher as dispatcher

    cc = tuple(job["cc"])

    class _Device:  # device functions ask the current device for its capability
        compute_capability = cc

    dispatcher.get_current_device = lambda: _Device()
    spec = importlib.util.spec_from_file_location("generated", job["module"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sig = tuple(_arg_type(a) for a in job["args"])
    prof = cProfile.Profile(time.process_time)  # CPU time: the machine may be shared
    t0, c0 = time.perf_counter(), time.process_time()
    prof.enable()
    ptx, _ = cuda.compile_ptx(getattr(mod, job["kernel"]).py_func, sig, cc=cc)
    prof.disable()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    Path(job["ptx"]).write_text(ptx)
    return {"seconds": seconds, "cpu_seconds": cpu, "ptx_bytes": len(ptx),
            "top": _top(prof, job["top"])}


def _top(prof: cProfile.Profile, n: int) -> list:
    """The ``n`` functions with the most time of their own: (where, own s, total s)."""
    stats = pstats.Stats(prof).stats
    rows = sorted(stats.items(), key=lambda kv: -kv[1][2])[:n]
    out = []
    for (filename, line, name), (_, _, own, total, _) in rows:
        where = f"{'/'.join(Path(filename).parts[-2:])}:{line} {name}" if line else name
        out.append([where, round(own, 2), round(total, 2)])
    return out


# ---------------------------------------------------------------- driver
def find_ptxas(python: str, given: str | None) -> str | None:
    """``given``, else ``ptxas`` on PATH, else the nvidia-cuda-nvcc wheel's."""
    if given:
        return given
    if shutil.which("ptxas"):
        return shutil.which("ptxas")
    prefix = Path(python).resolve().parents[1]
    found = glob.glob(str(prefix / "lib" / "python*" / "site-packages" / "nvidia" /
                          "cuda_nvcc" / "bin" / "ptxas"))
    return found[0] if found else None


def time_ptxas(ptxas: str, ptx: Path, cc: tuple) -> float:
    """CPU seconds of ``ptxas -O3`` on the PTX (what the driver does at load)."""
    arch = f"sm_{cc[0]}{cc[1]}"
    before = os.times()
    subprocess.run([ptxas, f"-arch={arch}", "-O3", str(ptx), "-o", str(ptx.with_suffix(".cubin"))],
                   check=True, capture_output=True)
    after = os.times()
    return (after.children_user - before.children_user) + \
        (after.children_system - before.children_system)


def measure(script: Path, cc: tuple, python: str, ptxas: str | None, top: int,
            work: Path) -> list[dict]:
    """Every kernel of ``script``: its module's shape, compile_ptx and ptxas seconds."""
    kernels = generate(script, work / "cache")
    out = []
    for k, job in enumerate(kernels):
        module = gpu_module(job["module"], work)
        ptx = work / f"kernel{k}.ptx"
        req = dict(job, module=str(module), cc=list(cc), ptx=str(ptx), top=top)
        env = {key: v for key, v in os.environ.items() if key != "NUMBA_ENABLE_CUDASIM"}
        done = subprocess.run([python, __file__, "--child", json.dumps(req)], env=env,
                              capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"compiling {job['kernel']} of {module} failed:\n{done.stderr}")
        res = json.loads(done.stdout.strip().splitlines()[-1])
        res.update(module_shape(module), module=Path(job["module"]).name, kernel=job["kernel"],
                   args=job["args"])
        if ptxas:
            res["ptxas_seconds"] = time_ptxas(ptxas, ptx, cc)
        out.append(res)
    return out


def report(rows: list[dict], cc: tuple) -> str:
    lines = []
    for r in rows:
        ptxas = f", ptxas {r['ptxas_seconds']:.1f} s" if "ptxas_seconds" in r else ""
        lines.append(f"{r['module']} {r['kernel']}: {r['lines']} lines, {r['functions']} "
                     f"functions; compile_ptx for cc {cc[0]}.{cc[1]} {r['cpu_seconds']:.1f} s "
                     f"CPU ({r['seconds']:.1f} s wall)"
                     f"{ptxas}; PTX {r['ptx_bytes']:,} bytes")
        for where, own, total in r["top"]:
            lines.append(f"    {own:7.2f} s own {total:8.2f} s total  {where}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("script", nargs="?")
    ap.add_argument("--cc", default="9.0", help="compute capability (default 9.0)")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter with numba-cuda and NVRTC (default: this one)")
    ap.add_argument("--ptxas", help="ptxas to time (default: found on PATH or in the wheel)")
    ap.add_argument("--top", type=int, default=8, help="profile rows per kernel")
    ap.add_argument("--json", help="also write the measurements here")
    ap.add_argument("--keep", help="keep the modules, PTX and cubins in this folder")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(compile_child(json.loads(args.child))))
        return 0
    if not args.script:
        ap.error("a .bio script is needed")
    cc = tuple(int(x) for x in args.cc.split("."))
    with tempfile.TemporaryDirectory(prefix="dslc-cuda-compile-") as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        rows = measure(Path(args.script).resolve(), cc, args.python,
                       find_ptxas(args.python, args.ptxas), args.top, work)
    print(report(rows, cc))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
