"""Alignments read off a derivation over two sequences.

A derivation that is a path, through cells indexing two different sequences
(``index[s] i``, ``index[t] j``), is an alignment: from one indexed step to the next,
a move of both indexes by one is an aligned pair (``s[i - 1]`` with ``t[j - 1]``), a
move of one index alone consumes its residues against gaps, and a step that moves
neither (Gotoh's ``h(i, j)`` to ``e(i, j)``) adds nothing. Nothing here knows the
recurrence: the moves are the indexes' values. The first sequence is the query
(``I`` in the CIGAR consumes it), the second the reference (``D``); coordinates are
0-based and half-open, the picture's 1-based and inclusive (as BLAST prints them).
Residues before the last cell of the path (a global alignment's base case
``nw(0, j) = -gap * j``) are in no column: the alignment starts at that cell.
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.errors import DslcError
from dslc.lang.values import Matrix
from dslc.trace.derive import Derivation, Step

WIDTH = 60  # columns per block of the picture


@dataclass(frozen=True)
class Alignment:
    names: tuple[str, str]
    starts: tuple[int, int]
    ends: tuple[int, int]
    rows: tuple[str, str, str]  # query with gaps, the match line, reference with gaps
    cigar: str
    identities: int
    similar: int  # identical, or a positive score in the matrix
    gaps: int  # gap columns
    gap_opens: int
    score: object  # the traced call's value

    @property
    def length(self) -> int:
        return len(self.rows[0])

    def text(self) -> str:
        """The three-line picture, in blocks of 60 columns, with the summary above."""
        n = self.length or 1
        head = (f"score {self.score}  identities {self.identities}/{self.length} "
                f"({100 * self.identities // n}%)  similar {self.similar}/{self.length} "
                f"({100 * self.similar // n}%)  gaps {self.gaps}/{self.length}  "
                f"cigar {self.cigar or '-'}")
        width = max(len(self.names[0][:12]), len(self.names[1][:12]))
        lines, pos = [head], list(self.starts)
        for b in range(0, self.length, WIDTH):
            block = [r[b: b + WIDTH] for r in self.rows]
            used = [sum(c != "-" for c in block[0]), sum(c != "-" for c in block[2])]
            top = _row(self.names[0][:12], width, pos[0], used[0])
            bottom = _row(self.names[1][:12], width, pos[1], used[1])
            lines += ["", f"{top}{block[0]} {pos[0] + used[0]}", " " * len(top) + block[1],
                      f"{bottom}{block[2]} {pos[1] + used[1]}"]
            pos = [pos[0] + used[0], pos[1] + used[1]]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def to_json(self) -> dict:
        return {"names": list(self.names), "starts": list(self.starts), "ends": list(self.ends),
                "cigar": self.cigar, "identities": self.identities, "similar": self.similar,
                "gaps": self.gaps, "gap_opens": self.gap_opens, "length": self.length,
                "rows": list(self.rows), "score": self.score}


def alignment(d: Derivation, matrix: Matrix | None = None) -> Alignment:
    """The alignment ``d`` describes (see the module's docstring); ``matrix`` decides
    similar positions, by default the first matrix among the traced call's arguments
    (none: similar means identical)."""
    if not isinstance(d, Derivation):
        raise DslcError("align takes a derivation (trace(f(...)))")
    steps = [s for s in d.path() if any(q is not None for q in s.seqs)]
    if not steps:
        raise DslcError(f"the derivation of {d.root.func} indexes no sequence: no alignment")
    pa, pb = _sequences(steps[0])
    at = [_coords(s, pa, pb) for s in steps]
    a, b = pa[1], pb[1]
    if matrix is None:
        matrix = _matrix(d)
    cols: list[tuple[int | None, int | None]] = []
    for (pa, pb), (qa, qb), s in zip(at, at[1:], steps):
        da, db = pa - qa, pb - qb
        if da == db and da >= 0:
            cols += [(qa + k, qb + k) for k in reversed(range(da))]
        elif da > 0 and db == 0:
            cols += [(qa + k, None) for k in reversed(range(da))]
        elif db > 0 and da == 0:
            cols += [(None, qb + k) for k in reversed(range(db))]
        else:
            raise DslcError(f"the step from {s.label()} moves {a.name} by {da} and {b.name} by "
                            f"{db}: an alignment moves both by one, or one of them")
    cols.reverse()
    return _build(d, a, b, at[-1], at[0], cols, matrix)


def _build(d, a, b, start, end, cols, matrix) -> Alignment:
    sa, sb = a.alphabet.symbols, b.alphabet.symbols
    top, mid, bottom, ops = [], [], [], []
    ident = similar = gaps = opens = 0
    for x, y in cols:
        if x is None or y is None:
            gaps += 1
            op = "I" if y is None else "D"
            opens += not ops or ops[-1] != op
            top.append("-" if x is None else sa[a.codes[x]])
            bottom.append("-" if y is None else sb[b.codes[y]])
            mid.append(" ")
            ops.append(op)
            continue
        ca, cb = int(a.codes[x]), int(b.codes[y])
        same = sa[ca] == sb[cb]
        close = same or (matrix is not None and matrix.values[ca, cb] > 0)
        ident += same
        similar += close
        top.append(sa[ca])
        bottom.append(sb[cb])
        mid.append(sa[ca] if same else "+" if close else " ")
        ops.append("=" if same else "X")
    return Alignment((a.name, b.name), tuple(start), tuple(end),
                     ("".join(top), "".join(mid), "".join(bottom)), _cigar(ops),
                     ident, similar, gaps, opens, d.value)


def _sequences(step: Step):
    """The two sequences, by parameter (see :class:`dslc.trace.derive.Step`)."""
    seen = {}
    for q in step.seqs:
        if q is not None:
            seen.setdefault(q[0], q)
    if len(seen) != 2:
        raise DslcError(f"{step.label()} indexes {len(seen)} sequence(s): an alignment needs "
                        "a derivation over two")
    return list(seen.values())


def _coords(step: Step, a, b) -> tuple[int, int]:
    out = []
    for name, seq in (a, b):
        ks = [k for k, q in enumerate(step.seqs) if q is not None and q[0] == name]
        if len(ks) != 1:
            raise DslcError(f"{step.label()} has {len(ks)} indexes into {name}: an "
                            "alignment's cells have one index into each sequence")
        out.append(step.point[ks[0]])
    return out[0], out[1]


def _matrix(d: Derivation):
    for s in d.steps:
        for v in (s.env or {}).values():
            if isinstance(v, Matrix):
                return v
    return None


def _cigar(ops: list[str]) -> str:
    out, k = [], 0
    while k < len(ops):
        n = 1
        while k + n < len(ops) and ops[k + n] == ops[k]:
            n += 1
        out.append(f"{n}{ops[k]}")
        k += n
    return "".join(out)


def _row(name: str, width: int, pos: int, used: int) -> str:
    """A row's name and first position (1-based), up to its residues."""
    return f"{name:<{width}} {pos + 1 if used else pos:>6} "
