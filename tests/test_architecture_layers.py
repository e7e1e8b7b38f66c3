"""docs/architecture.md draws the layers that pyproject.toml's import-linter contract
enforces: the drawing lists the same packages in the same order, so the guide a
maintainer reads is the rule CI checks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # (Python 3.11 on; the contract is the same)

ROOT = Path(__file__).resolve().parents[1]


def _contract() -> list[set[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    return [{name.strip().removeprefix("dslc.") for name in row.split("|")} for row in layers]


def _drawn() -> list[set[str]]:
    text = (ROOT / "docs" / "architecture.md").read_text()
    drawing = re.search(r"^## Layers\n.*?^```\n(.*?)^```", text, re.M | re.S).group(1)
    rows = []
    for line in drawing.splitlines():
        names = re.match(r"\s*([\w]+(?:\s*\|\s*\w+)*)", line).group(1)
        rows.append({n.strip() for n in names.split("|")})
    return rows


def test_the_drawn_layers_are_the_contracts():
    assert _drawn() == _contract()
