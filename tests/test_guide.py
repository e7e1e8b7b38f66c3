"""The user guide (docs/guide/) shows commands with their output: every script a page
names exists, every runnable block is a ``dslc`` command, and the blocks run on the
interpreter print what the page shows. The interpreter's blocks are the ones run here
(each a second or two, no compile); the blocks on a compiled backend or the simulator
are run by ``python docs/guide/regen.py``, which rewrites every page's outputs after an
intended change (see its docstring)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"


def _regen():
    spec = importlib.util.spec_from_file_location("guide_regen", GUIDE / "regen.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


regen = _regen()
PAGES = sorted(GUIDE.glob("*.md"))
INTERP = [(page, b) for page in PAGES for b in regen.blocks(page.read_text()) if b.on_interpreter]


def test_every_page_names_existing_scripts_and_runs_dslc():
    for page in PAGES:
        text = page.read_text()
        for script in regen.scripts(text):
            assert (ROOT / script).is_file(), f"{page.name} names {script}, which does not exist"
        for b in regen.blocks(text):
            assert b.command.split("2>&1")[0].split().count("dslc") == 1, b.command
            assert b.output.strip(), f"{page.name}: `{b.command}` shows no output (run regen.py)"
    linked = (GUIDE / "index.md").read_text()
    assert all(p.name in linked for p in PAGES if p.name != "index.md")


def test_the_guide_covers_the_tasks_and_has_interpreter_examples():
    names = {p.stem for p in PAGES}
    assert {"search", "profile-search", "hmm-decoding", "folding", "trees", "own-recurrence",
            "gpu", "cluster"} <= names
    assert len(INTERP) >= 5


@pytest.mark.parametrize("page, block", INTERP,
                         ids=[f"{p.stem}:{b.command.split()[2]}" for p, b in INTERP])
def test_an_interpreter_block_prints_what_the_page_shows(page, block, tmp_path):
    printed = regen.run(block.command, str(tmp_path / "cache"))
    assert printed == regen.normal(block.output), (
        f"{page.name}: `{block.command}` prints something else now; if the change is "
        "intended, run `python docs/guide/regen.py` and commit the pages")
