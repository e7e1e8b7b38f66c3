"""A parsed program as JSON, so that a run of a script parsed before needs no parser.

Building the parser imports lark (and the ``regex`` module where it is installed) and
makes its LALR tables: about 8 MB of a bare process (4 MB of a CPU search's peak) and
tens of milliseconds, in every ``dslc run``, for a script whose text has not changed
since its last run. The run keeps the program it parsed (dslc.runtime.parsed, in the
cache directory) in the form made here, and reads it back instead of parsing where the
text, the source's name and the compiler (dslc.store.key) are the same.

The form is generic over the AST's frozen dataclasses (:mod:`dslc.frontend.ast`, and
:class:`dslc.errors.Span`): a node is an object naming its class by ``"@"`` with one
member per field, a tuple is a list, and every other value is a JSON scalar (ints stay
ints and floats floats: ``1`` and ``1.0`` are kept apart, infinities as JSON's
``Infinity``). Reading accepts only those classes and their own fields; anything else
(an edited entry, one from another version) is None, and the caller parses. JSON is
nested as deep as the program, so a program nested deeper than :data:`MAX_DEPTH` is not
kept (it is parsed each time, on dslc.deep's large stack).
"""

from __future__ import annotations

import dataclasses
import json

from dslc.errors import SourceName, Span
from dslc.frontend import ast

FORMAT = 1
MAX_DEPTH = 120  # parse-tree depth kept (JSON's reader and writer recurse per level)

_CLASSES = {c.__name__: c for c in vars(ast).values()
            if isinstance(c, type) and dataclasses.is_dataclass(c)
            and c.__module__ == ast.__name__} | {"Span": Span}
_NAMES = {"Span": ("file",), "Program": ("source_name",)}  # fields naming the source
_FIELDS = {name: frozenset(f.name for f in dataclasses.fields(c)) for name, c in _CLASSES.items()}


def dumps(program: ast.Program) -> str | None:
    """``program`` as JSON text; None where it is nested too deep to keep."""
    if program.depth > MAX_DEPTH:
        return None
    return json.dumps(_encode(program), separators=(",", ":"))


def loads(text: str, name: SourceName | str) -> ast.Program | None:
    """The program :func:`dumps` wrote, its spans naming ``name`` (the registered
    source, which carries the text its errors quote); None where ``text`` is not
    such a program."""
    try:
        got = _decode(json.loads(text), name)
    except (ValueError, TypeError, KeyError, RecursionError):
        return None
    return got if isinstance(got, ast.Program) else None


def _encode(x):
    if dataclasses.is_dataclass(x):
        out = {"@": type(x).__name__}
        for f in dataclasses.fields(x):
            out[f.name] = _encode(getattr(x, f.name))
        return out
    if isinstance(x, tuple):
        return [_encode(v) for v in x]
    if isinstance(x, str):
        return str(x)  # (a SourceName as its plain name)
    if x is None or type(x) in (bool, int, float):
        return x
    raise TypeError(f"an AST field holds a {type(x).__name__}")


def _decode(x, name):
    if isinstance(x, list):
        return tuple(_decode(v, name) for v in x)
    if isinstance(x, dict):
        kind = x.pop("@")
        cls = _CLASSES[kind]
        if not set(x) <= _FIELDS[kind]:
            raise KeyError(kind)
        fields = {k: _decode(v, name) for k, v in x.items()}
        for key in _NAMES.get(kind, ()):
            if fields.get(key) == name:
                fields[key] = name  # (the registered name, which carries the text)
        return cls(**fields)
    if x is None or type(x) in (bool, int, float, str):
        return x
    raise TypeError(type(x).__name__)
