"""The compile options (dslc.options): built once from the settings where work enters
dslc, handed down explicitly, and folded into every cache key. Nothing below that entry
reads the settings or the environment for itself, except the runtime knobs listed here,
each with the reason it is not a compile option."""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

import pytest

from dslc import settings
from dslc.options import CompileOptions

ROOT = Path(__file__).resolve().parents[1] / "dslc"

# (module, function) -> why it may read the settings, the environment or build the options
# from them; ``None`` for the function: the whole module
ALLOWED: dict[tuple[str, str | None], str] = {
    ("settings.py", None): "the one reader of the environment and the command line's settings",
    ("options.py", None): "builds the CompileOptions from the settings; a backend made outside "
                          "the API (a test, a benchmark, a worker process) takes the "
                          "settings as they are (given)",
    ("cli.py", None): "the command line: puts --setting values in the settings, checks them",
    ("api.py", None): "the Python API: builds the options once per run or engine",
    ("explain.py", None): "dslc explain is an entry: builds the options for the run it shows",
    ("backends.py", "driver_installed"): "whether a GPU driver is on this machine, not code",
    ("cuda/backend.py", "real_gpu"): "whether a real device is here (Numba reads the "
                                     "simulator setting when it starts), not code",
    ("cuda/map_sizing.py", "pipeline_tasks"): "tasks per launch: how a map is cut, not its "
                                              "kernel",
    ("cuda/map_sizing.py", "scratch_budget"): "storage per launch: how a map is cut",
    ("cuda/rules.py", "scratch"): "the scratch budget's note in a decision record",
    ("auto.py", "floor"): "which backend runs a call (every backend gives one value)",
    ("warm.py", "start"): "whether to compile ahead, and the child's environment (it builds "
                          "its options from the same settings)",
    ("warm.py", "sample"): "how many tasks the background compile takes",
    ("calibrate.py", "_driver_gpus"): "which device the machine's calibration is for",
    ("calibrate_kernels.py", "fresh_start"): "a child process's environment",
    ("malloc.py", None): "whether the user tuned glibc's malloc, read at start",
    ("runtime/fill_process.py", None): "where a traceback's tables are filled, and the child "
                                       "process's environment",
    ("store/disk.py", None): "where the cache lives and its size cap: no code depends on them",
    ("lang/limits.py", None): "size limits on input: what is refused, never how it compiles",
    ("lang/values.py", "strict_residues"): "how input residues are read, not code",
}


def _readers(tree: ast.Module) -> list[tuple[str | None, int, str]]:
    """(enclosing top-level function, line, what) of each read: an attribute of the
    ``settings`` module, ``os.environ`` or ``getenv``, an import of ``dslc.settings``
    names, or a call of ``from_settings``."""
    out = []

    def visit(node, owner):
        for child in ast.iter_child_nodes(node):
            name = owner
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and owner is None:
                name = child.name
            if isinstance(child, ast.ClassDef) and owner is None:
                for item in child.body:
                    visit_item(item, child.name)
                continue
            what = _what(child)
            if what:
                out.append((name, child.lineno, what))
            visit(child, name)

    def visit_item(item, cls):
        owner = item.name if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) else cls
        what = _what(item)
        if what:
            out.append((owner, item.lineno, what))
        visit(item, owner)

    visit(tree, None)
    return out


def _what(node) -> str:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id == "settings" and not node.attr.isupper():
            return f"settings.{node.attr}"
        if node.value.id == "os" and node.attr in ("environ", "getenv"):
            return f"os.{node.attr}"
        if node.attr == "from_settings":
            return "CompileOptions.from_settings"
    if isinstance(node, ast.ImportFrom) and node.module == "dslc.settings":
        return "from dslc.settings import"
    if isinstance(node, ast.Name) and node.id in ("getenv", "environ"):
        return node.id
    return ""


def _allowed(module: str, owner: str | None) -> bool:
    return (module, None) in ALLOWED or (module, owner) in ALLOWED


def test_nothing_below_the_api_reads_the_settings():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        for owner, line, what in _readers(ast.parse(path.read_text())):
            if not _allowed(module, owner):
                found.append(f"dslc/{module}:{line} ({owner}): {what}")
    assert found == [], "pass the CompileOptions down instead:\n" + "\n".join(found)


def test_every_allowed_reader_still_reads():
    """An allow-list entry whose reader is gone is removed, not kept as a hole."""
    used = set()
    for path in sorted(ROOT.rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        for owner, _, _ in _readers(ast.parse(path.read_text())):
            used.add((module, None) if (module, None) in ALLOWED else (module, owner))
    assert set(ALLOWED) - used == set()


def test_the_scan_sees_each_kind_of_read():
    src = ("import os\nfrom dslc import settings\nfrom dslc.settings import text\n"
           "def f():\n    return settings.number('X', 1)\n"
           "class B:\n    def g(self):\n        return os.environ.get('Y')\n"
           "    def h(self):\n        return CompileOptions.from_settings()\n")
    got = {(owner, what) for owner, _, what in _readers(ast.parse(src))}
    assert got == {(None, "from dslc.settings import"), ("f", "settings.number"),
                   ("g", "os.environ"), ("h", "CompileOptions.from_settings")}


@pytest.mark.parametrize("name", sorted(settings.CODE) + ["DSLC_VERIFY_IR", "DSLC_STRICT_COMPILE"])
def test_every_code_setting_is_a_field_of_the_options(name, monkeypatch):
    """Each setting that can change generated code changes the options (and so every
    cache key, which folds them in whole)."""
    from tests.cpu.test_settings_key import _other_value

    before = CompileOptions.from_settings()
    monkeypatch.setenv(name, _other_value(name))
    after = CompileOptions.from_settings()
    assert after != before and repr(after) != repr(before)
    assert len(fields(CompileOptions)) == len(settings.CODE) + 2
