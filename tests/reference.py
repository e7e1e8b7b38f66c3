"""Independent oracles: plain iterative Python, no dslc, no recursion.

Each function states its scoring precisely; the property tests compare the
interpreter (and every compiled backend) with these on random inputs.
"""

from __future__ import annotations

NEG = float("-inf")
PAIRS = {("A", "U"), ("U", "A"), ("G", "C"), ("C", "G"), ("G", "U"), ("U", "G")}


def edit_distance(s: str, t: str) -> int:
    """Levenshtein distance, unit costs."""
    prev = list(range(len(t) + 1))
    for i in range(1, len(s) + 1):
        cur = [i] + [0] * len(t)
        for j in range(1, len(t) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (s[i - 1] != t[j - 1]))
        prev = cur
    return prev[-1]


def needleman_wunsch(s: str, t: str, matrix: dict, gap: int) -> int:
    """Global alignment score: substitutions from ``matrix`` minus ``gap`` per gap symbol."""
    prev = [-gap * j for j in range(len(t) + 1)]
    for i in range(1, len(s) + 1):
        cur = [-gap * i] + [0] * len(t)
        for j in range(1, len(t) + 1):
            cur[j] = max(prev[j - 1] + matrix[s[i - 1], t[j - 1]], prev[j] - gap, cur[j - 1] - gap)
        prev = cur
    return prev[-1]


def gotoh_local(s: str, t: str, matrix: dict, open_: int, ext: int) -> int:
    """Smith-Waterman local score with affine gaps: a gap of length L costs open + L * ext."""
    best = 0
    h_prev = [0] * (len(t) + 1)
    f_prev = [NEG] * (len(t) + 1)
    for i in range(1, len(s) + 1):
        h = [0] * (len(t) + 1)
        f = [NEG] * (len(t) + 1)
        e = NEG
        for j in range(1, len(t) + 1):
            e = max(e - ext, h[j - 1] - open_ - ext)
            f[j] = max(f_prev[j] - ext, h_prev[j] - open_ - ext)
            h[j] = max(0, e, f[j], h_prev[j - 1] + matrix[s[i - 1], t[j - 1]])
            best = max(best, h[j])
        h_prev, f_prev = h, f
    return best


def nussinov(x: str, min_loop: int = 3) -> int:
    """Most base pairs (AU, GC, GU wobble) in ``x`` where paired positions ``a < b``
    satisfy ``b - a >= 4``, pairs non-crossing. ``best[i][j]`` covers x[i .. j-1],
    filled by increasing interval length."""
    n = len(x)
    best = [[0] * (n + 1) for _ in range(n + 2)]
    for length in range(min_loop + 2, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            v = best[i + 1][j]
            for k in range(i + min_loop + 1, j):
                if (x[i], x[k]) in PAIRS:
                    v = max(v, 1 + best[i + 1][k] + best[k + 1][j])
            best[i][j] = v
    return best[0][n] if n else 0


def nussinov_brute(x: str) -> int:
    """Exhaustive search over non-crossing pairings (tiny inputs only)."""
    from functools import cache

    @cache
    def go(i: int, j: int) -> int:  # x[i .. j-1]
        if j - i < 5:
            return 0
        v = go(i + 1, j)
        for k in range(i + 4, j):
            if (x[i], x[k]) in PAIRS:
                v = max(v, 1 + go(i + 1, k) + go(k + 1, j))
        return v
    return go(0, len(x))


def three_way(a: str, b: str, c: str, match: int, mismatch: int, gap: int) -> int:
    """Sum-of-pairs global alignment of three sequences, linear gaps. A column scores
    the sum over its three pairs: ``match``/``mismatch`` for two symbols, ``-gap`` for a
    symbol against a gap, 0 for two gaps."""
    def pair(x, y):
        if x is None and y is None:
            return 0
        if x is None or y is None:
            return -gap
        return match if x == y else mismatch

    n1, n2, n3 = len(a), len(b), len(c)
    D = [[[NEG] * (n3 + 1) for _ in range(n2 + 1)] for _ in range(n1 + 1)]
    D[0][0][0] = 0
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            for k in range(n3 + 1):
                if i == j == k == 0:
                    continue
                best = NEG
                for di, dj, dk in ((1, 1, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1), (1, 0, 0),
                                   (0, 1, 0), (0, 0, 1)):
                    if i < di or j < dj or k < dk:
                        continue
                    x = a[i - 1] if di else None
                    y = b[j - 1] if dj else None
                    z = c[k - 1] if dk else None
                    best = max(best, D[i - di][j - dj][k - dk] + pair(x, y) + pair(x, z)
                               + pair(y, z))
                D[i][j][k] = best
    return D[n1][n2][n3]


def blosum62_dict() -> dict:
    from Bio.Align import substitution_matrices

    m = substitution_matrices.load("BLOSUM62")
    return {(a, b): int(m[a][b]) for a in m.alphabet for b in m.alphabet}


three_way_alignment = three_way
