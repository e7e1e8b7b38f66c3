"""The numbers of HMMER3's search profile (local multihit), for the accessors
that let a ``.bio`` program score a sequence as ``hmmsearch`` does.

``hmmsearch`` does not score a sequence with the core model of the file
(:func:`.hmmer3.profile_to_hmm`): it configures a *search profile* around it
(HMMER3's ``p7_ProfileConfig`` in local multihit mode) and divides by a null
model. The parts that come from the model, and that the extension therefore
provides, are:

* the null model's residue frequencies ``f``: Easel's BLOSUM62 background
  composition for amino acids (the frequencies ``p7_bg_Create`` uses), uniform
  for nucleotides;
* the *odds* of each emission against ``f``: ``e_k(c) / f(c)`` for a match
  state; for a degenerate code (``X``, ``B``, ``Z``) HMMER3 scores the
  ``f``-weighted mean of its residues' log-odds, so the odds are
  ``exp(sum f(x) ln(e_k(x) / f(x)) / sum f(x))`` over its residues; a symbol
  that is no residue (``*``) has odds 0. Insert states emit the background
  (HMMER3 hard-wires their scores to zero: odds 1, 0 for ``*``);
* the local entry ``B -> Mk``: ``occ(k) / sum_j occ(j) (M - j + 1)`` with
  ``occ(k)`` the probability that a global path through the core model uses
  node ``k``'s match state (``2 / (M (M + 1))`` when every occupancy is 1);
* the multihit configuration: ``E -> J = E -> C = 1/2``, and one expected
  ``J`` visit (``nj = 1``), which sets the length model.

What depends on the sequence's length ``L`` (``N -> N = C -> C = J -> J =
L / (L + 2 + nj)``, the null model's ``L / (L + 1)``) is arithmetic the program
writes, so the extension's compiled forms stay table reads.
"""

from __future__ import annotations

import numpy as np

from .hmmer3 import DM, MI, MM, Profile, _emission_map

# Easel's esl_composition_BL62: the background amino-acid composition of
# BLOSUM62, in HMMER's residue order ACDEFGHIKLMNPQRSTVWY.
BL62 = (0.0787945, 0.0151600, 0.0535222, 0.0668298, 0.0397062, 0.0695071, 0.0229198,
        0.0590092, 0.0594422, 0.0963728, 0.0237718, 0.0414386, 0.0482904, 0.0395639,
        0.0540978, 0.0683364, 0.0540687, 0.0673417, 0.0114135, 0.0304133)


def background(profile: Profile) -> np.ndarray:
    """The null model's residue frequencies, in the profile's residue order."""
    if profile.alphabet.name == "amino":
        return np.array(BL62)
    k = len(profile.alphabet)
    return np.full(k, 1.0 / k)


def _residues_of(profile: Profile, alphabet) -> list[list[int]]:
    """Per symbol of ``alphabet``: the profile residues it stands for (one for a
    residue, several for a degenerate code, none for ``*`` or a gap)."""
    remap = _emission_map(profile, alphabet, None)
    if remap is None:
        return [[c] for c in range(len(profile.alphabet))]
    return [list(np.flatnonzero(remap[:, j])) for j in range(remap.shape[1])]


def match_log_odds(profile: Profile, alphabet) -> np.ndarray:
    """``float64[M, |alphabet|]``: row ``k - 1`` holds node ``k``'s match log-odds
    per symbol, as HMMER3 scores them (see the module notes)."""
    f = background(profile)
    with np.errstate(divide="ignore"):
        sc = np.log(profile.match_emissions) - np.log(f)
    out = np.full((profile.M, len(alphabet)), -np.inf)
    for j, res in enumerate(_residues_of(profile, alphabet)):
        if len(res) == 1:
            out[:, j] = sc[:, res[0]]
        elif res:
            w = f[res] / f[res].sum()
            with np.errstate(invalid="ignore"):  # 0 * -inf: a residue the node never emits
                out[:, j] = np.nansum(sc[:, res] * w, axis=1)
    return out


def insert_log_odds(profile: Profile, alphabet) -> np.ndarray:
    """``float64[|alphabet|]``: 0 for every symbol standing for residues, ``-inf``
    for the others (``*``): HMMER3's insert scores."""
    return np.array([0.0 if res else -np.inf for res in _residues_of(profile, alphabet)])


def local_entry(profile: Profile) -> np.ndarray:
    """``float64[M + 1]``: the probability of the local entry ``B -> Mk`` at
    node ``k`` (0 at node 0), from the match occupancies (HMMER3's
    ``p7_hmm_CalculateOccupancy``)."""
    t, M = profile.transitions, profile.M
    occ = np.zeros(M + 1)
    occ[1] = t[0, MI] + t[0, MM]
    for k in range(2, M + 1):
        occ[k] = occ[k - 1] * (t[k - 1, MM] + t[k - 1, MI]) + (1.0 - occ[k - 1]) * t[k - 1, DM]
    z = sum(occ[k] * (M - k + 1) for k in range(1, M + 1))
    return occ / z


# E -> J and E -> C in the multihit configuration, and the expected number of
# J visits that sets the length model (0 for unihit, 1 for multihit).
E_TO_J = 0.5
E_TO_C = 0.5
EXPECTED_J = 1.0



def forward_stats(profile: Profile) -> tuple[float, float] | None:
    """``(tau, lambda)`` of the profile's ``STATS LOCAL FORWARD`` line: the
    exponential tail of local Forward scores in bits, ``P(S >= s) =
    exp(-lambda (s - tau))`` for ``s >= tau``; ``None`` without the line."""
    return local_stats(profile, "FORWARD")


def local_stats(profile: Profile, which: str) -> tuple[float, float] | None:
    """The two numbers of the profile's ``STATS LOCAL <which>`` line (``MSV``,
    ``VITERBI``: a Gumbel's ``(mu, lambda)`` for the filters' scores in bits,
    ``P(S > s) = 1 - exp(-exp(-lambda (s - mu)))``; ``FORWARD``: the exponential
    tail's ``(tau, lambda)``), or ``None`` without the line."""
    for line in profile.tags.get("STATS", "").splitlines():
        f = line.split()
        if f[:2] == ["LOCAL", which] and len(f) == 4:
            try:
                return float(f[2]), float(f[3])
            except ValueError:
                return None
    return None
    return None
