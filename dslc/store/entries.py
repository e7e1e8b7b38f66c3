"""dslc's entries in a cache directory, grouped as they are used, and the size
cap that removes the least recently used groups (docs/robustness.md, "The
cache's size cap").

An entry is recognised by its name only (anything else a user keeps in the
directory is never counted or removed). Entries are grouped as a run needs them
together: a module ``dslc_<digest>.py``, Numba's index and machine code compiled
from it (``__pycache__/dslc_<digest>.*``) and every plan naming it are one group,
removed together, so eviction never leaves a plan whose module is gone (that
would only cost a recompile, but also the plan's disk space for nothing).

This module imports nothing of the cache's own but dslc.store.files (dslc.store.disk
imports it), so the writer and ``dslc cache`` share one scan.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from dslc.store.files import read_regular

DIGEST = 24  # hex digits of SHA-256 naming a module entry
HEX = f"[0-9a-f]{{{DIGEST}}}"
TMP = "unfinished writes"
NUMBA_DIR = "__pycache__"
# (sort, pattern) for the top directory and Numba's __pycache__ within it
_TOP = (("modules", re.compile(f"dslc_({HEX})\\.py")),
        ("plans", re.compile("plan_[0-9a-f]+\\.json")),
        ("kernels", re.compile("cuda_kernel_[0-9a-f]+\\.pickle")),  # dslc.cuda.kernel_cache
        ("programs", re.compile("ast_[0-9a-f]+\\.json")),  # dslc.runtime.parsed
        ("index", re.compile("found_extensions\\.json")),  # dslc.discover
        (TMP, re.compile("\\.(dslc_|plan_|cuda_kernel_|ast_|found_extensions).*\\.tmp")))
_NUMBA = (("compiled", re.compile(f"dslc_({HEX})\\..+\\.(nbi|nbc|pyc)")),)
# a group's members are removed in this order: a concurrent run then finds a plan
# without its module, or a module without machine code, at worst: a miss, never an error
_REMOVAL_ORDER = {"plans": 0, "kernels": 0, "programs": 0, "index": 0, "modules": 1,
                  "compiled": 2}


@dataclass(frozen=True)
class Entry:
    path: Path
    sort: str
    size: int
    mtime: float
    used: float  # the later of its access and modification times


@dataclass(frozen=True)
class Group:
    """Entries that are used, and so removed, together: named by their module's
    digest, or by the file's name for a plan that names no module."""

    name: str
    members: tuple[Entry, ...]

    @property
    def size(self) -> int:
        return sum(e.size for e in self.members)

    @property
    def used(self) -> float:
        return max(e.used for e in self.members)


def entries(d: Path) -> list[Entry]:
    """dslc's entries in cache directory ``d``."""
    found = _scan(d, _TOP)
    numba = d / NUMBA_DIR
    if numba.is_dir() and not numba.is_symlink():
        found += _scan(numba, _NUMBA)
    return found


def _scan(d: Path, sorts) -> list[Entry]:
    out = []
    with os.scandir(d) as it:
        for item in it:
            sort = next((k for k, pat in sorts if pat.fullmatch(item.name)), None)
            if sort is None or item.is_dir(follow_symlinks=False):
                continue
            try:
                st = item.stat(follow_symlinks=False)
            except FileNotFoundError:  # removed by another dslc meanwhile
                continue
            out.append(Entry(Path(item.path), sort, st.st_size, st.st_mtime,
                             max(st.st_atime, st.st_mtime)))
    return out


def group_name(name: str, text: str | None = None) -> str:
    """The group of the entry named ``name`` (a file name, or Numba's module name
    ``dslc_generated_<digest>``); ``text``, a plan's JSON, says which module it
    names (read from disk where not given)."""
    for prefix in ("dslc_generated_", "dslc_"):
        digest = name.removeprefix(prefix)[:DIGEST]
        if name.startswith(prefix) and re.fullmatch(HEX, digest):
            return digest
    return _plan_module(text) or name


def _plan_module(text: str | None) -> str | None:
    """The module digest a plan's JSON names, or None (none, or unreadable)."""
    if text is None:
        return None
    with contextlib.suppress(ValueError, KeyError, TypeError, AttributeError):
        source = json.loads(text)["plan"]["source"]
        if isinstance(source, str) and re.fullmatch(HEX, source):
            return source
    return None


def _read(path: Path) -> str | None:
    """A plan's text, where it is a regular file (a FIFO never blocks the scan)."""
    data = read_regular(path)
    try:
        return None if data is None else data.decode()
    except UnicodeDecodeError:
        return None


def groups(found: list[Entry]) -> list[Group]:
    """``found`` (but unfinished writes, which belong to the run writing them)
    in groups."""
    by_name: dict[str, list[Entry]] = {}
    for e in found:
        if e.sort == TMP:
            continue
        text = _read(e.path) if e.sort == "plans" else None
        by_name.setdefault(group_name(e.path.name, text), []).append(e)
    return [Group(name, tuple(members)) for name, members in by_name.items()]


def evict(d: Path, cap: int, keep: str) -> int:
    """Remove the least recently used groups of ``d`` until dslc's entries take at
    most ``cap`` bytes, never group ``keep`` (the one just written: a cap smaller
    than one group keeps that group alone). The bytes removed."""
    found = entries(d)
    excess = sum(e.size for e in found) - cap
    if excess <= 0:
        return 0
    removed = 0
    for g in sorted(groups(found), key=lambda g: g.used):
        if removed >= excess:
            break
        if g.name != keep:
            removed += remove(sorted(g.members, key=lambda e: _REMOVAL_ORDER[e.sort]))
    return removed


def remove(found) -> int:
    """Unlink each entry (a link as a link, never followed); the bytes removed.
    One removed or replaced by another dslc meanwhile is skipped."""
    removed = 0
    for e in found:
        try:
            os.unlink(e.path)
            removed += e.size
        except FileNotFoundError:
            pass
    return removed
