"""Shared fixtures.

``backend`` runs a test once per backend present: the interpreter always, the
compiled backends when they are registered and usable here (CI runs the CUDA
backend under NUMBA_ENABLE_CUDASIM=1)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest


def _no_cuda_device() -> bool:
    """No NVIDIA driver on this machine: the CUDA tests then run in Numba's simulator."""
    return not (Path("/dev/nvidiactl").exists() or Path("/proc/driver/nvidia").exists())


# Decided before anything imports numba, so the README's plain pytest command runs the CUDA
# tests everywhere: on the simulator without a GPU, on the device where there is one. An
# explicit NUMBA_ENABLE_CUDASIM in the environment always wins.
if "NUMBA_ENABLE_CUDASIM" not in os.environ and _no_cuda_device():
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

# Every program the tests compile has its typed IR and its loop nests verified as they are
# built (dslc.check.verify, dslc.poly.verify), in this process and in the dslc processes
# the tests start: a stage that breaks an invariant fails at that stage, in any test.
os.environ.setdefault("DSLC_VERIFY_IR", "1")

from dslc import backends  # noqa: E402
from dslc.cpu.backend import CpuBackend  # noqa: E402

# The compiled backends answer a call of straight-line code on the interpreter (a start-up
# shortcut, tested in fresh processes by tests/test_auto.py). Here they compile it, so every
# `backend` test compares compiled code with the interpreter, scalar calls included.
CpuBackend.direct_scalars = False

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def available_backends() -> list[str]:
    out = []
    for name in backends.names():
        if name == "auto":
            continue
        try:
            if backends.resolve(name) == name and backends._available(name):
                out.append(name)
        except Exception:
            continue
    return out


@pytest.fixture(params=available_backends())
def backend(request) -> str:
    return request.param


@pytest.fixture
def settings_restored():
    """``--setting`` holds for the rest of the process (dslc.settings.use): a test
    that runs the command line in-process starts from, and leaves, the settings it
    found."""
    from dslc import settings

    saved = dict(settings._OPTIONS)
    yield
    settings._OPTIONS.clear()
    settings._OPTIONS.update(saved)


@pytest.fixture
def write_bio(tmp_path):
    """Write a script (dedented) into a temporary directory; returns its path."""

    def write(text: str, name: str = "prog.bio", **files: str) -> Path:
        for fname, content in files.items():
            (tmp_path / fname.replace("__", ".")).write_text(content)
        p = tmp_path / name
        p.write_text(textwrap.dedent(text))
        return p

    return write


def pytest_collection_modifyitems(config, items):
    """Tests marked ``long`` (a minute or more in CI) start first,
    in the order collected, the rest keep theirs. The suite runs on two workers with
    ``--dist worksteal`` (pyproject.toml): a worker that runs dry takes queued tests from the
    other, but never the one running nor the one queued next, so a long test reached late
    would run alone at the end and decide the wall time; started first, the other worker's
    short tests fill in beside it."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
