"""Packaging: one version (dslc.__version__, read by pyproject), the licence
file and a build requirement that can read the licence expression."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

import dslc
from dslc.cli import main

ROOT = Path(__file__).resolve().parents[2]
tomllib = pytest.importorskip("tomllib")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_version_is_written_once_in_dslc():
    project = _pyproject()
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "dslc.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", dslc.__version__)


def test_the_installed_version_and_dslc_version_agree(capsys):
    assert importlib.metadata.version("dslc") == dslc.__version__
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"dslc {dslc.__version__}"


def test_the_licence_is_mit_and_the_build_can_read_its_expression():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the dslc authors" in text
    project = _pyproject()
    assert project["project"]["license"] == "MIT"
    assert project["project"]["license-files"] == ["LICENSE"]
    # PEP 639 expressions (a string licence) need setuptools 77 or newer
    (req,) = [r for r in project["build-system"]["requires"] if r.startswith("setuptools")]
    assert tuple(int(x) for x in req.split(">=")[1].split(".")) >= (77,)


def test_the_cuda_extra_brings_numba_cuda():
    extras = _pyproject()["project"]["optional-dependencies"]
    assert any(r.startswith("numba-cuda") for r in extras["cuda"])
