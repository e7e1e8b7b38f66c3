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
  ``load(KIND, file)`` loaders (:class:`LoaderSpec`), which may read their text with a
  lark grammar shipped in the extension (:func:`grammar`: LALR, errors located in the
  user's file);
* optionally, compiled forms: a device :class:`Layout` (named numpy arrays built
  from a model value) and, for accessors and indexing, small backend-neutral
  expression templates over those arrays (the builder below: :func:`arr`,
  :data:`RECV`, :func:`key`, :class:`Each` ...). Without them programs using the
  extension run on the interpreter.

The built-in extensions use nothing but this module (and the public value
classes in :mod:`dslc.lang.values`); so can anyone else's.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from dslc import discover
from dslc.errors import DslcError, Span, register_source
from dslc.frontend.grammars import Grammar, GrammarError, SyntaxProblem, is_token, span_of
from dslc.lang import types as T
from dslc.lang.fasta import open_data
from dslc.lang.fasta import read_text as _read_text
from dslc.lang.limits import LOAD_SETTING, max_load_bytes
from dslc.numtext import finite_float, foreign_digit, foreign_digit_message, int_of
from dslc.numtext import shown as shown_number
from dslc.lang.stdlib import stdlib_source
from dslc.lang.values import Alphabet, Matrix

# Re-exported for extension authors: errors, the values they build, the library's sources.
# Numbers a loader reads from text go through dslc.numtext's checks (ASCII digits,
# no int past 64 bits converted, no float overflowing to infinity), as the script's own do.
__all__ = ["Alphabet", "DslcError", "LOAD_SETTING", "Matrix", "Span", "max_load_bytes",
           "register_source", "stdlib_source", "finite_float", "foreign_digit",
           "foreign_digit_message", "int_of", "shown_number", "open_data",
           "Grammar", "GrammarError", "SyntaxProblem", "grammar", "is_token", "span_of"]

# Re-exported for extension authors: the static types an accessor may return.
INT, FLOAT, PROB, BOOL = T.INT, T.FLOAT, T.PROB, T.BOOL
ExtT, SymT, IterT, MapT, AlphaRef = T.ExtT, T.SymT, T.IterT, T.MapT, T.AlphaRef
ListT = T.ListT  # what a loader returning a Python list (of columns, say) declares


# open_data(path, what, span): a loader that reads bytes itself opens its file with this
# (a directory, a failing read, a FIFO nobody writes to: one DslcError, never a hang)


def read_text(path: str, span: Span | None, what: str = "file") -> str:
    """For loaders: a text file (gunzipped if gzip), every failure a DslcError
    at ``span`` naming ``what`` and the file."""
    return _read_text(path, span, what)


def grammar(package: str, resource: str, **options) -> Grammar:
    """An extension's parser from the lark grammar ``resource`` shipped in ``package``
    (list it in the package data). The grammar is LALR(1); ``options`` are
    :class:`Grammar`'s (an inline ``transformer``, ``describe`` for the extension's own
    wording of syntax errors, ``names`` for terminals). ``Grammar.parse(text, file,
    origin)`` returns what the transformer built, and reports every syntax error, and
    every :class:`GrammarError` the transformer raises, as one DslcError at its line and
    column in ``file``: the same located errors as the host language's."""
    from importlib import resources
    return Grammar(resources.files(package).joinpath(resource).read_text(), **options)


# --------------------------------------------------------------------------- compiled forms
#
# A compiled form is an expression *template*: a small tree built with the
# functions below, which every compiled backend turns into its own code. It may
# read the arrays of the model's device layout (``arr("name")[...]``), the
# receiver (``RECV``: the element number of a recursive receiver), the keys of
# an index (``key(0)``: ``c`` in ``s.emission[c]``), the value's own
# ``device_array`` (``VALUE``) and, in an iterable's element, the loop position
# (``ITEM``). Arithmetic (``+ - * // %``), comparisons, ``&``, ``|`` and ``~``
# (logical and/or/not) build larger templates; Python ints, floats and bools
# are literals.


class Code:
    """A node of a compiled-form template (build them with the helpers below)."""

    __slots__ = ()

    def _op(self, op, other, swap=False):
        a, b = (lift(other), self) if swap else (self, lift(other))
        return Op(op, (a, b))

    def __add__(self, o): return self._op("+", o)
    def __radd__(self, o): return self._op("+", o, True)
    def __sub__(self, o): return self._op("-", o)
    def __rsub__(self, o): return self._op("-", o, True)
    def __mul__(self, o): return self._op("*", o)
    def __rmul__(self, o): return self._op("*", o, True)
    def __floordiv__(self, o): return self._op("//", o)
    def __mod__(self, o): return self._op("%", o)
    def __eq__(self, o): return self._op("==", o)  # noqa: D105 (a template, not a test)
    def __ne__(self, o): return self._op("!=", o)
    def __lt__(self, o): return self._op("<", o)
    def __le__(self, o): return self._op("<=", o)
    def __gt__(self, o): return self._op(">", o)
    def __ge__(self, o): return self._op(">=", o)
    def __and__(self, o): return self._op("and", o)
    def __or__(self, o): return self._op("or", o)
    def __invert__(self): return Op("not", (self,))
    __hash__ = object.__hash__


@dataclass(frozen=True, eq=False)
class Lit(Code):
    value: int | float | bool


@dataclass(frozen=True, eq=False)
class Op(Code):
    op: str
    args: tuple


@dataclass(frozen=True, eq=False)
class Load(Code):
    array: str  # a layout array's name, or "" for the value's own device_array
    index: tuple


@dataclass(frozen=True, eq=False)
class Length(Code):
    """The length of ``array``'s first dimension, or (``axis`` 1) of its second: the
    length of its row 0, which an array read this way must have."""

    array: str
    axis: int = 0


@dataclass(frozen=True, eq=False)
class Slot(Code):
    """``recv``, ``item`` or ``key`` number ``k``."""

    kind: str
    k: int = 0


@dataclass(frozen=True, eq=False)
class Select(Code):
    cond: Code
    then: Code
    orelse: Code


@dataclass(frozen=True, eq=False)
class Checked(Code):
    """``index``, a run-time error unless ``0 <= index < limit`` (the compiled run
    stops and the interpreter re-runs the call, reporting the extension's error)."""

    index: Code
    limit: Code


def lift(v) -> Code:
    if isinstance(v, Code):
        return v
    if isinstance(v, (bool, int, float)):
        return Lit(v)
    raise TypeError(f"not a compiled-form template: {v!r}")


class arr:
    """``arr("name")[i, ...]`` reads layout array ``name``; ``arr("name").len`` is its
    length (first dimension)."""

    def __init__(self, name: str):
        self.name = name

    def __getitem__(self, index) -> Code:
        index = index if isinstance(index, tuple) else (index,)
        return Load(self.name, tuple(lift(i) for i in index))

    @property
    def len(self) -> Code:
        return Length(self.name)

    @property
    def width(self) -> Code:
        """The length of the second dimension (of row 0) of a 2-D array."""
        return Length(self.name, 1)


RECV = Slot("recv")  # the receiver: an element number (s in s.transitionsto)
ITEM = Slot("item")  # in Each.item: the position lo <= k < hi being visited
VALUE = arr("")  # the value's own device_array (VALUE[key(0)] for c[u])


def key(k: int) -> Code:
    """Key number ``k`` of an index: ``key(0)`` is ``c`` in ``s.emission[c]``."""
    return Slot("key", k)


def select(cond, then, orelse) -> Code:
    return Select(lift(cond), lift(then), lift(orelse))


def checked(index, limit) -> Code:
    return Checked(lift(index), lift(limit))


@dataclass(frozen=True)
class Each:
    """The compiled form of an iterable accessor: positions ``lo <= k < hi`` (``ITEM``),
    each yielding the element ``item`` (``ITEM`` itself by default): the transitions
    into ``s`` are ``Each(arr("inoff")[RECV], arr("inoff")[RECV + 1], arr("intrans")[ITEM])``."""

    lo: Code | int
    hi: Code | int
    item: Code = ITEM


_ARRAY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
LOCATIONS = ("auto", "shared", "constant", "global")


@dataclass(frozen=True)
class DeviceArray:
    """One named array of a layout. ``where`` pins it for GPU backends (``shared``:
    copied to on-chip shared memory per block; ``constant``: constant memory;
    ``global``; ``auto``: the backend decides); CPU backends ignore it."""

    name: str
    where: str = "auto"
    doc: str = ""

    def __post_init__(self):
        if not _ARRAY_NAME.match(self.name):
            raise ValueError(f"layout array name {self.name!r}: letters and digits only")
        if self.where not in LOCATIONS:
            raise ValueError(f"layout array {self.name!r}: where must be one of {LOCATIONS}")


@dataclass(frozen=True)
class Layout:
    """How a model value travels to compiled code: ``build(value)`` returns a dict
    of numeric numpy arrays, one per declared array (probabilities as natural
    logs, element numbers as int64). It is built once per value and shared by
    every task that uses the value."""

    arrays: tuple[DeviceArray, ...]
    build: Callable[[Any], dict]

    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.arrays)

    def array(self, name: str) -> DeviceArray | None:
        return next((a for a in self.arrays if a.name == name), None)


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
    layout: Layout | None = None
    device_size: Code | None = None
    device_index: Code | None = None
    fits_owner: Callable[[Any, Any], str | None] | None = None
    labels: Callable[[Any], tuple[str, ...]] | None = None
    # ``labels(owner_value)``: for a recursive type, a name per element (a model's state
    # names, a tree's node names), in element order; a printed table labels its axis
    # over the type with them beside the element numbers (without it, numbers alone).
    # ``fits_owner(value, owner)``: for a type indexed with elements of a model
    # (``c[u]`` with ``u: node[t]``), whether ``value`` fits that model, checked when a
    # call or a map task binds both (directly, or passed on through calls): None when
    # it does, else a sentence saying why not (the binding raises it as a DslcError at
    # the call, naming the function and the parameters).
    # ``device_array(value)`` lays a calling value out for the compiled backends: a
    # numeric numpy array that generated code indexes as ``a[k1, ...]`` exactly where the
    # language writes ``x[k1, ...]`` (probabilities as natural logs). It travels per task
    # (a value that differs between the tasks of a map is stacked).
    # ``layout`` lays a model value out as named arrays (shared by the tasks of a map)
    # that compiled forms of accessors read. For a recursive type, ``device_size`` is
    # the number of elements as a template over its owner's layout. ``device_index``
    # is the compiled ``x[k1, ...]`` (over ``VALUE`` or the layout, with ``key(i)``).


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
    device: Code | Each | None = None
    # ``device``: the compiled form, a template over the layout of the model the
    # receiver belongs to (the owner's for an element, the value's own for a calling
    # receiver); an ``Each`` for an iterable; ``key(i)`` for a ``MapT`` result's keys.


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
    for name, value in extension_entry_points():
        try:
            ext = discover.load(value)
        except Exception as e:  # a broken plugin is the plugin's fault, reported by name
            raise DslcError(f"extension '{name}' ({value}) failed to load: "
                            f"{type(e).__name__}: {e}") from None
        if callable(ext) and not isinstance(ext, Extension):
            ext = ext()
        if not isinstance(ext, Extension):
            raise DslcError(f"extension '{name}' ({value}) is not a dslc.sdk.Extension")
        found.append(ext)
    return tuple(found)


def extension_entry_points() -> list[tuple[str, str]]:
    """``(name, value)`` of the ``dslc.extensions`` entry points, sorted by name: as
    ``importlib.metadata`` finds them, kept between runs (:mod:`dslc.discover`)."""
    return discover.entry_points()
