"""Finding the installed extensions' entry points, kept between runs.

``importlib.metadata`` reads the metadata of every installed distribution to find
one group's entry points, and importing it brings ``email``, ``csv`` and ``zipfile``:
together a large share of a small run's start-up. What it found is kept in the cache
directory (``found_extensions.json``) under a key made of the import path as it is
now: each ``sys.path`` entry with its modification time, which changes whenever a
distribution is installed, upgraded or removed there (its metadata folder is created
or deleted). Any other key, an unreadable file or no usable cache directory: asked
again, so the answer is always what ``importlib.metadata`` gives for this path.

The file is read only from a directory the user owns and others cannot write
(dslc.store.disk.quiet_dir, the rule of every cache entry), since the values it holds name modules that get imported.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from dslc.errors import DslcError
from dslc.store.disk import quiet_dir, write_entry
from dslc.store.files import read_regular

GROUP = "dslc.extensions"
FILE = "found_extensions.json"
_KEPT = 16  # keys kept: several environments or working directories sharing one cache


def entry_points() -> list[tuple[str, str]]:
    """``(name, value)`` of each entry point of the group, sorted by name."""
    key = _path_key()
    held = _read()
    for k, found in held:
        if k == key:
            return [tuple(x) for x in found]
    found = _ask()
    _write([[key, found]] + [h for h in held if h[0] != key][:_KEPT - 1])
    return [tuple(x) for x in found]


def load(value: str):
    """What entry point ``value`` (``module:attr.attr [extras]``) names, as
    ``importlib.metadata.EntryPoint.load`` finds it."""
    module, _, attrs = (part.strip() for part in value.split("[", 1)[0].partition(":"))
    import importlib

    obj = importlib.import_module(module)
    for name in filter(None, attrs.split(".")):
        obj = getattr(obj, name)
    return obj


def _ask() -> list[list[str]]:
    from importlib import metadata

    eps = metadata.entry_points(group=GROUP)
    return [[ep.name, ep.value] for ep in sorted(eps, key=lambda e: e.name)]


def _path_key() -> list:
    """The import path with each entry's modification time (None: no such entry),
    and the finders that may find distributions elsewhere."""
    out = []
    for entry in sys.path:
        try:
            out.append([entry, os.stat(entry or ".").st_mtime_ns])
        except (OSError, ValueError):
            out.append([entry, None])
    return [out, [type(f).__qualname__ for f in sys.meta_path]]


def _folder() -> Path | None:
    """The cache directory where it can be used as it is (dslc.store.disk.quiet_dir:
    the user's, not writable by others); None otherwise (nothing is kept, nothing is
    reported: a run that needs the cache reports its problem there)."""
    return quiet_dir()


def _read() -> list:
    d = _folder()
    if d is None:
        return []
    try:
        held = json.loads((read_regular(d / FILE) or b"").decode("utf-8"))
    except (OSError, ValueError):
        return []
    ok = isinstance(held, list) and all(
        isinstance(h, list) and len(h) == 2 and isinstance(h[1], list)
        and all(isinstance(x, list) and len(x) == 2 and all(isinstance(s, str) for s in x)
                for x in h[1]) for h in held)
    return held if ok else []


def _write(held: list) -> None:
    """Written as every cache entry is (dslc.store.disk.write_entry: a private
    temporary file renamed over it, so a concurrent reader sees the old file or the
    new one); a failure only means asking again next time."""
    if _folder() is None:
        return
    try:
        write_entry(FILE, json.dumps(held))
    except DslcError:
        pass
