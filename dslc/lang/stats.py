"""Karlin-Altschul statistics of local alignment scores: bit scores and E-values.

A local (Smith-Waterman) score ``S`` of two unrelated sequences of lengths
``m`` and ``n`` exceeds ``x`` about ``K m n exp(-lambda x)`` times (Karlin and
Altschul 1990); with gaps the same law holds with ``lambda`` and ``K`` estimated
by simulation for each matrix and gap cost (Altschul, Bundschuh, Olsen and Hwa
2001). The values below are the published gapped estimates NCBI BLAST uses
(its ``blast_stat.c`` tables), typed in by hand: ``(open, extend) -> (lambda,
K, H)``. A gap of length L costs ``open + L * extend`` (BLAST's "existence"
and "extension"). No length (edge-effect) correction is applied: ``m`` and
``n`` are used as given.

The bit score ``(lambda S - ln K) / ln 2`` and the E-value ``K m n exp(-lambda S)``
are the statistics' whole use here; the numbers come from the published tables
only, so an unlisted matrix or gap cost is an error rather than a guess.
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


# matrix -> {(open, extend): (lambda, K, H)}; NCBI BLAST blast_stat.c (gapped rows)
_TABLE: dict[str, dict[tuple[int, int], tuple[float, float, float]]] = {
    "blosum45": {
        (13, 3): (0.207, 0.049, 0.14), (12, 3): (0.199, 0.039, 0.11),
        (11, 3): (0.190, 0.031, 0.095), (10, 3): (0.179, 0.023, 0.075),
        (16, 2): (0.210, 0.051, 0.14), (15, 2): (0.203, 0.041, 0.12),
        (14, 2): (0.195, 0.032, 0.10), (13, 2): (0.185, 0.024, 0.084),
        (12, 2): (0.171, 0.016, 0.061), (19, 1): (0.205, 0.040, 0.11),
        (18, 1): (0.198, 0.032, 0.10), (17, 1): (0.189, 0.024, 0.079),
        (16, 1): (0.176, 0.016, 0.063),
    },
    "blosum50": {
        (13, 3): (0.212, 0.063, 0.19), (12, 3): (0.206, 0.055, 0.17),
        (11, 3): (0.197, 0.042, 0.14), (10, 3): (0.186, 0.031, 0.11),
        (9, 3): (0.172, 0.022, 0.082), (16, 2): (0.215, 0.066, 0.20),
        (15, 2): (0.210, 0.058, 0.17), (14, 2): (0.202, 0.045, 0.14),
        (13, 2): (0.193, 0.035, 0.12), (12, 2): (0.181, 0.025, 0.095),
        (19, 1): (0.212, 0.057, 0.18), (18, 1): (0.207, 0.050, 0.15),
        (17, 1): (0.198, 0.037, 0.12), (16, 1): (0.186, 0.025, 0.10),
        (15, 1): (0.171, 0.015, 0.063),
    },
    "blosum62": {
        (11, 2): (0.297, 0.082, 0.27), (10, 2): (0.291, 0.075, 0.23),
        (9, 2): (0.279, 0.058, 0.19), (8, 2): (0.264, 0.045, 0.15),
        (7, 2): (0.239, 0.027, 0.10), (6, 2): (0.201, 0.012, 0.061),
        (13, 1): (0.292, 0.071, 0.23), (12, 1): (0.283, 0.059, 0.19),
        (11, 1): (0.267, 0.041, 0.14), (10, 1): (0.243, 0.024, 0.10),
        (9, 1): (0.206, 0.010, 0.052),
    },
    "blosum80": {
        (25, 2): (0.342, 0.17, 0.66), (13, 2): (0.336, 0.15, 0.57),
        (9, 2): (0.319, 0.11, 0.42), (8, 2): (0.308, 0.090, 0.35),
        (7, 2): (0.293, 0.070, 0.27), (6, 2): (0.268, 0.045, 0.19),
        (11, 1): (0.314, 0.095, 0.35), (10, 1): (0.299, 0.071, 0.27),
        (9, 1): (0.279, 0.048, 0.20),
    },
    "pam30": {
        (7, 2): (0.305, 0.15, 0.87), (6, 2): (0.287, 0.11, 0.68),
        (5, 2): (0.264, 0.079, 0.45), (10, 1): (0.309, 0.15, 0.88),
        (9, 1): (0.294, 0.11, 0.61), (8, 1): (0.270, 0.072, 0.40),
    },
    "pam70": {
        (8, 2): (0.301, 0.12, 0.54), (7, 2): (0.286, 0.093, 0.43),
        (6, 2): (0.264, 0.064, 0.29), (11, 1): (0.305, 0.12, 0.52),
        (10, 1): (0.291, 0.091, 0.41), (9, 1): (0.270, 0.060, 0.28),
    },
}


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
    return Karlin(*row)


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
