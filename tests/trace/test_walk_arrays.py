"""A compiled walk's derivation keeps its arrays (dslc.trace.derive.Steps: each Step
made when read), and alignments are read off those arrays at once: both give what
the Step objects give. The alignment is compared with one built step by step from
``Derivation.path()`` (the reference below: one column at a time, as the alignment
is defined in dslc.trace.align's docstring), on the standard library's Smith-Waterman
with gaps and on random recurrences over two sequences (tests/generators.py), whose
paths move indexes by any amounts (an error then, the same one)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from dslc.lang.stdlib import stdlib_source
from dslc.trace.align import Alignment, _matrix, alignment
from dslc.trace.derive import Derivation, Steps
from tests.generators import dna, recurrences
from tests.trace.test_filled_tables import entry


def by_steps(d: Derivation):
    """The alignment from the Step objects of ``d``'s path, one column at a time."""
    steps = [s for s in d.path() if any(q is not None for q in s.seqs)]
    if not steps:
        raise DslcError("no sequence")
    names = list(dict.fromkeys(q[0] for q in steps[0].seqs if q is not None))
    if len(names) != 2:
        raise DslcError("not two sequences")
    seqs = [next(q[1] for q in steps[0].seqs if q is not None and q[0] == n) for n in names]

    def coords(s):
        ks = [[k for k, q in enumerate(s.seqs) if q is not None and q[0] == n] for n in names]
        if any(len(k) != 1 for k in ks):
            raise DslcError("indexes")
        return s.point[ks[0][0]], s.point[ks[1][0]]
    at = [coords(s) for s in steps]
    cols = []
    for (pa, pb), (qa, qb) in zip(at, at[1:]):
        da, db = pa - qa, pb - qb
        if not ((da == db and da >= 0) or (da > 0 and db == 0) or (db > 0 and da == 0)):
            raise DslcError("moves")
        cols = [(qa + k if da else None, qb + k if db else None)
                for k in range(max(da, db))] + cols
    matrix, (a, b) = _matrix(d), seqs
    rows, ops, counts = ["", "", ""], [], [0, 0, 0, 0]
    for x, y in cols:
        ta = "-" if x is None else a.alphabet.symbols[a.codes[x]]
        tb = "-" if y is None else b.alphabet.symbols[b.codes[y]]
        same = x is not None and y is not None and ta == tb
        close = same or (x is not None and y is not None and matrix is not None
                         and matrix.values[a.codes[x], b.codes[y]] > 0)
        op = "=" if same else "X" if x is not None and y is not None else "I" if y is None \
            else "D"
        counts[0] += same
        counts[1] += close
        counts[2] += op in "ID"
        counts[3] += op in "ID" and (not ops or ops[-1] != op)
        rows = [rows[0] + ta, rows[1] + (ta if same else "+" if close else " "), rows[2] + tb]
        ops.append(op)
    cigar, k = "", 0
    while k < len(ops):
        n = next((n for n in range(1, len(ops) - k + 1) if k + n == len(ops)
                  or ops[k + n] != ops[k]))
        cigar, k = cigar + f"{n}{ops[k]}", k + n
    return Alignment((a.name, b.name), at[-1], at[0], tuple(rows), cigar, *counts, d.value)


def same_alignments(d: Derivation) -> None:
    """The array route's alignment of ``d`` and the reference's (or both an error)."""
    try:
        want = by_steps(Derivation(tuple(d.steps), d.type, d.tracer))
    except DslcError:
        want = "error"
    try:
        got = alignment(d)
    except DslcError:
        got = "error"
    assert got == want


def test_smith_waterman_with_gaps_aligns_from_the_arrays():
    prog = dslc.compile(stdlib_source("align"), backend="cpu")
    s, t = "MKVLAAGIVALLLAAGCSSSKEETPAAEGEKKSW", "MKVLAGIVALLLAGCSSKEETPAEGEKW"
    ds = prog.traces("sw", [("blosum62", 2, 1, s, t), ("blosum62", 2, 1, t, s),
                            ("blosum62", 1, 1, s[:3], t[5:6])])
    gapped = alignment(ds[1])
    assert isinstance(ds[1].steps, Steps) and len(ds[1].steps.tail) > 20
    assert all(s is None for s in ds[1].steps.tail._made)  # (aligned, no step made)
    assert "D" in gapped.cigar and "I" in alignment(ds[0]).cigar
    for d in ds:
        same_alignments(d)


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rec=recurrences(min_dim=2, max_dim=2, layered=True), op=st.sampled_from(["max", "min"]),
       data=st.data())
def test_alignments_from_walk_arrays_equal_those_from_steps(rec, op, data):
    calls = [tuple(data.draw(dna(6)) for _ in range(2)) for _ in range(2)]
    prog = dslc.compile(rec.source() + entry(2, op), backend="cpu")
    try:
        ds = prog.traces("best", calls)
    except DslcError:
        return  # (the planned and compiled routes' errors: tests/trace/test_compiled_walk.py)
    for d in ds:
        same_alignments(d)
