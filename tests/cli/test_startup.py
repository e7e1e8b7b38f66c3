"""What a small ``dslc run`` imports (docs/architecture.md, "Start-up"): a run whose
calls the interpreter answers imports no code generator, no tracebacks, no cluster,
no extension's parsers and, once its extensions were found, not importlib.metadata.
Checked by module names, not by timing (the machine's load would make a timing flaky)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from dslc import sdk

# prefixes of modules only some runs need
NOT_FOR_ONE_NUMBER = (
    "numba", "islpy", "importlib.metadata", "email",
    "dslc.trace", "dslc.cluster", "dslc.emit", "dslc.kernel", "dslc.targets", "dslc.poly",
    "dslc.plan", "dslc.schedule", "dslc.cuda",
    "dslc_extensions.hmm.define_parser", "dslc_extensions.hmm.decode",
    "dslc_extensions.hmm.hmmer3", "dslc_extensions.hmm.search",
    "dslc_extensions.tree.columns", "dslc_extensions.tree.newick",
)

PROBE = """
import json, sys
from dslc.cli import main
code = main(sys.argv[2:])
sys.stdout.flush()
print(json.dumps(sorted(m for m in sys.modules
                        if any(m == p or m.startswith(p + ".") for p in json.loads(sys.argv[1])))))
raise SystemExit(code)
"""


def _run(args: list[str], cache) -> tuple[str, list[str]]:
    env = dict(os.environ, DSLC_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(NOT_FOR_ONE_NUMBER), *args],
                         env=env, check=True, capture_output=True, text=True).stdout
    printed, loaded = out.rsplit("\n", 2)[:2]
    return printed, json.loads(loaded)


@pytest.mark.parametrize("backend", [None, "cpu"])
def test_a_one_number_run_imports_only_what_it_needs(backend, tmp_path):
    script = tmp_path / "one.bio"
    script.write_text("const x = 6\nint f(int n) = n * x + 1\nprint f(7)\n")
    args = ["run", str(script)] + (["--backend", backend] if backend else [])
    _run(args, tmp_path / "cache")  # the first run finds the installed extensions
    assert _run(args, tmp_path / "cache") == ("f(7) = 43", [])


def test_a_script_tracing_still_gets_its_traceback(tmp_path):
    """Tracebacks are imported where a script asks for one."""
    script = tmp_path / "t.bio"
    script.write_text("int f(int n) = if n == 0 then 0 else f(n - 1) + 2\n"
                      "print f(2)\nprint trace(f(2))\n")
    printed, loaded = _run(["run", str(script), "--backend", "interp"], tmp_path / "cache")
    assert "dslc.trace" in loaded and "f(2) = 4" in printed


def _dist(site, name: str, value: str) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[dslc.extensions]\n{name} = {value}\n")


def test_found_extensions_are_kept_until_the_installed_ones_change(tmp_path, monkeypatch):
    """The entry points found are kept in the cache directory, keyed by the import
    path's folders as they are now: installing a distribution is seen at once."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(site))
    _dist(site, "aaa_ext", "aaa_mod:extension")
    first = sdk.extension_entry_points()
    assert ("aaa_ext", "aaa_mod:extension") in first
    assert sdk.extension_entry_points() == first  # read back from the cache
    _dist(site, "bbb_ext", "bbb_mod:make")
    second = sdk.extension_entry_points()
    assert ("bbb_ext", "bbb_mod:make") in second and set(first) < set(second)
    assert [n for n, _ in second] == sorted(n for n, _ in second)
