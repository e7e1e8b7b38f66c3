"""The cache directory's size cap (DSLC_CACHE_MAX_MB, dslc.store.entries): every
write removes the least recently used groups beyond it, a module together with its
Numba files and the plans naming it, never the group just written nor anything not
dslc's."""

from __future__ import annotations

import json
import os

import pytest

from dslc.store import disk as cache
from dslc.store.entries import evict
from dslc.errors import DslcError

MB = 2**20


def _group(d, digest: str, size: int, used: float, plans=1) -> list:
    """A module of ``size`` bytes with Numba files and plans naming it, last used at ``used``."""
    (d / "__pycache__").mkdir(exist_ok=True)
    files = [d / f"dslc_{digest}.py", d / "__pycache__" / f"dslc_{digest}.task-3.py311.nbi",
             d / "__pycache__" / f"dslc_{digest}.task-3.py311.1.nbc"]
    files[0].write_bytes(b"#" * size)
    files[1].write_bytes(b"i")
    files[2].write_bytes(b"c")
    for n in range(plans):
        plan = d / f"plan_{digest}{n:08x}.json"
        plan.write_text(json.dumps({"plan": {"source": digest}, "check": ""}))
        files.append(plan)
    for f in files:
        os.utime(f, (used, used))
    return files


@pytest.fixture()
def d(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    return d


def test_the_least_recently_used_groups_go_whole_until_under_the_cap(d):
    old = _group(d, "a" * 24, 1000, used=100, plans=2)
    middle = _group(d, "b" * 24, 1000, used=200)
    new = _group(d, "c" * 24, 1000, used=300)
    (d / "notes.txt").write_bytes(b"x" * 5000)  # not dslc's: neither counted nor removed
    empty = d / "plan_ffff.json"  # a plan naming no module is a group of its own
    empty.write_text(json.dumps({"plan": {"source": ""}, "check": ""}))
    os.utime(empty, (150, 150))
    gone = old + [empty] + middle
    sizes = sum(f.stat().st_size for f in gone)
    # over by ~1.2 KB: the old group alone (1.1 KB) is not enough, nor with the empty plan
    assert evict(d, 2100, keep="c" * 24) == sizes
    assert not any(f.exists() for f in gone)
    assert all(f.exists() for f in new) and (d / "notes.txt").exists()
    assert evict(d, 2100, keep="") == 0  # under the cap: nothing more


def test_the_group_just_written_stays_whatever_the_cap(d):
    _group(d, "a" * 24, 3000, used=300)
    evict(d, 1, keep="a" * 24)
    assert (d / f"dslc_{'a' * 24}.py").exists()


def test_a_write_enforces_the_cap_from_the_setting(d, monkeypatch):
    """A module read for use counts as used now: the group written first but read
    since outlives one written later and not read."""
    monkeypatch.setenv("DSLC_CACHE_MAX_MB", "1")
    a, b, c = ("A" * (MB // 2), "B" * (MB // 2), "C" * (MB // 2))
    first = cache.write_entry(f"dslc_{cache.digest(a)}.py", a)
    second = cache.write_entry(f"dslc_{cache.digest(b)}.py", b)
    os.utime(first, (1000, 1000))  # as old runs would have left them
    os.utime(second, (2000, 2000))
    assert cache.read_module(cache.digest(a)) == a
    cache.write_entry(f"dslc_{cache.digest(c)}.py", c)  # over 1 MiB: one group must go
    assert first.exists() and not second.exists()


def test_a_plan_written_keeps_the_module_it_names(d, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_MAX_MB", "1")
    module = cache.write_entry(f"dslc_{cache.digest('M' * MB)}.py", "M" * MB)
    os.utime(module, (1000, 1000))
    cache.write_entry("plan_00ff.json", json.dumps({"plan": {"source": cache.digest("M" * MB)}}))
    assert module.exists()


def test_reading_a_module_marks_it_used_but_keeps_its_modification_time(d):
    """Numba compares a module's modification time with its machine code's: a
    changed one would make every cached function compile again."""
    path = cache.write_entry(f"dslc_{cache.digest('X = 1')}.py", "X = 1")
    os.utime(path, ns=(1_000_000_000, 1_234_567_891))
    assert cache.read_module(cache.digest("X = 1")) == "X = 1"
    st = path.stat()
    assert st.st_mtime_ns == 1_234_567_891 and st.st_atime > 1000


@pytest.mark.parametrize("value", ["0", "big", "-5"])
def test_a_bad_cap_is_one_error_naming_the_setting(d, monkeypatch, value):
    monkeypatch.setenv("DSLC_CACHE_MAX_MB", value)
    with pytest.raises(DslcError, match="DSLC_CACHE_MAX_MB"):
        cache.write_entry("plan_00.json", "{}")
