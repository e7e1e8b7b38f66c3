"""``import "file.bio"`` and ``import stdlib.hmm``: another file's definitions.

An import is resolved first thing in checking, before any statement is checked
(here rather than in dslc.frontend, which reads no files: finding one needs the
readers and the library's location of dslc.lang): the statement
is replaced by the definitions of the file it names (alphabets, ``define`` blocks,
constants, functions, schedules and its own imports), parsed from that file under
that file's name, so an error in an imported definition is reported at its own
``file:line:col``, and the checker sees one program as if the definitions had
been written at the import. A name defined both by the script and by an imported
file is the checker's "defined twice", naming both places.

* A quoted path is relative to the directory of the file that holds the import
  (a script given as text: the working directory); an absolute path is itself.
* A dotted name ``stdlib.NAME`` is the standard library's ``NAME.bio``.
* A file imported twice (by two files, or twice by one) contributes its
  definitions once, at its first import; a file that imports itself, directly
  or through others, is an import cycle, an error at the import that closes it.
* An imported file holds definitions only: a ``print``, an assignment or a
  ``param`` there is an error at that statement (importing would run it).

Each file is parsed through the ``parse`` given (dslc.runtime.parsed's keeps a
parsed file keyed by that file's own text), so what an importing script's run
depends on is every imported file's current content, read again on every run.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.lang.fasta import read_text

Parse = Callable[[str, str], ast.Program]

# statements that do something when run: an imported file may not hold them
_RUN = {ast.Print: "a print statement", ast.Assign: "an assignment",
        ast.ParamDef: "a script parameter"}


@dataclasses.dataclass(frozen=True)
class _File:
    """One file to import: where to read it, the name its spans and messages
    carry, and its identity (its real path) for cycles and repeats."""

    path: str
    name: str
    key: str


def has_imports(program: ast.Program) -> bool:
    return any(isinstance(st, ast.Import) for st in program.stmts)


def resolve(program: ast.Program, base_dir: str | None, parse: Parse) -> ast.Program:
    """``program`` with every import replaced by the imported definitions.
    ``base_dir``: the directory of the program's file (None: the working
    directory, for a script given as text)."""
    if not has_imports(program):
        return program
    root = os.path.join(base_dir or os.getcwd(), os.path.basename(program.source_name))
    here = _File(root, str(program.source_name),
                 os.path.realpath(root) if base_dir is not None else "<script>")
    seen: set[str] = {here.key}
    depth = [program.depth]
    stmts = _expand(program, here, (here,), seen, parse, depth)
    return dataclasses.replace(program, stmts=tuple(stmts), depth=max(depth))


def _expand(program: ast.Program, here: _File, chain: tuple[_File, ...], seen: set[str],
            parse: Parse, depth: list[int]) -> list:
    out = []
    for st in program.stmts:
        if not isinstance(st, ast.Import):
            if len(chain) > 1 and type(st) in _RUN:
                raise DslcError(f"{_RUN[type(st)]} in an imported file: a file imported "
                                "holds definitions only", st.span,
                                hint=f"{chain[0].name} imports it; move the statement there")
            out.append(st)
            continue
        target = locate(st, here)
        if target.key in (f.key for f in chain):
            raise DslcError("import cycle: " + _cycle(chain, target), st.span,
                            hint="a file cannot import itself, directly or through others")
        if target.key in seen:
            continue
        seen.add(target.key)
        text = read_text(target.path, st.span, "imported file", newlines_only=True)
        sub = parse(text.removeprefix("\ufeff"), target.name)
        depth.append(sub.depth)
        out.extend(_expand(sub, target, chain + (target,), seen, parse, depth))
    return out


def _cycle(chain: tuple[_File, ...], target: _File) -> str:
    """``a.bio imports b.bio, which imports a.bio``."""
    start = [f.key for f in chain].index(target.key)
    names = [f.name for f in chain[start:]] + [target.name]
    return names[0] + " imports " + ", which imports ".join(names[1:])


def locate(st: ast.Import, here: _File) -> _File:
    """The file an import names, or one DslcError at the import."""
    if st.library:
        return _library(st)
    rel = os.path.expanduser(st.target)
    path = os.path.normpath(os.path.join(os.path.dirname(here.path), rel))
    name = rel if os.path.isabs(rel) else os.path.normpath(
        os.path.join(os.path.dirname(here.name), rel))
    return _File(path, name, os.path.realpath(path))


def _library(st: ast.Import) -> _File:
    """``stdlib.NAME``: the standard library's ``NAME.bio``."""
    from dslc.lang.stdlib import stdlib_dir

    parts = st.target.split(".")
    folder = stdlib_dir()
    known = sorted(f"stdlib.{p.name.removesuffix('.bio')}" for p in folder.iterdir()
                   if p.name.endswith(".bio"))
    if parts[0] != "stdlib":
        raise DslcError(f"no library '{parts[0]}': a dotted import names a module of the "
                        "standard library", st.span,
                        hint="the modules are " + ", ".join(known)
                        + '; import a file of your own by its path in quotes: import "x.bio"')
    path = os.path.join(str(folder), *parts[1:-1], parts[-1] + ".bio")
    if not os.path.isfile(path):
        raise DslcError(f"the standard library has no module '{st.target}'", st.span,
                        hint="the modules are " + ", ".join(known))
    return _File(path, _shown(path), os.path.realpath(path))


def _shown(path: str) -> str:
    """A library file's name in messages: relative to the working directory where
    it lies below it (an editor opens it from there), else absolute."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel

