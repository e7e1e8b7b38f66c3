"""Every cache key covers the whole installed compiler (dslc.store.key): a copy of the
installed packages fills a cache, then one byte appended to any of its files makes every
keyed entry a miss (a new parsed program, a new plan), while the unchanged copy hits.

The copy runs in a subprocess with the copy first on the import path, so what is
edited is what runs; the program is tiny and its generated module does not change, so
only the first run compiles with Numba."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dslc

pytestmark = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                                reason="numba/islpy not installed")

PROGRAM = "int f(int n) = if n == 0 then 0 else f(n - 1) + n\nprint f(10)\n"
HIT = "plan and code from the cache"
MISS = "planned and generated"
# (file of the copy, relative to its site folder; what appends a comment in its language)
EDITS = [("dslc/check/script.py", "\n# edited\n"),
         ("dslc/frontend/parser.py", "\n# edited\n"),
         ("dslc/sdk.py", "\n# edited\n"),
         ("dslc/cuda/kernel_cache.py", "\n# edited\n"),
         ("dslc/trace/jit.py", "\n# edited\n"),
         ("dslc/store/key.py", "\n# edited\n"),
         ("dslc_extensions/hmm/hmmer3.py", "\n# edited\n"),
         ("dslc/grammar/host.lark", "\n// edited\n"),
         ("dslc/stdlib/align.bio", "\n// edited\n")]


def _copy_installed(site: Path) -> None:
    """The installed packages, laid out as an installation lays them out (the grammar
    and the standard library inside ``dslc``), wherever this checkout keeps them."""
    for package in ("dslc", "dslc.grammar", "dslc.stdlib", "dslc_extensions"):
        [root] = importlib.util.find_spec(package).submodule_search_locations
        shutil.copytree(root, site.joinpath(*package.split(".")), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))


def _run(work: Path, cache: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(work / "site"), "DSLC_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-m", "dslc.cli", "run", "p.bio", "--backend", "cpu",
                           "-v"], cwd=work, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stderr


def _keyed(cache: Path) -> set[str]:
    return {p.name for p in cache.iterdir() if p.name.startswith(("ast_", "plan_"))}


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A copy of the installed compiler and a cache it filled and then hit."""
    work = tmp_path_factory.mktemp("installed")
    _copy_installed(work / "site")
    (work / "p.bio").write_text(PROGRAM)
    probe = subprocess.run([sys.executable, "-c", "import dslc; print(dslc.__file__)"],
                           cwd=work, env={**os.environ, "PYTHONPATH": str(work / "site")},
                           capture_output=True, text=True, check=True)
    assert Path(probe.stdout.strip()).is_relative_to(work / "site")  # the copy runs
    cache = work / "cache"
    assert MISS in _run(work, cache)
    filled = _keyed(cache)
    again = _run(work, cache)
    assert HIT in again and MISS not in again
    assert _keyed(cache) == filled  # the parsed program was read back, not made again
    return work


@pytest.mark.parametrize("path,comment", EDITS, ids=[p for p, _ in EDITS])
def test_one_byte_of_any_module_misses_every_cache(warm, tmp_path, path, comment):
    work = tmp_path / "installed"
    shutil.copytree(warm, work, symlinks=True)
    with open(work / "site" / path, "a") as fh:
        fh.write(comment)
    cache = work / "cache"
    before = _keyed(cache)
    out = _run(work, cache)
    assert MISS in out and HIT not in out
    new = _keyed(cache) - before
    assert any(n.startswith("ast_") for n in new)  # the script was parsed again
    assert any(n.startswith("plan_") for n in new)  # and planned again
