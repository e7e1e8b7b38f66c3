"""A map's generated kernel kept on disk, so that a second run generates nothing.

Numba-CUDA keeps the compiled kernel beside its module (dslc.emit.cuda), but the
module's text still had to be made first in every process: the register-tiled
generator took 0.4 s of a 3.6 s run of one query against a million proteins on
an H200, a tenth of the whole run, to print the same text again. What the CUDA
backend generates for a map (:class:`~dslc.cuda.backend.Kernel` without its
plan: the source, the task's arguments, the storage, the value type, the launch
shape and the decision that chose them) is stored here after it is made, and a
later process with the same key takes it instead of running a generator.

The key is the backend's own memo key for the kernel (entry, kind, request,
shared arguments, argument shapes, value type, task layout, block) folded with
what every plan's key holds (dslc.store.key: the program, the extensions'
compiled forms, every setting that changes code and the whole installed
compiler's files), so an edited program, extension or dslc never meets a kernel
made before.

Entries are pickles (the records are frozen dataclasses of the kernel IR and the
loop IR), written as every cache entry is (dslc.store.disk.write_entry: a private
temporary file renamed over the entry, the size cap enforced), with a checksum
over the key and their bytes: a file that is truncated, edited or cannot be read
is ignored and the kernel generated again. The cache directory is the user's
own, as Numba's pickled kernels beside it are; ``dslc cache info`` and ``clear``
count and remove these entries as they do plans (dslc.store.entries).
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

FORMAT = 1


def key_of(program, func: str, memo: tuple, options) -> str:
    """The file key of the kernel the backend memoises under ``memo``, compiled under
    the CompileOptions ``options``."""
    from dslc.cpu import modules

    text = repr((FORMAT, _canonical(memo)))
    return modules.plan_key(program, func, "cuda-kernel", text, {}, target="cuda",
                            options=options)


def _canonical(x):
    """``x`` with its sets and dicts in a fixed order (a set's order changes from one
    process to the next with string hashing, and the key must not)."""
    if isinstance(x, (set, frozenset)):
        return ("set",) + tuple(sorted((_canonical(v) for v in x), key=repr))
    if isinstance(x, dict):
        return ("dict",) + tuple(sorted(((repr(k), _canonical(v)) for k, v in x.items())))
    if isinstance(x, (tuple, list)):
        return tuple(_canonical(v) for v in x)
    return x


def _path(key: str) -> Path:
    from dslc.store.disk import cache_dir

    return cache_dir() / f"cuda_kernel_{key}.pickle"


def load(key: str) -> dict | None:
    """The fields stored under ``key``, or None (none, not whole, or not a regular
    file: dslc.store.disk.read_entry_bytes)."""
    from dslc.store.disk import read_entry_bytes

    try:
        data = read_entry_bytes(_path(key).name)
        if data is None:
            return None
        check, body = data[:64].decode("ascii"), data[64:]
        if check != hashlib.sha256(key.encode() + body).hexdigest():
            return None
        fields = pickle.loads(body)
        return fields if isinstance(fields, dict) and fields.get("format") == FORMAT else None
    except (OSError, ValueError, pickle.UnpicklingError, EOFError, AttributeError,
            ImportError, TypeError, IndexError):
        return None


def store(key: str, fields: dict) -> None:
    """Keep ``fields`` under ``key`` (a cache that cannot be written is skipped:
    the next run generates the kernel again)."""
    from dslc.errors import DslcError
    from dslc.store.disk import write_entry

    try:
        body = pickle.dumps({**fields, "format": FORMAT}, protocol=pickle.HIGHEST_PROTOCOL)
        write_entry(_path(key).name,
                    hashlib.sha256(key.encode() + body).hexdigest().encode() + body)
    except (OSError, DslcError, pickle.PicklingError, TypeError, AttributeError):
        return
