"""Alphabet links: a value's alphabet is part of its type.

A plain ``matrix sm`` (or ``seq[*] x``, a model ``h``) carries its alphabet at
run time. Indexing it with a symbol of a fixed alphabet (``sm[s[i], s[i]]`` with
``seq[dna] s``) or of another value (``seq[*] t``) ties the two together: a
protein matrix read with DNA codes would give numbers with no meaning, and a
DNA matrix read with protein codes reads outside it. The checker records each
tie as a *link* (parameter, alphabet) of its function; a link reaches the
callers that pass their own parameters on. Links are checked where both sides
are known: statically in the script where the arguments' types carry their
alphabets (``blosum62`` is a ``matrix[protein]``), otherwise when a call's or a
map task's arguments are bound (dslc.runtime.binding).

The same machinery ties a value indexed with elements of a model to that model
(``c[u]`` with ``u: node[t]`` ties column ``c`` to tree ``t``): a link
``(c, AlphaRef("owner", "t"))``, for types with a ``fits_owner`` check
(dslc.sdk.TypeSpec), checked only at binding.
"""

from __future__ import annotations

from dslc.check import tir
from dslc.lang import types as T

Link = tuple[str, T.AlphaRef]  # (parameter, the alphabet its value must have)


def direct(key: T.Type, src: T.Type, params: set[str]) -> Link | None:
    """The link made by using a value of type ``src`` where ``key`` (a symbol of
    a parameter's run-time alphabet) is expected; None when there is none."""
    if not (isinstance(key, T.SymT) and isinstance(src, T.SymT)):
        return None
    want, have = key.alpha, src.alpha
    if want.kind != "var" or want.name not in params or have == want or have.kind == "any":
        return None
    return want.name, have


def owner(indexer, base, key: T.Type, params: set[str]) -> Link | None:
    """The tie made by indexing parameter ``base`` (of an extension type with a
    ``fits_owner`` check) with an element of the model held by parameter ``o``
    (``c[u]`` with ``u: node[t]``): ``(base, AlphaRef("owner", o))``, checked when a
    call or map task binds both (dslc.runtime.binding); None when there is none."""
    if indexer is None or getattr(indexer, "fits_owner", None) is None:
        return None
    if not (isinstance(key, T.ExtT) and key.owner in params):
        return None
    if not (isinstance(base, tir.Var) and base.scope == "param" and base.name in params):
        return None
    return base.name, T.AlphaRef("owner", key.owner)


def of(functions: dict[str, tir.TFunction], name: str) -> tuple[Link, ...]:
    """Every link of function ``name``: its own and those of the functions it
    calls, passed through its parameters (functions not checked yet add none)."""
    return _closure(functions, name, frozenset())


def _closure(functions, name, seen) -> tuple[Link, ...]:
    f = functions.get(name)
    if f is None or name in seen:
        return ()
    out = list(f.links)
    own = {p.name for p in f.params}
    for g in f.guards:
        for e in ([g.cond] if g.cond is not None else []) + [g.body]:
            for c in tir.walk(e):
                if isinstance(c, tir.Call):
                    out += _through(functions, c, own, seen | {name})
    return tuple(dict.fromkeys(out))


def _through(functions, call: tir.Call, own: set[str], seen) -> list[Link]:
    """The callee's links seen from the caller: a link on a parameter the caller
    fills with one of its own becomes the caller's."""
    callee = functions.get(call.func)
    if callee is None:
        return []
    args = {p.name: a for p, a in zip(callee.params, call.args)}
    out = []
    for p, ref in _closure(functions, call.func, seen):
        mine = _own_param(args.get(p), own)
        if mine is None:
            continue
        if ref.kind == "owner":  # the model the callee's keys come from: the caller's?
            model = _own_param(args.get(ref.name), own)
            if model is None:
                continue
            ref = T.AlphaRef("owner", model)
        elif ref.kind == "var":
            other = args.get(ref.name)
            alpha = _static_alpha(other.type) if other is not None else None
            if alpha is None or alpha.kind == "any":
                continue
            if alpha.kind == "var":  # the alphabet of another argument of the caller
                if _own_param(other, own) is None:
                    continue
                alpha = T.AlphaRef("var", other.name)
            ref = alpha
        if ref != T.AlphaRef("var", mine):
            out.append((mine, ref))
    return out


def _own_param(e, own: set[str]) -> str | None:
    if isinstance(e, tir.Var) and e.scope == "param" and e.name in own:
        return e.name
    return None


def _static_alpha(t: T.Type) -> T.AlphaRef | None:
    """The alphabet a value of type ``t`` carries (a list's, for its elements)."""
    while isinstance(t, T.ListT):
        t = t.elem
    if isinstance(t, (T.SeqT, T.SymT)):
        return t.alpha
    if isinstance(t, T.ExtT):
        return t.alpha
    return None


def static_mismatch(link: Link, types: dict[str, T.Type]) -> tuple[str, str] | None:
    """For a link and the static types of a call's arguments: (have, want), the
    alphabet names, when they certainly differ; else None."""
    p, ref = link
    if ref.kind == "owner":  # a model, not an alphabet: checked at binding
        return None
    have = _static_alpha(types.get(p)) if types.get(p) is not None else None
    if ref.kind == "var":
        other = types.get(ref.name)
        want = _static_alpha(other) if other is not None else None
    else:
        want = ref
    if have is None or want is None or have.kind != "named" or want.kind != "named":
        return None
    return (have.name, want.name) if have.name != want.name else None


def message(func: str, link: Link, have: str, want: str) -> str:
    p, ref = link
    why = (f"indexes it with symbols of '{want}'" if ref.kind == "named"
           else f"indexes it with symbols of '{ref.name}', which is over '{want}'")
    return f"argument '{p}' of {func} is over alphabet '{have}', but {func} {why}"
