"""The static types of the checker.

Numbers form a coercion chain ``int < float < prob``: an int used where a float
is expected widens, and a float (or int) used where a probability is expected is
moved into log space. Nothing narrows implicitly.

Alphabets are referred to either by name (a fixed alphabet such as ``dna``) or
through a variable whose run-time value carries one (``seq[*] x``, a matrix
parameter ``m``, a model ``h``): :class:`AlphaRef` says which.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AlphaRef:
    """``named``: a fixed alphabet; ``var``: the alphabet of a variable's value;
    ``any``: not known (a string literal not yet given an alphabet); ``owner``
    (in a link only, check.links): the model variable whose elements index a value."""

    kind: str
    name: str | None = None

    def __str__(self) -> str:
        return {"named": self.name, "var": f"alphabet of {self.name}", "any": "*",
                "owner": f"the model {self.name}"}[self.kind]


ANY_ALPHA = AlphaRef("any")


class Type:
    """Base of every static type."""


@dataclass(frozen=True)
class Scalar(Type):
    name: str  # int, float, prob, bool

    def __str__(self) -> str:
        return self.name


INT, FLOAT, PROB, BOOL = Scalar("int"), Scalar("float"), Scalar("prob"), Scalar("bool")
_NUM_RANK = {"int": 0, "float": 1, "prob": 2}


def is_numeric(t: Type) -> bool:
    return isinstance(t, Scalar) and t.name in _NUM_RANK or isinstance(t, IndexT)


def num_name(t: Type) -> str:
    return "int" if isinstance(t, IndexT) else t.name


def numeric_join(a: Type, b: Type) -> Scalar:
    """The type both operands are coerced to (int < float < prob)."""
    return Scalar(max(num_name(a), num_name(b), key=_NUM_RANK.__getitem__))


@dataclass(frozen=True)
class TupleT(Type):
    """``tuple[int, int]``: two or more numbers (``int`` or ``float``) as one value,
    the product of a score and a count in grammar-based DP's product algebras."""

    items: tuple[Scalar, ...]

    @property
    def name(self) -> str:
        """The kind of value a result holds (``results.TableResult.value_type``)."""
        return "tuple"

    def __str__(self) -> str:
        return f"tuple[{', '.join(map(str, self.items))}]"


TUPLE_ITEMS = ("int", "float")  # the component types a tuple may have


@dataclass(frozen=True)
class StrT(Type):
    """A string literal: becomes a sequence once it meets an alphabet."""

    def __str__(self) -> str:
        return "string"


@dataclass(frozen=True)
class SymT(Type):
    alpha: AlphaRef

    def __str__(self) -> str:
        return f"symbol[{self.alpha}]"


@dataclass(frozen=True)
class SeqT(Type):
    alpha: AlphaRef

    def __str__(self) -> str:
        return f"seq[{self.alpha}]"


@dataclass(frozen=True)
class IndexT(Type):
    """A position in sequence parameter ``seq``: an int with a domain."""

    seq: str

    def __str__(self) -> str:
        return f"index[{self.seq}]"


@dataclass(frozen=True)
class RangeT(Type):
    def __str__(self) -> str:
        return "range"


@dataclass(frozen=True)
class IterT(Type):
    elem: Type

    def __str__(self) -> str:
        return f"iterable of {self.elem}"


@dataclass(frozen=True)
class ExtT(Type):
    """An extension type: ``matrix``, ``hmm``, ``state[h]``, ``node[t]``, ``column[dna]``...

    ``owner`` names the variable whose value a recursive element belongs to
    (``h`` in ``state[h]``); ``alpha`` is the alphabet a calling value carries.
    """

    name: str
    owner: str | None = None
    alpha: AlphaRef | None = None

    def __str__(self) -> str:
        if self.owner:
            return f"{self.name}[{self.owner}]"
        if self.alpha is not None and self.alpha.kind == "named":
            return f"{self.name}[{self.alpha.name}]"
        return self.name


@dataclass(frozen=True)
class MapT(Type):
    """Something indexed by symbols or elements: ``m[a, b]``, ``s.emission[c]``, ``c[u]``."""

    keys: tuple[Type, ...]
    value: Type

    def __str__(self) -> str:
        return f"table[{', '.join(map(str, self.keys))}] of {self.value}"


@dataclass(frozen=True)
class ListT(Type):
    """A list of values (what ``load`` returns for sequences and columns)."""

    elem: Type

    def __str__(self) -> str:
        return f"list of {self.elem}"


@dataclass(frozen=True)
class TableT(Type):
    """The whole table of a recursive function."""

    func: str
    value: Type

    def __str__(self) -> str:
        return f"table of {self.func}"


@dataclass(frozen=True)
class ArrayT(Type):
    """The result of ``map``."""

    value: Type

    def __str__(self) -> str:
        return f"array of {self.value}"


@dataclass(frozen=True)
class AlphabetT(Type):
    alpha: AlphaRef

    def __str__(self) -> str:
        return f"alphabet {self.alpha}"


def same_alphabet(a: AlphaRef, b: AlphaRef) -> bool | None:
    """True/False when decidable statically; None when only run time can tell."""
    if a.kind == "named" and b.kind == "named":
        return a.name == b.name
    if a == b:
        return True
    return None
