"""``dslc cache info`` and ``dslc cache clear`` (dslc.store.tools): only
dslc's entries are counted and removed, links are not followed, and the
directory is checked as on every run."""

from __future__ import annotations

import os

import pytest

from dslc.cli import main

KEY = "0123456789abcdef01234567"


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    (d / f"dslc_{KEY}.py").write_text("x = 1\n")
    (d / f"plan_{KEY}00ff.json").write_text("{}")
    (d / "__pycache__").mkdir()
    (d / "__pycache__" / f"dslc_{KEY}.batch-12.py311.nbi").write_bytes(b"i" * 100)
    (d / "__pycache__" / f"dslc_{KEY}.batch-12.py311.1.nbc").write_bytes(b"c" * 1000)
    return d


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_info_gives_path_size_and_entries(cache, capsys):
    code, out, _ = _cli(capsys, "cache", "info")
    assert code == 0
    assert f"path: {cache}" in out
    assert "size: 1.1 KiB" in out
    assert "entries: 4 (1 modules, 1 plans, 2 compiled)" in out
    assert "cap: 2048.0 MiB (DSLC_CACHE_MAX_MB" in out


def test_info_gives_the_cap_set(cache, capsys, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_MAX_MB", "300")
    _, out, _ = _cli(capsys, "cache", "info")
    assert "cap: 300.0 MiB" in out


def test_clear_removes_dslc_entries_only(cache, capsys, tmp_path):
    (cache / "notes.txt").write_text("mine")
    outside = tmp_path / "precious.py"
    outside.write_text("keep")
    os.symlink(outside, cache / f"dslc_{'f' * 24}.py")
    code, out, _ = _cli(capsys, "cache", "clear")
    assert code == 0 and out.startswith("removed 5 entries")
    assert sorted(p.name for p in cache.iterdir()) == ["notes.txt"]
    assert outside.read_text() == "keep"  # the link went, not what it pointed at
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    _, out, _ = _cli(capsys, "cache", "info")
    assert "entries: 0 (none)" in out


def test_a_cache_others_can_write_is_refused_not_cleared(cache, capsys):
    cache.chmod(0o777)
    code, out, err = _cli(capsys, "cache", "clear")
    assert code == 2 and "writable by other users" in err and "Traceback" not in err
    assert (cache / f"dslc_{KEY}.py").exists()


def test_clear_leaves_a_temporary_another_run_may_be_writing(cache, capsys):
    fresh, stale = cache / f".dslc_{KEY}.py.abc.tmp", cache / f".plan_{KEY}.json.xyz.tmp"
    fresh.write_text("half")
    stale.write_text("half")
    os.utime(stale, (1, 1))
    code, out, _ = _cli(capsys, "cache", "clear")
    assert code == 0 and out.startswith("removed 5 entries")
    assert fresh.exists() and not stale.exists()
