"""Where a ``dslc run`` process's memory goes: the run in this process, with chosen
functions wrapped so that each call prints the process's resident memory and its
high-water mark (``VmRSS``, ``VmHWM`` of /proc/self/status, Linux) on entry and exit.

    python benchmarks/memory_stages.py --wrap dslc.lang.fasta:read_fasta \\
        --wrap dslc.cpu.packs:PackRunner.run --wrap dslc.cli:_write_pieces \\
        -- run --backend cpu search.bio > /dev/null

Each ``--wrap`` is ``module:function`` or ``module:Class.method``. The run's own output
goes to standard output; the figures to standard error, then one line at the end. The
figures are the whole process's (what ``ru_maxrss`` of a child reports), so a step's
cost is the difference between its lines: used for docs/benchmarks.md's tables of a CPU
search's peak.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import sys


def memory() -> str:
    """``rss`` and ``hwm`` of this process, in MB."""
    with open("/proc/self/status") as fh:
        fields = dict(line.split(":", 1) for line in fh)
    mb = [int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM")]
    return f"rss {mb[0]:7.1f}  hwm {mb[1]:7.1f}"


def wrap(spec: str) -> None:
    """Replace ``module:qualified.name`` by a function that prints :func:`memory`
    around each call of it."""
    module, qual = spec.split(":")
    owner = importlib.import_module(module)
    *path, name = qual.split(".")
    for part in path:
        owner = getattr(owner, part)
    inner = getattr(owner, name)

    @functools.wraps(inner)
    def timed(*args, **kwargs):
        print(f"> {qual:32s} {memory()}", file=sys.stderr)
        try:
            return inner(*args, **kwargs)
        finally:
            print(f"< {qual:32s} {memory()}", file=sys.stderr)
    setattr(owner, name, timed)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wrap", action="append", default=[])
    ap.add_argument("dslc_args", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    import dslc.cli

    for spec in args.wrap:
        wrap(spec)
    rest = args.dslc_args[1:] if args.dslc_args[:1] == ["--"] else args.dslc_args
    sys.argv = ["dslc", *rest]
    try:
        return dslc.cli.main()
    finally:
        print(f"end {memory()}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
