"""The API reference (docs/reference/, mkdocs.yml) is generated from the docstrings
and builds without a warning: an object a page names that no longer exists (a
renamed method, a moved class) fails the build, and so this test."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import dslc.sdk
from dslc.api import Program
from dslc.lang import results

ROOT = Path(__file__).resolve().parents[1]


def _public(obj) -> list[str]:
    return [n for n, _ in inspect.getmembers(obj) if not n.startswith("_")]


def test_the_api_reference_builds_strict_and_covers_the_public_api(tmp_path):
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr and "ERROR" not in done.stderr, done.stderr
    pages = {p: (site / "reference" / p / "index.html").read_text()
             for p in ("api", "results", "sdk")}
    ids = [("api", f"dslc.api.Program.{n}") for n in _public(Program)]
    ids += [("results", f"dslc.lang.results.{c}.{n}")
            for c in ("TableResult", "MapResult") for n in _public(getattr(results, c))]
    ids += [("sdk", f"dslc.sdk.{n}") for n in _public(dslc.sdk)
            if getattr(getattr(dslc.sdk, n), "__module__", None) == "dslc.sdk"]
    missing = [i for page, i in ids if f'id="{i}"' not in pages[page]]
    assert not missing, f"public names the reference lacks: {missing}"
