"""Bracket strings read off a derivation over intervals of one sequence.

A derivation whose steps index one sequence twice, ``f(i, j)`` with ``index[x] i``
and ``index[x] j``, is read as a nest of intervals: the step covers ``x[i .. j-1]``
(``i <= j``, the half-open interval a table over ``0 .. len(x)`` indexes). The
positions of a step's interval that none of its children's intervals covers are the
step's own: the residues that step accounts for itself. Cut at every end of a
child's interval, they form runs; a step whose own positions are exactly two runs of
one position each, two single residues left between or beside its subproblems,
pairs them; every other position is unpaired. Nothing here knows a recurrence: a
folding recurrence whose pairing alternative leaves two single residues beside its
subproblems (``1 + n(i + 1, k) + n(k + 1, j)`` pairs ``i`` with ``k``) gives its
structure, whatever else it scores, while a base case over ``x[i .. i+1]`` (one run
of two) or a step that skips one residue (one run of one) pairs nothing.

Steps that index the sequence fewer than two times (a helper without a table, a
one-index table) have no interval: their children are read as the children of the
nearest step above that has one. Pairs must nest: two that cross, or one position in
two pairs, is an error (a bracket string cannot show it).
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.errors import DslcError
from dslc.trace.collector import collector_paused
from dslc.trace.derive import Derivation


@dataclass(frozen=True)
class Brackets:
    """The structure: the sequence's residues, one character per position (``(`` and ``)`` a
    pair, ``.`` unpaired) and the pairs, 0-based ``(i, k)`` with ``i < k``."""

    sequence: str
    brackets: str
    pairs: tuple[tuple[int, int], ...]

    def text(self) -> str:
        return f"{self.sequence}\n{self.brackets}   {len(self.pairs)} pairs"

    def __str__(self) -> str:
        return self.text()

    def to_json(self) -> dict:
        return {"sequence": self.sequence, "brackets": self.brackets,
                "pairs": [list(p) for p in self.pairs]}

    def figure(self):
        """An arc diagram (a matplotlib Figure, no pyplot): the residues along a
        line, each pair a half circle above it joining its two positions."""
        try:
            from matplotlib.figure import Figure
            from matplotlib.patches import Arc
        except ImportError:
            raise DslcError("an arc plot needs matplotlib",
                            hint="pip install 'dslc[plot]' (or matplotlib)") from None
        n = len(self.sequence)
        fig = Figure(figsize=(max(6.0, min(0.16 * n, 24.0)), 3.2), dpi=100,
                     layout="constrained")
        ax = fig.add_subplot()
        for i, k in self.pairs:
            ax.add_patch(Arc(((i + k) / 2, 0), k - i, k - i, theta1=0, theta2=180, lw=1.2))
        ax.set_xticks(range(n))
        ax.set_xticklabels(list(self.sequence), fontsize=7 if n > 40 else 9,
                           fontfamily="monospace")
        ax.set_xlim(-1, n)
        ax.set_ylim(0, max([(k - i) / 2 for i, k in self.pairs], default=1) * 1.08)
        ax.set_yticks([])
        ax.set_title(f"{len(self.pairs)} pairs   {self.brackets}", fontsize=8,
                     fontfamily="monospace")
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        return fig

    def plot(self, path: str) -> None:
        """:meth:`figure` as a PNG at ``path`` (a path that cannot be written: one
        error naming it)."""
        import io

        from dslc.errors import write_user_file

        buf = io.BytesIO()
        self.figure().savefig(buf, format="png")
        write_user_file(path, buf.getvalue())


def brackets(d: Derivation) -> Brackets:
    """The bracket string of ``d`` (see the module's docstring)."""
    if not isinstance(d, Derivation):
        raise DslcError("brackets takes a derivation (trace(f(...)))")
    with collector_paused():
        param, seq, own = _own_positions(d)
    pairs = sorted(p for p in own if p is not None)
    return Brackets(seq.text, _string(pairs, len(seq), d), tuple(pairs))


def _interval(step, param: str | None):
    """``(param, sequence, i, j)`` where the step indexes one sequence twice."""
    at = [(k, q) for k, q in enumerate(step.seqs) if q is not None]
    if len(at) != 2 or at[0][1][0] != at[1][1][0] or (param and at[0][1][0] != param):
        return None
    (ka, (name, seq)), (kb, _) = at
    return name, seq, int(step.point[ka]), int(step.point[kb])


def _own_positions(d: Derivation):
    """The parameter and sequence the intervals index, and each interval step's pair
    (None where it pairs nothing)."""
    steps = d.steps
    first = next((_interval(steps[k], None) for k in _reached(d)
                  if _interval(steps[k], None) is not None), None)
    if first is None:
        raise DslcError(f"the derivation of {d.root.func} has no step indexing one sequence "
                        "twice (f(i, j) over x[i .. j-1]): no bracket string")
    param, seq = first[0], first[1]
    own = []
    for k in _reached(d):
        got = _interval(steps[k], param)
        if got is None:
            continue
        _, _, i, j = got
        if not 0 <= i <= j <= len(seq):
            raise DslcError(f"{steps[k].label()} is no interval of {param} "
                            f"(0 <= i <= j <= {len(seq)}): no bracket string")
        mine, cuts = set(range(i, j)), set()
        for c in _interval_children(d, k, param):
            _, _, ci, cj = _interval(steps[c], param)
            mine.difference_update(range(ci, cj))
            cuts.update((ci, cj))
        own.append(_pair(sorted(mine), cuts))
    return param, seq, own


def _pair(mine: list[int], cuts: set[int]) -> tuple[int, int] | None:
    """The two positions of ``mine`` where they are two runs of one position each
    (positions ``p`` and ``p + 1`` are one run unless a child's interval starts or
    ends at ``p + 1``)."""
    if len(mine) != 2:
        return None
    a, b = mine
    return (a, b) if b != a + 1 or b in cuts else None


def _reached(d: Derivation):
    """Step numbers from the root, each once."""
    seen, todo = set(), [0]
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        yield k
        todo.extend(d.steps[k].children)


def _interval_children(d: Derivation, k: int, param: str) -> list[int]:
    """The nearest steps below step ``k`` that have an interval."""
    out, todo = [], list(d.steps[k].children)
    while todo:
        c = todo.pop()
        if _interval(d.steps[c], param) is not None:
            out.append(c)
        else:
            todo.extend(d.steps[c].children)
    return out


def _string(pairs: list, n: int, d: Derivation) -> str:
    out = ["."] * n
    stack, known = [], set(pairs)
    for i, k in pairs:
        if out[i] != "." or out[k] != ".":
            twice = i if out[i] != "." else k
            raise DslcError(f"the derivation of {d.root.func} pairs position {twice} twice: "
                            "no bracket string")
        out[i], out[k] = "(", ")"
    for pos, c in enumerate(out):  # nesting: every ')' closes the latest open '('
        if c == "(":
            stack.append(pos)
        elif c == ")":
            i = stack.pop()
            if (i, pos) not in known:
                raise DslcError(f"the derivation of {d.root.func} has crossing pairs "
                                f"(a pseudoknot at {i} .. {pos}): no bracket string")
    return "".join(out)
