"""The substitution-matrix extension, written only against :mod:`dslc.sdk`.

* type ``matrix`` (a calling value; ``matrix[protein]`` fixes its alphabet),
  indexed ``m[a, b]`` by two symbols of its alphabet;
* ``define matrix NAME[A] { grid }`` with the NCBI grid layout;
* ``load(matrix[A], "BLOSUM62.txt")`` for NCBI matrix files.
"""

from __future__ import annotations

import numpy as np

from dslc import sdk
from dslc.sdk import DslcError, Matrix

from . import ncbi


def _matrix_type(value: Matrix) -> sdk.ExtT:
    return sdk.ExtT("matrix", alpha=sdk.AlphaRef("named", value.alphabet.name))


def _keys(t: sdk.ExtT):
    alpha = t.alpha if t.alpha is not None else sdk.AlphaRef("any")
    return (sdk.SymT(alpha), sdk.SymT(alpha))


def _define(name, args, body, body_span, ctx: sdk.ExtContext) -> Matrix:
    if len(args) != 1:
        raise DslcError(f"define matrix {name}[A] needs exactly one alphabet", body_span)
    alphabet = ctx.alphabet(args[0], body_span)
    return ncbi.parse_matrix(body, alphabet, name=name, span=body_span)


def _load(arg, path, span, ctx: sdk.ExtContext) -> Matrix:
    if arg is None:
        raise DslcError("load(matrix[A], file) needs the alphabet, e.g. matrix[protein]", span)
    return ncbi.load_matrix_file(path, ctx.alphabet(arg, span), span)


def _static_type(arg, alphabet):
    return sdk.ExtT("matrix", alpha=sdk.AlphaRef("named", arg) if arg else None)


def _index(m: Matrix, a: int, b: int):
    return m.pyvalues[a][b]


extension = sdk.Extension(
    name="matrix",
    types=(sdk.TypeSpec(
        name="matrix", role="calling", bracket="none",
        alphabet=lambda m: m.alphabet,
        index_keys=_keys, index_value=lambda t: sdk.INT, index_eval=_index,
        accepts=lambda v: isinstance(v, Matrix),
        device_array=lambda m: np.ascontiguousarray(m.values, dtype=np.float64),
        doc="a substitution matrix; m[a, b] by two symbols of its alphabet"),),
    defines=(sdk.DefineSpec("matrix", _define, _matrix_type),),
    loaders=(sdk.LoaderSpec("matrix", _load, _static_type),),
)
