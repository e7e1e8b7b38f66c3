"""Position-specific scoring matrices, using nothing but the public dslc SDK."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dslc import sdk
from dslc.errors import DslcError, Span


@dataclass(frozen=True, eq=False)
class Pssm:
    name: str
    alphabet: object  # dslc.runtime.values.Alphabet
    scores: np.ndarray  # (positions, symbols)


def parse(name: str, text: str, alphabet, span: Span | None) -> Pssm:
    rows = [(k, ln.split()) for k, ln in enumerate(text.splitlines())
            if ln.split("//")[0].strip() and not ln.strip().startswith("#")]
    if not rows:
        raise DslcError(f"pssm '{name}' is empty", span)
    header = rows[0][1]
    missing = [a for a in alphabet.symbols if a not in header]
    if missing or len(header) != len(alphabet.symbols):
        raise DslcError(f"pssm '{name}': the header must list the symbols of "
                        f"'{alphabet.name}' once each", span)
    cols = [header.index(a) for a in alphabet.symbols]
    scores = []
    for pos, (line, cells) in enumerate(rows[1:]):
        where = None if span is None else Span(span.file, span.line + line, 1)
        if cells[0] != str(pos) or len(cells) != len(header) + 1:
            raise DslcError(f"pssm '{name}': row {pos} must read '{pos}' and "
                            f"{len(header)} scores", where)
        try:
            vals = [float(v) for v in cells[1:]]
        except ValueError:
            raise DslcError(f"pssm '{name}': a score in row {pos} is not a number", where) from None
        scores.append([vals[c] for c in cols])
    return Pssm(name, alphabet, np.array(scores, dtype=np.float64))


def _define(name, args, body, body_span, ctx: sdk.ExtContext) -> Pssm:
    if len(args) != 1:
        raise DslcError(f"define pssm {name}[A] needs one alphabet", body_span)
    return parse(name, body, ctx.alphabet(args[0], body_span), body_span)


def _load(arg, path, span, ctx: sdk.ExtContext) -> Pssm:
    if arg is None:
        raise DslcError("load(pssm[A], file) needs the alphabet", span)
    try:
        with open(path) as fh:
            text = fh.read()
    except OSError as e:
        raise DslcError(f"cannot read pssm file '{path}': {e.strerror}", span) from None
    return parse(path, text, ctx.alphabet(arg, span), span)


def _type(value: Pssm):
    return sdk.ExtT("pssm", alpha=sdk.AlphaRef("named", value.alphabet.name))


def _keys(t):
    return (sdk.INT, sdk.SymT(t.alpha if t.alpha is not None else sdk.AlphaRef("any")))


def _score(p: Pssm, k: int, a: int):
    if not 0 <= k < len(p.scores):
        raise DslcError(f"position {k} is outside pssm '{p.name}' (0..{len(p.scores) - 1})")
    v = p.scores[k, a]
    return int(v) if v == int(v) else float(v)


extension = sdk.Extension(
    name="pssm",
    types=(sdk.TypeSpec(
        name="pssm", role="calling", alphabet=lambda p: p.alphabet,
        index_keys=_keys, index_value=lambda t: sdk.INT, index_eval=_score,
        accepts=lambda v: isinstance(v, Pssm), device_array=lambda p: p.scores,
        doc="a position-specific scoring matrix; p[k, a]"),),
    accessors=(sdk.Accessor("pssm", "length", lambda t: sdk.INT,
                            lambda owner, p: len(p.scores), doc="number of positions"),),
    defines=(sdk.DefineSpec("pssm", _define, _type),),
    loaders=(sdk.LoaderSpec("pssm", _load,
                            lambda arg, alpha: sdk.ExtT("pssm", alpha=sdk.AlphaRef("named", arg))),),
)
