"""The one key of every cache entry that dslc derives from its inputs.

Whatever dslc keeps between runs (a plan and the module it names, a CUDA map's
kernel, a compiled traceback walk, a parsed script) is named by :func:`key`, which
folds in, besides the caller's own inputs:

* the whole installed compiler: every ``.py``, ``.lark`` and ``.bio`` file and the
  matrices of the ``dslc`` package, its grammar and standard library, and of the
  bundled ``dslc_extensions`` package (:func:`package_digest`). Any module can change
  what code is generated (the checker inserts coercions, the front end shapes the
  tree, a backend prints the kernel), so an upgrade or a local edit of any of them
  must never meet an entry made by another compiler; the version number does not
  move with every change, the files do;
* the target the entry is for (``cpu``, ``cuda``, ``parse``...), so two caches never
  share a name;
* the :class:`~dslc.options.CompileOptions` the entry was made under (``options``,
  which every caller names: None only where no option can change the entry, as for a
  parsed script). The options are built once from the settings where work enters dslc,
  so this module reads no setting itself.

What an extension contributes to code is its registry's compiled forms
(:func:`extensions_digest`), folded in by callers that compile a program.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
from pathlib import Path

FORMAT = 1  # of the key's text: bumped when what it folds changes shape
# the packages whose files make up the compiler; a missing one (dslc_extensions in a
# checkout without it) adds nothing
_PACKAGES = ("dslc", "dslc.grammar", "dslc.stdlib", "dslc_extensions")
_SUFFIXES = (".py", ".lark", ".bio")
_DATA_FOLDERS = ("matrices",)  # every file in these is data that shapes code


def key(target: str, *parts, options) -> str:
    """The name (32 hex digits) of an entry for ``target`` made from ``parts`` under
    ``options`` (a CompileOptions, or None; every ``repr`` must be stable between
    processes: no sets, no ids)."""
    text = repr((FORMAT, target, package_digest(), options, parts))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@functools.cache
def package_digest() -> str:
    """A SHA-256 over the compiler's files, each as (package, relative path, bytes),
    in a fixed order: computed once per process (about 1.5 MB read, some ms)."""
    h = hashlib.sha256()
    for label, path in _files():
        h.update(f"{label}\0{path.stat().st_size}\0".encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _files() -> list[tuple[str, Path]]:
    """(label, path) of each file of the compiler, sorted by label; a file reached
    from two packages (the grammar inside ``dslc`` when installed) once."""
    seen: dict[Path, str] = {}
    for package in _PACKAGES:
        for root in _roots(package):
            for path in _walk(root):
                seen.setdefault(path, f"{package}/{path.relative_to(root).as_posix()}")
    return sorted(((label, path) for path, label in seen.items()), key=lambda lp: lp[0])


def _roots(package: str) -> list[Path]:
    """The folders of ``package`` as installed, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p).resolve() for p in spec.submodule_search_locations]


def _walk(root: Path):
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        data = Path(folder).name in _DATA_FOLDERS
        for name in names:
            if data or name.endswith(_SUFFIXES):
                yield Path(folder, name)


def extensions_digest(registry) -> str:
    """What of the installed extensions shapes generated code: each accessor's
    compiled form and bounds, each type's role, layout arrays (names, placement)
    and compiled size and index. An extension author who edits a compiled form
    gets new code, not a plan cached from the old one (its package's files count
    only where they are the bundled ``dslc_extensions``)."""
    parts = [("accessor", k, repr(a.device), repr(a.bounds))
             for k, a in sorted(registry.accessors.items(), key=lambda kv: str(kv[0]))]
    parts += [("type", name, t.role, t.bracket, t.size is not None,
               repr(t.layout.arrays) if t.layout is not None else None,
               repr(t.device_size), repr(t.device_index), t.device_array is not None)
              for name, t in sorted(registry.types.items())]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def program_key(target: str, program, *parts, options) -> str:
    """:func:`key` of an entry compiled from ``program`` under ``options``: its tree,
    its constants and the compiled forms of the extensions its registry holds, with
    ``parts``."""
    return key(target, program.ast, sorted(program.consts.items()),
               extensions_digest(program.registry), *parts, options=options)
