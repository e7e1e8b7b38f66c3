"""The ``dslc`` command.

Every user mistake becomes one ``file:line:col: error: ...`` message with the
source line and a caret, and exit status 2; a Python traceback means a bug in
dslc.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys

import dslc
from dslc import backends, deep, runlog, settings
from dslc.api import Script
from dslc.errors import DslcError, write_user_file


class _Parser(argparse.ArgumentParser):
    """argparse with exit status 2 and our message style for usage errors, and no
    abbreviated options: ``--set`` is its own option, never taken for ``--setting``
    where a command has no ``--set`` (the subcommands' parsers are of this class)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(2)


def _defines(items: list[str] | None) -> dict:
    from dslc.check.consteval import parse_define_value

    out = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not eq or not name.isidentifier():
            raise DslcError(f"-D expects name=value, got '{item}'")
        out[name] = parse_define_value(value)
    return out


_VERBOSE = "report on stderr which backend ran each call and map, and what was compiled"


def _script_args(cmd: argparse.ArgumentParser) -> None:
    """A script is a file; its text given directly needs the explicit flag, so a
    mistyped file name is never run as source code. ``-v`` is taken after the
    subcommand too (``dslc run -v x.bio``); SUPPRESS keeps a ``-v`` given before
    it from being reset."""
    cmd.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                     help=_VERBOSE)
    cmd.add_argument("file", nargs="?", help="the .bio script")
    cmd.add_argument("-c", "--source", metavar="TEXT",
                     help="the script's text itself, instead of a file")
    cmd.add_argument("--setting", dest="settings", action="append", metavar="DSLC_NAME=VALUE",
                     help="a DSLC_* setting for this run, over the environment's")


def _script(args) -> Script:
    if (args.file is None) == (args.source is None):
        raise DslcError(f"dslc {args.command} takes a script file or -c TEXT"
                        + (", not both" if args.file is not None else ""))
    return Script.file(args.file) if args.source is None else Script.source(args.source)


def _hit_args(run: argparse.ArgumentParser) -> None:
    """How hit tables are shaped and laid out (dslc.runtime.hits), for --format tsv
    and jsonl."""
    run.add_argument("--sort", metavar="COLUMN",
                     help="order the whole table by COLUMN, best first (E-values smallest "
                          "first, scores largest); default: by query, then E-value")
    run.add_argument("--top", type=_whole, metavar="N",
                     help="keep the N best rows of each query (by E-value, else score)")
    run.add_argument("--top-total", type=_whole, metavar="N",
                     help="keep the N best rows of the whole table")
    run.add_argument("--min-score", type=_number, metavar="S", help="keep rows scoring at least S")
    run.add_argument("--max-evalue", type=_number, metavar="E",
                     help="keep rows with an E-value of at most E")
    run.add_argument("--columns", metavar="LIST",
                     help="the columns, comma-separated: BLAST's (qseqid sseqid pident length "
                          "mismatch gapopen qstart qend sstart send evalue bitscore qlen slen "
                          "...), the table's own, or the presets blast (BLAST's tabular "
                          "output, no header) and hmmer (target query evalue bitscore)")
    run.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                     help="the TSV header line (default: yes, but not for --columns blast)")
    run.add_argument("--align", action="store_true",
                     help="add each printed row's alignment (its task traced again)")


def _number_text(text: str) -> int | float:
    """A number option read as ``-D`` reads one (ASCII digits, no NaN, no int past
    64 bits, no float overflowing to infinity: dslc.numtext), not by Python's
    ``int()``/``float()``, which take '１２'; a bad one is argparse's usage error."""
    from dslc.check.consteval import parse_define_value

    try:
        return parse_define_value(text, "value")
    except DslcError as e:
        raise argparse.ArgumentTypeError(e.message) from None


def _number(text: str) -> float:
    return float(_number_text(text))


def _whole(text: str) -> int:
    value = _number_text(text)
    if type(value) is not int:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    return value


def _shape(args):
    from dslc.runtime.hits import Shape

    columns = None
    if args.columns is not None:
        columns = tuple(c.strip() for c in args.columns.split(","))
        if not all(columns):
            raise DslcError(f"--columns takes names separated by commas, got '{args.columns}'")
    how = Shape(args.sort, args.top, args.min_score, args.max_evalue, args.align,
                args.top_total, columns, args.header)
    if how.active and args.format not in ("tsv", "jsonl"):
        raise DslcError("--sort, --top, --top-total, --min-score, --max-evalue, --columns and "
                        "--align shape hit tables: give --format tsv or --format jsonl")
    if args.header is not None and args.format != "tsv":
        raise DslcError("--header and --no-header are for --format tsv")
    return how


def _set_arg(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--set", dest="params", action="append", metavar="NAME=VALUE",
                     help="set a param of the script (a file path '-' is standard input)")


def _params(items: list[str] | None) -> dict[str, str]:
    """``--set name=value`` as text; the script's param declarations say what
    each must be (dslc.check.params)."""
    out = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not eq or not name.isidentifier():
            raise DslcError(f"--set expects name=value, got '{item}'")
        if name in out:
            raise DslcError(f"--set {name}=... is given twice")
        out[name] = value
    return out


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="dslc", description="Compile and run .bio dynamic-programming scripts.")
    p.add_argument("--version", action="version", version=f"dslc {dslc.__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help=_VERBOSE)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run a script and print its results")
    _script_args(run)
    run.add_argument("--backend", default="auto", choices=backends.names())
    run.add_argument("--format", default="text", choices=["text", "json", "jsonl", "tsv"],
                     help="tsv, jsonl: printed map results as hit tables, a row per task")
    run.add_argument("-D", dest="defines", action="append", metavar="NAME=VALUE",
                     help="override a const of the script")
    _set_arg(run)
    _hit_args(run)
    run.add_argument("--plot", metavar="FILE.png",
                     help="draw the printed values that have a picture (a structure such as "
                          "brackets(trace(...)): an arc plot; a whole table, e.g. posteriors: "
                          "a line per column); several: FILE.NAME.png each (matplotlib)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument("--timings", action="store_true",
                     help="after the run, print on stderr where each call and map spent its "
                          "time (compile, host, compute) and auto's predictions")
    where = run.add_mutually_exclusive_group()
    where.add_argument("--cluster", metavar="ADDRESS",
                       help="run maps on a Dask scheduler's workers (tcp://host:8786), or "
                            "'local' for worker processes started on this host for the run")
    where.add_argument("--gpus", metavar="all|N|0,2",
                       help="run maps on every GPU of this host (or N of them, or those "
                            "listed), one worker per GPU")

    explain = sub.add_parser("explain", help="show dependences, schedules and loop nests")
    _script_args(explain)
    explain.add_argument("--format", default="text", choices=["text", "json"])
    explain.add_argument("--plot", metavar="FILE.png",
                         help="draw a 2-D domain coloured by partition")
    explain.add_argument("--function", help="which function to plot")
    explain.add_argument("--backend", default="cpu", choices=["cpu", "cuda"],
                         help="cuda: also show the GPU strategy, sizes and placements")
    explain.add_argument("-D", dest="defines", action="append", metavar="NAME=VALUE")
    _set_arg(explain)

    comp = sub.add_parser("compile", help="write the code generated for the script's entries")
    _script_args(comp)
    comp.add_argument("--emit", default="python", choices=["python", "kernel"],
                      help="python: the generated modules; kernel: the kernel IR of each "
                           "map's launch (CPU and GPU)")
    comp.add_argument("-o", "--output", help="file to write (default: standard output)")
    comp.add_argument("-D", dest="defines", action="append", metavar="NAME=VALUE")
    _set_arg(comp)

    check = sub.add_parser("check", help="parse and type-check a script without running it")
    _script_args(check)
    check.add_argument("-D", dest="defines", action="append", metavar="NAME=VALUE")

    sub.add_parser("calibrate", help="measure this machine's CPU and GPU speeds for "
                   "--backend auto (again), and show them")

    cache = sub.add_parser("cache", help="show or clear the cache of generated code")
    cache.add_argument("action", choices=["info", "clear"],
                       help="info: path, size and entries; clear: remove every entry")
    return p


def main(argv: list[str] | None = None) -> int:
    from dslc.malloc import one_arena

    one_arena()  # (before any thread starts: a command's threads share one malloc arena)
    args = build_parser().parse_args(argv)
    handler = runlog.enable() if args.verbose else None
    try:
        try:
            code = _dispatch(args)
        except DslcError as e:
            _flush_stdout()
            sys.stderr.write(e.render() + "\n")
            return 2
        _flush_stdout()  # (a full disk found here, not by the interpreter's exit)
        return code
    except _StdoutFailed as e:
        _discard_stdout()
        sys.stderr.write(f"error: cannot write standard output: {e}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:  # output piped into head and the like
        sys.stderr.close()
        return 0
    finally:
        if handler is not None:
            runlog.disable(handler)


class _StdoutFailed(Exception):
    """A write to standard output failed: a full disk (ENOSPC), a closed descriptor
    (``dslc run x.bio >&-``: ``sys.stdout`` is None) and the like; its text is the
    reason. A broken pipe stays a BrokenPipeError (quiet: ``| head``)."""


def _stdout():
    if sys.stdout is None:
        raise _StdoutFailed(os.strerror(errno.EBADF))
    return sys.stdout


def _print(text) -> None:
    """``print(text)``, a failed write one _StdoutFailed."""
    _write_pieces((str(text),))


def _flush_stdout() -> None:
    if sys.stdout is None:
        return  # (nothing was written: a write would have failed first)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _StdoutFailed(e.strerror or str(e)) from None


def _discard_stdout() -> None:
    """After a failed write: point descriptor 1 at the null device, so that the
    interpreter's own flush at exit (of what is still buffered) neither fails again
    nor prints a second message."""
    try:
        fd = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
    except (AttributeError, OSError, ValueError):
        return
    os.dup2(null, fd)
    os.close(null)


def _settings(items: list[str] | None) -> dict[str, str]:
    out = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not eq:
            raise DslcError(f"--setting expects DSLC_NAME=VALUE, got '{item}'")
        out[name.strip()] = value
    return out


def _dispatch(args) -> int:
    settings.use(_settings(getattr(args, "settings", None)))
    settings.check_all()
    if args.command == "cache":
        from dslc.store import tools as cache_tools

        _print(cache_tools.info() if args.action == "info" else cache_tools.clear())
        return 0
    if args.command == "calibrate":
        return _calibrate()
    defines = _defines(args.defines)
    script = _script(args)
    # explain --backend names what to report on, not where to run
    prog = dslc.compile(script, defines, args.backend if args.command == "run" else "auto")
    if args.command in ("run", "explain", "compile"):
        prog.set_params(_params(args.params), from_text=True)
    return deep.run(prog.checked.ast.depth, _act, prog, script, args)


def _act(prog, script: Script, args) -> int:
    from dslc.runtime.render import render_json, text_pieces

    if args.command == "explain":
        return _explain(prog, args)
    if args.command == "compile":
        return _compile(prog, args)
    if args.command == "check":
        n = len(prog.checked.functions)
        _print(f"{script.name}: ok ({n} function{'s' if n != 1 else ''})")
        return 0
    from dslc.runtime import hits

    how = _shape(args)

    def write(printed) -> None:
        if args.format == "json":
            _print(render_json(printed))
        elif args.format in ("tsv", "jsonl") and printed:
            render = hits.render_tsv if args.format == "tsv" else hits.render_jsonl
            _print(render(printed, how))
        elif printed:
            _write_pieces(text_pieces(printed))

    try:
        try:
            printed = prog.run_printed(quiet=args.quiet, cluster=args.cluster, gpus=args.gpus)
        except (DslcError, KeyboardInterrupt):
            # what the print statements before the failing one made is still written
            # (--format json: the object of those values), then the error
            if prog.printed_so_far:
                write(prog.printed_so_far)
            raise
        write(printed)
        if args.plot:
            from dslc.runtime.plots import write_plots

            _flush_stdout()
            for path, name in write_plots(printed, args.plot):
                sys.stderr.write(f"wrote {path} ({name})\n")
    finally:
        if args.timings and prog.last_timings is not None:
            _print_timings(prog.timings_since_run())  # (with the rows' alignments)
    return 0


def _write_pieces(pieces) -> None:
    """``print`` of the pieces' text, written a piece at a time (each encoded alone);
    a failed write is one _StdoutFailed."""
    out = _stdout()
    try:
        for piece in pieces:
            out.write(piece)
        out.write("\n")
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _StdoutFailed(e.strerror or str(e)) from None


def _print_timings(t) -> None:
    """``--timings``: the table on stderr, after the results."""
    import dataclasses

    from dslc import timings

    _flush_stdout()
    t = dataclasses.replace(t, startup_s=timings.startup_seconds(t.started_at))
    sys.stderr.write(t.render() + "\n")


def _calibrate() -> int:
    from dslc import backends, calibrate

    gpu = backends.driver_installed() and backends._available("cuda", real=True)
    _print(calibrate.render(calibrate.load(gpu, fresh=True)))
    return 0


def _explain(prog, args) -> int:
    import json

    from dslc import explain

    if args.function is not None and args.plot is None:
        raise DslcError("--function chooses the function --plot draws; give --plot FILE.png too")
    if args.function is not None and args.function not in prog.functions:
        raise DslcError(f"--function: the script has no function '{args.function}'",
                        hint="functions: " + (", ".join(prog.functions) or "none"))
    done = explain.run(prog)
    rep = explain.report(prog, args.backend, done)
    if args.plot:
        f = explain.plot(prog, rep, args.function, args.plot, done)
        sys.stderr.write(f"wrote {args.plot} (domain of {f})\n")
    _print(json.dumps(rep, indent=2) if args.format == "json" else explain.render_text(rep))
    return 0


def _compile(prog, args) -> int:
    from dslc import explain

    if args.emit == "kernel":
        return _write(explain.kernels(prog), args)
    _, sources, fallbacks, _ = explain.collect(prog)
    text = "\n\n".join(f"# ---- entry {name}\n{src}" for name, src in sources.items())
    for name, why in fallbacks.items():
        text += f"\n# {name}: not compiled, runs on the interpreter ({why})\n"
    return _write(text, args)


def _write(text: str, args) -> int:
    if args.output:
        write_user_file(args.output, text)
    else:
        _print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
