"""The hidden Markov model extension, written only against :mod:`dslc.sdk`.

Types
-----
* ``hmm`` (calling): a model, from ``define hmm NAME { ... }`` or
  ``load(hmm, "profile.hmm")``;
* ``state[h]`` (recursive): the states of model ``h``, numbered ``0 .. n-1``
  with the start state first and the end state last;
* ``transition[h]`` (recursive): the transitions of ``h``, numbered
  ``0 .. T-1`` ordered by (from-state, to-state).

Accessors (the contract's, and more marked *)
---------------------------------------------------
========================  ===========================  ===========================================
receiver                   accessor                     result
========================  ===========================  ===========================================
``t: transition[h]``      ``t.start``, ``t.end``       ``state[h]``: where it leaves from / goes to
``t: transition[h]``      ``t.prob``                   ``prob``
``s: state[h]``           ``s.isstart``, ``s.isend``   ``bool``
``s: state[h]``           ``s.issilent`` *             ``bool``: emits nothing (start, end, silent)
``s: state[h]``           ``s.number`` *               ``int``: the state's number (start 0, end n-1)
``s: state[h]``           ``s.emission[c]``            ``prob`` of emitting symbol ``c``
``s: state[h]``           ``s.transitionsto``          iterable of the transitions into ``s``
``s: state[h]``           ``s.transitionsfrom``        iterable of the transitions out of ``s``
``h: hmm``                ``h.start``, ``h.end``       ``state[h]``
``h: hmm``                ``h.states``                 iterable of every state, in number order
``h: hmm``                ``h.transitions`` *          iterable of every transition
``h: hmm``                ``h.nstates`` *              ``int``: the number of states
``s: state[h]``           ``s.to[b]`` *                ``prob`` of the transition from ``s`` to
                                                        state ``b`` (0 where there is none)
``h: hmm``                ``h.firstnode`` *            ``pnode[h]``: a profile's first node ``0``
``h: hmm``                ``h.lastnode`` *             ``pnode[h]``: a profile's last node ``M``
``k: pnode[h]``           ``k.number`` *, ``k.prev`` *  ``int`` ``k``; ``pnode[h]`` node ``k - 1``
``k: pnode[h]``           ``k.next`` *                 ``pnode[h]``: node ``k + 1``
``k: pnode[h]``           ``k.isfirst`` *, ``k.islast`` *  ``bool``: ``k == 0``, ``k == M``
``k: pnode[h]``           ``k.match`` *, ``k.insert`` *, ``state[h]``: the node's match, insert and
                          ``k.delete`` *               delete states (see below)
``s: state[h]``           ``s.odds[c]`` *              ``prob``: HMMER3's search odds (.search)
``k: pnode[h]``           ``k.entry`` *                ``prob``: the local entry B -> Mk
``h: hmm``                ``h.ej`` *, ``h.ec`` *       ``prob``: E -> J, E -> C (multihit: 1/2)
``h: hmm``                ``h.nj`` *                   ``float``: expected J visits (multihit: 1)
``h: hmm``                ``h.fwdtau`` *, ``h.fwdlambda`` *  ``float``: STATS LOCAL FORWARD
``h: hmm``                ``h.msvmu`` *, ``h.msvlambda`` *  ``float``: STATS LOCAL MSV
``h: hmm``                ``h.vitmu`` *, ``h.vitlambda`` *  ``float``: STATS LOCAL VITERBI
========================  ===========================  ===========================================

Profile nodes (``pnode[h]``, recursive, numbered ``0 .. M``) exist for a model
loaded from a HMMER3 file, so that a profile's algorithms can be written over
(node, position) and scheduled as a wavefront over both (the standard library's
``profile_forward``, and ``profile_backward`` the other way): ``k.prev`` is
exactly ``k - 1`` to the dependence analysis, ``k.next`` exactly ``k + 1``, and
``k.number`` exactly ``k``, so guards on it are affine. Test ``k.isfirst`` /
``k.islast`` before reading ``k.prev`` / ``k.next``: ``k.prev`` at node 0 and
``k.next`` at node ``M`` are run-time errors on every backend (their compiled
forms are checked; on the CPU the check costs nothing measurable in
``profile_forward``). Node 0's match state
is the begin state ``B`` and its insert state ``I0``; node 0 has no delete state
and node ``M`` no insert state: there ``k.delete`` / ``k.insert`` is the end
state, which no transition leaves (so reading through it is
probability 0). A model not loaded from a HMMER3 file has no nodes.

Choices where the contract is silent:

* ``s.emission`` of a *silent* state (start, end, a ``state NAME;`` without
  ``emits``) is a table of probability 0 for every symbol (natural logs of
  ``-inf``): a silent state emits nothing, so reading it is harmless and
  multiplies a path's probability by zero.
* ``s.emission[c]`` reads single-symbol emissions. A k-mer (codon) state of a
  model written with ``emission e = ATG : 1, * : 0;`` has no per-symbol table;
  reading its ``emission`` is a run-time error naming the state.
* ``load(hmm, file)`` reads a HMMER3 profile file of one profile, as the
  global core model described in :mod:`.hmmer3` (a file of several is an
  error); ``load(hmms, file)`` reads every profile of the file as a list, for a
  map over models and sequences. The search-model accessors (``s.odds``,
  ``k.entry``, ``h.ej`` ...) give what HMMER3's local multihit configuration
  takes from the profile (see :mod:`.search`). Its emissions
  are laid out over the script's alphabet of the profile's kind, ``protein``
  for amino-acid profiles (so programs read them with ``seq[protein]``
  sequences; degenerate codes such as ``B``, ``Z`` and ``X`` emit the sum of
  their residues' probabilities, ``*`` emits nothing), ``dna`` or ``rna``
  otherwise. ``load(hmm[A], file)`` picks the alphabet ``A`` instead.
* Decoding from Python: :func:`viterbi_path` and :func:`posterior_decoding`
  (module :mod:`.decode`) run the standard library's ``hmm_vtrace`` and
  ``hmm_pstate`` and give state names; :func:`decoding` gives both beside the
  posteriors, as a TSV and a matplotlib plot (``python -m
  dslc_extensions.hmm.decode``).
* Element results of accessors on states and transitions make no promise to
  the dependence analysis (``sdk.ANY``): a transition may go forwards or
  backwards in the numbering.
"""

from __future__ import annotations

import numpy as np

from dslc import sdk
from dslc.sdk import DslcError

from .model import HMM

__all__ = ["extension", "HMM", "ViterbiPath", "viterbi_path", "posterior_decoding", "Decoding",
           "decoding"]

# The parsers of define blocks and HMMER3 files, the search profile and decoding are
# imported where first used: a script that reads no model needs none of them.
_DECODE = ("ViterbiPath", "viterbi_path", "posterior_decoding", "Decoding", "decoding")


def __getattr__(name: str):
    if name in _DECODE:
        from . import decode
        return getattr(decode, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------- types

def _model_type(value: HMM) -> sdk.ExtT:
    return sdk.ExtT("hmm", alpha=sdk.AlphaRef("named", value.alphabet.name))


def _owner_of(t: sdk.ExtT) -> str | None:
    """The variable holding the model: ``h`` for a ``state[h]`` receiver, and the
    model variable itself for an ``hmm`` receiver (the checker passes a calling
    receiver's own name as its owner)."""
    return t.owner


def _state_of(t: sdk.ExtT) -> sdk.ExtT:
    return sdk.ExtT("state", owner=_owner_of(t))


def _transition_of(t: sdk.ExtT) -> sdk.ExtT:
    return sdk.ExtT("transition", owner=_owner_of(t))


def _pnode_of(t: sdk.ExtT) -> sdk.ExtT:
    return sdk.ExtT("pnode", owner=_owner_of(t))


def _to_type(t: sdk.ExtT) -> sdk.MapT:
    return sdk.MapT((_state_of(t),), sdk.PROB)


def _emission_type(t: sdk.ExtT) -> sdk.MapT:
    owner = _owner_of(t)
    alpha = sdk.AlphaRef("var", owner) if owner else sdk.AlphaRef("any")
    return sdk.MapT((sdk.SymT(alpha),), sdk.PROB)


# --------------------------------------------------------------------------- values

def _per_model(cache: dict, h: HMM, build):
    """``build(h)``, computed once per model value (``cache``: id -> (the model,
    kept alive so its id is not reused, the value); at most 64 models kept)."""
    hit = cache.get(id(h))
    if hit is None or hit[0] is not h:
        if len(cache) > 64:
            cache.clear()
        hit = cache[id(h)] = (h, build(h))
    return hit[1]


_ROWS: dict[int, tuple[HMM, list]] = {}  # per-state emission rows
_TO: dict[int, tuple[HMM, dict]] = {}  # {state: row of s.to}, filled as states are read
_NODES: dict[int, tuple[HMM, dict]] = {}  # _node_states


def _emission_rows(h: HMM) -> list:
    """Per state: a numpy row of natural-log emission probabilities indexed by
    symbol code (``-inf`` everywhere for a silent state), or the name of a k-mer
    state (whose emission is not a per-symbol table)."""
    return _per_model(_ROWS, h, _build_emission_rows)


def _build_emission_rows(h: HMM) -> list:
    a = len(h.alphabet)
    silent = np.full(a, -np.inf)
    silent.setflags(write=False)
    rows: list = []
    for s in h.states:
        if s.emission is None:
            rows.append(silent)
        elif s.width != 1:
            rows.append(s.name)
        else:
            with np.errstate(divide="ignore"):
                row = np.log(np.asarray(s.emission, dtype=np.float64))
            row.setflags(write=False)
            rows.append(row)
    return rows


def _emission(h: HMM, s: int):
    row = _emission_rows(h)[s]
    if isinstance(row, str):
        raise DslcError(f"state '{row}' of model '{h.name}' emits {h.states[s].width} symbols at a "
                        f"time; s.emission[c] reads single-symbol emissions")
    return row


def _to_row(h: HMM, s: int) -> np.ndarray:
    """Natural logs of the probability of going from state ``s`` to each state
    in one step (``-inf`` where no transition goes)."""
    rows = _per_model(_TO, h, lambda _: {})
    if s not in rows:
        row = np.full(h.n_states, -np.inf)
        for t in h.states[s].transitions_from:
            row[h.transitions[t].end] = np.logaddexp(row[h.transitions[t].end],
                                                     h.trans_logprob[t])
        rows[s] = row
    return rows[s]


def _profile(h, what: str):
    """The HMMER3 profile behind model ``h`` (its nodes), or an error."""
    model = _need_model(h, what)
    if model.profile is None:
        raise DslcError(f"{what} needs a profile HMM (one loaded from a HMMER3 file); "
                        f"model '{model.name}' has no nodes")
    return model.profile


def _node_states(h: HMM) -> dict[str, np.ndarray]:
    """Per node ``0 .. M``: its match, insert and delete state numbers (the end
    state where the node has none), or empty arrays for a model with no nodes."""
    if h.profile is None:
        empty = np.zeros(0, dtype=np.int64)
        return {"pmatch": empty, "pinsert": empty, "pdelete": empty}
    p, end = h.profile, h.n_states - 1
    nodes = range(p.M + 1)
    return {"pmatch": np.array([0 if k == 0 else p.match_state(k) for k in nodes], dtype=np.int64),
            "pinsert": np.array([p.insert_state(k) if k < p.M else end for k in nodes],
                                dtype=np.int64),
            "pdelete": np.array([p.delete_state(k) if k > 0 else end for k in nodes],
                                dtype=np.int64)}


def _node_state(kind: str):
    def evaluate(h, k):
        _profile(h, f"k.{kind[1:]}")
        return int(_per_model(_NODES, h, _node_states)[kind][k])
    return evaluate


def _first(_, h) -> int:
    _profile(h, "h.firstnode")
    return 0


def _prev(h, k: int) -> int:
    if k == 0:
        raise DslcError("node 0 has no previous node (test k.isfirst first)")
    return k - 1


def _next(h, k: int) -> int:
    if k == _profile(h, "k.next").M:
        raise DslcError("node M has no next node (test k.islast first)")
    return k + 1


_SEARCH: dict[int, tuple[HMM, dict]] = {}  # _search_arrays


def _search_arrays(h: HMM) -> dict[str, np.ndarray]:
    """HMMER3's search profile (see :mod:`.search`) as natural logs: ``odds[s, c]``
    per state and symbol, ``entry[k]`` per node, ``xsc`` = E -> J, E -> C and
    ``nj``; arrays of no rows for a model with no profile (their reads are
    checked, so a compiled program stops where the interpreter reports it)."""
    p = h.profile
    if p is None:
        return {"odds": np.zeros((0, len(h.alphabet))), "entry": np.zeros(0),
                "xsc": np.zeros(0), "nj": np.zeros(0),
                **{name: np.zeros(0) for name in _STATS}}
    odds = np.full((h.n_states, len(h.alphabet)), -np.inf)
    from . import search

    match = search.match_log_odds(p, h.alphabet)
    insert = search.insert_log_odds(p, h.alphabet)
    for k in range(1, p.M + 1):
        odds[p.match_state(k)] = match[k - 1]
    for k in range(p.M):
        odds[p.insert_state(k)] = insert
    with np.errstate(divide="ignore"):
        entry = np.log(search.local_entry(p))
    return {"odds": odds, "entry": entry,
            "xsc": np.log([search.E_TO_J, search.E_TO_C]), "nj": np.array([search.EXPECTED_J]),
            **{name: np.array(search.local_stats(p, which) or (), dtype=np.float64)
               for name, which in _STATS.items()}}


# the arrays of a profile's STATS LOCAL lines, by the line's word: a pipeline's
# filters (MSV, Viterbi) and its Forward each read their score's distribution
_STATS = {"fwdstats": "FORWARD", "msvstats": "MSV", "vitstats": "VITERBI"}


def _search(what: str, name: str, index: int | None = None):
    """The interpreter's form of a search-profile accessor: array ``name`` of
    :func:`_search_arrays` at the receiver (an element), or at ``index`` (a
    model receiver)."""
    def evaluate(owner, r):
        model = r if owner is None else owner
        _profile(model, what)
        a = _per_model(_SEARCH, model, _search_arrays)[name]
        if name in _STATS and not len(a):
            raise DslcError(f"{what}: profile '{model.name}' has no 'STATS LOCAL {_STATS[name]}' "
                            "line (hmmcalibrate or hmmbuild write it)")
        if owner is None:
            return float(a[index])
        return a[r] if a.ndim > 1 else float(a[r])
    return evaluate


def _band(h: HMM) -> dict[str, np.ndarray]:
    """Transition probabilities as a band: ``band[a, b - a - lo]`` for ``b - a``
    in ``[lo, hi]`` (``bandlo = [lo, hi]``), ``-inf`` where no transition goes.
    A profile's band is 6 wide whatever its length."""
    d = h.trans_end - h.trans_start
    lo, hi = (int(d.min()), int(d.max())) if len(d) else (0, 0)
    band = np.full((h.n_states, hi - lo + 1), -np.inf)
    for a, b, lp in zip(h.trans_start, h.trans_end, h.trans_logprob):
        band[a, b - a - lo] = np.logaddexp(band[a, b - a - lo], lp)
    return {"band": band, "bandlo": np.array([lo, hi], dtype=np.int64)}


def _trans_logprob(h: HMM, t: int) -> float:
    return float(h.trans_logprob[t])


def _need_model(value, what: str) -> HMM:
    if not isinstance(value, HMM):
        raise DslcError(f"{what} needs a hidden Markov model, got a {type(value).__name__}")
    return value


def _define(name, args, body, body_span, ctx: sdk.ExtContext) -> HMM:
    if args:
        raise DslcError(f"define hmm {name} takes no [...]; name the alphabet inside the block "
                        f"with 'alphabet NAME;'", body_span)
    from .define_parser import parse_hmm_block

    return parse_hmm_block(name, body, body_span, ctx.alphabets, ctx.eval_number)


_PROFILE_ALPHABET = {"amino": "protein", "dna": "dna", "rna": "rna"}


def _load(arg, path, span, ctx: sdk.ExtContext) -> HMM:
    from .hmmer3 import read_profiles

    profiles = read_profiles(path, span)
    if len(profiles) > 1:  # never one of them silently
        names = ", ".join(p.name for p in profiles[:5]) + (", ..." if len(profiles) > 5 else "")
        raise DslcError(f"{path} holds {len(profiles)} models ({names}); load(hmm, ...) "
                        "reads a file of one model", span,
                        "load(hmms, ...) reads every model of the file as a list, which a map "
                        "searches in one run (models (*) sequences); from Python, "
                        "dslc_extensions.hmm.hmmer3.load_hmmer3(path)")
    return _load_all(arg, path, span, ctx, profiles)[0]


def _load_all(arg, path, span, ctx: sdk.ExtContext, profiles=None) -> list[HMM]:
    """Every model of a HMMER3 file, in file order, over the alphabet ``arg``
    (or the one of the first profile's kind: a file's models share one)."""
    from .hmmer3 import profile_to_hmm, read_profiles

    profiles = profiles if profiles is not None else read_profiles(path, span)
    if not profiles:
        raise DslcError(f"{path}: no HMMER3 profile in the file", span)
    kinds = sorted({p.alphabet.name for p in profiles})
    if len(kinds) > 1:
        raise DslcError(f"{path} mixes profiles over {' and '.join(kinds)}; a list of models "
                        "shares one alphabet", span)
    if arg is not None:
        alphabet = ctx.alphabet(arg, span)
    else:
        wanted = _PROFILE_ALPHABET.get(kinds[0])
        alphabet = ctx.alphabets.get(wanted) if wanted else None
    return [profile_to_hmm(p, alphabet, span) for p in profiles]


def _static_type(arg, alphabet):
    return sdk.ExtT("hmm", alpha=sdk.AlphaRef("named", arg) if arg else None)


def _static_list_type(arg, alphabet):
    return sdk.ListT(_static_type(arg, alphabet))


# --------------------------------------------------------------------------- compiled forms

def _layout(h: HMM) -> dict:
    """The model as the compiled backends read it (see LAYOUT)."""
    rows = _emission_rows(h)
    a = len(h.alphabet)
    erow = np.array([s if not isinstance(r, str) else -1 for s, r in enumerate(rows)],
                    dtype=np.int64)
    emit = np.array([r if not isinstance(r, str) else np.full(a, -np.inf) for r in rows],
                    dtype=np.float64).reshape(h.n_states, a)
    outoff = h.out_offsets
    return {
        "silent": np.array([s.issilent for s in h.states], dtype=np.bool_),
        "inoff": h.in_offsets, "intrans": h.in_transition.astype(np.int64),
        "outoff": outoff,
        "tstart": h.trans_start, "tend": h.trans_end, "tprob": h.trans_logprob,
        "emit": emit, "erow": erow,
        **_band(h), **_node_states(h), **_per_model(_SEARCH, h, _search_arrays),
    }


# The forward, backward and Viterbi sweeps visit the states in the same order in
# every task, so the transition structure is read one address per warp at a
# time (constant memory broadcasts it); emissions are indexed by each task's
# own symbol (shared memory).
LAYOUT = sdk.Layout(arrays=(
    sdk.DeviceArray("silent", doc="bool[n]: the state emits nothing"),
    sdk.DeviceArray("inoff", where="constant",
                    doc="int64[n+1]: in-edges of s are intrans[inoff[s] .. inoff[s+1]-1]"),
    sdk.DeviceArray("intrans", where="constant",
                    doc="int64[T]: transition numbers, grouped by to-state"),
    sdk.DeviceArray("outoff", doc="int64[n+1]: the transitions out of s are outoff[s] .. -1"),
    sdk.DeviceArray("tstart", where="constant", doc="int64[T]: from-state of each transition"),
    sdk.DeviceArray("tend", doc="int64[T]: to-state of each transition"),
    sdk.DeviceArray("tprob", where="constant",
                    doc="float64[T]: natural log of each transition's probability"),
    sdk.DeviceArray("emit", where="shared", doc="float64[n, |A|]: log emission by symbol"),
    sdk.DeviceArray("erow", doc="int64[n]: s, or -1 for a k-mer state (no per-symbol row)"),
    sdk.DeviceArray("band", doc="float64[n, hi-lo+1]: log prob of a -> a + lo + d at [a, d]"),
    sdk.DeviceArray("bandlo", doc="int64[2]: lo and hi of the band"),
    sdk.DeviceArray("pmatch", where="constant", doc="int64[M+1]: node k's match state"),
    sdk.DeviceArray("pinsert", where="constant", doc="int64[M+1]: node k's insert state"),
    sdk.DeviceArray("pdelete", where="constant", doc="int64[M+1]: node k's delete state"),
    sdk.DeviceArray("odds",
                    doc="float64[n, |A|]: log odds of HMMER3's search emissions (0 rows: none)"),
    sdk.DeviceArray("entry", where="constant", doc="float64[M+1]: log of the local entry B -> Mk"),
    sdk.DeviceArray("xsc", doc="float64[2]: logs of E -> J and E -> C (multihit)"),
    sdk.DeviceArray("nj", doc="float64[1]: the expected number of J visits (multihit: 1)"),
    sdk.DeviceArray("fwdstats", doc="float64[2]: tau and lambda of STATS LOCAL FORWARD (or none)"),
    sdk.DeviceArray("msvstats", doc="float64[2]: mu and lambda of STATS LOCAL MSV (or none)"),
    sdk.DeviceArray("vitstats", doc="float64[2]: mu and lambda of STATS LOCAL VITERBI (or none)"),
), build=_layout)

_silent, _inoff, _outoff = sdk.arr("silent"), sdk.arr("inoff"), sdk.arr("outoff")
_tprob, _emit, _erow = sdk.arr("tprob"), sdk.arr("emit"), sdk.arr("erow")
R = sdk.RECV
DEVICE = {
    ("transition", "start"): sdk.arr("tstart")[R],
    ("transition", "end"): sdk.arr("tend")[R],
    ("transition", "prob"): _tprob[R],
    ("state", "isstart"): R == 0,
    ("state", "isend"): R == _silent.len - 1,
    ("state", "issilent"): _silent[R],
    ("state", "number"): R,
    # a k-mer state has no per-symbol row: a run-time error, reported by the interpreter
    ("state", "emission"): _emit[sdk.checked(_erow[R], _erow.len), sdk.key(0)],
    ("state", "transitionsto"): sdk.Each(_inoff[R], _inoff[R + 1], sdk.arr("intrans")[sdk.ITEM]),
    ("state", "transitionsfrom"): sdk.Each(_outoff[R], _outoff[R + 1]),
    ("hmm", "start"): sdk.lift(0),
    ("hmm", "end"): _silent.len - 1,
    ("hmm", "states"): sdk.Each(0, _silent.len),
    ("hmm", "transitions"): sdk.Each(0, _tprob.len),
    ("hmm", "nstates"): _silent.len,
    ("state", "to"): sdk.select(
        (sdk.key(0) - R >= sdk.arr("bandlo")[0]) & (sdk.key(0) - R <= sdk.arr("bandlo")[1]),
        sdk.arr("band")[R, sdk.key(0) - R - sdk.arr("bandlo")[0]], -np.inf),
    ("hmm", "firstnode"): sdk.lift(0),
    ("hmm", "lastnode"): sdk.arr("pmatch").len - 1,
    ("pnode", "number"): R,
    ("pnode", "prev"): sdk.checked(R - 1, sdk.arr("pmatch").len),
    ("pnode", "next"): sdk.checked(R + 1, sdk.arr("pmatch").len),
    ("pnode", "isfirst"): R == 0,
    ("pnode", "islast"): R == sdk.arr("pmatch").len - 1,
    ("pnode", "match"): sdk.arr("pmatch")[R],
    ("pnode", "insert"): sdk.arr("pinsert")[R],
    ("pnode", "delete"): sdk.arr("pdelete")[R],
    ("state", "odds"): sdk.arr("odds")[sdk.checked(R, sdk.arr("odds").len), sdk.key(0)],
    ("pnode", "entry"): sdk.arr("entry")[R],
    ("hmm", "ej"): sdk.arr("xsc")[sdk.checked(0, sdk.arr("xsc").len)],
    ("hmm", "ec"): sdk.arr("xsc")[sdk.checked(1, sdk.arr("xsc").len)],
    ("hmm", "nj"): sdk.arr("nj")[sdk.checked(0, sdk.arr("nj").len)],
    ("hmm", "fwdtau"): sdk.arr("fwdstats")[sdk.checked(0, sdk.arr("fwdstats").len)],
    ("hmm", "fwdlambda"): sdk.arr("fwdstats")[sdk.checked(1, sdk.arr("fwdstats").len)],
    ("hmm", "msvmu"): sdk.arr("msvstats")[sdk.checked(0, sdk.arr("msvstats").len)],
    ("hmm", "msvlambda"): sdk.arr("msvstats")[sdk.checked(1, sdk.arr("msvstats").len)],
    ("hmm", "vitmu"): sdk.arr("vitstats")[sdk.checked(0, sdk.arr("vitstats").len)],
    ("hmm", "vitlambda"): sdk.arr("vitstats")[sdk.checked(1, sdk.arr("vitstats").len)],
}


# --------------------------------------------------------------------------- the extension

def _acc(on, name, result, evaluate, doc, bounds=sdk.ANY):
    return sdk.Accessor(on, name, result, evaluate, bounds, doc, device=DEVICE[(on, name)])


extension = sdk.Extension(
    name="hmm",
    types=(
        sdk.TypeSpec(name="hmm", role="calling", bracket="none",
                     alphabet=lambda h: h.alphabet,
                     accepts=lambda v: isinstance(v, HMM), layout=LAYOUT,
                     doc="a hidden Markov model (define hmm NAME { ... } or load(hmm, file))"),
        sdk.TypeSpec(name="state", role="recursive", bracket="owner",
                     size=lambda h: _need_model(h, "state[...]").n_states,
                     labels=lambda h: tuple(s.name for s in h.states),
                     device_size=_silent.len,
                     doc="a state of model h: 0 is the start state, n-1 the end state"),
        sdk.TypeSpec(name="pnode", role="recursive", bracket="owner",
                     size=lambda h: _profile(h, "pnode[...]").M + 1,
                     device_size=sdk.arr("pmatch").len,
                     doc="a node of a profile HMM (loaded from a HMMER3 file), 0 .. M"),
        sdk.TypeSpec(name="transition", role="recursive", bracket="owner",
                     size=lambda h: _need_model(h, "transition[...]").n_transitions,
                     device_size=_tprob.len,
                     doc="a transition of model h, ordered by (from-state, to-state)"),
    ),
    accessors=(
        _acc("transition", "start", _state_of,
             lambda h, t: h.transitions[t].start, "the state the transition leaves"),
        _acc("transition", "end", _state_of,
             lambda h, t: h.transitions[t].end, "the state the transition enters"),
        _acc("transition", "prob", lambda t: sdk.PROB, _trans_logprob,
             "the transition's probability"),
        _acc("state", "isstart", lambda t: sdk.BOOL,
             lambda h, s: s == 0, "whether this is the start state"),
        _acc("state", "isend", lambda t: sdk.BOOL,
             lambda h, s: s == h.n_states - 1, "whether this is the end state"),
        _acc("state", "issilent", lambda t: sdk.BOOL,
             lambda h, s: h.states[s].emission is None,
             "whether the state emits nothing (start, end and silent states)"),
        _acc("state", "number", lambda t: sdk.INT, lambda h, s: s,
             "the state's number: 0 for the start state, h.nstates - 1 for the end state"),
        _acc("state", "emission", _emission_type, _emission,
             "the state's emission probabilities by symbol (0 for a silent state)"),
        _acc("state", "transitionsto", lambda t: sdk.IterT(_transition_of(t)),
             lambda h, s: h.states[s].transitions_to, "the transitions into the state"),
        _acc("state", "transitionsfrom", lambda t: sdk.IterT(_transition_of(t)),
             lambda h, s: h.states[s].transitions_from, "the transitions out of the state"),
        _acc("hmm", "start", _state_of, lambda _, h: 0, "the start state"),
        _acc("hmm", "end", _state_of, lambda _, h: h.n_states - 1, "the end state"),
        _acc("hmm", "states", lambda t: sdk.IterT(_state_of(t)),
             lambda _, h: range(h.n_states), "every state, in number order"),
        _acc("hmm", "transitions", lambda t: sdk.IterT(_transition_of(t)),
             lambda _, h: range(h.n_transitions), "every transition, in number order"),
        _acc("hmm", "nstates", lambda t: sdk.INT, lambda _, h: h.n_states,
             "the number of states"),
        _acc("state", "to", _to_type, _to_row,
             "the probability of the transition from this state to each state (0 if none)"),
        _acc("hmm", "firstnode", _pnode_of, _first,
             "a profile's first node 0 (its match state is the begin state)"),
        _acc("hmm", "lastnode", _pnode_of, lambda _, h: _profile(h, "h.lastnode").M,
             "a profile's last node M"),
        _acc("pnode", "number", lambda t: sdk.INT, lambda h, k: k, "the node's number k",
             sdk.Bounds(0, 0)),
        _acc("pnode", "prev", _pnode_of, _prev, "node k - 1", sdk.Bounds(-1, -1)),
        _acc("pnode", "next", _pnode_of, _next, "node k + 1", sdk.Bounds(1, 1)),
        _acc("pnode", "isfirst", lambda t: sdk.BOOL, lambda h, k: k == 0, "k == 0"),
        _acc("pnode", "islast", lambda t: sdk.BOOL,
             lambda h, k: k == _profile(h, "k.islast").M, "k == M"),
        _acc("pnode", "match", _state_of, _node_state("pmatch"),
             "the node's match state (node 0: the begin state)"),
        _acc("pnode", "insert", _state_of, _node_state("pinsert"),
             "the node's insert state (node M: the end state, which has none)"),
        _acc("pnode", "delete", _state_of, _node_state("pdelete"),
             "the node's delete state (node 0: the end state, which has none)"),
        _acc("state", "odds", _emission_type, _search("s.odds", "odds"),
             "HMMER3's search odds of each symbol against the null model (match: e(c) / f(c); "
             "insert: 1; a degenerate code: the f-weighted geometric mean; *: 0)"),
        _acc("pnode", "entry", lambda t: sdk.PROB, _search("k.entry", "entry"),
             "the local entry B -> Mk (by match occupancy; node 0: 0)"),
        _acc("hmm", "ej", lambda t: sdk.PROB, _search("h.ej", "xsc", 0),
             "E -> J in HMMER3's multihit configuration (1/2)"),
        _acc("hmm", "ec", lambda t: sdk.PROB, _search("h.ec", "xsc", 1),
             "E -> C in HMMER3's multihit configuration (1/2)"),
        _acc("hmm", "nj", lambda t: sdk.FLOAT, _search("h.nj", "nj", 0),
             "the expected number of J visits (multihit: 1), which sets the length model"),
        _acc("hmm", "fwdtau", lambda t: sdk.FLOAT, _search("h.fwdtau", "fwdstats", 0),
             "tau (bits) of the profile's STATS LOCAL FORWARD line"),
        _acc("hmm", "fwdlambda", lambda t: sdk.FLOAT, _search("h.fwdlambda", "fwdstats", 1),
             "lambda of the profile's STATS LOCAL FORWARD line"),
        _acc("hmm", "msvmu", lambda t: sdk.FLOAT, _search("h.msvmu", "msvstats", 0),
             "mu (bits) of the profile's STATS LOCAL MSV line"),
        _acc("hmm", "msvlambda", lambda t: sdk.FLOAT, _search("h.msvlambda", "msvstats", 1),
             "lambda of the profile's STATS LOCAL MSV line"),
        _acc("hmm", "vitmu", lambda t: sdk.FLOAT, _search("h.vitmu", "vitstats", 0),
             "mu (bits) of the profile's STATS LOCAL VITERBI line"),
        _acc("hmm", "vitlambda", lambda t: sdk.FLOAT, _search("h.vitlambda", "vitstats", 1),
             "lambda of the profile's STATS LOCAL VITERBI line"),
    ),
    defines=(sdk.DefineSpec("hmm", _define, _model_type),),
    loaders=(sdk.LoaderSpec("hmm", _load, _static_type),
             sdk.LoaderSpec("hmms", _load_all, _static_list_type)),
)
