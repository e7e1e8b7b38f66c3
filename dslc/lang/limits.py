"""Size limits on data files and tables, each a ``DSLC_*`` setting.

Hostile or mistaken input (``/dev/zero`` given as a FASTA file, a gzip bomb, a
full table of two chromosomes) must stop with one clear error, not run the
machine out of memory. Every limit here is generous enough for real data
(docs/robustness.md, "Data files and sizes", says how much) and is read through
:func:`dslc.settings.number`, so a bad setting is itself one clear error.
"""

from __future__ import annotations

import os

from dslc import settings
from dslc.errors import DslcError, Span

GIB = 1 << 30

MIB = 1 << 20

LOAD_SETTING = "DSLC_MAX_LOAD_BYTES"
RECORD_SETTING = "DSLC_MAX_RECORD_RESIDUES"
MEMORY_SETTING = "DSLC_MAX_TABLE_BYTES"
SCRIPT_SETTING = "DSLC_MAX_SCRIPT_BYTES"
FIFO_WAIT_SETTING = "DSLC_FIFO_WAIT_SECONDS"

DEFAULT_LOAD_BYTES = 16 * GIB  # a UniProt-sized FASTA file, uncompressed
DEFAULT_RECORD_RESIDUES = 4 * GIB  # beyond the longest assembled chromosomes
# A script is program text, not data: the largest real ones (a substitution matrix or a
# model written inline) are tens of kilobytes. Its own limit, far below the data limit,
# stops a gzipped script that inflates to gigabytes after 4 MiB, not after 16 GiB.
DEFAULT_SCRIPT_BYTES = 4 * MIB
# How long opening a FIFO waits for a program to open it for writing (a plain open
# waits forever): enough for a writer started alongside dslc
DEFAULT_FIFO_WAIT_SECONDS = 10

# What one cell of a whole-table result costs on the host, on any backend: the
# table's own storage (a float64, or an object slot of the interpreter's memo),
# the result's object array slot and the boxed Python number it points to.
TABLE_CELL_BYTES = 48
# What one task of a map costs before it runs: its bound arguments and its slot
# of the result.
MAP_TASK_BYTES = 512


def max_load_bytes() -> int:
    """The most bytes (after decompression) one ``load`` reads from a file."""
    return settings.number(LOAD_SETTING, DEFAULT_LOAD_BYTES)


def max_script_bytes() -> int:
    """The most bytes (after decompression) a script file may hold."""
    return settings.number(SCRIPT_SETTING, DEFAULT_SCRIPT_BYTES)


def max_fifo_wait() -> int:
    """The most seconds opening a FIFO waits for its writer."""
    return settings.number(FIFO_WAIT_SETTING, DEFAULT_FIFO_WAIT_SECONDS)


def max_record_residues() -> int:
    """The most residues one FASTA record may hold."""
    return settings.number(RECORD_SETTING, DEFAULT_RECORD_RESIDUES)


def max_table_bytes() -> int:
    """The most bytes a whole-table result or a map may ask for: the machine's
    physical memory unless the setting says less (or more)."""
    return settings.number(MEMORY_SETTING, physical_memory())


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume a workstation
        return 64 * GIB


def size_text(n: float) -> str:
    """``n`` bytes as a person reads them: ``182.0 TiB``."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} bytes" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def check_fits(needed: int, what: str, span: Span | None, hint: str) -> None:
    """Refuse, before allocating, ``needed`` bytes beyond :func:`max_table_bytes`."""
    limit = max_table_bytes()
    if needed > limit:
        raise DslcError(f"{what} needs about {size_text(needed)}, more than the "
                        f"{size_text(limit)} allowed ({MEMORY_SETTING}, by default the "
                        "machine's physical memory)", span, hint)


def check_map(shape: tuple[int, ...], func: str, span: Span | None) -> None:
    """Refuse a map whose tasks alone (their arguments and results, before any
    runs) exceed :func:`max_table_bytes`, before the tasks are built."""
    tasks = 1
    for n in shape:
        tasks *= n
    check_fits(tasks * MAP_TASK_BYTES, f"map({func}, ...) over {tasks:,} tasks", span,
               "split its lists and run smaller maps")
