"""Scripts parsed once: the program a text parses to, kept in the cache directory.

A ``dslc run`` of a script run before reads its program back (dslc.frontend.stored)
instead of building the parser, so the run imports no parser at all (4 MB of a CPU
search's peak, and tens of milliseconds of its start). The entry is named by the key of
every cache (dslc.store.key: the whole installed compiler among it) over the source's
name (its spans name it) and the text; it holds that key and a checksum of the program, and is used only where both still match and it reads back as
a program; the cache's size cap counts and removes it like any entry
(dslc.store.entries). Anything else, including a syntax error, takes the parser's
path, which reports errors as before; only a program that parsed is kept. Where the
cache directory cannot be used the run parses, as it would without this, and says
nothing about the cache (a run that compiles something reports it there).

An entry is one file's program, its ``import`` statements unresolved: the files it
imports are read on every run and each parsed (or read back) through here under its
own text and name (dslc.check.imports), so an edit to an imported file is never
hidden behind the importing script's entry.
"""

from __future__ import annotations

import hashlib

from dslc.errors import DslcError, register_source
from dslc.frontend import stored


def parse(text: str, source_name: str):
    """``dslc.frontend.parser.parse(text, source_name)``, read back where kept."""
    from dslc.store.disk import quiet_dir

    kept = quiet_dir() is not None  # (no usable cache: parsed, and nothing said about it)
    key = _key(text, source_name)
    name = register_source(source_name, text)
    got = _read(key, name) if kept else None
    if got is not None:
        return got
    from dslc.frontend.parser import parse as parse_text

    program = parse_text(text, source_name)
    if kept:
        _write(key, program)
    return program


def _key(text: str, source_name: str) -> str:
    """The entry's name: every cache's key (dslc.store.key, the whole installed
    compiler among it) of the stored form's version, the source's name and the text."""
    from dslc.store.key import key

    return key("parse", stored.FORMAT, str(source_name), text, options=None)  # (no option parses)


def _check(key: str, body: str) -> str:
    return hashlib.sha256(f"{key}\n{body}".encode()).hexdigest()


def _read(key: str, name):
    from dslc.store.disk import read_entry

    text = read_entry(f"ast_{key}.json")  # (its use recorded: the size cap keeps it)
    if text is None:
        return None
    head, _, body = text.partition("\n")
    if head != _check(key, body):
        return None
    return stored.loads(body, name)


def _write(key: str, program) -> None:
    from dslc.store.disk import write_entry

    try:
        body = stored.dumps(program)
    except (TypeError, ValueError, RecursionError):
        return  # (a field the form does not hold: parsed each time)
    if body is None:
        return
    try:
        write_entry(f"ast_{key}.json", f"{_check(key, body)}\n{body}")
    except (OSError, DslcError):
        pass  # (not kept: the next run parses again)
