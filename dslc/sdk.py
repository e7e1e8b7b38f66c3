"""The extension SDK: how substitution matrices, HMMs and trees plug into dslc.

An extension is a Python package that exposes an :class:`Extension` under the
entry-point group ``dslc.extensions``. It contributes

* types (:class:`TypeSpec`): *calling* model types (``matrix``, ``hmm``, ``tree``)
  and *recursive* element types (``state[h]``, ``node[t]``) whose values are
  numbered ``0 .. size-1`` and so can be dimensions of a table;
* accessors (:class:`Accessor`): ``x.name`` on a value of one of its types, with
  the static result type and, for the dependence analysis, the range of
  elements the result can take relative to the receiver;
* ``define KIND NAME { ... }`` blocks (:class:`DefineSpec`) and
  ``load(KIND, file)`` loaders (:class:`LoaderSpec`).

The built-in extensions use nothing but this module (and the public value
classes in :mod:`dslc.runtime.values`); so can anyone else's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Callable

from dslc.check import types as T
from dslc.errors import DslcError, Span

# Re-exported for extension authors: the static types an accessor may return.
INT, FLOAT, PROB, BOOL = T.INT, T.FLOAT, T.PROB, T.BOOL
ExtT, SymT, IterT, MapT, AlphaRef = T.ExtT, T.SymT, T.IterT, T.MapT, T.AlphaRef
ListT = T.ListT  # what a loader returning a Python list (of columns, say) declares


def read_text(path: str, span: Span | None, what: str = "file") -> str:
    """For loaders: a text file (gunzipped if gzip), every failure a DslcError
    at ``span`` naming ``what`` and the file."""
    from dslc.runtime.fasta import read_text as read

    return read(path, span, what)


@dataclass(frozen=True)
class Bounds:
    """What the dependence analysis may assume about an accessor's result, in
    terms of the receiver ``r`` (a recursive element): the result lies in
    ``[r + lo, r + hi]`` where an offset of ``None`` means "unbounded on this
    side" (then the element's whole domain is assumed). ``below`` is
    ``Bounds(None, -1)``: children of a post-order node, say."""

    lo: int | None
    hi: int | None


ANY = Bounds(None, None)
BELOW = Bounds(None, -1)


@dataclass(frozen=True)
class TypeSpec:
    """A type an extension adds.

    ``bracket`` says what ``NAME[X]`` holds: ``"alphabet"`` (``column[dna]``),
    ``"owner"`` (``state[h]``: a variable holding the model the elements belong
    to) or ``"none"``. For recursive types ``size(owner_value)`` gives the number
    of elements; for calling types ``alphabet(value)`` the value's alphabet, if
    it has one. ``index`` lets ``x[k, ...]`` work on values of the type:
    ``(keys(type), value(type), evaluate(value, *keys))``.
    """

    name: str
    role: str  # "calling" | "recursive"
    bracket: str = "none"
    size: Callable[[Any], int] | None = None
    alphabet: Callable[[Any], Any] | None = None
    index_keys: Callable[[T.ExtT], tuple[T.Type, ...]] | None = None
    index_value: Callable[[T.ExtT], T.Type] | None = None
    index_eval: Callable[..., Any] | None = None
    accepts: Callable[[Any], bool] | None = None
    device_array: Callable[[Any], Any] | None = None
    doc: str = ""
    # ``device_array(value)`` lays a calling value out for the compiled backends: a
    # numeric numpy array that generated code indexes as ``a[k1, ...]`` exactly where the
    # language writes ``x[k1, ...]`` (probabilities as natural logs).


@dataclass(frozen=True)
class Accessor:
    """``receiver.name``.

    ``result(receiver_type)`` gives the static type; ``evaluate(owner, receiver)``
    the value, where ``owner`` is the model value for a recursive element
    (``h`` for ``s: state[h]``) and ``None`` for a calling value. Iterables are
    returned as sequences of element numbers; tables (``MapT``) as numpy arrays.
    ``bounds`` tells the dependence analysis where an element-valued result can
    lie relative to the receiver.
    """

    on: str
    name: str
    result: Callable[[T.ExtT], T.Type]
    evaluate: Callable[[Any, Any], Any]
    bounds: Bounds = ANY
    doc: str = ""


@dataclass(frozen=True)
class ExtContext:
    """What a define block or loader may ask of the host."""

    alphabets: dict
    source_name: str
    eval_number: Callable[[str, Span, dict], float]  # evaluate a host-language constant expression

    def alphabet(self, name: str, span: Span | None):
        try:
            return self.alphabets[name]
        except KeyError:
            raise DslcError(f"unknown alphabet '{name}'", span) from None


@dataclass(frozen=True)
class DefineSpec:
    """``define KIND NAME[ARGS] { BODY }`` -> a value; ``type_of(value)`` its static type."""

    kind: str
    parse: Callable[[str, tuple, str, Span, ExtContext], Any]
    type_of: Callable[[Any], T.Type]


@dataclass(frozen=True)
class LoaderSpec:
    """``load(KIND[ARG], path)``. ``static_type(arg, alphabet_or_None)`` is known
    without reading the file; ``load(arg, path, span, ctx)`` reads it."""

    kind: str
    load: Callable[[str | None, str, Span, ExtContext], Any]
    static_type: Callable[[str | None, Any], T.Type]


@dataclass(frozen=True)
class Extension:
    name: str
    types: tuple[TypeSpec, ...] = ()
    accessors: tuple[Accessor, ...] = ()
    defines: tuple[DefineSpec, ...] = ()
    loaders: tuple[LoaderSpec, ...] = ()


@dataclass
class Registry:
    """Everything the installed extensions contribute, keyed for lookup; each
    entry remembers which extension gave it so conflicts can be reported."""

    types: dict[str, TypeSpec] = field(default_factory=dict)
    accessors: dict[tuple[str, str], Accessor] = field(default_factory=dict)
    defines: dict[str, DefineSpec] = field(default_factory=dict)
    loaders: dict[str, LoaderSpec] = field(default_factory=dict)
    owners: dict[tuple[str, str], str] = field(default_factory=dict)

    def add(self, ext: Extension) -> None:
        for table, kind, items, key in (
            (self.types, "type", ext.types, lambda x: x.name),
            (self.accessors, "accessor", ext.accessors, lambda x: (x.on, x.name)),
            (self.defines, "define", ext.defines, lambda x: x.kind),
            (self.loaders, "loader", ext.loaders, lambda x: x.kind),
        ):
            for item in items:
                k = key(item)
                if k in table:
                    other = self.owners[(kind, str(k))]
                    raise DslcError(f"extension '{ext.name}' redefines {kind} {k!r} "
                                    f"already provided by extension '{other}'")
                table[k] = item
                self.owners[(kind, str(k))] = ext.name


@functools.cache
def installed_extensions() -> tuple[Extension, ...]:
    """Extensions registered under the ``dslc.extensions`` entry-point group,
    loaded once. A plugin that fails to import is reported by name."""
    found = []
    for ep in sorted(metadata.entry_points(group="dslc.extensions"), key=lambda e: e.name):
        try:
            ext = ep.load()
        except Exception as e:  # a broken plugin is the plugin's fault, reported by name
            raise DslcError(f"extension '{ep.name}' ({ep.value}) failed to load: "
                            f"{type(e).__name__}: {e}") from None
        if callable(ext) and not isinstance(ext, Extension):
            ext = ext()
        if not isinstance(ext, Extension):
            raise DslcError(f"extension '{ep.name}' ({ep.value}) is not a dslc.sdk.Extension")
        found.append(ext)
    return tuple(found)


def make_registry(extra: tuple[Extension, ...] = ()) -> Registry:
    reg = Registry()
    for ext in (*installed_extensions(), *extra):
        reg.add(ext)
    return reg
