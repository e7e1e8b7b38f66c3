"""The on-disk cache under hostile or broken contents (docs/robustness.md, "The cache").

Every entry is checked before use; an entry that fails its check is rebuilt, and
nothing a cache file says can make dslc run code other than what it generated.
One warm cache is made per module (one Numba compile) and each test gets a copy,
as a later process would find it."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import shutil
import signal
import stat
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import dslc
from dslc.cpu import modules
from dslc.errors import DslcError
from dslc.kernel.ir import TaskArg
from dslc.store import disk as cache_files
from dslc.store.files import is_regular
from tests.generators import ENTRY_REPLACEMENTS, entry_replacements

pytestmark = pytest.mark.skipif(not dslc.backends.get("cpu").available(),
                                reason="numba/islpy not installed")

# insertions and deletions cost differently, so swapping s and t changes the table
SRC = """\
define alphabet en "ab"
int d(seq[en] s, index[s] i, seq[en] t, index[t] j) =
    if i == 0 then 2 * j
    else if j == 0 then i
    else ((d(i - 1, j) + 1) min (d(i, j - 1) + 2))
         min (d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 3))
"""
ARGS = ("aab", "b")


def _table(backend: str) -> np.ndarray:
    return dslc.compile(SRC, backend=backend).call("d", *ARGS).values


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A cache holding the program's plan, its module and Numba's index and data."""
    d = tmp_path_factory.mktemp("warm") / "cache"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DSLC_CACHE_DIR", str(d))
        mp.setattr(modules, "_LOADED", {})
        _table("cpu")
    return d


@pytest.fixture
def cache(warm, tmp_path, monkeypatch):
    """A copy of the warm cache (mtimes kept, so Numba's entries stay valid), seen
    by a process that has loaded nothing yet."""
    d = tmp_path / "cache"
    shutil.copytree(warm, d, symlinks=True)
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    monkeypatch.setattr(modules, "_LOADED", {})
    return d


def _plan(cache) -> tuple:
    [path] = cache.glob("plan_*.json")
    return path, json.loads(path.read_text())


def _edit_plan(cache, field: str, value) -> None:
    """Change one field of the stored plan, wherever the format keeps it."""
    path, data = _plan(cache)
    fields = data.get("plan", data)
    fields[field] = value(fields[field]) if callable(value) else value
    path.write_text(json.dumps(data))


def _module(cache):
    [path] = cache.glob("dslc_*.py")
    return path


def _marker_code(marker) -> str:
    return f"\nopen({str(marker)!r}, 'w').close()\n"


def _assert_correct_and_clean(cache, marker=None):
    assert np.array_equal(_table("cpu"), _table("interp"))
    if marker is not None:
        assert not marker.exists(), "code planted in the cache was run"
    for path in cache.glob("dslc_*.py"):  # every module left is named by its content
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert path.name == f"dslc_{digest[:len(path.stem) - 5]}.py"


def test_code_appended_to_a_cached_module_is_not_run(cache, tmp_path):
    marker = tmp_path / "ran"
    with open(_module(cache), "a") as fh:
        fh.write(_marker_code(marker))
    _assert_correct_and_clean(cache, marker)


def test_a_plan_naming_a_path_outside_the_cache_is_refused(cache, tmp_path):
    marker = tmp_path / "ran"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "evil.py").write_text(_module(cache).read_text() + _marker_code(marker))
    (cache / "dslc_x").mkdir()
    _edit_plan(cache, "source", "x/../../elsewhere/evil")
    _assert_correct_and_clean(cache, marker)


def test_a_plan_naming_a_path_is_refused_even_with_a_matching_check(cache, tmp_path):
    """The checksum finds edits; a plan's fields are also checked for form, so a
    path never reaches the file system whatever wrote the plan."""
    path, data = _plan(cache)
    key = path.stem.removeprefix("plan_")
    (cache / "dslc_x").mkdir()
    data["plan"]["source"] = "x/../" + data["plan"]["source"]
    data["check"] = modules._plan_check(key, data["plan"])
    path.write_text(json.dumps(data))
    assert modules.cached_plan(key) is None


def test_swapped_task_arguments_in_a_plan_are_detected(cache):
    def swap(args):
        assert [(a["name"], a["role"], a["of"]) for a in args] == \
            [("a_s", "argument", "s"), ("a_t", "argument", "t")]
        return args[::-1]
    _edit_plan(cache, "args", swap)
    _assert_correct_and_clean(cache)


@pytest.mark.parametrize("keep", [0.5, 0], ids=["truncated", "empty"])
def test_a_broken_module_is_rebuilt(cache, keep):
    path = _module(cache)
    text = path.read_text()
    path.write_text(text[:int(len(text) * keep)])
    _assert_correct_and_clean(cache)


@pytest.mark.parametrize("suffix", ["nbi", "nbc"], ids=["index", "data"])
def test_a_truncated_numba_file_is_rebuilt(cache, suffix):
    files = list((cache / "__pycache__").glob(f"*.{suffix}"))
    assert files
    for f in files:
        data = f.read_bytes()
        f.write_bytes(data[:len(data) // 2])
    _assert_correct_and_clean(cache)


def test_a_garbled_plan_is_rebuilt(cache):
    path, _ = _plan(cache)
    path.write_text('{"source": ')
    _assert_correct_and_clean(cache)


def test_the_size_cap_removes_a_real_entry_whole(cache, monkeypatch):
    """Numba's own file names (``dslc_<digest>.<function>-<line>.pyXY.nb[ic]``) are
    found as their module's: plan, module and machine code of a run go together."""
    old = [p for p in cache.rglob("*") if p.is_file()]
    assert {p.suffix for p in old} >= {".json", ".py", ".nbi", ".nbc"}
    for p in old:
        os.utime(p, (1000, 1000))
    monkeypatch.setenv("DSLC_CACHE_MAX_MB", "1")
    text = "X = 1\n" + "#" * 2**20
    cache_files.write_entry(f"dslc_{cache_files.digest(text)}.py", text)
    assert not any(p.exists() for p in old)


def test_a_module_read_for_use_keeps_its_machine_code(cache, caplog):
    """Marking a module used (its access time) must not touch its modification
    time, which Numba compares with its cached machine code's."""
    module = _module(cache)
    before = module.stat()
    os.utime(module, ns=(1, before.st_mtime_ns))
    with caplog.at_level(logging.INFO, logger="dslc"):
        _table("cpu")
    assert "machine code from the cache" in caplog.text
    assert "compiled (not in the cache)" not in caplog.text
    after = module.stat()
    assert after.st_mtime_ns == before.st_mtime_ns and after.st_atime > 1000


@pytest.mark.parametrize("write", [
    lambda: modules.load("X = 1\n"),
    lambda: modules.store_plan("0" * 32, "X = 1\n", [TaskArg("a_s", "argument", "s")], (1,)),
], ids=["module", "plan"])
def test_a_planted_link_at_a_temporary_name_is_not_followed(tmp_path, monkeypatch, write):
    """The temporary names of earlier versions (``<entry>.tmp<pid>``) are
    predictable; an entry is written through a fresh, exclusively created file."""
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    monkeypatch.setattr(modules, "_LOADED", {})
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    key = hashlib.sha256(b"X = 1\n").hexdigest()[:24]
    for stem in (f"dslc_{key}", "plan_" + "0" * 32):
        os.symlink(victim, d / f"{stem}.tmp{os.getpid()}")
    write()
    assert victim.read_text() == "precious\n"


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_cache_is_private(tmp_path, monkeypatch):
    d = tmp_path / "a" / "cache"
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    monkeypatch.setattr(modules, "_LOADED", {})
    modules.load("X = 1\n")
    modules.store_plan("0" * 32, "X = 1\n", [TaskArg("a_s", "argument", "s")], (1,))
    assert _mode(d) == 0o700
    for entry in d.iterdir():
        assert _mode(entry) == 0o600, entry


def test_the_default_cache_left_readable_by_others_is_made_private(tmp_path, monkeypatch):
    """Earlier versions created ``~/.cache/dslc`` readable by everyone."""
    monkeypatch.delenv("DSLC_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    d = tmp_path / ".cache" / "dslc"
    d.mkdir(parents=True)
    d.chmod(0o755)
    assert modules.cache_dir() == d
    assert _mode(d) == 0o700


class _Hung(BaseException):
    """Not an Exception: the guards that take any failure to load as a miss must not
    swallow it."""


@contextlib.contextmanager
def _no_hang(seconds: int = 60):
    """A FIFO opened for reading waits for a writer forever: fail instead of hanging."""
    def timeout(signum, frame):
        raise _Hung("a cache entry blocked the run")
    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# each of a warm cache's entries, by the glob that finds it
ENTRIES = {"plan": "plan_*.json", "module": "dslc_*.py", "numba index": "__pycache__/*.nbi",
           "numba data": "__pycache__/*.nbc"}


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entry=st.sampled_from(sorted(ENTRIES)), replacement=entry_replacements())
@example(entry="numba index", replacement="FIFO")
@example(entry="numba data", replacement="link to a FIFO")
@example(entry="module", replacement="FIFO")
@example(entry="plan", replacement="link to /dev/zero")
@example(entry="plan", replacement="directory with a file")
def test_anything_but_a_regular_file_in_place_of_an_entry_is_no_entry(
        warm, tmp_path_factory, entry, replacement):
    """A directory, a link (to a device, a FIFO, a file elsewhere, nowhere) or a FIFO
    where an entry was is a miss, never a hang, a traceback or another value; one
    that holds files where dslc must write its entry is one error naming it."""
    d = tmp_path_factory.mktemp("replaced") / "cache"
    shutil.copytree(warm, d, symlinks=True)
    found = list(d.glob(ENTRIES[entry]))
    assert found
    for path in found:
        path.unlink()
        ENTRY_REPLACEMENTS[replacement](path)
    with pytest.MonkeyPatch.context() as mp, _no_hang():
        mp.setenv("DSLC_CACHE_DIR", str(d))
        mp.setattr(modules, "_LOADED", {})
        if replacement == "directory with a file" and entry in ("plan", "module"):
            with pytest.raises(DslcError, match="holds a directory named"):
                _table("cpu")
        else:
            assert np.array_equal(_table("cpu"), _table("interp"))
    if entry in ("plan", "module") and replacement != "directory with a file":
        assert all(is_regular(p) for p in found)  # written again


class _FullDisk:
    """A file whose writes fail as on a full disk."""

    def __init__(self, fh):
        self._fh = fh

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _fill_the_disk(monkeypatch):
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, mode="r", *a, **k:
                        _FullDisk(real(fd, mode, *a, **k)) if "w" in mode
                        else real(fd, mode, *a, **k))


@pytest.mark.parametrize("write", [
    lambda: modules.load("X = 1\n"),
    lambda: modules.store_plan("0" * 32, "X = 1\n", [TaskArg("a_s", "argument", "s")], (1,)),
], ids=["module", "plan"])
def test_a_full_disk_is_one_error_naming_the_directory(tmp_path, monkeypatch, write):
    d = tmp_path / "cache"
    monkeypatch.setenv("DSLC_CACHE_DIR", str(d))
    monkeypatch.setattr(modules, "_LOADED", {})
    _fill_the_disk(monkeypatch)
    with pytest.raises(DslcError) as e:
        write()
    assert f"the cache directory {d} is full" in e.value.message
    assert list(d.iterdir()) == []  # the temporary file removed


FULL_DISK_RUN = """
import errno, os, sys
real = os.fdopen
class Full:
    def __init__(self, fh): self.fh = fh
    def __enter__(self): return self
    def __exit__(self, *exc): self.fh.close()
    def write(self, data): raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
os.fdopen = lambda fd, mode="r", *a, **k: (Full(real(fd, mode, *a, **k)) if "w" in mode
                                           else real(fd, mode, *a, **k))
from dslc.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_run_on_a_full_disk_ends_in_one_message(tmp_path):
    script = tmp_path / "p.bio"
    script.write_text("int f(int n) = if n == 0 then 0 else f(n - 1) + n\nprint f(10)\n")
    d = tmp_path / "cache"
    done = subprocess.run([sys.executable, "-c", FULL_DISK_RUN, "run", str(script),
                           "--backend", "cpu"], env={**os.environ, "DSLC_CACHE_DIR": str(d)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("error:") == 1 and f"the cache directory {d} is full" in done.stderr


def test_a_planted_fifo_or_device_never_blocks_a_read(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    d = cache_files.cache_dir()
    for name, make in ENTRY_REPLACEMENTS.items():
        entry = f"ast_{hashlib.sha256(name.encode()).hexdigest()[:32]}.json"
        make(d / entry)
        with _no_hang(10):
            assert cache_files.read_entry(entry) is None, name


def test_the_size_cap_scan_never_blocks_on_a_fifo_named_as_a_plan(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DSLC_CACHE_MAX_MB", "1")
    d = cache_files.cache_dir()
    os.mkfifo(d / ("plan_" + "1" * 32 + ".json"))
    with _no_hang(10):
        cache_files.write_entry("plan_" + "2" * 32 + ".json", "{}" + " " * 2**20)
