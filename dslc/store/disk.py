"""The on-disk cache directory and its entries (docs/robustness.md, "The cache").

Whoever can write the cache directory can run code as its user: generated
modules are Python and Numba's index files are pickles. So the directory must
be the user's alone (created 0700; one that others can write is refused), and
within it nothing is trusted that can be checked: a module entry is named by
the hash of its text and used only when its text still hashes to its name; an
entry is written through a fresh, exclusively created temporary file and an
atomic rename, so a planted link is never followed; a Numba entry that cannot
be loaded is dropped and compiled again.

The directory is kept under a size cap (``DSLC_CACHE_MAX_MB``): every write
removes the least recently used groups of entries beyond it (dslc.store.entries).
A module's use is recorded as its access time, set explicitly when it is read
(mount options such as ``noatime`` do not stop that), never its modification
time, which Numba compares to decide whether its machine code is stale.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import hashlib
import os
import re
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from dslc import runlog, settings
from dslc.store.entries import DIGEST, evict, group_name
from dslc.store.files import read_regular
from dslc.errors import DslcError

ENV = "DSLC_CACHE_DIR"
MAX_MB = "DSLC_CACHE_MAX_MB"
MAX_MB_DEFAULT = 2048  # room for a few thousand compiled entries
_DIGEST_RE = re.compile(f"[0-9a-f]{{{DIGEST}}}")
_FALLBACK: list[Path] = []


def digest(text: str) -> str:
    """The name of an entry holding ``text``."""
    return hashlib.sha256(text.encode()).hexdigest()[:DIGEST]


def is_digest(value) -> bool:
    """Whether ``value`` (read from a cache file) can name an entry: hex digits
    only, so it can never be a path."""
    return isinstance(value, str) and _DIGEST_RE.fullmatch(value) is not None


def cache_dir() -> Path:
    """The cache directory, checked on every use (it may be removed or changed
    between runs). ``$DSLC_CACHE_DIR`` that cannot be used is the user's mistake;
    an unusable default (a read-only home, say) leaves the process a private
    temporary cache, with a warning."""
    d, ours = _chosen()
    if not ours:
        return _usable(d, ours=False)
    try:
        return _usable(d, ours=True)
    except DslcError as e:
        return _fallback(e)


def quiet_dir() -> Path | None:
    """The cache directory where it can be used as it is, else None: neither the
    error, the warning nor the private fallback of :func:`cache_dir`, for what a run
    keeps only to start faster (a parsed script, dslc.runtime.parsed), so that a run
    which compiles nothing says nothing about a cache it does not need."""
    try:
        return _usable(*_chosen())
    except DslcError:
        return None


def _chosen() -> tuple[Path, bool]:
    """The directory asked for (``$DSLC_CACHE_DIR``, else the default) and whether
    it is the default."""
    chosen = settings.text(ENV)
    return (Path(chosen), False) if chosen else (Path.home() / ".cache" / "dslc", True)


def _usable(d: Path, ours: bool) -> Path:
    """``d``, created private to the user if absent. ``ours`` (the default
    directory, which earlier versions created readable by all) is made private
    again; a directory the user named is refused, never changed."""
    name = f"the cache directory {d}" if ours else f"{ENV} ({d})"
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(d)
    except FileExistsError:
        raise _unusable(name, "is not a directory") from None
    except OSError as e:
        raise _unusable(name, f"cannot be created: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise _unusable(name, "is not a directory")
    if st.st_uid != os.geteuid():
        raise _unusable(name, "is owned by another user")
    mode = stat.S_IMODE(st.st_mode)
    if ours and mode & 0o077:
        _tighten(d, name)
    elif mode & 0o022:
        raise _unusable(name, "is writable by other users, who could run code as you through "
                              "it (chmod go-w, or choose another)")
    if not os.access(d, os.W_OK | os.X_OK):
        raise _unusable(name, "is not writable")
    return d


def _tighten(d: Path, name: str) -> None:
    try:
        d.chmod(0o700)
    except OSError as e:
        raise _unusable(name, f"cannot be made private: {e.strerror or e}") from None


def _unusable(name: str, why: str) -> DslcError:
    return DslcError(f"{name} {why}",
                     hint=f"point {ENV} at a directory of your own (dslc creates it, "
                          "private to you), or unset it")


def _fallback(problem: DslcError) -> Path:
    """A private directory for this process only, removed at exit."""
    if not _FALLBACK:
        d = Path(tempfile.mkdtemp(prefix="dslc-cache-"))
        atexit.register(shutil.rmtree, d, ignore_errors=True)
        sys.stderr.write(f"warning: {problem.message}; running without a disk cache "
                         f"(set {ENV} to a directory of your own)\n")
        _FALLBACK.append(d)
    return _FALLBACK[0]


def read_module(key: str) -> str | None:
    """The text of module entry ``key`` if it still hashes to its name, else
    None (absent, truncated, edited: the caller rebuilds it)."""
    if not is_digest(key):
        return None
    data = read_entry_bytes(f"dslc_{key}.py")
    if data is None or hashlib.sha256(data).hexdigest()[:DIGEST] != key:
        return None
    return _text(data)


def read_entry(name: str) -> str | None:
    """The text of entry ``name`` (a file name in the directory), None where it cannot
    be read; the caller checks what it holds."""
    data = read_entry_bytes(name)
    return None if data is None else _text(data)


def read_entry_bytes(name: str) -> bytes | None:
    """The bytes of entry ``name``, its use recorded for the size cap; None where it
    is not a regular file that can be read (dslc.store.files: a FIFO, a device or a
    directory in its place is no entry, and never blocks)."""
    return read_regular(cache_dir() / name, mark_used=True)


def _text(data: bytes) -> str | None:
    try:
        return data.decode()
    except UnicodeDecodeError:
        return None


def max_bytes() -> int:
    """The size cap of the cache directory, in bytes."""
    return settings.number(MAX_MB, MAX_MB_DEFAULT) * 2**20


def _enforce_cap(just_written: str) -> None:
    """Evict beyond the cap, never the group of the entry just written. A failure
    to scan or remove leaves the cache over its cap for this write, never fails it."""
    with contextlib.suppress(OSError):
        evict(cache_dir(), max_bytes(), just_written)


def write_entry(name: str, text: str | bytes) -> Path:
    """Write entry ``name`` whole: into a temporary file created exclusively
    (mkstemp: O_EXCL, mode 0600, an unpredictable name) and renamed over the
    entry, so readers see the old entry or the new one and a link, FIFO or device
    planted at its name is replaced, not written through. ``bytes`` are written as
    they are (a kernel entry, dslc.cuda.kernel_cache). A write that fails (a full
    disk, a directory holding files at the entry's name) is one error naming the
    directory, its temporary file removed."""
    d = cache_dir()
    try:
        _write(d, name, text)
    except OSError as e:
        raise _unwritable(d, name, e) from None
    _enforce_cap(group_name(name, None if isinstance(text, bytes) else text))
    return d / name


def _write(d: Path, name: str, text: str | bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if isinstance(text, bytes) else "w") as fh:
            fh.write(text)
        try:
            os.replace(tmp, d / name)
        except IsADirectoryError:  # an empty directory in the way is no entry: replaced
            os.rmdir(d / name)
            os.replace(tmp, d / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _unwritable(d: Path, name: str, e: OSError) -> DslcError:
    why = e.strerror or str(e)
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        return DslcError(f"the cache directory {d} is full: cannot write {name} ({why})",
                         hint=f"free space there, or point {ENV} at another directory "
                              f"(a smaller {MAX_MB} keeps it smaller)")
    if os.path.isdir(d / name) and not os.path.islink(d / name):
        return DslcError(f"the cache directory {d} holds a directory named {name}, where "
                         "dslc keeps a file", hint="remove it (dslc cache clear leaves it)")
    return DslcError(f"cannot write {name} in the cache directory {d} ({why})",
                     hint=f"point {ENV} at a directory of your own, or unset it")


class _Guarded:
    """A Numba function cache whose unreadable entries are cache misses.

    Numba unpickles its index and data files without a check, so a truncated or
    garbled one raises from deep inside a call (``UnpicklingError``,
    ``EOFError``, or whatever a damaged pickle produces). Any failure to load is
    taken as a miss: the index is emptied and the function compiled again; a
    failure to save leaves the function compiled but uncached. Numba opens its
    files as they are, so one of them that is not a regular file (a FIFO would
    block the open, a link to a device would be read) is a miss before Numba
    touches it: the index is replaced by an empty one and nothing is read."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def load_overload(self, sig, target_context):
        try:
            if self._foreign():
                raise OSError("not a regular file")
            found = self._inner.load_overload(sig, target_context)
        except Exception:
            with contextlib.suppress(Exception):
                self._inner.flush()
            found = None
        fn = getattr(self._inner, "_py_func", None)
        name = (f"{fn.__qualname__} of {fn.__module__.removeprefix('dslc_generated_')}"
                if fn is not None else "a function")
        runlog.log.info("numba: %s %s", name, "machine code from the cache" if found is not None
                        else "compiled (not in the cache)")
        return found

    def save_overload(self, sig, data):
        with contextlib.suppress(Exception):
            if not self._foreign():  # (Numba reads its index before it saves)
                self._inner.save_overload(sig, data)
        fn = getattr(self._inner, "_py_func", None)
        if fn is not None:
            _enforce_cap(group_name(fn.__module__))

    def _foreign(self) -> bool:
        """Whether a file of this function's Numba entries (its index, its machine
        code) is there and is not a regular file."""
        index = getattr(getattr(self._inner, "_cache_file", None), "_index_path", None)
        if index is None:
            return False
        folder, name = os.path.split(index)
        base = name.removesuffix(".nbi") + "."
        return any(n.startswith(base) for n in _odd_names(folder))


_ODD: dict[str, frozenset[str]] = {}


def _odd_names(folder: str) -> frozenset[str]:
    """The names in Numba's folder that are not regular files, read once a process:
    one scan (the type of each name comes with it), where a scan per function loaded
    would cost more than the load in a cache of thousands of entries. What a run adds
    there later is Numba's own, regular files."""
    got = _ODD.get(folder)
    if got is None:
        try:
            with os.scandir(folder) as it:
                got = frozenset(e.name for e in it if not e.is_file(follow_symlinks=False))
        except OSError:
            got = frozenset()
        _ODD[folder] = got
    return got


def guard_numba_caches(namespace: dict) -> None:
    """Wrap the disk cache of every Numba function defined in ``namespace``."""
    from numba.core.caching import Cache

    from dslc import timings

    for obj in list(namespace.values()):
        inner = getattr(obj, "_cache", None)
        if isinstance(inner, Cache):
            obj._cache = _Guarded(inner)
            timings.watch(obj)
