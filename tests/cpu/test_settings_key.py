"""One settings object (dslc.settings): every setting that can change generated
code is in every cache key (through the CompileOptions built from it, dslc.options),
the command line's settings land in the same object, and nothing else in dslc reads
the environment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import dslc
from dslc import settings
from dslc.cli import main
from dslc.cpu.modules import plan_key
from dslc.errors import DslcError
from dslc.options import CompileOptions


@pytest.fixture(scope="module")
def program():
    return dslc.compile("int f(int n) = n\nprint f(1)\n", backend="interp").checked


def _other_value(name: str) -> str:
    """A valid value of ``name`` other than the one it has now."""
    now = settings.text(name)
    if name in settings.CHOICES:  # (other than the value in effect, the default or not)
        return next(v for v in settings.CHOICES[name][1] if v != settings.choice(name))
    if name in settings.NUMBERS:
        return "7" if now != "7" else "8"
    if name == "NUMBA_ENABLE_CUDASIM":
        return "0" if now == "1" else "1"
    return "f:global" if now != "f:global" else "f:shared"


@pytest.fixture
def restore_options():
    yield
    settings._OPTIONS.clear()


def _key(program) -> str:
    """The plan key under the options the settings give now (as the API builds them)."""
    return plan_key(program, "f", "value", None, {"n": 1},
                    options=CompileOptions.from_settings())


@pytest.mark.parametrize("name", sorted(settings.CODE))
def test_every_code_setting_changes_the_plan_key(name, program, monkeypatch):
    before = _key(program)
    monkeypatch.setenv(name, _other_value(name))
    assert _key(program) != before


def test_settings_given_on_the_command_line_win_and_change_the_key(program, restore_options,
                                                                  monkeypatch):
    monkeypatch.setenv("DSLC_LANES", "1")
    before = _key(program)
    settings.use({"DSLC_LANES": "0"})
    assert settings.choice("DSLC_LANES") == "0"
    assert _key(program) != before


def test_unknown_and_bad_settings_on_the_command_line(restore_options, capsys):
    with pytest.raises(DslcError, match="no such setting"):
        settings.use({"DSLC_NO_SUCH": "1"})
    with pytest.raises(DslcError, match="no such setting"):
        settings.use({"NUMBA_ENABLE_CUDASIM": "1"})  # Numba reads it at import
    assert main(["check", "--setting", "DSLC_CUDA_TILE=0", "-c", "print 1"]) == 2
    assert "--setting DSLC_CUDA_TILE: '0' is not a whole number of at least 1" in \
        capsys.readouterr().err


def test_only_the_settings_module_reads_the_environment():
    root = Path(settings.__file__).parent
    readers = [str(p.relative_to(root)) for p in root.rglob("*.py")
               if p.name != "settings.py" or p.parent != root
               if re.search(r"os\.environ|os\.getenv|getenv\(", p.read_text())]
    assert readers == []
