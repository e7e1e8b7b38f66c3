"""E-values of a whole search: which statistics, per query, and the line that says so.

``evalue(...)`` over a ``map`` of local alignment scores chooses among three
methods (``METHODS``), each a step further from the published parameters:

* ``published``: BLAST's lambda and K for the matrix and gap cost, with BLAST's
  effective lengths (dslc.lang.stats.length_adjustment). Calibrated for
  sequences of the standard composition; no allowance for any other.
* ``composition``: as ``published``, with lambda scaled for each query-subject
  pair by the ungapped lambda of their own compositions (BLAST's
  composition-based statistics, dslc.lang.composition). Needs the matrix value
  and the sequences themselves.
* ``fit``: lambda and K fitted to each query's own scores against the database
  (dslc.lang.gumbel; SSEARCH's approach), so they follow the query's composition
  and the database's. Needs the database to be an axis of the scores with at
  least ``gumbel.MIN_SCORES`` entries. Where the compositions are known, each
  score is first discounted by its pair's composition
  (dslc.lang.composition.pair_discounts): the fit sees the query's typical pair,
  and a subject that shares the query's bias (a low-complexity or hydrophobic
  stretch) gets the allowance a per-query fit cannot give it. A subject is read
  as its window most like the query where its windows are known (``Side.windows``:
  a biased stretch of a long protein is hidden in its whole composition), else
  whole. Only discounts (never credits), and the windows' compositions drawn
  toward the database's: crediting dissimilar subjects, or noisy compositions,
  gave 1.5-2.5x the chance hits at E <= 1 (measured:
  benchmarks/evalue_calibration.py).

``auto`` (the default) takes ``fit`` where the database is large enough, else
``composition`` where the compositions are known, else ``published``; a query
whose scores cannot be fitted (all alike) falls back to ``published``.
Measured on shuffled proteome queries (benchmarks/evalue_calibration.py), only
``fit`` keeps the count of chance hits near the E-value for biased queries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dslc.lang import composition, gumbel, stats

METHODS = ("auto", "fit", "composition", "published")


@dataclass(frozen=True)
class Side:
    """One side of a search as the statistics see it. ``axis``: the scores' axis
    of this side's list (None for one sequence or a number); ``lengths``: the
    length per entry along that axis (or one length); ``counts``: residue counts
    per entry over the matrix's symbols (None where unknown); ``windows``: the
    entries' windows over the same symbols (composition.Windows; None: each
    entry's composition is read whole)."""

    axis: int | None
    lengths: np.ndarray
    counts: np.ndarray | None
    windows: composition.Windows | None = None


@dataclass(frozen=True)
class Outcome:
    """The E-values and the sentence that says how they were made."""

    values: np.ndarray
    note: str


def evalues(scores: np.ndarray, integer: bool, query: Side, db: Side, params: stats.Karlin,
            matrix_scores: np.ndarray | None, method: str, label: str) -> Outcome:
    """E-values of ``scores`` (a map's array) by ``method`` (one of ``METHODS``,
    ``auto`` resolved here). ``label``: the matrix and gap cost, for the note.
    Raises ValueError with a user-readable reason where the method cannot apply."""
    known = matrix_scores is not None and query.counts is not None and db.counts is not None \
        and db.axis is not None
    entries = len(db.lengths) if db.axis is not None else 1
    if method == "auto":
        method = "fit" if db.axis is not None and entries >= gumbel.MIN_SCORES else \
            "composition" if known else "published"
    if method == "composition" and not known:
        raise ValueError("composition needs the matrix value (not its name), and the queries "
                         "and the database as lists or sequences the scores were mapped over")
    if method == "fit" and (db.axis is None or entries < gumbel.MIN_SCORES):
        raise ValueError(f"fit needs the database as a list the scores were mapped over, with "
                         f"at least {gumbel.MIN_SCORES} entries (got {entries})")
    total = float(np.sum(db.lengths)) if db.axis is not None else float(db.lengths)
    if method == "fit":
        discount = _discounts(scores.shape, query, db, matrix_scores) if known else None
        return _fitted(scores, integer, query, db, params, total, label, discount)
    ratio = _ratios(scores.shape, query, db, params, matrix_scores) \
        if method == "composition" else None
    m_eff, n_eff = stats.effective_lengths(_along(query, scores.ndim), total, entries, params)
    scaled = scores if ratio is None else scores * ratio
    plural = "" if entries == 1 else "s"
    note = (f"published {label} lambda {params.lam} and K {params.k}, effective lengths "
            f"(BLAST's length adjustment, {entries} database sequence{plural})")
    if ratio is not None:
        note += ", lambda scaled per pair by composition (BLAST's composition-based statistics)"
    return Outcome(_blast(scaled, m_eff, n_eff, params.lam, params.k), note)


def _blast(x, m, n, lam, k):
    with np.errstate(over="ignore"):
        return k * m * n * np.exp(-lam * x)


def _along(side: Side, ndim: int) -> np.ndarray:
    """The side's lengths shaped to broadcast against the scores."""
    if side.axis is None:
        return np.asarray(side.lengths, dtype=np.float64)
    shape = [1] * ndim
    shape[side.axis] = len(side.lengths)
    return np.asarray(side.lengths, dtype=np.float64).reshape(shape)


def _ratios(shape, query: Side, db: Side, params: stats.Karlin, matrix_scores) -> np.ndarray:
    """The composition ratio of every (query, subject) pair, shaped to broadcast
    against the scores."""
    d_freqs = composition.frequencies(db.counts)
    return _per_pair(shape, query, db, lambda q: composition.pair_ratios(
        matrix_scores, q, d_freqs, params.ungapped_lam))


def _discounts(shape, query: Side, db: Side, matrix_scores) -> np.ndarray:
    """The composition discount of every (query, subject) pair
    (composition.pair_discounts: each subject's window most like the query where
    the windows are known, else its whole composition; drawn toward the
    database's), shaped to broadcast against the scores."""
    d_freqs = composition.shrunk_frequencies(db.counts) if db.windows is None else db.windows
    return _per_pair(shape, query, db, lambda q: composition.pair_discounts(
        matrix_scores, q, d_freqs))


def _per_pair(shape, query: Side, db: Side, row) -> np.ndarray:
    """``row(query frequencies)`` (one value per subject) for every query, as a
    (queries, subjects) table shaped to broadcast against scores of ``shape``."""
    q_freqs = composition.frequencies(np.atleast_2d(query.counts))
    rows = np.stack([row(q) for q in q_freqs])  # (queries, subjects)
    out = [1] * len(shape)
    out[db.axis] = rows.shape[1]
    if query.axis is None:
        return rows[0].reshape(out)
    out[query.axis] = rows.shape[0]
    if query.axis > db.axis:
        rows = rows.T
    return rows.reshape(out)


def _fitted(scores, integer, query, db, params, total, label, discount) -> Outcome:
    """Each query's own lambda and K, fitted over the database axis to the scores
    times their pair's composition ``discount`` (None: the scores as they are); a
    query whose scores cannot be fitted gets the published method's E-values."""
    m = np.broadcast_to(_along(query, scores.ndim), scores.shape)
    factor = np.ones(scores.shape) if discount is None else \
        np.broadcast_to(discount, scores.shape)
    log_n = np.log(np.maximum(np.asarray(db.lengths, dtype=np.float64), 1.0))
    rows = lambda a: np.moveaxis(a, db.axis, -1).reshape(-1, len(log_n))  # noqa: E731
    x_rows, m_rows, f_rows = rows(scores), rows(m), rows(factor)
    step = 1.0 if integer else 0.0
    out = np.empty_like(x_rows, dtype=np.float64)
    lams, ks, failed = [], [], 0
    for r in range(len(x_rows)):
        log_w = math.log(max(m_rows[r, 0], 1.0)) + log_n
        x = x_rows[r] * f_rows[r]  # a discounted lattice score k f stands for [k f, (k + 1) f)
        try:
            law = gumbel.fit(x, log_w, step * f_rows[r])
        except gumbel.FitError:
            m_eff, n_eff = stats.effective_lengths(m_rows[r, 0], total, len(log_n), params)
            out[r], failed = _blast(x_rows[r], m_eff, n_eff, params.lam, params.k), failed + 1
            continue
        lams.append(law.lam)
        ks.append(math.exp(law.log_k))
        out[r] = _blast(x, m_rows[r, 0], total, law.lam, ks[-1])
    moved = list(np.moveaxis(np.empty(scores.shape), db.axis, -1).shape)
    values = np.moveaxis(out.reshape(moved), -1, db.axis)
    note = (f"lambda and K fitted to each query's {label} scores against "
            f"the {len(log_n)} database sequences (censored maximum-likelihood Gumbel, "
            f"SSEARCH-style; lengths as they are, the fitted K absorbs the edge effect)")
    if discount is not None:
        read = "whole" if db.windows is None else \
            f"its window of {composition.WINDOW} residues most like the query"
        note += (f", each score discounted by its pair's composition ((ungapped lambda "
                 f"of the pair, the subject read as {read}, over the query's median pair) "
                 f"^ {composition.DISCOUNT_POWER:g}, at most 1)")
    if lams:
        note += (f"; fitted lambda {min(lams):.3g} to {max(lams):.3g}, "
                 f"K {min(ks):.3g} to {max(ks):.3g}")
    if failed:
        note += (f"; {failed} queries could not be fitted and use published lambda, K with "
                 "effective lengths")
    return Outcome(values, note)


def evd(scores: np.ndarray, integer: bool, axis: int) -> Outcome:
    """``evd_evalue``: a Gumbel law fitted to the scores along ``axis`` for each
    combination of the other axes (each query), no lengths assumed; the E-value
    of a score is the number of entries along the axis expected to reach it,
    ``N P(S >= x)``. Raises gumbel.FitError where a row cannot be fitted."""
    x_rows = np.moveaxis(scores, axis, -1).reshape(-1, scores.shape[axis])
    out = np.empty_like(x_rows, dtype=np.float64)
    lams = []
    for r, x in enumerate(x_rows):
        law = gumbel.fit(x, 0.0, 1.0 if integer else 0.0)
        lams.append(law.lam)
        with np.errstate(over="ignore", under="ignore"):
            out[r] = len(x) * -np.expm1(-law.expected(x, 0.0))
    moved = list(np.moveaxis(np.empty(scores.shape), axis, -1).shape)
    note = (f"a Gumbel law fitted to each row's scores over {scores.shape[axis]} "
            f"entries (censored maximum likelihood); fitted lambda {min(lams):.3g} to "
            f"{max(lams):.3g}")
    return Outcome(np.moveaxis(out.reshape(moved), -1, axis), note)
