"""What a schedule is, and the extents it is chosen for.

A schedule of a recursive group is ``S(x) = a . x``: one integer coefficient per
recursive parameter *position*, shared by every function of the group (thesis
§5.3.6 models mutual recursion as a single recursion). Legality holds for every
extent, but the *cost* of a schedule - how many partitions (wavefront steps)
it takes - and the sliding-window depth depend on the actual extents, which are
known only when a task runs. So the schedule records them for the extents it
was chosen for, and code generated from it stays parametric.

Extents are given per function and parameter name because the functions of a
group may call the same position by different names (``h(i, j)`` and
``e(a, b)``). Each position of each function is also an isl parameter name:
functions whose boxes are the same (``index[s]`` of the same sequence) should
share names so that generated loops cover them together.

The functions of a group need not have the same number of recursive
parameters (Fitch's ``set(u, a)`` and ``best(u)``). The group then has as many
positions as its largest function, and an :class:`Embedding` places each
smaller function's parameters at some of them, the others fixed at 0 (thesis
§5.3: padding with dimensions of extent ``0 .. 0``). ``S`` of a padded point is
then ``a`` restricted to the function's own positions, times its point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence, Union

from dslc.deps.ir import DependenceGraph


def default_extent_name(func: str, param: str) -> str:
    """The isl parameter of one position's extent when nobody chose a shared one."""
    return f"E_{func}_{param}"


@dataclass(frozen=True)
class Extents:
    """Extent parameter names per function position, and their values now.

    ``names[f][k]`` is the isl parameter bounding position ``k`` of ``f``
    (``0 <= x_k <= names[f][k]``); ``values`` maps every such name to its
    current value. Use :func:`extents_for` to build one from plainer input.
    """

    names: Mapping[str, tuple[str, ...]]
    values: Mapping[str, int]

    def of(self, func: str) -> tuple[int, ...]:
        """The extent of each position of ``func``."""
        return tuple(self.values[n] for n in self.names[func])


ExtentsLike = Union[Extents, Mapping[str, Mapping[str, int]], Mapping[str, Sequence[int]],
                    Sequence[int]]


def extents_for(graph: DependenceGraph, extents: ExtentsLike,
                names: Mapping[str, Sequence[str]] | None = None) -> Extents:
    """Normalise the extents argument of the schedule API.

    Accepted forms: an :class:`Extents`; ``{func: {param: extent}}``;
    ``{func: (extent per position)}``; or one sequence of extents per position
    shared by every function (then the isl names are shared too: ``E_0``,
    ``E_1``, ...). ``names`` overrides the isl parameter names per function.
    """
    if isinstance(extents, Extents):
        return extents
    funcs = {f.name: f.params for f in graph.functions}
    if not isinstance(extents, Mapping):
        sizes = tuple(int(v) for v in extents)
        shared = {f: tuple(f"E_{k}" for k in range(len(ps))) for f, ps in funcs.items()}
        per_func = {f: sizes for f in funcs}
        names = names or shared
    else:
        per_func = {}
        for f, ps in funcs.items():
            if f not in extents:
                raise ValueError(f"no extents given for {f}")
            given = extents[f]
            if isinstance(given, Mapping):
                missing = [p for p in ps if p not in given]
                if missing:
                    raise ValueError(f"no extent given for {f}'s parameter {missing[0]}")
                per_func[f] = tuple(int(given[p]) for p in ps)
            else:
                per_func[f] = tuple(int(v) for v in given)
    out_names, values = {}, {}
    for f, ps in funcs.items():
        sizes = per_func[f]
        if len(sizes) != len(ps):
            raise ValueError(f"{f} has {len(ps)} recursive parameters, {len(sizes)} extents given")
        fn_names = tuple(names[f]) if names and f in names else \
            tuple(default_extent_name(f, p) for p in ps)
        for n, v in zip(fn_names, sizes):
            if v < 0:
                raise ValueError(f"extent {n} = {v} is negative")
            if values.setdefault(n, v) != v:
                raise ValueError(f"extent {n} is given two values ({values[n]} and {v})")
        out_names[f] = fn_names
    return Extents(out_names, values)


@dataclass(frozen=True)
class Embedding:
    """Where each function's recursive parameters sit among a group's ``n``
    positions: ``positions[f][k]`` is the position of ``f``'s parameter ``k``
    (increasing). A position a function has no parameter at is *padding*,
    always 0, so it adds nothing to ``S``; a group whose functions all have
    ``n`` parameters has the identity embedding."""

    n: int
    positions: tuple[tuple[str, tuple[int, ...]], ...]

    @staticmethod
    def identity(graph: DependenceGraph) -> "Embedding":
        """Each function's parameters at the first positions (the only
        embedding when every function has as many parameters as the largest)."""
        n = max((len(f.params) for f in graph.functions), default=0)
        return Embedding(n, tuple((f.name, tuple(range(len(f.params))))
                                  for f in graph.functions))

    def of(self, func: str) -> tuple[int, ...]:
        for f, ps in self.positions:
            if f == func:
                return ps
        raise KeyError(func)

    @property
    def padded(self) -> bool:
        """Does some function have fewer parameters than the group has positions?"""
        return any(len(ps) < self.n for _, ps in self.positions)

    def project(self, coeffs: Sequence[int], func: str) -> tuple[int, ...]:
        """The coefficients of ``func``'s own parameters: ``S`` on its points."""
        return tuple(coeffs[p] for p in self.of(func))

    def pad(self, point: Sequence[int], func: str) -> tuple[int, ...]:
        """A point of ``func`` as a point of the group (padding positions 0)."""
        out = [0] * self.n
        for p, v in zip(self.of(func), point):
            out[p] = v
        return tuple(out)


def partition_range(coeffs: Sequence[int], ext: Extents,
                    embedding: Embedding | None = None) -> tuple[int, int]:
    """Smallest and largest ``S`` over the union of the group's boxes: a linear
    function on a box reaches its extremes at corners, so no solver is needed.
    Without ``embedding`` every function's parameters are the first positions."""
    lows, highs = [], []
    for f in ext.names:
        own = coeffs if embedding is None else embedding.project(coeffs, f)
        lows.append(sum(min(c, 0) * e for c, e in zip(own, ext.of(f))))
        highs.append(sum(max(c, 0) * e for c, e in zip(own, ext.of(f))))
    return min(lows), max(highs)


@dataclass(frozen=True)
class Schedule:
    """The chosen schedule of one group and what follows from it.

    ``coeffs``: one coefficient per position. ``params``: ``(function,
    parameter names)`` for each function of the group, so the coefficients can
    be read by name. ``order``: the functions in the order they run inside one
    partition (callees of same-partition calls first). ``first``/``partitions``:
    the first partition's number and how many there are, for the extents the
    schedule was chosen for. ``window``: how many consecutive partitions must
    stay live (max over calls of ``S(x) - S(target)``, plus one), or None where
    the caller asked for a limit and the window exceeds it.
    ``same_point_order``: every same-partition call is to the very same point
    (``e(i, j)`` from ``h(i, j)``), so the functions can run point by point
    instead of function by function. ``positions``: where each function's
    parameters sit among the positions (see :class:`Embedding`); empty when
    every function has one parameter per position, in order.
    """

    coeffs: tuple[int, ...]
    params: tuple[tuple[str, tuple[str, ...]], ...]
    order: tuple[str, ...]
    partitions: int
    window: int | None
    same_point_order: bool = False
    first: int = 0
    positions: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @property
    def functions(self) -> tuple[str, ...]:
        return tuple(f for f, _ in self.params)

    @property
    def embedding(self) -> Embedding:
        if self.positions:
            return Embedding(len(self.coeffs), self.positions)
        return Embedding(len(self.coeffs), tuple((f, tuple(range(len(ps))))
                                                 for f, ps in self.params))

    def param_names(self, func: str) -> tuple[str, ...]:
        for f, ps in self.params:
            if f == func:
                return ps
        raise KeyError(func)

    def own(self, func: str) -> tuple[int, ...]:
        """The coefficients of ``func``'s parameters, in order."""
        return self.embedding.project(self.coeffs, func)

    def of(self, func: str) -> dict[str, int]:
        """The coefficients of ``func``'s schedule by parameter name."""
        return dict(zip(self.param_names(func), self.own(func)))

    coefficients = of

    def at(self, point: Sequence[int], func: str | None = None) -> int:
        """The partition of a point: of ``func`` where given (its own
        parameters), else of the group (one value per position)."""
        coeffs = self.coeffs if func is None else self.own(func)
        return sum(c * v for c, v in zip(coeffs, point))

    def expr(self, func: str) -> str:
        """``S`` as source text in ``func``'s parameter names, e.g. ``i + j``."""
        return schedule_text(self.own(func), self.param_names(func))


def schedule_text(coeffs: Sequence[int], params: Sequence[str]) -> str:
    """``a . x`` as source text: ``2*i - j``."""
    terms = [p if c == 1 else f"-{p}" if c == -1 else f"{c}*{p}"
             for p, c in zip(params, coeffs) if c]
    return " + ".join(terms).replace("+ -", "- ") or "0"
