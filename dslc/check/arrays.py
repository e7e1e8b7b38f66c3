"""Arrays of numbers as data: ``const w = [1, 3, 4]`` and ``load(ints, "w.txt")``.

An array is a calling value fixed for the whole run, like a constant or a
matrix, so it is written as a core extension against :mod:`dslc.sdk`: the
checker types ``w[i]`` and ``len(w)`` from its ``TypeSpec``, the interpreter
reads it through ``index_eval`` and the compiled backends through its
``device_array`` (float64, int infinities included) and ``device_index`` (a
bounds-checked read), the same route every extension value takes. Two types
keep the element type static: ``ints`` (64-bit ints and the int infinities)
and ``floats``.

Files hold whitespace-separated numbers (one per line is the common case);
``#`` starts a comment to the end of the line. A malformed number is reported
at its line and column in the data file.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from dslc import sdk
from dslc.errors import DslcError, Span
from dslc import numtext

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
KINDS = ("ints", "floats")


@dataclass(frozen=True, eq=False)
class NumArray:
    """``kind`` is ``ints`` or ``floats``; ``values`` are Python numbers (the int
    infinities are ``float('inf')``, as everywhere in the interpreter)."""

    kind: str
    values: tuple
    name: str = ""
    counted = True  # len(w) in a script statement (lang.script_stats)

    def __len__(self) -> int:
        return len(self.values)

    def device(self) -> np.ndarray:
        return np.asarray(self.values, dtype=np.float64).reshape(len(self.values))

    def __str__(self) -> str:
        return "[" + ", ".join(_show(v) for v in self.values) + "]"


def _show(v) -> str:
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v)


def make_array(values: list, span: Span | None, name: str = "") -> NumArray:
    """An array literal's value: ``ints`` when every element is an int (or an
    infinity), else ``floats`` (the ints widen)."""
    for v in values:
        if isinstance(v, NumArray) or not isinstance(v, (int, float)) or isinstance(v, bool):
            raise DslcError("an array holds numbers only", span)
        if v != v:
            raise DslcError("an array cannot hold NaN", span)
    if all(type(v) is int or math.isinf(v) for v in values):
        for v in values:
            if type(v) is int and not INT_MIN <= v <= INT_MAX:
                raise DslcError(f"integer overflow: {v} does not fit in 64 bits", span)
        return NumArray("ints", tuple(values), name)
    return NumArray("floats", tuple(float(v) for v in values), name)


# ------------------------------------------------------------------ files
_TOKEN = re.compile(r"[^\s#]+|#[^\n]*")
_INT = re.compile(r"[+-]?[0-9]+\Z")
_INF = re.compile(r"[+-]?inf\Z")


def parse_numbers(text: str, kind: str, file: str, name: str = "") -> NumArray:
    """The numbers of a file, each checked; an error names ``file:line:col``."""
    values = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in _TOKEN.finditer(line):
            tok = m.group()
            if tok.startswith("#"):
                break
            values.append(_number(tok, kind, Span(file, lineno, m.start() + 1,
                                                  lineno, m.end() + 1)))
    return NumArray(kind, tuple(values), name)


def _number(tok: str, kind: str, span: Span):
    foreign = numtext.foreign_digit(tok)
    if foreign is not None:
        raise DslcError(numtext.foreign_digit_message(tok, foreign), span)
    if _INF.match(tok):
        return -math.inf if tok.startswith("-") else math.inf
    if _INT.match(tok):
        v = numtext.int_of(tok)
        if v is not None:
            return v if kind == "ints" else float(v)
        if kind == "ints":
            raise DslcError(f"'{numtext.shown(tok)}' does not fit in a 64-bit int", span)
    try:
        v = float(tok)
    except ValueError:
        raise DslcError(f"'{numtext.shown(tok)}' is not a number", span,
                        hint="numbers are separated by spaces or newlines; '#' starts a comment"
                        ) from None
    if v != v:
        raise DslcError(f"'{tok}' is not a number", span)
    if kind == "ints":
        raise DslcError(f"'{numtext.shown(tok)}' is not an int", span,
                        hint="load(floats, file) reads real numbers")
    if math.isinf(v) and "inf" not in tok.lower():
        raise DslcError(f"'{numtext.shown(tok)}' is too large for a float", span,
                        hint="write inf for an infinity")
    return v


def _load(kind: str):
    def load(arg, path, span, ctx):
        if arg is not None:
            raise DslcError(f"load({kind}, file) takes no [...]", span)
        text = sdk.read_text(path, span, f"{kind} file")
        return parse_numbers(text, kind, path)
    return load


# ------------------------------------------------------------------ the types
def element(a: NumArray, k):
    """``a[k]``, or the error that names the array and its positions."""
    if type(k) is not int or not 0 <= k < len(a.values):
        where = f" '{a.name}'" if a.name else ""
        raise DslcError(f"index {_show(k)} is outside the array{where} "
                        f"(positions 0..{len(a.values) - 1})")
    return a.values[k]


def _spec(kind: str) -> sdk.TypeSpec:
    value = sdk.INT if kind == "ints" else sdk.FLOAT
    return sdk.TypeSpec(
        name=kind, role="calling",
        index_keys=lambda t: (sdk.INT,), index_value=lambda t: value, index_eval=element,
        accepts=lambda v: isinstance(v, NumArray) and v.kind == kind,
        device_array=NumArray.device,
        device_index=sdk.VALUE[sdk.checked(sdk.key(0), sdk.VALUE.len)],
        doc=f"an array of {'ints' if kind == 'ints' else 'floats'}; w[i], len(w)")


extension = sdk.Extension(
    name="arrays",
    types=tuple(_spec(k) for k in KINDS),
    loaders=tuple(sdk.LoaderSpec(k, _load(k), lambda arg, alpha, k=k: sdk.ExtT(k))
                  for k in KINDS),
)
