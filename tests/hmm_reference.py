"""Plain numpy reference algorithms for hidden Markov models (a helper for tests,
not a test file).

Conventions (the language's, see LANGUAGE.md "Hidden Markov models"):
``f[i, s]`` is the log probability of emitting ``x[:i]`` along a path from the
start state that ends in state ``s``, where an emitting state of width ``w``
has just emitted ``x[i - w:i]`` and a silent state emitted nothing (so it is
read at the position its predecessors reached). ``P(x) = f[len(x), end]``.

Everything here reads the per-state and per-transition records of an
:class:`HMM` (``state.emission``, ``transition.prob``), not the flat arrays, so
it can check those arrays too; :func:`profile_forward` reads only a HMMER3
:class:`Profile`'s arrays.
"""

from __future__ import annotations

import math

import numpy as np

NEG = -math.inf


def _lse(values) -> float:
    values = [v for v in values if v != NEG]
    if not values:
        return NEG
    m = max(values)
    return m + math.log(math.fsum(math.exp(v - m) for v in values))


def _log(p: float) -> float:
    return math.log(p) if p > 0 else NEG


def _code(alpha_size: int, codes) -> int:
    c = 0
    for x in codes:
        c = c * alpha_size + int(x)
    return c


def _silent_topo(hmm) -> list[int]:
    """Silent states ordered so that silent predecessors come first (Kahn)."""
    silent = [s.index for s in hmm.states if s.emission is None]
    sset = set(silent)
    indeg = {s: 0 for s in silent}
    succ: dict[int, list[int]] = {s: [] for s in silent}
    for t in hmm.transitions:
        if t.start in sset and t.end in sset:
            indeg[t.end] += 1
            succ[t.start].append(t.end)
    ready = sorted(s for s in silent if indeg[s] == 0)
    out = []
    while ready:
        s = ready.pop(0)
        out.append(s)
        for u in succ[s]:
            indeg[u] -= 1
            if indeg[u] == 0:
                ready.append(u)
    assert len(out) == len(silent), "silent cycle"
    return out


def _setup(hmm, x):
    x = np.asarray(x, dtype=np.int64)
    a = len(hmm.alphabet)
    preds: list[list[tuple[int, float]]] = [[] for _ in hmm.states]
    succs: list[list[tuple[int, float]]] = [[] for _ in hmm.states]
    for t in hmm.transitions:
        preds[t.end].append((t.start, _log(t.prob)))
        succs[t.start].append((t.end, _log(t.prob)))
    emitting = [s for s in hmm.states if s.emission is not None]
    start = hmm.states[0].index
    end = hmm.states[-1].index
    return x, a, preds, succs, emitting, start, end


def _emit(s, a, x, i0, i1) -> float:
    return _log(float(s.emission[_code(a, x[i0:i1])]))


def forward(hmm, x) -> tuple[float, np.ndarray]:
    """``(log P(x), f)`` with ``f`` of shape ``(len(x) + 1, n_states)``."""
    x, a, preds, _, emitting, start, end = _setup(hmm, x)
    L, n = len(x), len(hmm.states)
    topo = _silent_topo(hmm)
    f = np.full((L + 1, n), NEG)
    for i in range(L + 1):
        for s in emitting:
            w = s.width
            if i >= w:
                inner = _lse(f[i - w, p] + lp for p, lp in preds[s.index])
                if inner != NEG:
                    f[i, s.index] = _emit(s, a, x, i - w, i) + inner
        for si in topo:
            if si == start:
                f[i, si] = 0.0 if i == 0 else NEG
            else:
                f[i, si] = _lse(f[i, p] + lp for p, lp in preds[si])
    return float(f[L, end]), f


def backward(hmm, x) -> tuple[float, np.ndarray]:
    """``(log P(x), b)``: ``b[i, s]`` is the log probability of emitting
    ``x[i:]`` and finishing in the end state, having reached ``s`` at ``i``."""
    x, a, _, succs, emitting, start, end = _setup(hmm, x)
    L, n = len(x), len(hmm.states)
    topo = _silent_topo(hmm)
    b = np.full((L + 1, n), NEG)
    states = hmm.states

    def step(si: int, i: int) -> float:
        terms = []
        for u, lp in succs[si]:
            su = states[u]
            if su.emission is None:
                terms.append(lp + b[i, u])
            elif i + su.width <= L:
                terms.append(lp + _emit(su, a, x, i, i + su.width) + b[i + su.width, u])
        return _lse(terms)

    for i in range(L, -1, -1):
        for si in reversed(topo):
            b[i, si] = 0.0 if (si == end and i == L) else (NEG if si == end else step(si, i))
        for s in emitting:
            b[i, s.index] = step(s.index, i)
    return float(b[0, start]), b


def viterbi(hmm, x) -> tuple[float, list[int]]:
    """``(log probability of the best path, the path as state numbers from the
    start state to the end state)``; ``(-inf, [])`` when ``P(x) = 0``."""
    x, a, preds, _, emitting, start, end = _setup(hmm, x)
    L, n = len(x), len(hmm.states)
    topo = _silent_topo(hmm)
    v = np.full((L + 1, n), NEG)
    back = {}
    for i in range(L + 1):
        for s in emitting:
            w = s.width
            if i < w:
                continue
            best, arg = NEG, None
            for p, lp in preds[s.index]:
                val = v[i - w, p] + lp
                if val > best:
                    best, arg = val, p
            if arg is not None:
                v[i, s.index] = _emit(s, a, x, i - w, i) + best
                back[(i, s.index)] = (i - w, arg)
        for si in topo:
            if si == start:
                v[i, si] = 0.0 if i == 0 else NEG
                continue
            best, arg = NEG, None
            for p, lp in preds[si]:
                val = v[i, p] + lp
                if val > best:
                    best, arg = val, p
            if arg is not None:
                v[i, si] = best
                back[(i, si)] = (i, arg)
    score = float(v[L, end])
    if score == NEG:
        return score, []
    path = [end]
    cell = (L, end)
    while cell != (0, start):
        cell = back[cell]
        path.append(cell[1])
    return score, path[::-1]


def viterbi_traceback(hmm, x) -> tuple[float, list[int]]:
    """An independent Viterbi with traceback, in numpy over a dense log
    transition matrix: ``(log probability of the best path, the path as state
    numbers from the start state to the end state, silent states included)``;
    ``(-inf, [])`` when no path emits ``x``. Ties go to the lowest-numbered
    predecessor (``np.argmax`` takes the first maximum), the rule stdlib/hmm.bio
    documents. Single-symbol emissions only."""
    x = np.asarray(x, dtype=np.int64)
    n, L = len(hmm.states), len(x)
    start, end = 0, n - 1
    with np.errstate(divide="ignore"):
        logt = np.full((n, n), NEG)
        for t in hmm.transitions:
            logt[t.start, t.end] = np.log(t.prob)
        loge = [None if s.emission is None else np.log(np.asarray(s.emission, dtype=np.float64))
                for s in hmm.states]
    emitting = [k for k in range(n) if loge[k] is not None]
    silent = _silent_topo(hmm)
    v = np.full((L + 1, n), NEG)
    back = np.full((L + 1, n), -1, dtype=np.int64)  # the predecessor state of (i, s)
    for i in range(L + 1):
        if i > 0:
            for s in emitting:
                cand = v[i - 1] + logt[:, s]
                p = int(np.argmax(cand))
                if cand[p] > NEG:
                    v[i, s] = loge[s][x[i - 1]] + cand[p]
                    back[i, s] = p
        for s in silent:  # silent predecessors first: their column-i values are final
            if s == start:
                v[i, s] = 0.0 if i == 0 else NEG
                continue
            cand = v[i] + logt[:, s]
            p = int(np.argmax(cand))
            if cand[p] > NEG:
                v[i, s] = cand[p]
                back[i, s] = p
    score = float(v[L, end])
    if score == NEG:
        return score, []
    path, i, s = [end], L, end
    while not (s == start and i == 0):
        p = int(back[i, s])
        if loge[s] is not None:
            i -= 1
        s = p
        path.append(s)
    return score, path[::-1]


def path_cells(hmm, path) -> list[tuple[int, int]]:
    """The ``(state, position)`` cells a path (start .. end) visits: an emitting
    state at the position just after the symbol it emitted, a silent state at
    the position its predecessor reached."""
    cells, i = [], 0
    for s in path:
        if hmm.states[s].emission is not None:
            i += hmm.states[s].width
        cells.append((s, i))
    return cells


# Relative tolerance under which two log-space scores count as tied. Values that
# are equal in exact arithmetic come out of different summation orders (this
# module's log-sum-exp against the compiler's pairwise log-add, (a + b) + c
# against a + (b + c)) a few ulps apart, so an exact tie cannot be decided with
# ``==`` on floats; anything more than this below the best is not a tie.
TIE_REL = 1e-12


def near_best(scores: dict[int, float], rel: float = TIE_REL) -> list[int]:
    """The keys of ``scores`` (log values) within ``rel`` (relative to
    ``max(1, |best|)``) of the largest, in increasing order."""
    best = max(scores.values())
    if best == NEG:
        return sorted(scores)
    tol = rel * max(1.0, abs(best))
    return sorted(s for s, v in scores.items() if v >= best - tol)


def posterior_ties(hmm, x, rel: float = TIE_REL) -> list[list[int]]:
    """For each symbol, the emitting states whose unnormalised posterior
    ``f + b`` is the largest up to the tie tolerance (:func:`near_best`): the
    states a posterior decoder may choose there. ``[]`` when ``P(x) = 0``."""
    lp, f = forward(hmm, x)
    _, b = backward(hmm, x)
    if lp == NEG:
        return []
    emitting = [s.index for s in hmm.states if s.emission is not None]
    return [near_best({s: f[i, s] + b[i, s] for s in emitting}, rel)
            for i in range(1, len(x) + 1)]


def posterior_decode(hmm, x, rel: float = TIE_REL) -> list[int]:
    """Posterior decoding from :func:`forward` and :func:`backward`: for each
    symbol, the emitting state with the largest ``f + b`` (the posterior up to
    the constant ``P(x)``); on a tie the state decoded for the previous symbol
    if it is among the best, else the lowest-numbered (the rule stdlib/hmm.bio
    documents). Ties are taken up to the relative tolerance ``rel`` (see
    :data:`TIE_REL`, :func:`posterior_ties`). ``[]`` when ``P(x) = 0``."""
    out, prev = [], hmm.states[0].index
    for ties in posterior_ties(hmm, x, rel):
        prev = prev if prev in ties else min(ties)
        out.append(prev)
    return out


def path_logprob(hmm, x, path) -> float:
    """Log probability of emitting ``x`` along ``path`` (start .. end)."""
    x = np.asarray(x, dtype=np.int64)
    a = len(hmm.alphabet)
    T = {(t.start, t.end): t.prob for t in hmm.transitions}
    lp, i = 0.0, 0
    for p, q in zip(path, path[1:]):
        lp += _log(T.get((p, q), 0.0))
        s = hmm.states[q]
        if s.emission is not None:
            if i + s.width > len(x):
                return NEG
            lp += _emit(s, a, x, i, i + s.width)
            i += s.width
    return lp if i == len(x) else NEG


def profile_forward(profile, x) -> float:
    """log P(x) under the global core model of a HMMER3 profile, computed
    directly over its arrays (``x``: residue codes in the profile's order)."""
    from dslc_extensions.hmm.hmmer3 import DD, DM, II, IM, MD, MI, MM

    x = np.asarray(x, dtype=np.int64)
    L, M = len(x), profile.M
    with np.errstate(divide="ignore"):
        t = np.log(profile.transitions)          # (M + 1, 7)
        em = np.log(profile.match_emissions)     # (M, K): node k at row k - 1
        ei = np.log(profile.insert_emissions)    # (M + 1, K)
    # arrays over nodes: Mv[k] for k = 1..M (index k), Iv[k] for k = 0..M-1, Dv[k] for k = 1..M
    Mv = np.full(M + 1, NEG)
    Iv = np.full(M + 1, NEG)
    Dv = np.full(M + 1, NEG)

    def deletes(Mcol, Bval):
        D = np.full(M + 1, NEG)
        D[1] = Bval + t[0, MD]
        for k in range(2, M + 1):
            D[k] = np.logaddexp(Mcol[k - 1] + t[k - 1, MD], D[k - 1] + t[k - 1, DD])
        return D

    Dv = deletes(Mv, 0.0)  # column 0: B = 1, nothing emitted
    Bprev = 0.0
    for i in range(1, L + 1):
        c = x[i - 1]
        newM = np.full(M + 1, NEG)
        newI = np.full(M + 1, NEG)
        # node 1 from B / I0; nodes 2..M from node k-1
        newM[1] = em[0, c] + np.logaddexp(Bprev + t[0, MM], Iv[0] + t[0, IM])
        if M > 1:
            ks = np.arange(2, M + 1)
            inner = np.logaddexp(np.logaddexp(Mv[ks - 1] + t[ks - 1, MM], Iv[ks - 1] + t[ks - 1, IM]),
                                 Dv[ks - 1] + t[ks - 1, DM])
            newM[2:] = em[ks - 1, c] + inner
        newI[0] = ei[0, c] + np.logaddexp(Bprev + t[0, MI], Iv[0] + t[0, II])
        if M > 1:
            ks = np.arange(1, M)
            newI[1:M] = ei[ks, c] + np.logaddexp(Mv[ks] + t[ks, MI], Iv[ks] + t[ks, II])
        Mv, Iv = newM, newI
        Bprev = NEG
        Dv = deletes(Mv, NEG)
    return float(np.logaddexp(Mv[M] + t[M, MM], Dv[M] + t[M, DM]))


def _profile_logs(profile):
    with np.errstate(divide="ignore"):
        return (np.log(profile.transitions),       # (M + 1, 7)
                np.log(profile.match_emissions),   # (M, K): node k at row k - 1
                np.log(profile.insert_emissions))  # (M + 1, K)


def profile_forward_tables(profile, x):
    """The forward tables of a HMMER3 profile's global core model over
    (node, position), cell by cell: ``(log P(x), fm, fi, fd)`` with ``fm[k, i]``
    the log probability of emitting ``x[:i]`` along paths ending in node ``k``'s
    match state (node 0: the begin state, at ``i = 0`` only), ``fi`` likewise
    for the insert states (nodes ``0 .. M-1``) and ``fd`` for the delete states
    (nodes ``1 .. M``); ``-inf`` where a node has no such state."""
    from dslc_extensions.hmm.hmmer3 import DD, DM, II, IM, MD, MI, MM

    x = np.asarray(x, dtype=np.int64)
    L, M = len(x), profile.M
    t, em, ei = _profile_logs(profile)
    fm, fi, fd = (np.full((M + 1, L + 1), NEG) for _ in range(3))
    fm[0, 0] = 0.0
    for k in range(M + 1):
        for i in range(L + 1):
            if k > 0:
                fd[k, i] = _lse([fm[k - 1, i] + t[k - 1, MD], fd[k - 1, i] + t[k - 1, DD]])
                if i > 0:
                    fm[k, i] = em[k - 1, x[i - 1]] + _lse([fm[k - 1, i - 1] + t[k - 1, MM],
                                                           fi[k - 1, i - 1] + t[k - 1, IM],
                                                           fd[k - 1, i - 1] + t[k - 1, DM]])
            if k < M and i > 0:
                fi[k, i] = ei[k, x[i - 1]] + _lse([fm[k, i - 1] + t[k, MI],
                                                   fi[k, i - 1] + t[k, II]])
    return _lse([fm[M, L] + t[M, MM], fd[M, L] + t[M, DM]]), fm, fi, fd


def profile_backward(profile, x):
    """The backward tables over (node, position), cell by cell from node ``M``
    and position ``len(x)`` down: ``(log P(x), bm, bi, bd)`` with ``bm[k, i]``
    the log probability of emitting ``x[i:]`` and reaching the end state from
    node ``k``'s match state having emitted ``x[:i]`` (the state's own emission
    left out), ``bi`` and ``bd`` likewise for the insert and delete states
    (``-inf`` where a node has no such state). ``P(x) = bm[0, 0]``, from the
    begin state; node ``M``'s match and delete states go to the end state with
    ``t[M][m->m]`` and ``t[M][d->m]``, as in :func:`profile_forward`."""
    from dslc_extensions.hmm.hmmer3 import DD, DM, II, IM, MD, MI, MM

    x = np.asarray(x, dtype=np.int64)
    L, M = len(x), profile.M
    t, em, ei = _profile_logs(profile)
    bm, bi, bd = (np.full((M + 1, L + 1), NEG) for _ in range(3))
    bm[M, L] = t[M, MM]
    bd[M, L] = t[M, DM]
    for k in range(M - 1, -1, -1):
        for i in range(L, -1, -1):
            # node k + 1's match state emits x[i] (match emissions: row k for node k + 1)
            nm = em[k, x[i]] + bm[k + 1, i + 1] if i < L else NEG
            ins = ei[k, x[i]] + bi[k, i + 1] if i < L else NEG
            bm[k, i] = _lse([t[k, MM] + nm, t[k, MI] + ins, t[k, MD] + bd[k + 1, i]])
            bi[k, i] = _lse([t[k, IM] + nm, t[k, II] + ins])
            if k > 0:
                bd[k, i] = _lse([t[k, DM] + nm, t[k, DD] + bd[k + 1, i]])
    return float(bm[0, 0]), bm, bi, bd
