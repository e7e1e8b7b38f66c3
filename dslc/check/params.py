"""Script parameters: ``param NAME [= default]`` declarations and the values a
user passes for them (``dslc run --set NAME=VALUE``, ``Program.run(NAME=...)``).

A parameter's kind is its default's: a string (a file path or text), an int or
a float; one without a default is a string and must be given. Values from the
command line are text and are read as the kind says; values from Python must
already be of the kind (an int for a float is fine, as in a script). Every
mistake is one DslcError: an unknown name, a value of the wrong kind, a
parameter left unset.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from dslc.check.consteval import const_eval, number_value, parse_define_value
from dslc.errors import DslcError, Span
from dslc.frontend import ast
from dslc import numtext

STDIN = "-"  # a file path meaning standard input (FASTA text)


@dataclass(frozen=True)
class ParamSpec:
    """One declared parameter: ``kind`` is ``str``, ``int`` or ``float``."""

    name: str
    kind: str
    default: object  # None: must be given
    span: Span


def declare(st: ast.ParamDef) -> ParamSpec:
    """A declaration's kind and default; the default is a literal string or a
    number (arithmetic on numbers is allowed, names are not)."""
    if st.default is None:
        return ParamSpec(st.name, "str", None, st.span)
    if isinstance(st.default, ast.Str):
        return ParamSpec(st.name, "str", st.default.value, st.span)
    try:
        value = const_eval(st.default, {})
    except DslcError:
        raise DslcError(f"the default of param '{st.name}' must be a string or a number",
                        st.default.span) from None
    if isinstance(value, float) and math.isinf(value):
        return ParamSpec(st.name, "int", value, st.span)  # the int infinity, as a const's
    return ParamSpec(st.name, "float" if isinstance(value, float) else "int", value, st.span)


def resolve(specs: dict[str, ParamSpec], given: dict, from_text: bool) -> dict[str, object]:
    """Every parameter's value: the given one read as its kind, or its default."""
    how = "--set" if from_text else "keyword argument"
    for name in given:
        if name not in specs:
            raise DslcError(f"{how} {name}: the script declares no 'param {name}'",
                            hint="parameters: " + (", ".join(specs) or "none")
                            + ("; -D sets a const" if from_text else ""))
    out = {}
    for name, spec in specs.items():
        if name in given:
            out[name] = _read(spec, given[name]) if from_text else _take(spec, given[name])
        elif spec.default is None:
            example = f"--set {name}=..." if from_text else f"{name}=..."
            raise DslcError(f"param '{name}' has no default and was not given", spec.span,
                            hint=f"give it: {example}")
        else:
            out[name] = spec.default
    return out


def _read(spec: ParamSpec, text: str):
    """A command-line value as the parameter's kind."""
    if spec.kind == "str":
        return text
    why = None
    try:
        value = parse_define_value(text, "the value")
    except DslcError as e:
        value, why = None, e.message  # (a digit outside ASCII, a number past 64 bits, ...)
    if spec.kind == "int" and isinstance(value, float) and not math.isinf(value):
        value = None
    if value is None:
        shown = numtext.shown(text)
        raise DslcError(f"--set {spec.name}={shown}: param '{spec.name}' is {_a(spec.kind)}, "
                        f"and '{shown}' is not", spec.span, hint=why)
    return float(value) if spec.kind == "float" else value


def _take(spec: ParamSpec, v):
    """A Python value as the parameter's kind."""
    if isinstance(v, np.generic):
        v = v.item()
    if spec.kind == "str" and isinstance(v, (str, os.PathLike)):
        return os.fspath(v)
    if spec.kind != "str" and isinstance(v, (int, float)) and not isinstance(v, bool):
        # the number --set would take from text: no NaN, no int beyond 64 bits
        v = number_value(v, f"{spec.name}={v!r}: param '{spec.name}'")
    if spec.kind == "int" and isinstance(v, int) and not isinstance(v, bool):
        return v
    if spec.kind == "float" and isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise DslcError(f"{spec.name}={v!r}: param '{spec.name}' is {_a(spec.kind)}", spec.span)


def _a(kind: str) -> str:
    return {"str": "a string (a file path or text)", "int": "an int", "float": "a number"}[kind]
