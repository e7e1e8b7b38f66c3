"""Files the command line writes or keeps (outputs, the cache directory): a path
it cannot use is one clear message and exit status 2, never a traceback."""

from __future__ import annotations

import os

import pytest

import dslc
from dslc.cli import main

pytestmark = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                                reason="numba/islpy not installed")

SCRIPT = """\
int f(int n)
  | n == 0 = 0
  | otherwise = f(n - 1) + n
print f(3)
"""


def _cli(capsys, *args) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _clear_error(capsys, *args, names=()) -> str:
    code, out, err = _cli(capsys, *args)
    assert code == 2, (out, err)
    assert "Traceback" not in err
    assert err.startswith("error: "), err
    for name in names:
        assert name in err, err
    return err


def test_compile_output_into_a_missing_folder(capsys, write_bio, tmp_path):
    p = write_bio(SCRIPT)
    target = tmp_path / "missing" / "out.py"
    _clear_error(capsys, "compile", str(p), "-o", str(target), names=(str(target),))


def test_compile_output_onto_a_folder(capsys, write_bio, tmp_path):
    p = write_bio(SCRIPT)
    _clear_error(capsys, "compile", str(p), "-o", str(tmp_path), names=(str(tmp_path),))


def test_explain_plot_into_a_missing_folder(capsys, write_bio, tmp_path):
    p = write_bio(SCRIPT)
    target = tmp_path / "missing" / "domain.png"
    _clear_error(capsys, "explain", str(p), "--plot", str(target), names=(str(target),))


def test_explain_plot_with_nothing_to_plot(capsys, write_bio, tmp_path):
    p = write_bio("int g(int n) = n + 1\nprint g(2)\n")
    _clear_error(capsys, "explain", str(p), "--plot", str(tmp_path / "d.png"),
                 names=("nothing to plot",))


def _run_cpu(capsys, write_bio):
    return _clear_error(capsys, "run", "--backend", "cpu", str(write_bio(SCRIPT)),
                        names=("DSLC_CACHE_DIR",))


def test_cache_dir_that_is_a_file(capsys, write_bio, tmp_path, monkeypatch):
    f = tmp_path / "cachefile"
    f.write_text("")
    monkeypatch.setenv("DSLC_CACHE_DIR", str(f))
    assert "not a directory" in _run_cpu(capsys, write_bio)


def test_cache_dir_that_others_can_write(capsys, write_bio, tmp_path, monkeypatch):
    d = tmp_path / "shared"
    d.mkdir()
    d.chmod(0o777)
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    assert "writable by other users" in _run_cpu(capsys, write_bio)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs to give a folder to another user")
def test_cache_dir_owned_by_another_user(capsys, write_bio, tmp_path, monkeypatch):
    d = tmp_path / "theirs"
    d.mkdir(mode=0o700)
    os.chown(d, 65534, 65534)
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    assert "owned by another user" in _run_cpu(capsys, write_bio)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_cache_dir_that_cannot_be_written(capsys, write_bio, tmp_path, monkeypatch):
    d = tmp_path / "readonly"
    d.mkdir(mode=0o500)
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    assert "not writable" in _run_cpu(capsys, write_bio)


def test_unusable_default_cache_runs_without_it(capsys, write_bio, tmp_path, monkeypatch):
    """The user chose no cache directory: dslc warns and runs with a private one
    that lasts the process."""
    monkeypatch.delenv("DSLC_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".cache").write_text("")  # ~/.cache is a file
    code, out, err = _cli(capsys, "run", "--backend", "cpu", str(write_bio(SCRIPT)))
    assert code == 0, err
    assert "f(3) = 6" in out
    assert "warning:" in err and "DSLC_CACHE_DIR" in err and "Traceback" not in err
