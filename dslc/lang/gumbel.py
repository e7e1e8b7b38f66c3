"""Fitting an extreme-value (Gumbel) law to one search's own scores.

The score of a query against unrelated database entries follows, per entry
``j``, ``P(S >= x) = 1 - exp(-w_j K exp(-lambda x))``: a Gumbel law whose
location moves with a known weight ``w_j`` (for local alignments the search
space ``m n_j`` of the query and that entry; 1 for a score that depends on no
length). A search of one query against hundreds of entries holds enough such
scores to estimate ``lambda`` and ``K`` for that query alone (as SSEARCH does),
which follows whatever the query's composition and the database do to the
scores, where published parameters assume random sequences of standard
composition.

The fit is maximum likelihood, censored below and trimmed above:

* scores below the median are kept only as "below the median" (left-censored):
  an E-value is read off the upper tail, and the bulk of a composition-biased
  search is shaped differently from its tail; fitting the tail keeps the
  E-values of the high scores right (measured: benchmarks/evalue_calibration.py);
* scores that are significant under a first fit (true homologues) are held out
  and the fit is made again until that set settles, so a family of real hits
  does not flatten the fitted tail. (Keeping them as right-censored "at least
  this high" does not work: under the null law such scores are all but
  impossible, so the fit widens its tail to make room for them.)

Pure numpy; ``lambda`` by a golden-section search of the profile likelihood
(``ln K`` at each ``lambda`` has a closed form), so it needs no optimiser package.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_SCORES = 200  # fewer entries than this and the fitted tail is mostly noise
LOW_QUANTILE = 0.5  # scores below this quantile are left-censored
SIGNIFICANT = 1e-3  # an E-value (over the whole search) below this is held out


@dataclass(frozen=True)
class Gumbel:
    """A fitted law: ``P(S >= x) = 1 - exp(-w K exp(-lam x))`` for weight ``w``;
    ``censored``: how many of the highest scores were held out as significant
    (trimmed, not censored: the module says why)."""

    lam: float
    log_k: float
    censored: int = 0

    def expected(self, x, log_w):
        """``w K exp(-lam x)``: the expected count of scores of at least ``x``."""
        with np.errstate(over="ignore"):
            return np.exp(np.asarray(log_w, dtype=np.float64) + self.log_k
                          - self.lam * np.asarray(x))


class FitError(ValueError):
    """The scores cannot be fitted (too few, or all alike); the message says why."""


def fit(x, log_w, step=0.0, min_scores: int = MIN_SCORES) -> Gumbel:
    """The maximum-likelihood law of scores ``x`` (one per entry) with per-entry
    log weights ``log_w``, censored and trimmed as the module says.

    ``step``: the spacing of the scores' lattice (1 for integer scores, ``r`` for
    integer scores scaled by ``r``; 0 for continuous ones), per score or one for
    all. A lattice score ``k`` stands for a continuous score in ``[k, k + step)``
    (``P(S >= k)`` is the law's at ``k``, Karlin and Altschul's convention), so
    the fit reads it as ``k + step / 2``: fitting the integers themselves would
    shift ``K`` by about ``exp(lambda step / 2)``."""
    x = np.asarray(x, dtype=np.float64).ravel()
    log_w = np.broadcast_to(np.asarray(log_w, dtype=np.float64), x.shape).ravel()
    half = np.broadcast_to(np.asarray(step, dtype=np.float64), x.shape).ravel() / 2
    keep = np.isfinite(x)
    x, log_w, half = x[keep], log_w[keep], half[keep]
    if len(x) < min_scores:
        raise FitError(f"{len(x)} scores, and a fit needs at least {min_scores}")
    # the censoring point: the median's cell's lower edge, so a cell is censored whole
    low = float(np.quantile(x, LOW_QUANTILE, method="lower"))
    x = x + half
    if not np.any(x > low):
        raise FitError("the scores do not vary above their median")
    total = float(np.log(np.sum(np.exp(log_w - log_w.max()))) + log_w.max())
    kept = np.ones(len(x), dtype=bool)
    law = None
    for _ in range(4):  # refit until the set held out as significant settles
        law = _fit_censored(x[kept], log_w[kept], low)
        now = law.expected(x, total) >= SIGNIFICANT
        if np.array_equal(now, kept):
            break
        kept = now
    return Gumbel(law.lam, law.log_k, int(np.sum(~kept)))


def _fit_censored(x, log_w, low: float) -> Gumbel:
    """The fit with scores ``< low`` left-censored at ``low``."""
    below = x < low
    xs, ws, w_below = x[~below], log_w[~below], log_w[below]
    if len(xs) < 2 or np.ptp(xs) == 0:
        raise FitError("too few distinct scores above the median")
    spread = float(np.std(xs))
    guess = math.pi / (spread * math.sqrt(6.0))  # the Gumbel's moment estimate of lambda

    def profile(lam: float) -> tuple[float, float]:
        log_k = _log_k(lam, xs, ws, low, w_below)
        return _log_likelihood(lam, log_k, xs, ws, low, w_below), log_k

    lo, hi = math.log(guess / 20), math.log(guess * 20)
    golden = (math.sqrt(5) - 1) / 2
    a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
    fa, fb = profile(math.exp(a))[0], profile(math.exp(b))[0]
    for _ in range(80):
        if fa < fb:
            lo, a, fa = a, b, fb
            b = lo + golden * (hi - lo)
            fb = profile(math.exp(b))[0]
        else:
            hi, b, fb = b, a, fa
            a = hi - golden * (hi - lo)
            fa = profile(math.exp(a))[0]
    lam = math.exp((lo + hi) / 2)
    return Gumbel(lam, profile(lam)[1])


def _log_likelihood(lam, log_k, xs, ws, low, w_below) -> float:
    u = np.exp(ws + log_k - lam * xs)  # observed: density lam u exp(-u)
    ll = len(xs) * math.log(lam) + float(np.sum(np.log(u) - u))
    return ll - float(np.sum(np.exp(w_below + log_k - lam * low)))  # P(S < low) = exp(-u)


def _log_k(lam, xs, ws, low, w_below) -> float:
    """``ln K`` maximising the likelihood at ``lam``, in closed form: the score
    equation is ``len(xs) = K * sum(w exp(-lam x))`` over the observed scores and
    the left-censored ones (at ``low``)."""
    parts = np.concatenate([ws - lam * xs, w_below - lam * low])
    top = parts.max()
    return math.log(len(xs)) - (top + math.log(float(np.sum(np.exp(parts - top)))))
