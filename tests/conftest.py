"""Shared fixtures.

``backend`` runs a test once per backend present: the interpreter always, the
compiled backends when they are registered and usable here (CI runs the CUDA
backend under NUMBA_ENABLE_CUDASIM=1)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from dslc import backends

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
def write_bio(tmp_path):
    """Write a script (dedented) into a temporary directory; returns its path."""

    def write(text: str, name: str = "prog.bio", **files: str) -> Path:
        for fname, content in files.items():
            (tmp_path / fname.replace("__", ".")).write_text(content)
        p = tmp_path / name
        p.write_text(textwrap.dedent(text))
        return p

    return write
