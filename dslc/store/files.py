"""Reading a file of the cache directory as a cache entry: a regular file or nothing.

Anything can stand at an entry's name: a FIFO (whose ``open`` waits for a writer
forever), a link to a device (``/dev/zero`` reads without end), a directory. None of
them is something dslc wrote (it writes regular files and renames them into place),
so each is no entry: the file is opened without following a link and without
blocking (``O_NOFOLLOW | O_NONBLOCK``), and read only where ``fstat`` on what was
opened says it is a regular file, so nothing can be swapped in between the check and
the read. This module imports nothing of the store's own (both the reader and the
size cap's scan use it).
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from pathlib import Path

_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
          | getattr(os, "O_CLOEXEC", 0))


def read_regular(path: Path | str, mark_used: bool = False) -> bytes | None:
    """The bytes of ``path`` where it is a regular file (not a link), else None
    (absent, unreadable, a link, a directory, a FIFO, a device, a socket).
    ``mark_used``: set its access time to now, keeping its modification time to the
    nanosecond (Numba's staleness check reads it): the size cap's record of use,
    independent of mount options such as ``noatime``."""
    try:
        fd = os.open(path, _FLAGS)
    except (OSError, ValueError):  # ELOOP for a link; ValueError: a NUL in the name
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        os.set_blocking(fd, True)  # (a regular file never blocks; reads stay whole)
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read()
        if mark_used:
            with contextlib.suppress(OSError):
                os.utime(fd, ns=(time.time_ns(), st.st_mtime_ns))
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def is_regular(path: Path | str) -> bool:
    """Whether ``path`` is a regular file itself (a link is not); False where absent."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False
