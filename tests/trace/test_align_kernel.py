"""The compiled alignment builder (dslc.trace.align_kernel) gives what the numpy route
of dslc.trace.align gives, on random paths: runs of any length (CIGAR counts of
several digits), gaps in either sequence, steps that move nothing, with and without
a matrix; and it declines (the numpy route then raises) every path an alignment
cannot take."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.errors import DslcError
from dslc.check.registry import standard_matrices
from dslc.lang.stdlib import standard_alphabets
from dslc.lang.values import Sequence
from dslc.trace import align

PROTEIN = standard_alphabets()["protein"]

moves = st.one_of(st.integers(0, 14).map(lambda k: (k, k)),
                  st.integers(1, 12).map(lambda k: (k, 0)),
                  st.integers(1, 12).map(lambda k: (0, k)),
                  st.tuples(st.integers(0, 3), st.integers(0, 3)))


@settings(max_examples=40, deadline=None)
@given(path=st.lists(moves, max_size=25), start=st.tuples(st.integers(0, 5), st.integers(0, 5)),
       with_matrix=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_compiled_build_equals_the_numpy_route(path, start, with_matrix, seed):
    rng = np.random.default_rng(seed)
    points = [start]
    for da, db in path:
        points.append((points[-1][0] + da, points[-1][1] + db))
    n = max(max(p) for p in points) + 1
    codes = rng.integers(0, 4, size=(2, n))  # (few symbols: identities, similar, others)
    other = rng.random(n) < 0.3
    codes[1, other] = rng.integers(0, len(PROTEIN), size=int(other.sum()))
    a, b = (Sequence(name, PROTEIN, c.astype(np.uint8)) for name, c in zip("qr", codes))
    at = np.array(points[::-1], np.int64).reshape(-1, 2)  # (path order: the end first)
    d = SimpleNamespace(value=3, steps=[SimpleNamespace(label=lambda: "h(...)")] * len(at))
    matrix = standard_matrices()["blosum62"] if with_matrix else None
    try:
        ia, ib = align._columns(d, np.arange(len(at)), at, a, b)
        want = align._build(d, a, b, at[-1].tolist(), at[0].tolist(), ia, ib, matrix)
    except DslcError:
        want = None  # (a move no alignment makes: the compiled builder declines it)
    got = align._compiled_build(d, a, b, at, matrix)
    assert got == want
    if with_matrix and got is not None:
        assert got.similar >= got.identities
