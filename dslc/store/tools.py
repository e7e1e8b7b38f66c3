"""``dslc cache info`` and ``dslc cache clear``: what the cache directory holds,
and removing it.

The directory comes from :func:`dslc.store.disk.cache_dir`, so it is checked as
on every run (private to the user; one others can write is refused, not used).
Only dslc's own entries are counted and removed, recognised by their names
(docs/robustness.md, "The cache"); anything else a user keeps there is left.
Nothing is followed: a link named like an entry is removed as a link, and the
directory itself stays, with its permissions. ``info`` also gives the size cap
that every write enforces (dslc.store.entries).
"""

from __future__ import annotations

import time

from dslc.store.disk import cache_dir, max_bytes
from dslc.store.entries import NUMBA_DIR, TMP, entries, remove

_TMP_AGE = 3600  # seconds: a write takes milliseconds, so an older temporary is a crash's


def info() -> str:
    """Where the cache is, how much it holds and of what."""
    d = cache_dir()
    found = entries(d)
    counts: dict[str, int] = {}
    for e in found:
        counts[e.sort] = counts.get(e.sort, 0) + 1
    sorts = ", ".join(f"{n} {k}" for k, n in counts.items()) or "none"
    return (f"path: {d}\nsize: {_size(sum(e.size for e in found))}\n"
            f"entries: {len(found)} ({sorts})\n"
            f"cap: {_size(max_bytes())} (DSLC_CACHE_MAX_MB; the least recently used "
            f"are removed beyond it)")


def clear() -> str:
    """Remove every entry but a temporary another dslc may still be writing;
    what was removed, in one line."""
    d = cache_dir()
    now = time.time()
    found = [e for e in entries(d) if e.sort != TMP or now - e.mtime > _TMP_AGE]
    removed = remove(found)
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
