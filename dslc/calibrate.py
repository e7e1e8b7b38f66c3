"""This machine's speeds, measured once, for ``--backend auto``'s cost model.

The first time ``auto`` has work large enough to consider the GPU (or on
``dslc calibrate``), a small calibration measures, in a few hundred
milliseconds once compiled:

* the CPU's cells per second on one core: a dynamic-programming sweep (the
  edit distance's min-plus cell) over two sequences, compiled with Numba;
* with a GPU, its start as a fresh process pays it (dslc's CUDA backend and
  Numba's CUDA target imported, then a context: timed in a child process,
  about 1.5 s on an H200 host, where a context alone took 0.14 s and ``auto``
  sent a map to the GPU that the CPU finished sooner), the host-to-device bandwidth, the
  kernel cells per second of the same sweep run one task per thread, and
  the seconds to compile that small kernel and the CPU function (a real
  generated module or kernel is larger: dslc.auto scales them).

The result is kept as JSON in the cache directory, one file per machine (its
key is a digest of the CPU model, the core count and the GPU's name), so it
is measured once per machine and cache. A damaged file is measured again, with
one message on stderr. Nothing here runs on a machine without a GPU unless
``dslc calibrate`` asks for it.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass, fields

VERSION = 2  # 2: the GPU's start measured as a fresh process pays it


@dataclass(frozen=True)
class Calibration:
    """Measured speeds (seconds, cells or bytes per second)."""

    machine: str  # the key the file is named by
    cpu_cells_s: float  # one core
    cores: int
    cpu_compile_s: float  # the calibration's own small function
    gpu_cells_s: float = 0.0  # 0: no GPU
    gpu_start_s: float = 0.0  # a fresh process's CUDA start (calibrate_kernels.fresh_start)
    h2d_bytes_s: float = 0.0
    gpu_compile_s: float = 0.0  # the calibration's own small kernel
    version: int = VERSION


def machine(gpu_name: str | None) -> dict:
    """What the calibration depends on: the CPU, its cores, the GPU."""
    return {"cpu": _cpu_model(), "cores": os.cpu_count() or 1, "gpu": gpu_name}


def machine_key(desc: dict) -> str:
    return hashlib.sha256(json.dumps(desc, sort_keys=True).encode()).hexdigest()[:16]


def path_for(key: str):
    from dslc.store.disk import cache_dir

    return cache_dir() / f"calibration_{key}.json"


def load(gpu: bool, fresh: bool = False) -> Calibration:
    """This machine's calibration: from its file, else measured and written.
    ``gpu``: measure the GPU too (only asked where one is present)."""
    desc = machine(_gpu_name() if gpu else None)
    key = machine_key(desc)
    path = path_for(key)
    if not fresh and path.exists():
        found = _read(path, key)
        if found is not None:
            return found
        sys.stderr.write(f"dslc: the calibration file {path} is damaged; measuring again\n")
    cal = measure(key, gpu)
    from dslc.store.disk import write_entry

    write_entry(path.name, json.dumps({"machine": desc, "calibration": asdict(cal)}, indent=1))
    return cal


def known(gpu: bool) -> Calibration | None:
    """This machine's calibration if its file is there, found without starting
    CUDA (the GPUs named by the driver's files, :func:`_driver_gpus`); None
    where it is not, or where only CUDA can name the GPU. ``dslc.auto`` decides
    from it before asking the driver whether a GPU answers, which costs about a
    second (Numba's CUDA target and a context) that a map the CPU wins anyway
    should not pay."""
    if gpu and _driver_gpus() is None:
        return None
    key = machine_key(machine(_gpu_name() if gpu else None))
    path = path_for(key)
    return _read(path, key) if path.exists() else None


def _read(path, key: str) -> Calibration | None:
    """The calibration in ``path``, or None where it is unreadable, of another
    version or machine, or holds anything but positive finite numbers."""
    from dslc.store.files import read_regular

    try:
        data = json.loads(read_regular(path) or b"")["calibration"]
        cal = Calibration(**{f.name: data[f.name] for f in fields(Calibration)})
    except (OSError, ValueError, KeyError, TypeError):
        return None
    numbers = [getattr(cal, f.name) for f in fields(Calibration) if f.name != "machine"]
    if cal.machine != key or cal.version != VERSION or \
            not all(type(v) in (int, float) and 0 <= v < float("inf") for v in numbers) or \
            cal.cpu_cells_s <= 0 or cal.cores < 1:
        return None
    return cal


def measure(key: str, gpu: bool) -> Calibration:
    import numpy as np

    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 600).astype(np.uint8)
    b = rng.integers(0, 4, 600).astype(np.uint8)
    t0 = time.perf_counter()
    from dslc import calibrate_kernels as k

    k.sweep(a[:4], b[:4])
    compile_s = time.perf_counter() - t0
    cpu = _best(lambda: k.sweep(a, b), 3) / (len(a) * len(b))
    cal = Calibration(key, 1.0 / cpu, os.cpu_count() or 1, compile_s)
    if not gpu:
        return cal
    return Calibration(key, cal.cpu_cells_s, cal.cores, compile_s, *k.gpu_measure(a, b))


def _best(run, times: int) -> float:
    best = float("inf")
    for _ in range(times):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return max(best, 1e-9)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _gpu_name() -> str | None:
    """What names the machine's GPUs in its key: the driver's list where it has
    one (no CUDA started), else the first device as CUDA names it."""
    listed = _driver_gpus()
    if listed is not None:
        return listed
    try:
        from numba import cuda

        name = cuda.get_current_device().name
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # no device after all: calibrated as a CPU-only machine
        return None


def _driver_gpus() -> str | None:
    """The GPU models the Linux driver lists (``/proc/driver/nvidia/gpus/*/
    information``), with the devices CUDA is told to use; None where there is no
    such list."""
    models = []
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        try:
            with open(info) as f:
                models += [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("Model:")]
        except OSError:
            return None
    if not models:
        return None
    from dslc import settings

    visible = settings.text("CUDA_VISIBLE_DEVICES")
    return ", ".join(models) + (f" (CUDA_VISIBLE_DEVICES={visible})" if visible else "")


def render(cal: Calibration) -> str:
    lines = [f"machine {cal.machine} ({path_for(cal.machine)})",
             f"cpu: {cal.cpu_cells_s:.3g} cells/s per core, {cal.cores} cores, "
             f"{cal.cpu_compile_s:.3f} s to compile the calibration's function"]
    if cal.gpu_cells_s:
        lines.append(f"gpu: {cal.gpu_cells_s:.3g} cells/s, start {cal.gpu_start_s:.3f} s, "
                     f"{cal.h2d_bytes_s / 1e9:.3g} GB/s to the device, "
                     f"{cal.gpu_compile_s:.3f} s to compile the calibration's kernel")
    else:
        lines.append("gpu: none")
    return "\n".join(lines)
