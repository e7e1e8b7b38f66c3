"""Karlin-Altschul statistics of local alignment scores: bit scores, E-values and
BLAST's effective lengths.

A local (Smith-Waterman) score ``S`` of two unrelated sequences of lengths
``m`` and ``n`` exceeds ``x`` about ``K m n exp(-lambda x)`` times (Karlin and
Altschul 1990); with gaps the same law holds with ``lambda`` and ``K`` estimated
by simulation for each matrix and gap cost (Altschul, Bundschuh, Olsen and Hwa
2001). The values below are the published gapped estimates NCBI BLAST uses
(its ``blast_stat.c`` tables), typed in by hand: ``(open, extend) -> (lambda,
K, H, alpha, beta)``. A gap of length L costs ``open + L * extend`` (BLAST's
"existence" and "extension").

An alignment cannot start near a sequence's end and still score high, so the
lengths that count are shorter than ``m`` and ``n`` by the expected length of a
significant alignment, ``l = (alpha / lambda) ln(K (m - l)(n - N l)) + beta`` for a
database of ``N`` sequences of total length ``n`` (Altschul and Gish 1996; the
alpha and beta of the same table): :func:`length_adjustment`. The published
lambda and K were estimated together with that correction, so they are calibrated
only with it (on sequences of the standard residue frequencies: the calibration
benchmark, docs/conventions.md).

The numbers come from the published tables only, so an unlisted matrix or gap
cost is an error rather than a guess.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dslc.errors import DslcError, Span


@dataclass(frozen=True)
class Karlin:
    """The gapped Karlin-Altschul parameters of one matrix and gap cost."""

    lam: float
    k: float
    h: float
    alpha: float = 0.0  # the expected alignment length per score unit's slope (Altschul-Gish)
    beta: float = 0.0  # and its intercept
    ungapped_lam: float | None = None  # lambda without gaps at the standard frequencies


# matrix -> {(open, extend): (lambda, K, H, alpha, beta)}; NCBI BLAST blast_stat.c (gapped rows)
_TABLE: dict[str, dict[tuple[int, int], tuple[float, float, float, float, float]]] = {
    "blosum45": {
        (13, 3): (0.207, 0.049, 0.14, 1.5, -22), (12, 3): (0.199, 0.039, 0.11, 1.8, -34),
        (11, 3): (0.190, 0.031, 0.095, 2.0, -38), (10, 3): (0.179, 0.023, 0.075, 2.4, -51),
        (16, 2): (0.210, 0.051, 0.14, 1.5, -24), (15, 2): (0.203, 0.041, 0.12, 1.7, -31),
        (14, 2): (0.195, 0.032, 0.10, 1.9, -36), (13, 2): (0.185, 0.024, 0.084, 2.2, -45),
        (12, 2): (0.171, 0.016, 0.061, 2.8, -65), (19, 1): (0.205, 0.040, 0.11, 1.9, -43),
        (18, 1): (0.198, 0.032, 0.10, 2.0, -43), (17, 1): (0.189, 0.024, 0.079, 2.4, -57),
        (16, 1): (0.176, 0.016, 0.063, 2.8, -67),
    },
    "blosum50": {
        (13, 3): (0.212, 0.063, 0.19, 1.1, -16), (12, 3): (0.206, 0.055, 0.17, 1.2, -18),
        (11, 3): (0.197, 0.042, 0.14, 1.4, -25), (10, 3): (0.186, 0.031, 0.11, 1.7, -34),
        (9, 3): (0.172, 0.022, 0.082, 2.1, -48), (16, 2): (0.215, 0.066, 0.20, 1.05, -15),
        (15, 2): (0.210, 0.058, 0.17, 1.2, -20), (14, 2): (0.202, 0.045, 0.14, 1.4, -27),
        (13, 2): (0.193, 0.035, 0.12, 1.6, -32), (12, 2): (0.181, 0.025, 0.095, 1.9, -41),
        (19, 1): (0.212, 0.057, 0.18, 1.2, -21), (18, 1): (0.207, 0.050, 0.15, 1.4, -28),
        (17, 1): (0.198, 0.037, 0.12, 1.6, -33), (16, 1): (0.186, 0.025, 0.10, 1.9, -42),
        (15, 1): (0.171, 0.015, 0.063, 2.7, -76),
    },
    "blosum62": {
        (11, 2): (0.297, 0.082, 0.27, 1.1, -10), (10, 2): (0.291, 0.075, 0.23, 1.3, -15),
        (9, 2): (0.279, 0.058, 0.19, 1.5, -19), (8, 2): (0.264, 0.045, 0.15, 1.8, -26),
        (7, 2): (0.239, 0.027, 0.10, 2.5, -46), (6, 2): (0.201, 0.012, 0.061, 3.3, -58),
        (13, 1): (0.292, 0.071, 0.23, 1.2, -11), (12, 1): (0.283, 0.059, 0.19, 1.5, -19),
        (11, 1): (0.267, 0.041, 0.14, 1.9, -30), (10, 1): (0.243, 0.024, 0.10, 2.5, -44),
        (9, 1): (0.206, 0.010, 0.052, 4.0, -87),
    },
    "blosum80": {
        (25, 2): (0.342, 0.17, 0.66, 0.52, -1.6), (13, 2): (0.336, 0.15, 0.57, 0.59, -3),
        (9, 2): (0.319, 0.11, 0.42, 0.76, -6), (8, 2): (0.308, 0.090, 0.35, 0.89, -9),
        (7, 2): (0.293, 0.070, 0.27, 1.1, -14), (6, 2): (0.268, 0.045, 0.19, 1.4, -19),
        (11, 1): (0.314, 0.095, 0.35, 0.90, -9), (10, 1): (0.299, 0.071, 0.27, 1.1, -14),
        (9, 1): (0.279, 0.048, 0.20, 1.4, -19),
    },
    "pam30": {
        (7, 2): (0.305, 0.15, 0.87, 0.35, -3), (6, 2): (0.287, 0.11, 0.68, 0.42, -4),
        (5, 2): (0.264, 0.079, 0.45, 0.59, -7), (10, 1): (0.309, 0.15, 0.88, 0.35, -3),
        (9, 1): (0.294, 0.11, 0.61, 0.48, -6), (8, 1): (0.270, 0.072, 0.40, 0.68, -10),
    },
    "pam70": {
        (8, 2): (0.301, 0.12, 0.54, 0.56, -5), (7, 2): (0.286, 0.093, 0.43, 0.67, -7),
        (6, 2): (0.264, 0.064, 0.29, 0.90, -12), (11, 1): (0.305, 0.12, 0.52, 0.59, -6),
        (10, 1): (0.291, 0.091, 0.41, 0.71, -9), (9, 1): (0.270, 0.060, 0.28, 0.97, -14),
    },
}

# matrix -> the ungapped lambda of its scores at BLAST's standard (Robinson and Robinson)
# residue frequencies: blast_stat.c's first (gapless) row of each matrix. Composition-based
# statistics scale the gapped lambda by the ungapped lambda of a pair's own compositions
# over this one (dslc.lang.composition).
_UNGAPPED: dict[str, float] = {"blosum45": 0.2291, "blosum50": 0.2318, "blosum62": 0.3176,
                               "blosum80": 0.3430, "pam30": 0.3400, "pam70": 0.3345}


def supported() -> dict[str, tuple[tuple[int, int], ...]]:
    """Each matrix with statistics and its gap costs ``(open, extend)``."""
    return {m: tuple(sorted(costs, key=lambda c: (-c[1], -c[0]))) for m, costs in _TABLE.items()}


def karlin(matrix: str, open: int, extend: int, span: Span | None = None) -> Karlin:
    """The parameters of ``matrix`` (a name, any case) with gaps costing
    ``open + L * extend``, or one DslcError naming what is supported."""
    name = matrix.lower()
    costs = _TABLE.get(name)
    if costs is None:
        raise DslcError(f"no published statistics for matrix '{matrix}'", span,
                        hint="matrices with statistics: " + ", ".join(sorted(_TABLE)))
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (open, extend)):
        raise DslcError(f"gap costs must be ints, got open {open!r}, extend {extend!r}", span)
    row = costs.get((open, extend))
    if row is None:
        pairs = ", ".join(f"{o}/{e}" for o, e in supported()[name])
        raise DslcError(f"no published statistics for {name} with gap open {open}, extend "
                        f"{extend}", span, hint=f"{name} open/extend: {pairs}")
    return Karlin(*row, ungapped_lam=_UNGAPPED[name])


def bit_score(score, params: Karlin):
    """``(lambda S - ln K) / ln 2``: a score in bits, comparable across matrices."""
    s = np.asarray(score, dtype=np.float64)
    out = (params.lam * s - math.log(params.k)) / math.log(2.0)
    return float(out) if out.ndim == 0 else out


def evalue(score, m, n, params: Karlin):
    """``K m n exp(-lambda S)``: how many local alignments scoring at least ``S``
    two unrelated sequences of lengths ``m`` and ``n`` are expected to have."""
    s = np.asarray(score, dtype=np.float64)
    size = np.asarray(m, dtype=np.float64) * np.asarray(n, dtype=np.float64)
    with np.errstate(over="ignore"):
        out = params.k * size * np.exp(-params.lam * s)
    return float(out) if np.ndim(out) == 0 else out


def length_adjustment(m: float, n: float, count: int, params: Karlin) -> int:
    """BLAST's length adjustment ``l``: the largest whole ``l >= 0`` with
    ``l <= (alpha / lambda) ln(K (m - l)(n - count l)) + beta`` (the right side falls
    as ``l`` grows, so those ``l`` are an interval from 0), no larger than leaves a
    search space of ``max(m, n) / K`` (NCBI's BlastComputeLengthAdjustment keeps the
    same bound). ``m``: the query's length; ``n``: the database's total length;
    ``count``: its number of sequences. Found by bisection on the real line, then
    rounded down, so it does not depend on an iteration's starting point."""
    m, n, count = float(m), float(n), max(int(count), 1)
    floor = max(m, n) / params.k
    if m * n <= floor:
        return 0
    # the smaller root of (m - l)(n - count l) = floor: the largest l allowed
    a, b, c = count, m * count + n, m * n - floor
    top = 2 * c / (b + math.sqrt(b * b - 4 * a * c))
    slope = params.alpha / params.lam

    def over(ell: float) -> bool:  # whether l is still at most the right side
        return ell <= slope * (math.log(params.k) + math.log((m - ell) * (n - count * ell))) \
            + params.beta

    if not over(0.0):
        return 0
    if over(top):
        return int(math.floor(top))
    lo, hi = 0.0, top
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if over(mid) else (lo, mid)
    return int(math.floor(lo))


def effective_lengths(m, n, count: int, params: Karlin):
    """``(m - l, n - count l)`` with BLAST's floors (``1 / K`` and 1), ``l`` the
    :func:`length_adjustment` of each query length in ``m`` (a number or an array)."""
    ms = np.asarray(m, dtype=np.float64)
    distinct, where = np.unique(ms, return_inverse=True)  # (a search's queries repeat)
    ells = np.array([length_adjustment(x, n, count, params) for x in distinct],
                    dtype=np.float64)[where].reshape(ms.shape)
    return np.maximum(ms - ells, 1.0 / params.k), np.maximum(float(n) - count * ells, 1.0)
