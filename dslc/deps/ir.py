"""Dependence IR: what the schedule search needs to know about each recursive call.

Produced by ``dslc.deps`` from the typed program; consumed by ``dslc.schedule``
and ``dslc.poly``. Everything is affine in the caller's recursive parameters
and in *ranged* variables (those bound by reductions such as
``max(k in i + 4 ... j - 1 : ...)``).
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.errors import Span


@dataclass(frozen=True)
class Affine:
    """``sum(c * v for v, c in coeffs) + const``; coeffs sorted by name, no zeros."""

    coeffs: tuple[tuple[str, int], ...]
    const: int = 0

    @staticmethod
    def of(const: int = 0, **coeffs: int) -> "Affine":
        return Affine(tuple(sorted((k, v) for k, v in coeffs.items() if v)), const)

    def coeff(self, name: str) -> int:
        return dict(self.coeffs).get(name, 0)

    def evaluate(self, env: dict[str, int]) -> int:
        return self.const + sum(c * env[v] for v, c in self.coeffs)

    def __str__(self) -> str:
        parts = []
        for v, c in self.coeffs:
            parts.append(v if c == 1 else f"-{v}" if c == -1 else f"{c}*{v}")
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts).replace("+ -", "- ")


@dataclass(frozen=True)
class Constraint:
    """``expr >= 0`` (kind ``"ge"``) or ``expr == 0`` (kind ``"eq"``)."""

    expr: Affine
    kind: str = "ge"


@dataclass(frozen=True)
class RangedVar:
    """A variable bound by a reduction over ``lo ... hi`` (inclusive). ``None``
    for a bound means "unknown": the variable is then any value for which the
    call's target lies in the callee's domain (conservative)."""

    name: str
    lo: Affine | None
    hi: Affine | None


ELEMENT = "_w"  # the ranged variables standing for constant array elements


@dataclass(frozen=True)
class Dependence:
    """One recursive call site: ``caller(params) -> callee(args)``.

    ``args`` has one entry per recursive parameter of the callee, in order;
    ``None`` marks an argument that is not affine (any value of its domain).
    ``when`` is a disjunction of conjunctions of affine constraints under which
    the call is made (from guards); ``((),)`` means "always".
    ``declared``: (ranged variable, parameter, direction) for each argument that is
    no affine function but that a declared direction bounds (``int m decreasing``:
    ``ways(i, m - coin(i - 1))`` becomes ``ways(i, _d0)`` with ``_d0 <= m - 1``, the
    variable in ``ranged``); the schedule relies on it, so it is checked at run time.
    """

    caller: str
    callee: str
    args: tuple[Affine | None, ...]
    ranged: tuple[RangedVar, ...] = ()
    when: tuple[tuple[Constraint, ...], ...] = ((),)
    span: Span | None = None
    declared: tuple[tuple[str, str, str], ...] = ()

    @property
    def data_dependent(self) -> bool:
        """Does an argument of the call depend on data (``?``, or bounded only by a
        declared direction)?"""
        return bool(self.declared) or any(a is None for a in self.args)

    @property
    def reads_elements(self) -> bool:
        """Is an argument of the call bounded only by a constant array's least and
        greatest element (``n - w[k]``, ``dist(src[e])``: dslc.deps.extract)? A
        schedule may still order it (coin change's ``w`` all positive); where none
        does, the order is the one the array's values give, at run time."""
        return any(r.name.startswith(ELEMENT) for r in self.ranged)


@dataclass(frozen=True)
class RecFunction:
    """A function with a table: its recursive parameters, in order. The domain
    of parameter ``p`` is ``0 .. extent(p)`` inclusive, with the extent known
    only at run time (a sequence length, an int argument, an alphabet size - 1).
    ``domain``: the declared ranges of ``int`` parameters (``int c in 0 ... r``),
    constraints over ``params`` (and extents) that cut the box to a polyhedron;
    None when a declared range is not affine in the recursive parameters (the
    compiler then refuses the group). ``context``: what is known of the extents
    themselves (``E_c >= E_n``, dslc.deps.ranges.extent_context), true on every run."""

    name: str
    params: tuple[str, ...]
    domain: tuple[Constraint, ...] | None = ()
    context: tuple[Constraint, ...] = ()


@dataclass(frozen=True)
class DependenceGraph:
    """A group of mutually recursive functions and their calls. The functions
    may differ in their number of recursive parameters: each call is stated in
    its caller's and its callee's own parameters, and the schedule places them
    in one space (dslc.schedule.embed)."""

    functions: tuple[RecFunction, ...]
    deps: tuple[Dependence, ...]
