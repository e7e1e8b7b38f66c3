"""Independent oracles: plain iterative Python, no dslc, no recursion (a helper
module for tests, not a test file).

Every function here is a bottom-up loop over a table, written from the textbook
definition of its problem and not from the .bio programs, so a disagreement
between a program and these functions points at the compiler.
``tests/test_reference_selfcheck.py`` checks each oracle against brute force,
against literal transcriptions of LANGUAGE.md's recurrences, and against
Biopython and parasail.

Scoring conventions (those of the examples and of LANGUAGE.md):

* edit distance: unit cost for a substitution, an insertion or a deletion;
* alignment scores are maximised; a substitution scores ``matrix[(a, b)]``;
* a linear gap costs ``gap`` per gap symbol;
* an affine gap of length ``L`` costs ``open + L * ext`` (LANGUAGE.md's Gotoh
  program: ``h(i, j - 1) - open - ext`` opens a gap, ``e(i, j - 1) - ext``
  extends it). In parasail's and Biopython's convention, where a gap of length
  ``L`` costs ``open' + (L - 1) * extend'``, that is ``open' = open + ext`` and
  ``extend' = ext`` (so open=10, ext=1 here is parasail's open=11, extend=1).
"""

from __future__ import annotations

import math

NEG = float("-inf")

# Watson-Crick and GU wobble pairs, as in LANGUAGE.md's ``pairs``.
PAIRS = frozenset({("A", "U"), ("U", "A"), ("G", "C"), ("C", "G"), ("G", "U"), ("U", "G")})
RNA_PAIRS = PAIRS


# --------------------------------------------------------------------------- edit distance


def edit_distance_table(s: str, t: str) -> list[list[int]]:
    """``D[i][j]`` = edit distance between ``s[:i]`` and ``t[:j]`` (unit costs);
    a ``(len(s) + 1) x (len(t) + 1)`` table, the shape of LANGUAGE.md's
    ``r = d("kitten", "sitting")``."""
    n, m = len(s), len(t)
    D = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        D[i][0] = i
    for j in range(m + 1):
        D[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sub = D[i - 1][j - 1] + (0 if s[i - 1] == t[j - 1] else 1)
            D[i][j] = min(sub, D[i - 1][j] + 1, D[i][j - 1] + 1)
    return D


def co_optimal_edit_table(s: str, t: str) -> list[list[list[int]]]:
    """``[D[i][j], N[i][j]]``: the edit distance of ``s[:i]`` and ``t[:j]`` and the number
    of alignments that reach it, counted forwards as paths from ``(0, 0)`` along the
    moves that keep a cell's distance optimal (the product ``minimize *** count``)."""
    D = edit_distance_table(s, t)
    n, m = len(s), len(t)
    N = [[0] * (m + 1) for _ in range(n + 1)]
    N[0][0] = 1
    for i in range(n + 1):
        for j in range(m + 1):
            moves = ((i + 1, j + 1, 0 if i < n and j < m and s[i] == t[j] else 1),
                     (i + 1, j, 1), (i, j + 1, 1))
            for a, b, cost in moves:
                if a <= n and b <= m and D[i][j] + cost == D[a][b]:
                    N[a][b] += N[i][j]
    return [[[D[i][j], N[i][j]] for j in range(m + 1)] for i in range(n + 1)]


def edit_distance(s: str, t: str) -> int:
    """Levenshtein distance between ``s`` and ``t`` (unit costs)."""
    return edit_distance_table(s, t)[len(s)][len(t)]


# --------------------------------------------------------------------------- pairwise alignment


def needleman_wunsch_table(s: str, t: str, matrix: dict, gap: int) -> list[list[int]]:
    """``S[i][j]`` = best global alignment score of ``s[:i]`` and ``t[:j]``
    (see :func:`needleman_wunsch`)."""
    n, m = len(s), len(t)
    S = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        S[0][j] = -gap * j
    for i in range(1, n + 1):
        S[i][0] = -gap * i
        a = s[i - 1]
        for j in range(1, m + 1):
            S[i][j] = max(
                S[i - 1][j - 1] + matrix[(a, t[j - 1])],
                S[i - 1][j] - gap,   # s[i-1] against a gap
                S[i][j - 1] - gap,   # t[j-1] against a gap
            )
    return S


def needleman_wunsch(s: str, t: str, matrix: dict, gap: int) -> int:
    """Best global alignment score of ``s`` and ``t``: the sum of
    ``matrix[(a, b)]`` over aligned pairs minus ``gap`` for every gap symbol
    (a linear gap penalty; leading and trailing gaps are charged too)."""
    return needleman_wunsch_table(s, t, matrix, gap)[len(s)][len(t)]


def gotoh_local(s: str, t: str, matrix: dict, open_: int, ext: int) -> int:
    """Smith-Waterman local alignment score with affine gaps (Gotoh).

    A gap of length ``L`` costs ``open_ + L * ext``. The score is the maximum,
    over all pairs of substrings of ``s`` and ``t`` and all their alignments,
    of substitutions minus gap costs, and at least 0 (the empty alignment).
    Three rows: ``H`` (best alignment ending at ``(i, j)``), ``E`` (ending with
    ``t[j-1]`` against a gap) and ``F`` (ending with ``s[i-1]`` against a gap)."""
    n, m = len(s), len(t)
    best = 0
    H_prev = [0] * (m + 1)
    F_prev = [NEG] * (m + 1)
    for i in range(1, n + 1):
        H = [0] * (m + 1)
        F = [NEG] * (m + 1)
        E = NEG
        a = s[i - 1]
        for j in range(1, m + 1):
            E = max(E - ext, H[j - 1] - open_ - ext)
            F[j] = max(F_prev[j] - ext, H_prev[j] - open_ - ext)
            h = max(0, E, F[j], H_prev[j - 1] + matrix[(a, t[j - 1])])
            H[j] = h
            if h > best:
                best = h
        H_prev, F_prev = H, F
    return int(best)


# --------------------------------------------------------------------------- RNA folding


def nussinov_table(x: str, min_loop: int = 3) -> list[list[int]]:
    """``N[i][j]`` = the largest number of base pairs (AU, UA, GC, CG, GU, UG)
    in a non-crossing structure on the half-open interval ``x[i:j]`` in which
    every pair ``(p, q)``, ``p < q``, encloses at least ``min_loop`` unpaired
    positions (``q - p > min_loop``). ``0 <= i <= j <= len(x)``; entries with
    ``j < i`` are 0 and unused.

    Written bottom-up over interval lengths with the classic four cases
    (``x[i]`` unpaired, ``x[j-1]`` unpaired, ``x[i]`` paired with ``x[j-1]``,
    or a split into two independent intervals), a different decomposition
    from the one the example program uses."""
    n = len(x)
    N = [[0] * (n + 1) for _ in range(n + 1)]
    for length in range(2, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            best = max(N[i + 1][j], N[i][j - 1])
            if (j - 1) - i > min_loop and (x[i], x[j - 1]) in PAIRS:
                best = max(best, N[i + 1][j - 1] + 1)
            for k in range(i + 1, j):
                v = N[i][k] + N[k][j]
                if v > best:
                    best = v
            N[i][j] = best
    return N


def nussinov(x: str, min_loop: int = 3) -> int:
    """Maximum number of base pairs in ``x`` (see :func:`nussinov_table`).

    With ``min_loop=3`` this is the value of LANGUAGE.md's ``n(x, 0, len(x))``:
    there ``n(i, j)`` covers ``x[i .. j-1]``, pairs ``x[i]`` with ``x[k]`` only
    for ``k >= i + 4`` (three unpaired bases inside) and gives 0 for intervals
    of at most 4 bases."""
    return nussinov_table(x, min_loop)[0][len(x)]


def nussinov_brackets(x: str, min_loop: int = 3) -> str:
    """The dot-bracket string of the structure a traceback of the example program's
    ``n(x, 0, len(x))`` takes: at ``(i, j)`` leaving ``x[i]`` unpaired where that is
    optimal, else pairing ``x[i]`` with the lowest ``k`` that is (the first
    alternative in source order on ties), read off :func:`nussinov_table`'s values
    with an explicit stack."""
    N = nussinov_table(x, min_loop)
    out, todo = ["."] * len(x), [(0, len(x))]
    while todo:
        i, j = todo.pop()
        if j <= i + min_loop + 1 or N[i][j] == N[i + 1][j]:
            if j > i + min_loop + 1:
                todo.append((i + 1, j))
            continue
        k = next(k for k in range(i + min_loop + 1, j) if (x[i], x[k]) in PAIRS
                 and 1 + N[i + 1][k] + N[k + 1][j] == N[i][j])
        out[i], out[k] = "(", ")"
        todo += [(i + 1, k), (k + 1, j)]
    return "".join(out)


def nussinov_brute(x: str, min_loop: int = 3) -> int:
    """Exhaustive search (tiny inputs only): the largest set of allowed pairs
    ``(p, q)``, ``q - p > min_loop``, no two sharing a position or crossing."""
    cand = [
        (p, q)
        for p in range(len(x))
        for q in range(p + min_loop + 1, len(x))
        if (x[p], x[q]) in PAIRS
    ]
    best = 0
    stack: list[tuple[int, tuple]] = [(0, ())]
    while stack:
        nxt, chosen = stack.pop()
        best = max(best, len(chosen))
        if len(chosen) + (len(cand) - nxt) <= best:
            continue
        for c in range(nxt, len(cand)):
            p, q = cand[c]
            if all(
                len({p, q, u, v}) == 4 and not (u < p < v < q) and not (p < u < q < v)
                for (u, v) in chosen
            ):
                stack.append((c + 1, chosen + ((p, q),)))
    return best


# --------------------------------------------------------------------------- three sequences


def three_way(a: str, b: str, c: str, match: int, mismatch: int, gap: int) -> int:
    """Best sum-of-pairs global alignment score of three sequences, linear gaps.

    An alignment is a sequence of columns; each column holds, for each of the
    three sequences, either its next symbol or a gap, and no column is all
    gaps (so there are 7 kinds of column, 7 predecessor moves). The score of a
    column is the sum of the scores of its three pairs (a, b), (a, c), (b, c),
    where a pair scores

    * ``match`` for two equal symbols, ``mismatch`` for two different symbols,
    * ``-gap`` for a symbol against a gap,
    * ``0`` for a gap against a gap,

    and the score of an alignment is the sum of its column scores. This is the
    recurrence of Li's thesis (Chapter 5) with ``sub`` given by match/mismatch:
    a column ``(x, y, z)`` scores ``p(x, y) + p(x, z) + p(y, z)``, a column
    ``(x, y, -)`` scores ``p(x, y) - 2 * gap`` and ``(x, -, -)`` scores
    ``-2 * gap``."""

    def p(x: str, y: str) -> int:
        return match if x == y else mismatch

    la, lb, lc = len(a), len(b), len(c)
    H = [[[0] * (lc + 1) for _ in range(lb + 1)] for _ in range(la + 1)]
    g2 = 2 * gap
    for i in range(la + 1):
        for j in range(lb + 1):
            for k in range(lc + 1):
                if i == 0 and j == 0 and k == 0:
                    continue
                best = NEG
                x = a[i - 1] if i else None
                y = b[j - 1] if j else None
                z = c[k - 1] if k else None
                if i and j and k:
                    best = max(best, H[i - 1][j - 1][k - 1] + p(x, y) + p(x, z) + p(y, z))
                if i and j:
                    best = max(best, H[i - 1][j - 1][k] + p(x, y) - g2)
                if i and k:
                    best = max(best, H[i - 1][j][k - 1] + p(x, z) - g2)
                if j and k:
                    best = max(best, H[i][j - 1][k - 1] + p(y, z) - g2)
                if i:
                    best = max(best, H[i - 1][j][k] - g2)
                if j:
                    best = max(best, H[i][j - 1][k] - g2)
                if k:
                    best = max(best, H[i][j][k - 1] - g2)
                H[i][j][k] = best
    return H[la][lb][lc]


three_way_alignment = three_way


# --------------------------------------------------------------------------- HMM forward


def _lse(vals):
    """log(sum(exp(v))) of log-space values, -inf for none."""
    vals = [v for v in vals if v != NEG]
    if not vals:
        return NEG
    top = max(vals)
    return top + math.log(math.fsum(math.exp(v - top) for v in vals))


def _lg(p):
    return math.log(p) if p > 0 else NEG


def hmm_forward_log(x, start: dict, trans: dict, emit: dict, end: dict) -> float:
    """Natural log of P(x) for an HMM whose emitting states are the keys of
    ``emit`` (``emit[q][symbol]``), entered from the start state with
    probability ``start[q]``, moving by ``trans[(q, r)]`` and leaving for the
    end state with ``end[q]``: the sum, over all state paths ``q1 .. qL``, of
    ``start[q1] * emit[q1][x1] * trans[(q1, q2)] * ... * emit[qL][xL] * end[qL]``.
    Computed in log space (log-sum-exp), so long sequences do not underflow."""

    states = list(emit)
    if len(x) == 0:
        return NEG
    f = {q: _lg(start.get(q, 0.0)) + _lg(emit[q][x[0]]) for q in states}
    for sym in x[1:]:
        f = {
            r: _lg(emit[r][sym]) + _lse([f[q] + _lg(trans.get((q, r), 0.0)) for q in states])
            for r in states
        }
    return _lse([f[q] + _lg(end.get(q, 0.0)) for q in states])


# The dishonest casino of LANGUAGE.md (the thesis's Figure 6.2).
CASINO = dict(
    start={"fair": 1.0},
    trans={
        ("fair", "fair"): 0.94999,
        ("fair", "loaded"): 0.05,
        ("loaded", "loaded"): 0.97999,
        ("loaded", "fair"): 0.02,
    },
    emit={
        "fair": {str(d): 1 / 6 for d in range(1, 7)},
        "loaded": {"1": 0.1, "2": 0.1, "3": 0.1, "4": 0.1, "5": 0.1, "6": 0.5},
    },
    end={"fair": 0.00001, "loaded": 0.00001},
)


def casino_forward_log(rolls: str) -> float:
    """ln P(rolls | casino): the value of LANGUAGE.md's ``px(casino, rolls)``."""
    return hmm_forward_log(rolls, **CASINO)


def hmm_viterbi_states(x, start: dict, trans: dict, emit: dict, end: dict) -> list[str]:
    """The most probable state path ``q1 .. qL`` of the HMM of
    :func:`hmm_forward_log` (its emitting states only; ``[]`` when ``x`` is empty
    or has no path). Ties go to the state listed first in ``emit``."""

    def _lg(p):
        return math.log(p) if p > 0 else NEG

    states = list(emit)
    if len(x) == 0:
        return []
    v = {q: _lg(start.get(q, 0.0)) + _lg(emit[q][x[0]]) for q in states}
    back = []
    for sym in x[1:]:
        ptr, nv = {}, {}
        for r in states:
            best, arg = NEG, None
            for q in states:
                val = v[q] + _lg(trans.get((q, r), 0.0))
                if arg is None or val > best:
                    best, arg = val, q
            nv[r], ptr[r] = _lg(emit[r][sym]) + best, arg
        back.append(ptr)
        v = nv
    finals = [v[q] + _lg(end.get(q, 0.0)) for q in states]
    if max(finals) == NEG:
        return []
    path = [states[finals.index(max(finals))]]
    for ptr in reversed(back):
        path.append(ptr[path[-1]])
    return path[::-1]


def hmm_posteriors(x, start: dict, trans: dict, emit: dict, end: dict) -> list[dict]:
    """Per symbol of ``x``, ``{state: P(state emitted it | x)}`` for the HMM of
    :func:`hmm_forward_log`: forward times backward over P(x), in log space; an
    empty list where the model cannot emit ``x``."""
    states, n = list(emit), len(x)
    if n == 0:
        return []
    f = [{q: _lg(start.get(q, 0.0)) + _lg(emit[q][x[0]]) for q in states}]
    for sym in x[1:]:
        f.append({r: _lg(emit[r][sym]) + _lse([f[-1][q] + _lg(trans.get((q, r), 0.0))
                                               for q in states]) for r in states})
    b = [None] * n
    b[n - 1] = {q: _lg(end.get(q, 0.0)) for q in states}
    for k in range(n - 2, -1, -1):
        b[k] = {q: _lse([_lg(trans.get((q, r), 0.0)) + _lg(emit[r][x[k + 1]]) + b[k + 1][r]
                        for r in states]) for q in states}
    total = _lse([f[n - 1][q] + _lg(end.get(q, 0.0)) for q in states])
    if total == NEG:
        return []
    return [{q: math.exp(f[k][q] + b[k][q] - total) for q in states} for k in range(n)]


def casino_posteriors(rolls: str) -> list[dict]:
    """:func:`hmm_posteriors` under the casino, per roll."""
    return hmm_posteriors(rolls, **CASINO)


def hmm_posterior_states(x, start: dict, trans: dict, emit: dict, end: dict) -> list[str]:
    """Posterior decoding for the HMM of :func:`hmm_forward_log`: per symbol the
    state with the largest forward x backward; on a tie the state chosen for the
    previous symbol if it is among the best, else the one listed first in ``emit``."""

    states, n = list(emit), len(x)
    if n == 0:
        return []
    f = [{q: _lg(start.get(q, 0.0)) + _lg(emit[q][x[0]]) for q in states}]
    for sym in x[1:]:
        f.append({r: _lg(emit[r][sym]) + _lse([f[-1][q] + _lg(trans.get((q, r), 0.0)) for q in states])
                  for r in states})
    b = [None] * n
    b[n - 1] = {q: _lg(end.get(q, 0.0)) for q in states}
    for k in range(n - 2, -1, -1):
        b[k] = {q: _lse([_lg(trans.get((q, r), 0.0)) + _lg(emit[r][x[k + 1]]) + b[k + 1][r]
                        for r in states]) for q in states}
    if _lse([f[n - 1][q] + b[n - 1][q] for q in states]) == NEG:
        return []
    out, prev = [], None
    for k in range(n):
        score = {q: f[k][q] + b[k][q] for q in states}
        top = max(score.values())
        ties = [q for q in states if score[q] == top]
        prev = prev if prev in ties else ties[0]
        out.append(prev)
    return out


def casino_viterbi_states(rolls: str) -> list[str]:
    """The Viterbi path of ``rolls`` under the casino: ``"fair"``/``"loaded"`` per roll."""
    return hmm_viterbi_states(rolls, **CASINO)


def casino_posterior_states(rolls: str) -> list[str]:
    """Posterior decoding of ``rolls`` under the casino, per roll."""
    return hmm_posterior_states(rolls, **CASINO)


# --------------------------------------------------------------------------- matrices and files


def blosum62_dict() -> dict:
    """BLOSUM62 as ``{(a, b): score}`` over its 24 symbols, from Biopython."""
    from Bio.Align import substitution_matrices

    m = substitution_matrices.load("BLOSUM62")
    return {(a, b): int(m[a][b]) for a in m.alphabet for b in m.alphabet}


def parse_ncbi_matrix(text: str) -> dict:
    """An NCBI-format substitution matrix (``#`` comments, a header row of
    symbols, then one row per symbol) as ``{(a, b): score}``."""
    rows = [ln.split() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    header = rows[0]
    out = {}
    for row in rows[1:]:
        a, values = row[0], row[1:]
        assert len(values) == len(header), row
        for b, v in zip(header, values):
            out[(a, b)] = int(v)
    return out


def read_fasta(path) -> list[tuple[str, str]]:
    """``[(name, sequence), ...]`` from a plain FASTA file; the name is the
    first word of the header line; sequence lines are joined and upper-cased."""
    records: list[tuple[str, list[str]]] = []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            if line.startswith(">"):
                header = line[1:].split()
                records.append((header[0] if header else "", []))
            else:
                records[-1][1].append(line.upper())
    return [(name, "".join(parts)) for name, parts in records]


def fewest_coins(n: int, coins: list[int], fees: list[int]) -> float:
    """Fewest coins making ``n``, each coin also costing its fee; inf if none do."""
    best = [0.0] + [math.inf] * n
    for m in range(1, n + 1):
        best[m] = min([best[m - c] + 1 + f for c, f in zip(coins, fees) if c <= m],
                      default=math.inf)
    return best[n]


def ordered_ways(n: int, coins: list[int]) -> int:
    """Ordered sequences of coins summing to ``n``."""
    ways = [1] + [0] * n
    for m in range(1, n + 1):
        ways[m] = sum(ways[m - c] for c in coins if c <= m)
    return ways[n]


# --------------------------------------------------------------------------- data-dependent offsets
def coin_change_ways(coins: list[int], amount: int) -> int:
    """Ways to pay ``amount`` with unlimited coins of the given values, order
    ignored (the one-dimensional textbook loop: values outer, amounts inner)."""
    ways = [1] + [0] * amount
    for c in coins:
        for m in range(c, amount + 1):
            ways[m] += ways[m - c]
    return ways[amount]


def knapsack(weights: list[int], gains: list[int], capacity: int) -> int:
    """The 0/1 knapsack's best gain (capacities downwards, so each item once)."""
    best = [0] * (capacity + 1)
    for w, g in zip(weights, gains):
        for c in range(capacity, w - 1, -1):
            best[c] = max(best[c], best[c - w] + g)
    return best[capacity]


def fewest_squares(n: int) -> int:
    """The fewest perfect squares summing to ``n`` (breadth-first over sums)."""
    squares = [k * k for k in range(1, math.isqrt(n) + 1)]
    level, seen, count = {0}, {0}, 0
    while n not in level:
        count += 1
        level = {s + q for s in level for q in squares if s + q <= n} - seen
        seen |= level
    return count


def hofstadter_q(n: int) -> int:
    """Q(n) of Hofstadter's sequence (Q(1) = Q(2) = 1), built upwards in a list."""
    q = [None, 1, 1]
    for k in range(3, n + 1):
        q.append(q[k - q[k - 1]] + q[k - q[k - 2]])
    return q[n] if n >= 1 else 1
