"""Search statistics users can trust: BLAST's length adjustment checked against the
published equation solved here by direct fixed-point iteration, the censored Gumbel fit
recovering a known law from scores drawn from it, composition-based lambda at the
standard frequencies, and the ``evalue`` methods and ``evd_evalue`` in scripts.

Cheap: numpy draws and interpreter runs over a few sequences (the calibration on the
proteome is benchmarks/evalue_calibration.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dslc
from dslc.errors import DslcError
from dslc.lang import composition, gumbel, stats

from tests import reference as ref

# BLOSUM62 with gaps 11/1: lambda, K, alpha, beta as blast_stat.c lists them
LAM, K, ALPHA, BETA = 0.267, 0.041, 1.9, -30.0
# Robinson and Robinson's residue frequencies (per 1000), BLAST's standard background
ROBINSON = dict(A=78.05, C=19.25, D=53.64, E=62.95, F=38.56, G=73.77, H=21.99, I=51.42,
                K=57.44, L=90.19, M=22.43, N=44.87, P=52.03, Q=42.64, R=51.29, S=71.20,
                T=58.41, V=64.41, W=13.30, Y=32.16)


def fixed_point(m: float, n: float, count: int) -> int:
    """The published equation l = (alpha / lambda) ln(K (m - l)(n - N l)) + beta,
    iterated from l = 0 until it stops moving (it contracts here: its slope is about
    alpha / (lambda (m - l)), below 1), then rounded down as BLAST reports it, and
    no larger than leaves a search space (m - l)(n - N l) of max(m, n) / K (BLAST's
    bound, found here by trying each whole l)."""
    ell = 0.0
    for _ in range(1000):
        nxt = ALPHA / LAM * math.log(K * (m - ell) * (n - count * ell)) + BETA
        if abs(nxt - ell) < 1e-12:
            break
        ell = nxt
    bound = 0
    while (m - bound - 1) * (n - count * (bound + 1)) >= max(m, n) / K:
        bound += 1
    return max(min(int(math.floor(ell)), bound), 0)


@pytest.mark.parametrize("m, n, count", [
    (300, 682583, 2100),  # a proteome search (79 by the iteration)
    (1000, 5_000_000, 15000), (250, 250, 1), (400, 2_000_000, 5000),
    (100, 5_000_000, 15000), (60, 100_000, 300),  # (the bound decides: 69 and 32)
])
def test_length_adjustment_is_the_published_equations_fixed_point(m, n, count):
    p = stats.karlin("blosum62", 11, 1)
    want = fixed_point(m, n, count)
    assert stats.length_adjustment(m, n, count, p) == want
    m_eff, n_eff = stats.effective_lengths(m, n, count, p)
    assert (float(m_eff), float(n_eff)) == (max(m - want, 1 / K), n - count * want)


def test_length_adjustment_by_hand():
    """m = 300, n = 682583 in 2100 sequences: l = 79 (by the iteration above: 79.7...),
    so the search space is 221 x (682583 - 2100 x 79) = 221 x 516683. Tiny sequences
    (a search space under max(m, n) / K) get none."""
    p = stats.karlin("blosum62", 11, 1)
    assert fixed_point(300, 682583, 2100) == 79
    assert stats.length_adjustment(300, 682583, 2100, p) == 79
    assert stats.length_adjustment(5, 7, 3, p) == 0
    assert (p.alpha, p.beta) == (ALPHA, BETA)


def _draw(rng, lam, k, log_w):
    """Scores of the law P(S >= x) = 1 - exp(-w K exp(-lam x)), by inversion."""
    u = rng.random(len(log_w))
    return (log_w + math.log(k) - np.log(-np.log(u))) / lam


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_recovers_a_known_law(seed):
    """2000 entries of lengths 50-800 against a query of 300: lambda within 8%, K
    within a factor 1.6 (K's estimate is the looser one, as for any Gumbel fit);
    the E-values it gives at E = 1 within a factor 1.6 of the true law's."""
    rng = np.random.default_rng(seed)
    log_w = np.log(300.0 * rng.integers(50, 800, 2000))
    x = _draw(rng, 0.27, 0.04, log_w)
    law = gumbel.fit(x, log_w)
    assert law.lam == pytest.approx(0.27, rel=0.08)
    assert 0.04 / 1.6 < math.exp(law.log_k) < 0.04 * 1.6
    total = math.log(np.sum(np.exp(log_w)))
    s1 = (total + math.log(0.04)) / 0.27  # the true law's score at E = 1
    assert 1 / 1.6 < float(law.expected(s1, total)) < 1.6


def test_fit_of_integer_scores_and_homologues():
    """Integer scores (the law's continuous scores rounded down) fitted with step 1 give
    the continuous law, not one shifted by half a step; 30 planted homologues far above
    the rest are held out and do not flatten the tail."""
    rng = np.random.default_rng(5)
    log_w = np.log(300.0 * rng.integers(50, 800, 3000))
    x = np.floor(_draw(rng, 0.25, 0.05, log_w))
    law = gumbel.fit(x, log_w, step=1.0)
    assert law.lam == pytest.approx(0.25, rel=0.06)
    assert law.censored == 0
    x[:30] += 150
    planted = gumbel.fit(x, log_w, step=1.0)
    assert planted.censored == 30
    assert planted.lam == pytest.approx(law.lam, rel=0.03)


def test_fit_refuses_what_it_cannot_fit():
    with pytest.raises(gumbel.FitError, match="at least 200"):
        gumbel.fit(np.arange(50.0), 0.0)
    with pytest.raises(gumbel.FitError, match="do not vary"):
        gumbel.fit(np.zeros(500), 0.0)


def _blosum62_matrix():
    return dslc.compile("x = 1\nprint blosum62", backend="interp").run()["blosum62"]


def test_ungapped_lambda_at_the_standard_frequencies_is_the_published_one():
    """At Robinson and Robinson's frequencies BLOSUM62's ungapped lambda is BLAST's
    0.3176, so the composition ratio is 1; a pair with no positive score keeps 1."""
    m = _blosum62_matrix()
    p = np.zeros(len(m.alphabet))
    for a, f in ROBINSON.items():
        p[m.alphabet.symbols.index(a)] = f
    p /= p.sum()
    w = np.zeros_like(p)
    w[m.alphabet.symbols.index("W")] = 1.0
    d = np.zeros_like(p)
    d[m.alphabet.symbols.index("D")] = 1.0
    ratios = composition.pair_ratios(m.values, p, np.stack([p, w]), 0.3176)
    assert ratios[0] == pytest.approx(1.0, abs=2e-4)
    assert ratios[1] > 1.0  # a W-only subject: high-scoring pairs are rarer by chance
    assert composition.pair_ratios(m.values, d, w[None], 0.3176)[0] == 1.0  # D-W: -4


def _lambda_u(p: dict, q: dict) -> float:
    """The positive root of sum p_a q_b exp(lambda s_ab) = 1 by plain bisection over
    the reference's BLOSUM62 (tests/reference.py), independent of dslc.lang.composition."""
    blosum = ref.blosum62_dict()
    f = lambda lam: sum(pa * qb * math.exp(lam * blosum[a, b])  # noqa: E731
                        for a, pa in p.items() for b, qb in q.items()) - 1
    lo, hi = 1e-6, 5.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if f(mid) > 0 else (mid, hi)
    return lo


def _freqs(text: str) -> dict:
    return {a: text.count(a) / len(text) for a in set(text)}


def _shrunk(texts: list[str], weight: float = 200.0) -> list[dict]:
    """Each text's frequencies with ``weight`` residues of all the texts' pooled
    composition added (the discount's subject compositions), from the definition."""
    pooled = "".join(texts)
    return [{a: (t.count(a) + weight * pooled.count(a) / len(pooled)) / (len(t) + weight)
             for a in set(pooled)} for t in texts]


def test_pair_discounts_against_bisection():
    """``min(1, r_j / median r) ** 1.5``, ``r_j = lambda_u(query, subject_j)`` with each
    subject drawn 200 residues toward the pooled composition, worked out by bisection
    over Biopython's BLOSUM62 (a pair with a non-negative mean score has no root and
    gets the smallest discount): a His-rich query's His-rich subjects are discounted
    (they score higher by chance), the typical and unlike ones are not."""
    m = _blosum62_matrix()
    query = "HHAHHSHHGHHDHHKAHHLHHEHHPHH" * 4
    subjects = ["MKVLAAWLLKVGSTDERKLL" * 10, "HHHHHHHHHHGSDEKLLAVR" * 20,
                "ACDEFGHIKLMNPQRSTVWY" * 5,
                "DDEEKKRRSSTAVLLGPNQI" * 8, "HHSKLAVGEDHRTPNQLVAE" * 9, "WWYYFFMMKLVAGSTDEKRL" * 4,
                "AGVLSTDEKRIPNQFMHHCW" * 12]
    blosum = ref.blosum62_dict()
    mean = [sum(pa * qb * blosum[a, b] for a, pa in _freqs(query).items() for b, qb in f.items())
            for f in _shrunk(subjects)]
    lam = np.array([_lambda_u(_freqs(query), f) for f in _shrunk(subjects)])
    rooted = np.array(mean) < 0  # else no positive root: the most alike pair there is
    want = np.minimum(1.0, lam / np.median(lam[rooted])) ** 1.5
    want[~rooted] = want[rooted].min()
    symbols = m.alphabet.symbols
    counts = np.array([[t.count(a) for a in symbols] for t in subjects], dtype=float)
    q = np.array([query.count(a) for a in symbols], dtype=float) / len(query)
    got = composition.pair_discounts(m.values, q, composition.shrunk_frequencies(counts))
    assert got == pytest.approx(want, rel=1e-6)
    assert not rooted[1] and rooted[4]  # the first His-rich subject's mean score is positive
    assert got[1] == got[4] < got[2] < 1.0 and np.sum(got == 1.0) == 3  # His-rich: discounted


def _lambda_u_rows(p: np.ndarray, subjects: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Per subject row, the positive root of ``sum_ab p_a q_b exp(lambda s_ab) = 1`` by
    bisection over the whole matrix (vectorised; no shortcut over distinct scores)."""
    lo, hi = np.full(len(subjects), 1e-6), np.full(len(subjects), 5.0)
    for _ in range(100):
        mid = (lo + hi) / 2
        f = np.einsum("a,jb,jab->j", p, subjects, np.exp(mid[:, None, None] * s[None])) - 1
        lo, hi = np.where(f > 0, lo, mid), np.where(f > 0, mid, hi)
    return lo


@pytest.mark.parametrize("query_axis", [0, 1])
def test_fit_discounts_each_pair_by_composition(query_axis):
    """``fit`` with compositions known: each query's Gumbel law is fitted to its scores
    times the pair's discount (as computed here from the definition: shrunk subject
    frequencies, bisection, the median's ratio capped at 1, to the power 1.5), the
    lattice step scaled alike, and E = K m N exp(-lambda f S) with the fitted lambda
    and K; whichever axis the queries are; the note says the scores were discounted."""
    from dslc.lang import search_stats

    m = _blosum62_matrix()
    rng = np.random.default_rng(3)
    size, n_sub = len(m.alphabet), 300
    q_counts = rng.integers(0, 30, (2, size)).astype(float)
    q_counts[1, m.alphabet.symbols.index("H")] += 200  # a His-rich query
    d_counts = rng.integers(0, 12, (n_sub, size)).astype(float)
    d_counts[:10, m.alphabet.symbols.index("H")] += 60  # ten His-rich subjects
    q_len, d_len = q_counts.sum(axis=1), d_counts.sum(axis=1)
    scores = np.floor(np.stack([_draw(rng, 0.27, 0.04, np.log(q_len[i] * d_len))
                                for i in range(2)]))
    pooled = d_counts.sum(axis=0) / d_counts.sum()
    shrunk = (d_counts + 200 * pooled) / (d_len[:, None] + 200)
    p = stats.karlin("blosum62", 11, 1)
    want = np.empty_like(scores)
    for i in range(2):
        r = _lambda_u_rows(q_counts[i] / q_len[i], shrunk, m.values.astype(float)) / 0.3176
        f = np.minimum(1.0, r / np.median(r)) ** 1.5
        law = gumbel.fit(scores[i] * f, np.log(q_len[i] * d_len), step=f)
        want[i] = math.exp(law.log_k) * q_len[i] * d_len.sum() * np.exp(-law.lam * f * scores[i])
        if i == 1:
            assert np.all(f[:10] < 1.0)  # the His-rich pairs are discounted
    d_axis = 1 - query_axis
    query = search_stats.Side(query_axis, q_len, q_counts)
    db = search_stats.Side(d_axis, d_len, d_counts)
    got = search_stats.evalues(scores if query_axis == 0 else scores.T, True, query, db, p,
                               m.values, "auto", "BLOSUM62 11/1")
    values = got.values if query_axis == 0 else got.values.T
    assert values == pytest.approx(want, rel=1e-6)
    assert "discounted by its pair's composition" in got.note


SCRIPT = """\
int f(seq[protein] s, seq[protein] t) = 3 * len(s) + len(t)
q = load(seq[protein], "q.fa")
d = load(seq[protein], "d.fa")
s = map(f, q (*) d)
print evalue(s, q, d, blosum62, 11, 1, "composition")
"""
QUERIES = {"a": "MKVLAAWLLKV", "b": "DDEEKKRRSST"}
DB = {"x": "MKVLAAGGSTW", "y": "AAKKLLVVEEDDRRSS", "z": "WWYYFFMMKLVA"}


def _files(tmp_path, script=SCRIPT):
    (tmp_path / "q.fa").write_text("".join(f">{k}\n{v}\n" for k, v in QUERIES.items()))
    (tmp_path / "d.fa").write_text("".join(f">{k}\n{v}\n" for k, v in DB.items()))
    path = tmp_path / "s.bio"
    path.write_text(script)
    return path


def test_composition_method_scales_lambda_per_pair(tmp_path):
    """E = K m' n' exp(-lambda r S), r = lambda_u(query, subject) / 0.3176 for each
    pair, m' n' the effective lengths (no adjustment at these lengths, but BLAST's
    floor of 1 / K on the query's); the result says how it was made."""
    out = dslc.compile(str(_files(tmp_path)), backend="interp").run()
    ev = out['evalue(s, q, d, blosum62, 11, 1, "composition")']
    n = sum(map(len, DB.values()))
    for i, (qn, q) in enumerate(QUERIES.items()):
        for j, (dn, t) in enumerate(DB.items()):
            r = _lambda_u(_freqs(q), _freqs(t)) / 0.3176
            want = K * max(len(q), 1 / K) * n * math.exp(-LAM * r * (3 * len(q) + len(t)))
            assert ev.values[i, j] == pytest.approx(want, rel=1e-6), (qn, dn)
    assert "composition" in ev.note and "effective lengths" in ev.note


def test_auto_on_a_small_database_and_its_tsv_line(tmp_path, capsys):
    """Under 200 database sequences ``auto`` is ``composition``; the TSV says so in
    a comment line above the table's header."""
    from dslc.cli import main

    path = _files(tmp_path, SCRIPT.replace(', "composition")', ")"))
    code = main(["run", str(path), "--backend", "interp", "--quiet", "--format", "tsv"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].startswith("# evalue(s, q, d, blosum62, 11, 1): published BLOSUM62 11/1")
    assert "composition" in out[0]
    assert out[1].split("\t") == ["q", "d", "evalue(s, q, d, blosum62, 11, 1)"]


def test_json_carries_the_statistics_note(tmp_path, capsys):
    """``--format json``: the values as they are, and under ``#notes`` the sentence the
    TSV prints above its header (the method, lambda, K and the effective lengths),
    keyed as the printed value is; a value without a note has none."""
    import json

    from dslc.cli import main

    path = _files(tmp_path, SCRIPT + "print s\n")
    code = main(["run", str(path), "--backend", "interp", "--quiet", "--format", "json"])
    got = json.loads(capsys.readouterr().out)
    assert code == 0
    key = 'evalue(s, q, d, blosum62, 11, 1, "composition")'
    assert list(got) == [key, "s", "#notes"] and list(got["#notes"]) == [key]
    note = got["#notes"][key]
    assert note.startswith("published BLOSUM62 11/1 lambda 0.267 and K 0.041, effective lengths")
    assert "composition" in note and len(got[key]) == 2 and len(got[key][0]) == 3


@pytest.mark.parametrize("call, words", [
    ('evalue(s, q, d, blosum62, 11, 1, "fit")', ["at least 200", "got 3"]),
    ('evalue(s, q, d, "blosum62", 11, 1, "composition")', ["matrix value"]),
    ('evalue(s, q, d, blosum62, 11, 1, "best")', ["auto, fit, composition, published"]),
    ("evalue(s, q, d, blosum62, 11)", ["takes 6 or 7 arguments"]),
    ("evd_evalue(s, d)", ["cannot fit", "at least 200"]),
    ("evd_evalue(s, q[0])", ["the list the scores were mapped over"]),
])
def test_method_errors(tmp_path, call, words):
    path = _files(tmp_path, SCRIPT.replace('evalue(s, q, d, blosum62, 11, 1, "composition")',
                                           call))
    with pytest.raises(DslcError) as e:
        dslc.compile(str(path), backend="interp").run()
    text = e.value.render()
    assert text.startswith(f"{path}:5:"), text
    for w in words:
        assert w in text, text


def test_evd_evalue_fits_any_score(tmp_path):
    """A score the script declares extreme-value distributed (here each record's
    length, drawn from a Gumbel of location 300 and lambda 0.08): the E-value of a
    score is the entries expected to reach it, N P(S >= x), within a factor 1.6 of
    the true law's at E = 1 and E = 10; the result says it was fitted."""
    rng = np.random.default_rng(11)
    mu, lam, count = 300.0, 0.08, 400
    lengths = np.floor(mu - np.log(-np.log(rng.random(count))) / lam).astype(int)
    (tmp_path / "d.fa").write_text("".join(f">r{k}\n{'A' * n}\n" for k, n in enumerate(lengths)))
    path = tmp_path / "s.bio"
    path.write_text('int f(seq[protein] t) = len(t)\nd = load(seq[protein], "d.fa")\n'
                    "s = map(f, d)\nprint evd_evalue(s, d)\n")
    ev = dslc.compile(str(path), backend="interp").run()["evd_evalue(s, d)"]
    assert ev.values.shape == (count,) and "Gumbel" in ev.note
    true = count * -np.expm1(-np.exp(-lam * (lengths - mu)))
    for level in (1.0, 10.0):
        k = int(np.argmin(np.abs(true - level)))
        assert 1 / 1.6 < ev.values[k] / true[k] < 1.6
    assert np.all(np.diff(ev.values[np.argsort(lengths)]) <= 1e-12)  # higher score, lower E


def test_calibrated_on_random_sequences_of_the_standard_composition():
    """The calibration property on a small synthetic search: 20 queries against 400
    subjects, all drawn at Robinson and Robinson's frequencies (lengths 100-400), scored
    by Gotoh Smith-Waterman with BLOSUM62 11/1 (parasail). Chance hits at E <= 10
    should number about 20 x 10, at E <= 1 about 20: both the published statistics with
    BLAST's effective lengths (which they were estimated with) and the fit land within
    0.5x-1.5x and 1.5x."""
    parasail = pytest.importorskip("parasail")
    from dslc.lang import search_stats

    rng = np.random.default_rng(17)
    symbols, weights = list(ROBINSON), np.array(list(ROBINSON.values()))
    draw = lambda: "".join(rng.choice(symbols, int(rng.integers(100, 401)),  # noqa: E731
                                      p=weights / weights.sum()))
    queries, subjects = [draw() for _ in range(20)], [draw() for _ in range(400)]
    scores = np.array([[parasail.sw_striped_16(q, t, 12, 1, parasail.blosum62).score
                        for t in subjects] for q in queries], dtype=np.float64)
    query = search_stats.Side(0, np.array([len(q) for q in queries], dtype=float), None)
    db = search_stats.Side(1, np.array([len(t) for t in subjects], dtype=float), None)
    p = stats.karlin("blosum62", 11, 1)
    for method in ("published", "fit"):
        ev = search_stats.evalues(scores, True, query, db, p, None, method, "BLOSUM62 11/1").values
        assert 100 <= np.sum(ev <= 10) <= 300, (method, np.sum(ev <= 10))
        assert np.sum(ev <= 1) <= 30, (method, np.sum(ev <= 1))
    # the fit with each pair's composition discount (the compositions known) too
    m = _blosum62_matrix()
    count = lambda texts: np.array([[t.count(a) for a in m.alphabet.symbols]  # noqa: E731
                                    for t in texts], dtype=float)
    query = search_stats.Side(0, query.lengths, count(queries))
    db = search_stats.Side(1, db.lengths, count(subjects))
    ev = search_stats.evalues(scores, True, query, db, p, m.values, "fit", "BLOSUM62 11/1").values
    assert 100 <= np.sum(ev <= 10) <= 300 and np.sum(ev <= 1) <= 30, \
        (np.sum(ev <= 10), np.sum(ev <= 1))


@settings(max_examples=30, deadline=None)
@given(lengths=st.lists(st.integers(0, 130), min_size=1, max_size=6),
       width=st.sampled_from([2, 8, 48]), seed=st.integers(0, 2**16))
def test_window_counts_from_the_definition(lengths, width, seed):
    """Each record's windows: blocks of ``width // 2`` residues from its start (the last
    one shorter), a window two neighbouring blocks; a record of one block (an empty
    one too) is one window; windows in record order."""
    rng = np.random.default_rng(seed)
    records = [rng.integers(0, 5, n) for n in lengths]
    got = composition.window_counts(np.concatenate(records), np.r_[0, np.cumsum(lengths)], 5,
                                    width)
    half, want, owner = width // 2, [], []
    for r, codes in enumerate(records):
        blocks = [codes[a:a + half] for a in range(0, max(len(codes), 1), half)]
        pieces = [blocks[0]] if len(blocks) == 1 else \
            [np.r_[a, b] for a, b in zip(blocks, blocks[1:])]
        want += [np.bincount(p, minlength=5) for p in pieces]
        owner += [r] * len(pieces)
    assert got.counts.tolist() == np.array(want, dtype=float).tolist()
    assert got.owner.tolist() == owner


def test_windowed_discount_is_the_most_query_like_window():
    """With windows, a subject's discount is that of its window most like the query:
    a long protein of the standard composition with a short His-rich stretch is
    discounted most for a His-rich query (to a hundredth), where its whole composition
    hides the stretch (near the typical pair's discount, 1)."""
    m = _blosum62_matrix()
    symbols = m.alphabet.symbols
    code = {a: k for k, a in enumerate(symbols)}
    rng = np.random.default_rng(5)
    std = np.array([ROBINSON.get(a, 0.0) for a in symbols])
    plain = [rng.choice(len(symbols), int(rng.integers(200, 400)), p=std / std.sum())
             for _ in range(40)]
    long = rng.choice(len(symbols), 1200, p=std / std.sum())
    stretch = np.array([code[c] for c in "HHSHHAHHDHHGHHKHHEHHPHHS"])
    subjects = [np.r_[long[:600], stretch, long[600:]]] + plain
    offsets = np.r_[0, np.cumsum([len(s) for s in subjects])]
    windows = composition.window_counts(np.concatenate(subjects), offsets, len(symbols))
    q = np.zeros(len(symbols))
    for c in "HHAHHSHHGHHDHHKAHHLHHEHHPHH":
        q[code[c]] += 1
    q /= q.sum()
    local = composition.pair_discounts(m.values, q, windows)
    counts = np.array([np.bincount(s, minlength=len(symbols)) for s in subjects], dtype=float)
    whole = composition.pair_discounts(m.values, q, composition.shrunk_frequencies(counts))
    assert local[0] == local.min() < 0.1 and whole[0] > 0.75, (local[0], whole[0])
    assert np.median(local) == pytest.approx(1.0)


def test_a_real_protein_finds_itself_and_its_homologues():
    """Two proteins of the proteome searched against it (Gotoh Smith-Waterman, BLOSUM62
    11/1, parasail's 12/1): ``auto`` (the fit with each pair's windowed composition
    discount, the windows built as a script's search builds them) gives each protein
    itself and its homologues tiny E-values, and its chance hits E-values near 1 or
    more (the same scores' published E-values for scale)."""
    parasail = pytest.importorskip("parasail")
    pytest.importorskip("pyhmmer")
    from benchmarks.common import load_proteome
    from dslc.lang import script_stats, search_stats

    proteome = load_proteome()
    m = _blosum62_matrix()
    queries = [proteome[100], proteome[0]]
    scores = np.array([[parasail.sw_striped_16(q.text, t.text, 12, 1, parasail.blosum62).score
                        for t in proteome] for q in queries], dtype=np.float64)
    counts = script_stats._counts(proteome, m)
    query = search_stats.Side(0, np.array([len(q) for q in queries], dtype=float),
                              script_stats._counts(queries, m))
    db = search_stats.Side(1, np.array([len(t) for t in proteome], dtype=float), counts,
                           script_stats._windows(proteome, m))
    p = stats.karlin("blosum62", 11, 1)
    got = search_stats.evalues(scores, True, query, db, p, m.values, "auto", "BLOSUM62 11/1")
    ev = got.values
    assert "window of 48 residues" in got.note
    assert ev[0, 100] < 1e-90 and ev[1, 0] < 1e-50  # itself
    for i, j, score in [(0, 210, 250), (0, 583, 210), (0, 1699, 204), (1, 1756, 168),
                        (1, 1858, 137)]:  # homologues (their scores, as a check of the data)
        assert scores[i, j] == score and ev[i, j] < 1e-5, (i, j, ev[i, j])
    assert np.all(ev[1][scores[1] <= 70] > 0.1)  # chance: the best of the rest scores 66
    assert np.sum(ev[1] <= 10) < 20
