"""Script values as sequences: a string, a FASTA record's text or an array of
codes becomes a :class:`Sequence` of the alphabet a parameter names. The
interpreter (a string passed inside a program) and the binding of a script's
arguments convert the same way."""

from __future__ import annotations

import numpy as np

from dslc.errors import DslcError, Span
from dslc.lang import types as T
from dslc.lang.fasta import case_fold
from dslc.lang.records import is_list
from dslc.lang.values import Alphabet, Sequence, SeqText


def as_sequence(value, t: T.SeqT, program, span: Span | None, siblings: dict | None = None,
                what: str = "sequence") -> Sequence:
    if isinstance(value, Sequence):
        if t.alpha.kind == "named":
            want = program.alphabets[t.alpha.name]
            if value.alphabet.symbols != want.symbols:
                raise DslcError(f"sequence '{value.name}' is over alphabet '{value.alphabet.name}', "
                                f"but {what} needs '{want.name}'", span)
        return value
    if isinstance(value, str):
        alpha = _alphabet_for(t, program, siblings, span, what)
        shown = value if len(value) <= 20 else value[:17] + "..."
        return Sequence(f'"{shown}"', alpha, alpha.encode(value, f'sequence "{shown}"', span))
    if isinstance(value, SeqText):
        alpha = _alphabet_for(t, program, siblings, span, what)
        fold = case_fold(alpha)
        text = value.text.translate(str.maketrans(fold)) if fold else value.text
        return Sequence(value.name, alpha, alpha.encode(text, f"sequence {value.name}", span))
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        alpha = _alphabet_for(t, program, siblings, span, what)
        if value.size and (value.min() < 0 or value.max() >= len(alpha)):
            raise DslcError(f"{what}: a code array has values outside 0..{len(alpha) - 1} "
                            f"(alphabet '{alpha.name}')", span)
        return Sequence("<array>", alpha, value.astype(np.uint8))
    if is_list(value):
        raise DslcError(f"{what} takes one sequence, not a list of {len(value)}", span,
                        hint="use map(f, ... (*) list) to run once per sequence")
    raise DslcError(f"{what} needs a sequence, got {describe(value)}", span)


def _alphabet_for(t: T.SeqT, program, siblings, span, what) -> Alphabet:
    if t.alpha.kind == "named":
        return program.alphabets[t.alpha.name]
    # seq[*] given a bare string: take the alphabet of a model argument of the
    # same call (the HMM it is scored against, say).
    for v in (siblings or {}).values():
        alpha = getattr(v, "alphabet", None)
        if isinstance(alpha, Alphabet) and not isinstance(v, Sequence):
            return alpha
    raise DslcError(f"{what} is seq[*] and a bare string has no alphabet", span,
                    hint="load it with load(seq[A], file) or pass it with a model argument")


def describe(value) -> str:
    if isinstance(value, Sequence):
        return f"the sequence '{value.name}'"
    if isinstance(value, str):
        return "a string"
    if is_list(value):
        return f"a list of {len(value)}"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)}"
    return f"a {type(value).__name__.lower()}"
