"""Composition-based scaling of local alignment statistics.

A substitution matrix's lambda depends on the residue frequencies of the two
sequences compared: ``lambda_u`` is the positive root of
``sum_ab p_a q_b exp(lambda s_ab) = 1`` (Karlin and Altschul 1990). Published
lambda and K assume both sequences have the standard (Robinson and Robinson)
frequencies; a hydrophobic query against membrane proteins, or a proteome whose
composition differs from the standard, scores higher by chance. BLAST's
composition-based statistics (Schaffer et al. 2001, "mode 1") scale the gapped
lambda of each query-subject pair by ``lambda_u(query, subject) / lambda_u(standard)``;
:func:`pair_ratios` computes that ratio for a query against every subject at once;
:func:`pair_discounts` the same roots relative to the query's median pair, the
discount the fitted statistics apply (dslc.lang.search_stats).

The root is found per subject by Newton's method from above (the left side is a
convex sum of exponentials, equal to 1 at 0 and falling there, so Newton from a
point past the root comes down to it monotonically), on the distinct score values
only: a 24-symbol matrix has about 16 of them, so a subject costs 16 exponentials
per step, and a million-sequence database a few seconds per query.

A pair with no positive root (every score of the pair's residues <= 0, or a
non-negative expected score: two sequences of one residue) keeps ratio 1: the
published lambda, unscaled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CHUNK = 1 << 22  # residues counted per step (a database's codes are counted in pieces)


def counts_of_pack(codes: np.ndarray, offsets: np.ndarray, size: int) -> np.ndarray:
    """Each record's residue counts, ``(records, size)``, from one concatenated
    buffer of codes and the records' offsets into it (dslc.lang.records.SeqPack),
    counted a few million residues at a time."""
    records = len(offsets) - 1
    out = np.zeros((records, size), dtype=np.float64)
    first = 0
    while first < records:
        last = int(np.searchsorted(offsets, offsets[first] + _CHUNK, side="right"))
        last = min(max(last - 1, first + 1), records)
        part = codes[offsets[first]:offsets[last]].astype(np.int64)
        owner = np.repeat(np.arange(last - first), np.diff(offsets[first:last + 1]))
        out[first:last] = np.bincount(owner * size + part, minlength=(last - first) * size) \
            .reshape(last - first, size)
        first = last
    return out


def frequencies(counts: np.ndarray) -> np.ndarray:
    """Counts as frequencies, row by row (an empty record's row stays zero); float32
    counts (a database's windows) stay float32."""
    counts = np.asarray(counts)
    total = counts.sum(axis=-1, keepdims=True)
    out = np.zeros(counts.shape, dtype=np.result_type(counts.dtype, np.float32))
    return np.divide(counts, total, out=out, where=total > 0)


def pair_ratios(scores: np.ndarray, query: np.ndarray, subjects: np.ndarray,
                standard: float) -> np.ndarray:
    """``lambda_u(query, subject) / standard`` for each subject row of
    ``subjects`` (frequencies), ``scores[a, b]`` the matrix by the query's symbol
    ``a`` and the subject's ``b``; 1 where the pair has no positive root."""
    values, h = _score_law(scores, query, subjects)
    lam = _roots(values, h)
    return np.where(np.isnan(lam), 1.0, lam / standard)


def _score_law(scores: np.ndarray, query: np.ndarray, subjects: np.ndarray):
    """The matrix's distinct values and ``h[j, v]``, the probability that a residue
    of the query against one of subject ``j`` scores ``values[v]``."""
    values, where = np.unique(scores, return_inverse=True)
    where = where.reshape(scores.shape)
    # c[b, v]: the query's probability of scoring values[v] against symbol b
    c = np.zeros((scores.shape[1], len(values)))
    for a in range(scores.shape[0]):
        np.add.at(c, (np.arange(scores.shape[1]), where[a]), query[a])
    return values.astype(np.float64), subjects @ c


def _roots(values: np.ndarray, h: np.ndarray) -> np.ndarray:
    """The positive root of ``sum_v h[j, v] exp(lambda values[v]) = 1`` per row,
    NaN where there is none."""
    positive = values > 0
    mean = h @ values
    top = np.where(h[:, positive] > 0, values[positive], -np.inf).max(axis=1, initial=-np.inf)
    ok = (mean < 0) & np.isfinite(top) & (h.sum(axis=1) > 0)
    lam = np.full(len(h), np.nan)
    if not ok.any():
        return lam
    hk, top = h[ok], top[ok]
    p_top = np.take_along_axis(hk, np.searchsorted(values, top)[:, None], axis=1)[:, 0]
    # past the root: the top score's term alone reaches 1 there (and every term is > 0)
    x = np.maximum(-np.log(p_top) / top, 1e-6) + 1.0 / top
    active = np.arange(len(x))  # rows still moving: a converged row costs nothing more
    for _ in range(100):
        ha, xa = hk[active], x[active]
        e = ha * np.exp(xa[:, None] * values[None, :])
        step = (e.sum(axis=1) - 1.0) / (e @ values)
        x[active] = xa - step
        active = active[np.abs(step) > 1e-10 * xa]
        if not len(active):
            break
    lam[ok] = x
    return lam


# A subject's composition is read as its counts plus this many residues of the
# database's own composition (a Dirichlet prior): a short subject's counts alone give a
# noisy lambda_u, and that noise, carried into its scores, gives too many chance hits
# (measured on shuffled proteome queries: benchmarks/evalue_calibration.py).
PRIOR_RESIDUES = 200.0


def shrunk_frequencies(counts: np.ndarray, weight: float = PRIOR_RESIDUES) -> np.ndarray:
    """Each row's frequencies with ``weight`` residues of the rows' pooled composition
    added to its counts: a row of many residues keeps its own composition, a short
    one is drawn toward the database's."""
    prior = frequencies(counts.sum(axis=0, dtype=np.float64))
    return frequencies(counts + (weight * prior).astype(np.result_type(counts.dtype, np.float32)))


# The power the discount is raised to. A subject's window (below) is a noisy read of
# the stretch that aligns, so a ratio of lambdas alone (power 1) leaves too many chance
# hits for hydrophobic and low-complexity queries; 1.5 keeps every query class
# calibrated over eleven draws (measured: benchmarks/evalue_calibration.py).
DISCOUNT_POWER = 1.5

# A subject is read as its windows of WINDOW residues overlapping by half (a subject
# shorter than that as one window), each drawn toward the database's composition by
# WINDOW_PRIOR residues of it, and its pair with a query takes the window most like
# the query (the smallest lambda_u). A whole subject's composition hides the stretch
# that aligns by chance: a His-rich or K/E/P-rich stretch of a long protein against a
# query rich in the same residues scores as a homologue would, while the whole
# protein's composition is near the standard; whole-subject discounts left 1.7x the
# chance hits at E <= 1 for low-complexity queries on one draw of eleven, windows of
# 48 keep every draw within 1.2x. Windows of 32 keep them too but put hydrophobic
# queries near the upper bound, 64 near the lower (measured:
# benchmarks/evalue_calibration.py).
WINDOW = 48
WINDOW_PRIOR = 48.0


@dataclass(frozen=True)
class Windows:
    """The windows of a list of sequences: ``counts[w]`` the residue counts of window
    ``w`` (the smallest unsigned type that holds a window's: a million proteins have
    fifteen million windows), ``owner[w]`` the sequence it lies in, ascending (every
    sequence has at least one window, an empty one for an empty sequence);
    ``pooled``: the frequencies of all the windows' residues together."""

    counts: np.ndarray
    owner: np.ndarray
    pooled: np.ndarray

    def frequencies(self, start: int, stop: int, weight: float = None) -> np.ndarray:
        """Windows ``start .. stop - 1`` as frequencies, each with ``weight``
        (default WINDOW_PRIOR) residues of the pooled composition added (float32;
        made a slice at a time, so a database's windows are never all floats)."""
        weight = WINDOW_PRIOR if weight is None else weight
        prior = (weight * self.pooled).astype(np.float32)
        return frequencies(self.counts[start:stop].astype(np.float32) + prior)


_BLOCKS = 1 << 20  # blocks counted at once (bounds the float counts made on the way)


def window_counts(codes: np.ndarray, offsets: np.ndarray, size: int,
                  width: int = WINDOW) -> Windows:
    """The windows of each record of a concatenated buffer of codes (records at
    ``offsets``, as :func:`counts_of_pack`): blocks of ``width // 2`` residues are
    counted (each block a record of :func:`counts_of_pack`, a million at a time),
    and a window is two neighbouring blocks of one record; a record of one block is
    one window."""
    half = max(width // 2, 1)
    kind = np.min_scalar_type(2 * half)
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    blocks = np.maximum(1, -(-lengths // half))
    first = np.cumsum(blocks) - blocks  # each record's first block
    within = np.arange(int(blocks.sum())) - np.repeat(first, blocks)
    edges = np.append(np.repeat(offsets[:-1], blocks) + within * half, offsets[-1])
    counts = np.empty((len(edges) - 1, size), dtype=kind)
    for k in range(0, len(counts), _BLOCKS):
        part = edges[k:k + _BLOCKS + 1]
        counts[k:k + len(part) - 1] = counts_of_pack(codes, part, size)
    owner = np.repeat(np.arange(len(lengths)), blocks)
    pair = np.flatnonzero(owner[:-1] == owner[1:])  # block k and k + 1 of one record
    single = first[blocks == 1]
    rows = np.sort(np.concatenate([pair, single]))
    out = counts[rows]
    paired = np.isin(rows, pair)
    out[paired] += counts[rows[paired] + 1]
    return Windows(out, owner[rows], frequencies(out.sum(axis=0, dtype=np.float64)))


def pair_discounts(scores: np.ndarray, query: np.ndarray, subjects) -> np.ndarray:
    """Per subject, ``min(1, r_j / median_k r_k) ** DISCOUNT_POWER`` with ``r_j`` the
    pair's ungapped ``lambda_u`` (as in :func:`pair_ratios`; ``subjects``:
    frequencies, e.g. :func:`shrunk_frequencies`). Where ``subjects`` is
    :class:`Windows` ``r_j`` is the smallest over subject ``j``'s windows (each
    drawn toward the pooled composition, ``Windows.frequencies``): its stretch most
    like the query.
    A score times its discount is in the units of the query's typical pair: a subject
    that shares the query's bias (a smaller ``lambda_u`` than typical) scores higher
    by chance and is discounted. A subject less alike than typical is not credited:
    crediting turns stretches that share the bias into chance hits (measured:
    benchmarks/evalue_calibration.py).

    A pair with a non-negative expected score has no ``lambda_u`` (its chance score
    grows with length): it is the most alike a pair can be and gets the query's
    smallest discount. A pair that cannot score above 0 keeps 1 (its scores are 0)."""
    windowed = isinstance(subjects, Windows)
    rows = len(subjects.counts) if windowed else len(subjects)
    chunk = (lambda k: subjects.frequencies(k, k + _ROWS)) if windowed else \
        (lambda k: subjects[k:k + _ROWS])  # noqa: E731
    lam = np.concatenate([_window_lambdas(scores, query, chunk(k))
                          for k in range(0, max(rows, 1), _ROWS)])
    owner = subjects.owner if windowed else None
    if owner is not None:  # each subject's most query-like window
        starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        lam = np.minimum.reduceat(lam, starts) if len(lam) else lam
    rooted = (lam > 0) & np.isfinite(lam)
    out = np.ones(len(lam))
    if not rooted.any():
        return out
    out[rooted] = np.minimum(1.0, lam[rooted] / np.median(lam[rooted])) ** DISCOUNT_POWER
    out[lam == 0] = out[rooted].min()
    return out


_ROWS = 1 << 20  # windows whose roots are found at once (bounds the memory of a database's)


def _window_lambdas(scores, query, subjects) -> np.ndarray:
    """Each row's ``lambda_u``; 0 for a pair with a non-negative expected score (the
    most alike), infinity for one that cannot score above 0."""
    values, h = _score_law(scores, query, np.asarray(subjects, dtype=np.float64))
    lam = _roots(values, h)
    alike = np.isnan(lam) & (h @ values >= 0) & (h[:, values > 0].sum(axis=1) > 0)
    return np.where(alike, 0.0, np.where(np.isnan(lam), np.inf, lam))
