"""``dslc cache info`` and ``dslc cache clear``: what the cache directory holds,
and removing it.

The directory comes from :func:`dslc.cpu.cache.cache_dir`, so it is checked as
on every run (private to the user; one others can write is refused, not used).
Only dslc's own entries are counted and removed, recognised by their names
(docs/robustness.md, "The cache"); anything else a user keeps there is left.
Nothing is followed: a link named like an entry is removed as a link, and the
directory itself stays, with its permissions.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from dslc.cpu.cache import DIGEST, cache_dir

_HEX = f"[0-9a-f]{{{DIGEST}}}"
_TMP = "unfinished writes"
_TMP_AGE = 3600  # seconds: a write takes milliseconds, so an older temporary is a crash's
# (kind, pattern) for the top directory and Numba's __pycache__ within it
_TOP = (("modules", re.compile(f"dslc_{_HEX}\\.py")),
        ("plans", re.compile("plan_[0-9a-f]+\\.json")),
        (_TMP, re.compile("\\.(dslc_|plan_).*\\.tmp")))
_NUMBA = (("compiled", re.compile(f"dslc_{_HEX}\\..+\\.(nbi|nbc|pyc)")),)
NUMBA_DIR = "__pycache__"


@dataclass(frozen=True)
class Entry:
    path: Path
    kind: str
    size: int
    mtime: float


def entries(d: Path) -> list[Entry]:
    """dslc's entries in cache directory ``d``."""
    found = _scan(d, _TOP)
    numba = d / NUMBA_DIR
    if numba.is_dir() and not numba.is_symlink():
        found += _scan(numba, _NUMBA)
    return found


def _scan(d: Path, kinds) -> list[Entry]:
    out = []
    with os.scandir(d) as it:
        for item in it:
            kind = next((k for k, pat in kinds if pat.fullmatch(item.name)), None)
            if kind is None or item.is_dir(follow_symlinks=False):
                continue
            st = item.stat(follow_symlinks=False)
            out.append(Entry(Path(item.path), kind, st.st_size, st.st_mtime))
    return out


def info() -> str:
    """Where the cache is, how much it holds and of what."""
    d = cache_dir()
    found = entries(d)
    counts: dict[str, int] = {}
    for e in found:
        counts[e.kind] = counts.get(e.kind, 0) + 1
    kinds = ", ".join(f"{n} {k}" for k, n in counts.items()) or "none"
    return (f"path: {d}\nsize: {_size(sum(e.size for e in found))}\n"
            f"entries: {len(found)} ({kinds})")


def clear() -> str:
    """Remove every entry but a temporary another dslc may still be writing;
    what was removed, in one line."""
    d = cache_dir()
    now = time.time()
    found = [e for e in entries(d) if e.kind != _TMP or now - e.mtime > _TMP_AGE]
    removed = 0
    for e in found:
        try:
            os.unlink(e.path)
            removed += e.size
        except FileNotFoundError:  # another dslc removed or replaced it meanwhile
            pass
    try:
        (d / NUMBA_DIR).rmdir()  # only when nothing of anyone else's is left in it
    except OSError:
        pass
    return f"removed {len(found)} entries ({_size(removed)}) from {d}"


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB"):
        if n < 1024 or unit == "MiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"
