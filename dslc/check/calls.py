"""The order of arguments in a call that passes all of them.

The contract writes a full call as ``f(s, t, 3, 4)``: the calling arguments,
then the recursive ones (``r = f(s, t)`` gives the whole table, adding the
recursive arguments gives one cell). Arguments in declaration order
(``d("kitten", 6, "sitting", 7)``) are accepted too. When both readings fit the
argument types, declaration order wins; the two agree whenever the parameters
are declared calling-first.
"""

from __future__ import annotations

from typing import Callable

from dslc.lang import types as T


def contract_order(params) -> list[int]:
    """Parameter positions in the contract's order: calling first, then recursive."""
    calling = [k for k, p in enumerate(params) if not _rec(p)]
    rec = [k for k, p in enumerate(params) if _rec(p)]
    return calling + rec


def arrange(params, args: list, fits: Callable[[object, T.Type], bool]) -> list:
    """``args`` reordered into declaration order (see the module doc)."""
    types = [_type(p) for p in params]
    if all(fits(a, t) for a, t in zip(args, types)):
        return list(args)
    order = contract_order(params)
    out = [None] * len(args)
    for a, k in zip(args, order):
        out[k] = a
    if all(fits(a, t) for a, t in zip(out, types)):
        return out
    return list(args)  # neither fits: declaration order, so the error names that reading


def static_fits(arg_type, param_type) -> bool:
    """Could a value of static type ``arg_type`` be passed to ``param_type``?"""
    if arg_type is None:
        return True
    if isinstance(param_type, T.SeqT):
        return isinstance(arg_type, (T.SeqT, T.StrT))
    if isinstance(param_type, T.IndexT) or param_type in (T.INT, T.FLOAT, T.PROB):
        return T.is_numeric(arg_type)
    if isinstance(param_type, T.SymT):
        return isinstance(arg_type, T.SymT) or arg_type is _SYM_LITERAL
    if isinstance(param_type, T.ExtT) and param_type.name == "seqs":  # (check.words)
        return isinstance(arg_type, T.ListT) and isinstance(arg_type.elem, T.SeqT) or \
            isinstance(arg_type, T.ExtT) and arg_type.name == param_type.name
    if isinstance(param_type, T.ExtT):
        return isinstance(arg_type, T.ExtT) and arg_type.name == param_type.name
    if param_type == T.BOOL:
        return arg_type == T.BOOL
    return True


_SYM_LITERAL = object()


def value_fits(value, param_type) -> bool:
    """Could the run-time ``value`` be bound to ``param_type``?"""
    import numpy as np

    from dslc.lang.results import Prob
    from dslc.lang.values import Sequence, SeqText

    if isinstance(param_type, T.SeqT):
        return isinstance(value, (str, Sequence, SeqText, np.ndarray))
    if isinstance(param_type, T.IndexT) or param_type in (T.INT, T.FLOAT):
        return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if param_type == T.PROB:
        return isinstance(value, (int, float, Prob)) and not isinstance(value, bool)
    if param_type == T.BOOL:
        return isinstance(value, bool)
    if isinstance(param_type, T.SymT):
        return isinstance(value, (str, int)) and not isinstance(value, bool)
    if isinstance(param_type, T.ExtT) and param_type.name == "seqs":  # (check.words)
        return not isinstance(value, (str, int, float, Sequence, SeqText))
    if isinstance(param_type, T.ExtT):
        return not isinstance(value, (str, int, float, list, Sequence, SeqText))
    return True


def _rec(p) -> bool:
    return p[2] if isinstance(p, tuple) else p.recursive


def _type(p):
    return p[1] if isinstance(p, tuple) else p.type
