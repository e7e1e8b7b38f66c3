"""Binding script values to function parameters.

Every backend receives arguments through here, so the conversions are the
same everywhere: a string literal becomes a sequence of the parameter's
alphabet (validated when first used), numbers widen to floats or move into
log space, and a model value is checked against the alphabet its parameter
names.
"""

from __future__ import annotations

import math


from dslc.check import links
from dslc.lang import types as T
from dslc.errors import DslcError
from dslc.lang.arith import to_log
from dslc.interp.tables import check_point
from dslc.check import words
from dslc.lang.results import Prob
from dslc.lang.sequences import as_sequence, describe
from dslc.lang.values import Alphabet, Sequence


def bind_value(value, t: T.Type, program, span, siblings=None, what="argument"):
    """One script value as a parameter of type ``t`` (see the module doc)."""
    if isinstance(t, T.SeqT):
        return as_sequence(value, t, program, span, siblings, what)
    if isinstance(value, Prob) and t != T.PROB:
        raise DslcError(f"{what} expects {t}, got a probability", span)
    if t == T.PROB:
        if isinstance(value, Prob):
            return value.log
        return to_log(_number(value, what, span), span)
    if t == T.FLOAT:
        return float(_number(value, what, span))
    if t == T.BOOL:
        if not isinstance(value, bool):
            raise DslcError(f"{what} expects a bool, got {describe(value)}", span)
        return value
    if t == T.INT or isinstance(t, T.IndexT):
        v = _number(value, what, span)
        if isinstance(v, float) and not math.isinf(v):
            if not v.is_integer() or isinstance(t, T.IndexT):
                raise DslcError(f"{what} expects an int, got {v}", span)
            v = int(v)
        return v
    if isinstance(t, T.SymT):
        if isinstance(value, str) and t.alpha.kind == "named":
            return program.alphabets[t.alpha.name].code(value, span)
        return value
    if isinstance(t, T.ExtT) and t.name == words.SEQS:
        return _ext_value(words.bind(value, t, program, span, what), t, program, span, what)
    if isinstance(t, T.ExtT):
        return _ext_value(value, t, program, span, what)
    if isinstance(t, T.TupleT):
        return _tuple_value(value, t, program, span, what)
    return value


def _tuple_value(value, t: T.TupleT, program, span, what):
    """A tuple from Python (a script has none to pass): as many components as the
    type, each bound as its number type (an int component takes no 2.5)."""
    if not isinstance(value, tuple) or len(value) != len(t.items):
        raise DslcError(f"{what} expects a {t}, got {describe(value)}", span)
    return tuple(bind_value(v, c, program, span, what=f"component {k} of {what}")
                 for k, (v, c) in enumerate(zip(value, t.items)))


def _ext_value(value, t: T.ExtT, program, span, what):
    spec = program.registry.types[t.name]
    if spec.accepts is not None and not spec.accepts(value):
        raise DslcError(f"{what} expects a {t.name}, got {describe(value)}", span)
    if t.alpha is not None and t.alpha.kind == "named" and spec.alphabet is not None:
        have, want = spec.alphabet(value), program.alphabets[t.alpha.name]
        if have.symbols != want.symbols:
            raise DslcError(f"{what} expects a {t.name} over '{want.name}', got one over "
                            f"'{have.name}'", span)
    return value


def _number(value, what, span):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DslcError(f"{what} expects a number, got {describe(value)}", span)
    return value


def bind_call(tf, values: list, program, span) -> dict:
    """Arguments of a call from the script, bound in parameter order."""
    raw = dict(zip((p.name for p in tf.params), values))
    out = {}
    for p, v in zip(tf.params, values):
        out[p.name] = bind_value(v, p.type, program, span, raw,
                                 what=f"argument '{p.name}' of {tf.name}")
    check_index_args(tf, out, span)
    check_links(tf, out, program, span)
    return out


def check_index_args(tf, bound: dict, span) -> None:
    """Every ``index[s]`` argument the script gives a function that has no
    table lies in ``0..len(s)``, on every backend since all bind here: checked
    as a recursive call's arguments are (a table function's own are checked by
    its table, which knows its extents)."""
    params = [p for p in tf.params if isinstance(p.type, T.IndexT)
              and not (tf.is_table and p.recursive)
              and p.name in bound and isinstance(bound.get(p.type.seq), Sequence)]
    if not params:
        return
    shown = tuple(_shown(bound[p.name], p.type) for p in tf.params if p.name in bound)
    check_point("index argument", [p.name for p in params], tuple(bound[p.name] for p in params),
                tuple(len(bound[p.type.seq]) for p in params), span,
                f"{tf.name}(...)", shown)


def _shown(v, t: T.Type):
    """An argument as an error message shows it: a sequence by its name, a
    number as given (a ``prob`` is bound in log space: not shown)."""
    if isinstance(v, Sequence):
        return v.name
    if t == T.INT or t == T.FLOAT or isinstance(t, T.IndexT):
        return v
    return "..."


_LINKS: dict[tuple[int, str], tuple] = {}


def check_links(tf, bound: dict, program, span, spans: dict | None = None) -> None:
    """The alphabets of bound arguments against the links of ``tf`` (check.links):
    a protein matrix indexed with DNA symbols is refused here when the script's
    types could not tell (``spans``: a span per parameter, for a map's operands)."""
    key = (id(program.functions), tf.name)
    found = _LINKS.get(key)
    if found is None or found[0] is not program.functions:
        if len(_LINKS) > 256:
            _LINKS.clear()
        found = _LINKS[key] = (program.functions, links.of(program.functions, tf.name))
    for link in found[1]:
        p, ref = link
        if ref.kind == "owner":
            _check_owner(tf, p, ref.name, bound, program, (spans or {}).get(p, span))
            continue
        have = value_alphabet(bound.get(p), program)
        want = (program.alphabets.get(ref.name) if ref.kind == "named"
                else value_alphabet(bound.get(ref.name), program))
        if have is None or want is None or have is want or have.symbols == want.symbols:
            continue
        at = (spans or {}).get(p, span)
        raise DslcError(links.message(tf.name, link, have.name, want.name), at)


def _check_owner(tf, p: str, model: str, bound: dict, program, span) -> None:
    """Parameter ``p``, indexed with elements of parameter ``model`` (check.links),
    against the model value bound with it: the type's ``fits_owner`` says whether
    it fits (a column matched to the leaves of another tree does not)."""
    value, owner = bound.get(p), bound.get(model)
    if value is None or owner is None:
        return
    for spec in program.registry.types.values():
        if spec.fits_owner is not None and spec.accepts is not None and spec.accepts(value):
            why = spec.fits_owner(value, owner)
            if why is not None:
                raise DslcError(f"argument '{p}' of {tf.name} is indexed with elements of "
                                f"'{model}', but {why}", span)
            return


_ALPHABETS: dict[int, tuple] = {}  # id -> (value kept alive, its alphabet): a map's tasks share


def value_alphabet(value, program) -> Alphabet | None:
    """The alphabet a bound value carries (a sequence's, a matrix's), if any."""
    if isinstance(value, Sequence):
        return value.alphabet
    if value is None or isinstance(value, (bool, int, float, str)):
        return None
    hit = _ALPHABETS.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    found = None
    for spec in program.registry.types.values():
        if spec.alphabet is not None and spec.accepts is not None and spec.accepts(value):
            found = spec.alphabet(value)
            break
    if len(_ALPHABETS) > 256:
        _ALPHABETS.clear()
    _ALPHABETS[id(value)] = (value, found)
    return found
