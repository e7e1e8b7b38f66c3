"""Independent answers for tests/corpus/*.bio: plain Python, written from each
problem's statement (never from dslc), with the inputs the programs use.

``EXPECTED`` maps a program's file name to ``{printed name: value}`` (the printed
name is the source text after ``print``)."""

from __future__ import annotations

import math
from functools import lru_cache

from tests import reference as ref


def edit(s, t, sub=lambda a, b: 0 if a == b else 1, indel=1):
    d = [[0] * (len(t) + 1) for _ in range(len(s) + 1)]
    for i in range(len(s) + 1):
        for j in range(len(t) + 1):
            if i == 0 or j == 0:
                d[i][j] = indel * (i + j)
            else:
                d[i][j] = min(d[i - 1][j] + indel, d[i][j - 1] + indel,
                              d[i - 1][j - 1] + sub(s[i - 1], t[j - 1]))
    return d


def lcs(*xs):
    @lru_cache(None)
    def go(*ix):
        if 0 in ix:
            return 0
        last = {x[i - 1] for x, i in zip(xs, ix)}
        if len(last) == 1:
            return go(*(i - 1 for i in ix)) + 1
        return max(go(*(i - (k == m) for m, i in enumerate(ix))) for k in range(len(ix)))
    return go(*(len(x) for x in xs))


def osa(s, t):
    n, m = len(s), len(t)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                d[i][j] = i + j
                continue
            c = 0 if s[i - 1] == t[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + c)
            if i > 1 and j > 1 and s[i - 1] == t[j - 2] and s[i - 2] == t[j - 1] and c:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[n][m]


def align_table(s, t, score, gap, first_row, first_col):
    """Linear-gap alignment table with the given boundary values."""
    a = [[0] * (len(t) + 1) for _ in range(len(s) + 1)]
    for i in range(len(s) + 1):
        for j in range(len(t) + 1):
            if j == 0:
                a[i][j] = first_col(i)
            elif i == 0:
                a[i][j] = first_row(j)
            else:
                a[i][j] = max(a[i - 1][j - 1] + score(s[i - 1], t[j - 1]),
                              a[i - 1][j] - gap, a[i][j - 1] - gap)
    return a


def unit(match, mismatch):
    return lambda a, b: match if a == b else mismatch


def local(s, t, score, gap):
    h = [[0] * (len(t) + 1) for _ in range(len(s) + 1)]
    for i in range(1, len(s) + 1):
        for j in range(1, len(t) + 1):
            h[i][j] = max(0, h[i - 1][j - 1] + score(s[i - 1], t[j - 1]),
                          h[i - 1][j] - gap, h[i][j - 1] - gap)
    return max(map(max, h))


def banded(s, t, k):
    @lru_cache(None)
    def d(i, j):
        if abs(i - j) > k:
            return math.inf
        if i == 0 or j == 0:
            return i + j
        return min(d(i - 1, j) + 1, d(i, j - 1) + 1,
                   d(i - 1, j - 1) + (s[i - 1] != t[j - 1]))
    v = d(len(s), len(t))
    return v if v != math.inf else "inf"


def common_substring(s, t):
    return max(k for i in range(len(s) + 1) for k in range(len(s) - i + 1) if s[i:i + k] in t)


def knapsack01(w, v, cap):
    best = [0] * (cap + 1)
    for wi, vi in zip(w, v):
        for c in range(cap, wi - 1, -1):
            best[c] = max(best[c], best[c - wi] + vi)
    return best[cap]


def unbounded(w, v, cap):
    best = [0] * (cap + 1)
    for c in range(1, cap + 1):
        best[c] = max([0] + [best[c - a] + b for a, b in zip(w, v) if a <= c])
    return best[cap]


def coin_ways(coins, m):
    ways = [1] + [0] * m
    for c in coins:
        for x in range(c, m + 1):
            ways[x] += ways[x - c]
    return ways[m]


def fewest(coins, m):
    f = [0] + [math.inf] * m
    for x in range(1, m + 1):
        f[x] = min([f[x - c] + 1 for c in coins if c <= x], default=math.inf)
    return f[m]


def rod(p, n):
    r = [0] * (n + 1)
    for x in range(1, n + 1):
        r[x] = max(p[k - 1] + r[x - k] for k in range(1, min(x, len(p)) + 1))
    return r[n]


def matrix_chain(d):
    @lru_cache(None)
    def m(i, j):
        return 0 if i == j else min(m(i, k) + m(k + 1, j) + d[i - 1] * d[k] * d[j]
                                    for k in range(i, j))
    return m(1, len(d) - 1)


def optimal_bst(f):
    @lru_cache(None)
    def e(i, j):
        return 0 if i == j else sum(f[i:j]) + min(e(i, r) + e(r + 1, j) for r in range(i, j))
    return e(0, len(f))


def lis(a):
    best = []
    for i, x in enumerate(a):
        best.append(1 + max([best[j] for j in range(i) if a[j] < x], default=0))
    return max(best)


def kadane(a):
    best = cur = a[0]
    for x in a[1:]:
        cur = max(x, cur + x)
        best = max(best, cur)
    return best


def floyd(w, n):
    d = [[w[i * n + j] for j in range(n)] for i in range(n)]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                d[i][j] = min(d[i][j], d[i][k] + d[k][j])
    return d


def word_break(s, words):
    ways = [1] + [0] * len(s)
    for i in range(1, len(s) + 1):
        ways[i] = sum(ways[i - len(w)] for w in words if s[:i].endswith(w))
    return ways[len(s)]


def min_path(grid):
    rows, cols = len(grid), len(grid[0])
    best = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        for j in range(cols):
            before = [best[a][b] for a, b in ((i - 1, j), (i, j - 1)) if a >= 0 and b >= 0]
            best[i][j] = grid[i][j] + (min(before) if before else 0)
    return best[-1][-1]


def lcs_texts(s, t):
    """Every longest common subsequence of ``s`` and ``t``, as text."""
    @lru_cache(None)
    def go(i, j):
        if i == 0 or j == 0:
            return {""}
        if s[i - 1] == t[j - 1]:
            return {x + s[i - 1] for x in go(i - 1, j - 1)}
        a, b = go(i - 1, j), go(i, j - 1)
        n = max(len(next(iter(a))), len(next(iter(b))))
        return {x for x in a | b if len(x) == n}
    return go(len(s), len(t))


def scs_texts(s, t):
    """Every shortest common supersequence of ``s`` and ``t``, as text."""
    @lru_cache(None)
    def go(i, j):
        if i == 0 or j == 0:
            return {s[:i] + t[:j]}
        if s[i - 1] == t[j - 1]:
            return {x + s[i - 1] for x in go(i - 1, j - 1)}
        both = {x + s[i - 1] for x in go(i - 1, j)} | {x + t[j - 1] for x in go(i, j - 1)}
        n = min(map(len, both))
        return {x for x in both if len(x) == n}
    return go(len(s), len(t))


def only(texts):
    """The one text of a set that holds exactly one (inputs chosen so)."""
    (x,) = texts
    return x


def catalan(n):
    return math.comb(2 * n, n) // (n + 1)


def partitions(n, k):
    @lru_cache(None)
    def p(n, k):
        if n == 0:
            return 1
        if k == 0:
            return 0
        return p(n, k - 1) + (p(n - k, k) if k <= n else 0)
    return p(n, k)


def egg_drop(e, f):
    @lru_cache(None)
    def d(e, f):
        if f == 0 or e == 1:
            return f
        return min(1 + max(d(e - 1, x - 1), d(e, f - x)) for x in range(1, f + 1))
    return d(e, f)


def stone_merge(a):
    @lru_cache(None)
    def c(i, j):
        return 0 if i == j else sum(a[i:j + 1]) + min(c(i, m) + c(m + 1, j) for m in range(i, j))
    return c(0, len(a) - 1)


def lps(x):
    return lcs(x, x[::-1])


def palindrome_cuts(x):
    cuts = [-1] + [0] * len(x)
    for j in range(1, len(x) + 1):
        cuts[j] = min(cuts[i] + 1 for i in range(j) if x[i:j] == x[i:j][::-1])
    return cuts[len(x)]


def rabbits(n, k):
    a, b = 1, 1
    for _ in range(n - 2):
        a, b = b, b + k * a
    return b


def mortal(n, m):
    ages = [1] + [0] * (m - 1)  # pairs of age 0 .. m - 1 in month 1
    for _ in range(n - 1):
        ages = [sum(ages[1:])] + ages[:-1]
    return sum(ages)


PAIRS = {("A", "U"), ("U", "A"), ("C", "G"), ("G", "C")}


def perfect_matchings(x):
    @lru_cache(None)
    def c(i, j):
        if j <= i:
            return 1
        return sum(c(i + 1, k) * c(k + 1, j) for k in range(i + 1, j, 2) if (x[i], x[k]) in PAIRS)
    return c(0, len(x))


def motzkin(x):
    @lru_cache(None)
    def z(i, j):
        if j <= i + 1:
            return 1
        return z(i + 1, j) + sum(z(i + 1, k) * z(k + 1, j) for k in range(i + 1, j)
                                 if (x[i], x[k]) in PAIRS)
    return z(0, len(x))


def nussinov(x, weight, loop):
    @lru_cache(None)
    def n(i, j):  # x[i .. j - 1]
        if j - i <= loop + 1:
            return 0
        return max([n(i + 1, j)] + [weight(x[i], x[k]) + n(i + 1, k) + n(k + 1, j)
                                    for k in range(i + loop + 1, j) if weight(x[i], x[k])])
    return n(0, len(x))


def rna_weight(a, b):
    return {"GC": 3, "CG": 3, "AU": 2, "UA": 2, "GU": 1, "UG": 1}.get(a + b, 0)


CASINO_START = [0.5, 0.5]
CASINO_TRANS = [[0.95, 0.05], [0.1, 0.9]]
CASINO_EMIT = [[1 / 6] * 6, [0.1] * 5 + [0.5]]
ROLLS = "315116246446644245311321631164152133625144543631656626566666"


def forward(x):
    f = [CASINO_START[s] * CASINO_EMIT[s][int(x[0]) - 1] for s in range(2)]
    for c in x[1:]:
        f = [CASINO_EMIT[s][int(c) - 1] * sum(f[t] * CASINO_TRANS[t][s] for t in range(2))
             for s in range(2)]
    return sum(f)


def viterbi(x):
    v = [math.log(CASINO_START[s]) + math.log(CASINO_EMIT[s][int(x[0]) - 1]) for s in range(2)]
    for c in x[1:]:
        v = [math.log(CASINO_EMIT[s][int(c) - 1])
             + max(v[t] + math.log(CASINO_TRANS[t][s]) for t in range(2)) for s in range(2)]
    return max(v)


def subset_sum(a, t):
    reach = {0}
    for x in a:
        reach |= {r + x for r in reach}
    return t in reach


def manhattan(down, right, n, m):
    t = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 and j == 0:
                continue
            cands = []
            if i > 0:
                cands.append(t[i - 1][j] + down[(i - 1) * (m + 1) + j])
            if j > 0:
                cands.append(t[i][j - 1] + right[i * m + j - 1])
            t[i][j] = max(cands)
    return t[n][m]


def robber(v):
    a, b = 0, 0
    for x in v:
        a, b = b, max(b, a + x)
    return b


def stairs(n):
    s = [1] + [0] * n
    for x in range(1, n + 1):
        s[x] = sum(s[x - k] for k in (1, 2, 3) if k <= x)
    return s[n]


def grid_paths(block, size):
    p = [[0] * size for _ in range(size)]
    for i in range(size):
        for j in range(size):
            if block[i * size + j]:
                continue
            p[i][j] = 1 if i == j == 0 else (p[i - 1][j] if i else 0) + (p[i][j - 1] if j else 0)
    return p[size - 1][size - 1]


def _blosum(a, b):
    return ref.blosum62_dict()[a, b]


def gotoh_global(s, t, score, open_, ext):
    """Affine gaps: a gap of length L costs open + (L - 1) * ext."""
    inf = -math.inf
    n, m = len(s), len(t)
    M = [[inf] * (m + 1) for _ in range(n + 1)]
    X = [[inf] * (m + 1) for _ in range(n + 1)]
    Y = [[inf] * (m + 1) for _ in range(n + 1)]
    M[0][0] = 0
    for i in range(n + 1):
        for j in range(m + 1):
            if i and j:
                M[i][j] = max(M[i - 1][j - 1], X[i - 1][j - 1], Y[i - 1][j - 1]) + score(s[i - 1], t[j - 1])
            if i:
                X[i][j] = max(M[i - 1][j] - open_, X[i - 1][j] - ext, Y[i - 1][j] - open_)
            if j:
                Y[i][j] = max(M[i][j - 1] - open_, Y[i][j - 1] - ext, X[i][j - 1] - open_)
    return max(M[n][m], X[n][m], Y[n][m])


def _transition(a, b):
    if a == b:
        return 0
    return 2 if (a in "AG") == (b in "AG") else 3


def _fit(s, t):
    a = align_table(s, t, unit(1, -1), 1, lambda j: -j, lambda i: 0)
    return max(a[i][len(t)] for i in range(len(s) + 1))


def _overlap(s, t):
    a = align_table(s, t, unit(1, -2), 2, lambda j: -2 * j, lambda i: 0)
    return max(a[len(s)])


def _semiglobal(s, t):
    a = align_table(s, t, unit(1, -1), 1, lambda j: 0, lambda i: 0)
    return max(max(a[i][len(t)] for i in range(len(s) + 1)), max(a[len(s)]))


INF = math.inf
FW = floyd([0, 3, 8, INF, -4, INF, 0, INF, 1, 7, INF, 4, 0, INF, INF,
            2, INF, -5, 0, INF, INF, INF, INF, 6, 0], 5)
LIS_A = [5, 1, 4, 2, 3, 8, 6, 9, 7, 10, 0, 11]
WORDS = ["cat", "cats", "and", "sand", "dog", "pen", "apple", "pine", "pineapple"]
MANHATTAN = ([1, 0, 2, 4, 3, 4, 6, 5, 2, 1, 4, 4, 5, 2, 1, 5, 6, 8, 5, 3],
             [3, 2, 4, 0, 3, 2, 4, 2, 0, 7, 3, 3, 3, 3, 0, 2, 1, 3, 2, 2])
BLOCK = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0,
         1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0]
WC = {("A", "U"), ("U", "A"), ("G", "C"), ("C", "G")}
MOTZ = "AUGCUAGUACGGAGCGAGUCUAGCGAGCGAUGUCGUGAGUAC"

EXPECTED: dict[str, dict[str, object]] = {
    "affine_global.bio": {'score(blosum62, "PRTEINS", "PRTWPSEIN")':
                          gotoh_global("PRTEINS", "PRTWPSEIN", _blosum, 11, 1)},
    "banded.bio": {'d("ACGTTGCAAC", "ACTTGCGAC", 10, 9)': banded("ACGTTGCAAC", "ACTTGCGAC", 2),
                   'd("AAAAAAAA", "TTTA", 8, 4)': banded("AAAAAAAA", "TTTA", 2)},
    "binomial.bio": {"c(20, 10)": math.comb(20, 10), "row(12)": 2 ** 12},
    "catalan.bio": {"cat(10)": catalan(10), "cat(25)": catalan(25)},
    "coin_min.bio": {"fewest(40)": fewest([50, 25, 20, 10, 5, 1], 40),
                     "fewest(99)": fewest([50, 25, 20, 10, 5, 1], 99)},
    "coin_ways.bio": {"ways(4, 10)": coin_ways([2, 5, 3, 6], 10),
                      "ways(4, 40)": coin_ways([2, 5, 3, 6], 40)},
    "common_substring.bio": {'longest("GATTACAGATTC", "CCAGATTACG")':
                             common_substring("GATTACAGATTC", "CCAGATTACG")},
    "damerau.bio": {'d("abcdefgh", "badcfehg", 8, 8)': osa("abcdefgh", "badcfehg"),
                    'd("catalog", "actlaog", 7, 7)': osa("catalog", "actlaog")},
    "egg_drop.bio": {"drops(2, 36)": egg_drop(2, 36), "drops(3, 40)": egg_drop(3, 40)},
    "fib_rabbits.bio": {"f(3, 5)": rabbits(5, 3), "f(4, 30)": rabbits(30, 4)},
    "fitting.bio": {'fit("GTAGGCTTAAGGTTA", "TAGATA")': _fit("GTAGGCTTAAGGTTA", "TAGATA")},
    "floyd_warshall.bio": {"d(5, 0, 1)": FW[0][1], "d(5, 4, 2)": FW[4][2],
                           "total(5)": sum(map(sum, FW))},
    "global_blosum.bio": {'score(blosum62, "PLEASANTLY", "MEANLY")':
                          ref.needleman_wunsch("PLEASANTLY", "MEANLY", ref.blosum62_dict(), 5)},
    "grid_paths.bio": {"paths(5, 5)": grid_paths(BLOCK, 6)},
    "hamming.bio": {'h("GAGCCTACTAACGGGAT", "CATCGTAATGACGGCCT", 17)':
                    sum(a != b for a, b in zip("GAGCCTACTAACGGGAT", "CATCGTAATGACGGCCT"))},
    "hmm_backward.bio": {f'lp("{ROLLS}")': math.log(forward(ROLLS))},
    "hmm_forward.bio": {f'px("{ROLLS}")': forward(ROLLS)},
    "hmm_viterbi.bio": {f'best("{ROLLS}")': viterbi(ROLLS)},
    "house_robber.bio": {"r(12)": robber([6, 7, 1, 30, 8, 2, 4, 21, 9, 3, 15, 11])},
    "indel_distance.bio": {'d("sunday", "saturday", 6, 8)':
                           6 + 8 - 2 * lcs("sunday", "saturday")},
    "kadane.bio": {"best(12)": kadane([-2, 1, -3, 4, -1, 2, 1, -5, 4, 3, -7, 2])},
    "knapsack01.bio": {"best(10, 165)": knapsack01([23, 31, 29, 44, 53, 38, 63, 85, 89, 82],
                                                   [92, 57, 49, 68, 60, 43, 67, 84, 87, 72], 165)},
    "knapsack_unbounded.bio": {"best(100)": unbounded([5, 10, 15], [10, 30, 20], 100),
                               "best(37)": unbounded([5, 10, 15], [10, 30, 20], 37)},
    "lcs3.bio": {'l("ATATCCG", "TCCGA", "ATGTACTG", 7, 5, 8)': lcs("ATATCCG", "TCCGA", "ATGTACTG")},
    "lcs_length.bio": {'lcs("AACCTTGG", "ACACTGTGA", 8, 9)': lcs("AACCTTGG", "ACACTGTGA")},
    "lds.bio": {"lds(12)": lis([-x for x in LIS_A])},
    "levenshtein.bio": {'dist("PLEASANTLY", "MEANLY")': edit("PLEASANTLY", "MEANLY")[10][6]},
    "lis.bio": {"lis(12)": lis(LIS_A)},
    # Rosalind LOCA's sample answer (PAM250, linear gap 5)
    "local_pam.bio": {'best(pam250, "MEANLYPRTEINSTRING", "PLEASANTLYEINSTEIN")': 23},
    "manhattan_tourist.bio": {"t(4, 4)": manhattan(*MANHATTAN, 4, 4)},
    "matrix_chain_array.bio": {"m(6, 1, 6)": matrix_chain([30, 35, 15, 5, 10, 20, 25])},
    "mortal_rabbits.bio": {"alive(3, 6)": mortal(6, 3), "alive(20, 70)": mortal(70, 20)},
    "motzkin.bio": {'z("AUAU", 0, 4)': motzkin("AUAU"), f'z("{MOTZ}", 0, 42)': motzkin(MOTZ)},
    "nussinov_min_loop1.bio": {'n("GGACUUCAGGUCCAAUGCUAGG", 0, 22)':
                               nussinov("GGACUUCAGGUCCAAUGCUAGG",
                                        lambda a, b: int((a, b) in WC), 0)},
    "nussinov_weighted.bio": {'n("GGGAAAUCCGCGUAUAGCUAGC", 0, 22)':
                              nussinov("GGGAAAUCCGCGUAUAGCUAGC", rna_weight, 3)},
    "optimal_bst.bio": {"e(7, 0, 7)": optimal_bst([34, 8, 50, 21, 16, 7, 40])},
    "overlap.bio": {'best("CTAAGGGATTCCGGTAATTAGACAG", "ATAGACCATATGTCAGTGACTGTGTAA")':
                    _overlap("CTAAGGGATTCCGGTAATTAGACAG", "ATAGACCATATGTCAGTGACTGTGTAA")},
    "palindrome_cuts.bio": {'cuts("abacdcbaxyzzy", 13)': palindrome_cuts("abacdcbaxyzzy")},
    "palindrome_subseq.bio": {'p("GATTACATTAGGCAT", 0, 15)': lps("GATTACATTAGGCAT")},
    "partitions.bio": {"p(100, 100)": partitions(100, 100), "p(10, 3)": partitions(10, 3)},
    "rna_matchings.bio": {'c("AUAU", 0, 4)': perfect_matchings("AUAU"),
                          'c("UAGCGUGAUCAC", 0, 12)': perfect_matchings("UAGCGUGAUCAC")},
    "rod_cutting.bio": {f"r({n})": rod([1, 5, 8, 9, 10, 17, 17, 20, 24, 30], n) for n in (4, 10, 23)},
    "semiglobal.bio": {'best("CAGCACTTGGATTCTCGG", "CAGCGTGG")':
                       _semiglobal("CAGCACTTGGATTCTCGG", "CAGCGTGG")},
    "stairs.bio": {"s(10)": stairs(10), "s(40)": stairs(40)},
    "stone_merge.bio": {"cost(8, 0, 7)": stone_merge([4, 1, 7, 3, 9, 2, 8, 5])},
    "subset_sum.bio": {"can(6, 9)": subset_sum([3, 34, 4, 12, 5, 2], 9),
                       "can(6, 30)": subset_sum([3, 34, 4, 12, 5, 2], 30)},
    "supersequence.bio": {'sc("ATCTGAT", "TGCATA", 7, 6)': 13 - lcs("ATCTGAT", "TGCATA")},
    "weighted_edit.bio": {'d("GATTACAGGT", "GCATGCTTAG", 10, 10)':
                          edit("GATTACAGGT", "GCATGCTTAG", _transition, 4)[10][10]},
    "word_break_list.bio": {
        'can(dict, "catsanddog", 10)': word_break("catsanddog", WORDS) > 0,
        'can(dict, "catsandog", 9)': word_break("catsandog", WORDS) > 0,
        'ways(dict, "pineapplepenapple", 17)': word_break("pineapplepenapple", WORDS),
        'ways(dict, "catsanddogcatsand", 17)': word_break("catsanddogcatsand", WORDS)},
    "grid_min_path.bio": {"best(2, 2)": min_path([[1, 3, 1], [1, 5, 1], [4, 2, 1]]),
                          "paths(rocks, 3, 3)": grid_paths([0, 0, 0, 0, 0, 1, 0, 0,
                                                            0, 0, 0, 1, 1, 0, 0, 0], 4)},
    "floyd_matrix.bio": {"d(5, 0, 1)": FW[0][1], "d(5, 4, 2)": FW[4][2],
                         "d(5, 2, 4)": FW[2][4]},
    "lcs_text.bio": {'lcs("AGGTAB", 6, "GXTXAYB", 7)': lcs("AGGTAB", "GXTXAYB"),
                     'common(trace(lcs("AGGTAB", "GXTXAYB")))': only(lcs_texts("AGGTAB", "GXTXAYB")),
                     'merged(trace(scs("abac", "cab")))': only(scs_texts("abac", "cab"))},
    "word_break.bio": {'ways("catsanddogcatsand", "catcatsanddogsandpen", 17)':
                       word_break("catsanddogcatsand", ["cat", "cats", "and", "dog", "sand", "pen"])},
}
