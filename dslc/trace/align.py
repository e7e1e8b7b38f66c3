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

import functools
from dataclasses import dataclass

import numpy as np

from dslc.errors import DslcError
from dslc.lang.values import Matrix
from dslc.trace.collector import collector_paused
from dslc.trace.derive import Derivation, Step, Steps

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
    (none: similar means identical). The path's points are read as arrays (a compiled
    walk's steps are not made), the columns and the picture built over them at once."""
    if not isinstance(d, Derivation):
        raise DslcError("align takes a derivation (trace(f(...)))")
    with collector_paused():
        return _alignment(d, matrix)


def _alignment(d: Derivation, matrix) -> Alignment:
    nums, at, (pa, pb) = _points(d)
    a, b = pa[1], pb[1]
    if matrix is None:
        matrix = _matrix(d)
    if isinstance(d.steps, Steps):  # walked by compiled code: built by it too
        got = _compiled_build(d, a, b, at, matrix)
        if got is not None:
            return got
    ia, ib = _columns(d, nums, at, a, b)
    return _build(d, a, b, at[-1].tolist(), at[0].tolist(), ia, ib, matrix)


def _points(d: Derivation):
    """The path's steps that index sequences: their step numbers, their points in the
    two sequences (an (n, 2) array, in path order) and the two sequences."""
    steps = d.steps
    tail = getattr(steps, "tail", None)  # a compiled walk's steps (derive.Walk)
    head = list(enumerate(d.path())) if tail is None else _head_path(steps.head)
    pairs = [(k, s) for k, s in head if any(q is not None for q in s.seqs)]
    runs = [] if tail is None else _tail_runs(tail)
    if pairs:
        pa, pb = _sequences(pairs[0][1].label, pairs[0][1].seqs)
    elif runs:
        pa, pb = _sequences(lambda: tail[runs[0][0]].label(), runs[0][2])
    else:
        raise DslcError(f"the derivation of {d.root.func} indexes no sequence: no alignment")
    nums = np.array([k for k, _ in pairs], np.int64)
    at = np.array([_coords(s, pa, pb) for _, s in pairs], np.int64).reshape(-1, 2)
    if runs:
        nums, at = _tail_points(tail, runs, nums, at, pa, pb)
    order = np.argsort(nums, kind="stable")  # (in path order already where walked)
    return nums[order], at[order], (pa, pb)


def _tail_points(tail, runs: list, nums, at, pa, pb):
    """``nums`` and ``at`` followed by the compiled walk's steps that index sequences,
    read off its arrays in one gather: each table's two coordinates (``_axes``, asked
    table by table in the order the walk first meets them, as its errors are)."""
    walked = tail.walked
    cols = np.zeros((len(walked.tables), 2), np.int64)
    keep = np.zeros(len(walked.tables), bool)
    for first, fid, seqs in runs:
        cols[fid] = _axes(lambda: tail[first].label(), seqs, pa, pb)
        keep[fid] = True
    fids = walked.fids
    rows = np.flatnonzero(keep[fids])
    which = cols[fids[rows]] + 1
    got = walked.st[rows[:, None], which]
    return np.concatenate((nums, rows + tail.k)), np.concatenate((at, got))


def _head_path(head: tuple) -> list:
    """The steps walked in Python before a compiled walk, on the path, numbered: the
    compiled walk took the rest of the path from the last of them."""
    if not all(len(s.children) <= 1 for s in head):
        raise DslcError("this derivation is a tree (a step adds several calls), not a path")
    out, k = [], 0
    while k < len(head):
        out.append((k, head[k]))
        if not head[k].children:
            break
        k = head[k].children[0]
    return out


def _tail_runs(tail) -> list:
    """The tables of the compiled walk's steps that index sequences, in the order the
    walk first meets them: ``(its first step within the walk, table number, seqs)``."""
    fids = tail.walked.fids
    present, firsts = np.unique(fids, return_index=True)
    out = []
    for fid, first in sorted(zip(present.tolist(), firsts.tolist()), key=lambda r: r[1]):
        seqs = tail.base(first)[3]
        if any(q is not None for q in seqs):
            out.append((first, fid, seqs))
    return out


def _columns(d, nums, at, a, b):
    """The alignment's columns in order, as the positions in ``a`` and in ``b`` (-1:
    a gap): from one step to the next, a move of both indexes by the same count adds
    as many aligned pairs, a move of one alone its residues against gaps."""
    da, db = at[:-1, 0] - at[1:, 0], at[:-1, 1] - at[1:, 1]
    bad = np.flatnonzero(~(((da == db) & (da >= 0)) | ((da > 0) & (db == 0))
                           | ((db > 0) & (da == 0))))
    if len(bad):
        j = int(bad[0])
        raise DslcError(f"the step from {d.steps[int(nums[j])].label()} moves {a.name} by "
                        f"{int(da[j])} and {b.name} by {int(db[j])}: an alignment moves both "
                        "by one, or one of them")
    # forward: from the path's last point (the alignment's start) to its first
    da, db, base = da[::-1], db[::-1], at[:0:-1]
    n = np.maximum(da, db)
    offset = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    ia = np.where(np.repeat(da > 0, n), np.repeat(base[:, 0], n) + offset, -1)
    ib = np.where(np.repeat(db > 0, n), np.repeat(base[:, 1], n) + offset, -1)
    return ia, ib


def _build(d, a, b, start, end, ia, ib, matrix) -> Alignment:
    """The alignment's rows, CIGAR and counts from its columns (``_columns``)."""
    ga, gb = ia < 0, ib < 0
    ta, tb = _glyphs(a.alphabet.symbols, b.alphabet.symbols)
    # each sequence's codes with the gap's glyph last: a gap (position -1) reads it
    ca, cb = _gapped(a.codes, len(ta) - 1)[ia], _gapped(b.codes, len(tb) - 1)[ib]
    top, bottom = ta[ca], tb[cb]
    pair = ~(ga | gb)
    same = pair & (top == bottom)
    close = same.copy()
    if matrix is not None:
        other = np.flatnonzero(pair & ~same)
        close[other] = matrix.values[ca[other], cb[other]] > 0
    mid = np.where(same, top, np.where(close, ta[-3], ta[-2]))
    ops = np.where(ga, 3, np.where(gb, 2, np.where(same, 0, 1)))  # "=XID"
    gap = ga | gb
    opens = gap.copy()
    opens[1:] &= ops[1:] != ops[:-1]
    return Alignment((a.name, b.name), tuple(start), tuple(end),
                     (_text(top), _text(mid), _text(bottom)), _cigar(ops), int(same.sum()),
                     int(close.sum()), int(gap.sum()), int(opens.sum()), d.value)


def _compiled_build(d, a, b, at, matrix) -> Alignment | None:
    """``_columns`` and ``_build`` in one compiled call (dslc.trace.align_kernel),
    where the glyphs are bytes; None where it declines (the numpy route says why)."""
    from dslc.trace import align_kernel

    ta, tb = _glyphs(a.alphabet.symbols, b.alphabet.symbols)
    if ta.dtype != np.uint8:
        return None
    pos = np.zeros((1, 1), bool) if matrix is None else matrix.values > 0
    status, top, mid, bottom, cigar, counts = align_kernel.compiled()(
        np.ascontiguousarray(at, np.int64), a.codes, b.codes, ta, tb, pos, matrix is not None)
    if status != 0:
        return None
    same, close, gaps, opens = counts.tolist()
    return Alignment((a.name, b.name), tuple(at[-1].tolist()), tuple(at[0].tolist()),
                     (_text(top), _text(mid), _text(bottom)), _text(cigar), same, close, gaps,
                     opens, d.value)


def _gapped(codes: np.ndarray, gap: int) -> np.ndarray:
    """``codes`` (a sequence's symbol codes) as int64 with ``gap`` appended."""
    out = np.empty(len(codes) + 1, np.int64)
    out[:-1] = codes
    out[-1] = gap
    return out


@functools.lru_cache(maxsize=64)
def _glyphs(sa: tuple, sb: tuple):
    """Each alphabet's symbols as an array indexed by code, then ``+``, `` `` and the
    gap ``-``: bytes where every symbol is one ASCII character (rows then join as one
    buffer), else strings. Made once per pair of alphabets (read, never written)."""
    marks = ("+", " ", "-")
    if all(len(x) == 1 and x.isascii() for x in sa + sb):
        return tuple(np.frombuffer(("".join(x) + "".join(marks)).encode(), np.uint8)
                     for x in (sa, sb))
    return tuple(np.array(tuple(x) + marks, dtype=object) for x in (sa, sb))


def _text(row: np.ndarray) -> str:
    return row.tobytes().decode() if row.dtype == np.uint8 else "".join(row.tolist())


def _sequences(label, seqs: tuple):
    """The two sequences a step's ``seqs`` index, by parameter (see
    :class:`dslc.trace.derive.Step`); ``label()``: the step's, for the error."""
    seen = {}
    for q in seqs:
        if q is not None:
            seen.setdefault(q[0], q)
    if len(seen) != 2:
        raise DslcError(f"{label()} indexes {len(seen)} sequence(s): an alignment needs "
                        "a derivation over two")
    return list(seen.values())


def _coords(step: Step, a, b) -> tuple[int, int]:
    ka, kb = _axes(step.label, step.seqs, a, b)
    return step.point[ka], step.point[kb]


def _axes(label, seqs: tuple, a, b) -> tuple[int, int]:
    """The coordinates of a step's point (its ``seqs``) indexing ``a`` and ``b``;
    ``label()``: the step's, for the error."""
    out = []
    for name, seq in (a, b):
        ks = [k for k, q in enumerate(seqs) if q is not None and q[0] == name]
        if len(ks) != 1:
            raise DslcError(f"{label()} has {len(ks)} indexes into {name}: an "
                            "alignment's cells have one index into each sequence")
        out.append(ks[0])
    return out[0], out[1]


def _matrix(d: Derivation):
    for s in d.steps:
        for v in (s.env or {}).values():
            if isinstance(v, Matrix):
                return v
    return None


def _cigar(ops: np.ndarray) -> str:
    """Runs of equal operations (codes into ``=XID``) as ``<count><op>``."""
    if not len(ops):
        return ""
    cuts = np.concatenate(([0], np.flatnonzero(ops[1:] != ops[:-1]) + 1, [len(ops)]))
    return "".join(map("{}{}".format, np.diff(cuts).tolist(),
                       [_OPS[op] for op in ops[cuts[:-1]].tolist()]))


_OPS = "=XID"


def _row(name: str, width: int, pos: int, used: int) -> str:
    """A row's name and first position (1-based), up to its residues."""
    return f"{name:<{width}} {pos + 1 if used else pos:>6} "


def common_text(d: Derivation) -> str:
    """The text an alignment path has in common: the symbols of its identical pairs,
    in order (of a longest-common-subsequence recurrence, the subsequence itself)."""
    if not isinstance(d, Derivation):
        raise DslcError("common takes a derivation (trace(f(...)))")
    with collector_paused():
        a, b, cols, _, _ = _symbol_columns(d)
    return _join(a, [x for x, y in cols if x is not None and x == y])


def merged_text(d: Derivation) -> str:
    """The shortest text holding both sequences whole in the order an alignment path
    gives: each column's symbol, once where the pair is identical, both (the first
    sequence's first) where it is not; the residues before the path's start (a base
    case's ``scs(0, j) = j``) and after its end come first and last, the first
    sequence's before the second's (of a shortest-common-supersequence recurrence,
    the supersequence itself)."""
    if not isinstance(d, Derivation):
        raise DslcError("merged takes a derivation (trace(f(...)))")
    with collector_paused():
        a, b, cols, start, end = _symbol_columns(d)
    out = _symbols(a, 0, start[0]) + _symbols(b, 0, start[1])
    for x, y in cols:
        out += [x] if x == y else [s for s in (x, y) if s is not None]
    out += _symbols(a, end[0], len(a)) + _symbols(b, end[1], len(b))
    return _join(a, out)


def _symbol_columns(d: Derivation):
    """The path's two sequences, its columns as pairs of symbols (None: a gap), and
    its start and end points (0-based, the end exclusive)."""
    nums, at, (pa, pb) = _points(d)
    a, b = pa[1], pb[1]
    ia, ib = _columns(d, nums, at, a, b)
    sa, sb = a.alphabet.symbols, b.alphabet.symbols
    cols = [(None if i < 0 else sa[a.codes[i]], None if j < 0 else sb[b.codes[j]])
            for i, j in zip(ia.tolist(), ib.tolist())]
    return a, b, cols, at[-1].tolist(), at[0].tolist()


def _symbols(seq, lo: int, hi: int) -> list:
    return [seq.alphabet.symbols[c] for c in seq.codes[lo:hi].tolist()]


def _join(seq, symbols: list) -> str:
    """Symbols as text: run together where each is one character, else spaced."""
    return ("" if seq.alphabet.single_chars else " ").join(symbols)
