"""The hidden Markov model value: states, transitions, emissions.

An :class:`HMM` is what a ``define hmm NAME { ... }`` block or a HMMER3 profile
file becomes. It is immutable and carries, besides the per-state and
per-transition records the accessors read, the flat numpy arrays the compiled
backends index.

Numbering
---------
* States: the start state is number 0, the end state number ``n - 1``, the other
  states in between in their order of declaration (a HMMER3 profile has its own
  node-by-node order, see :mod:`.hmmer3`).
* Transitions: ordered by the pair (from-state, to-state), so the transitions
  leaving one state are consecutive.

Emissions
---------
An emitting state emits ``width`` symbols at a time (1 normally; 3 for a codon
state written ``emission e = ATG : 1, * : 0;``). Its emission vector has
``|A| ** width`` entries indexed by the *k-mer code*: the base-``|A|`` number
whose digits are the symbol codes of the k-mer, oldest symbol first, so the most
recent symbol is the last (least significant) digit. For a single symbol the
k-mer code is the symbol code.

The model's ``order`` is the largest width (1 when every emitting state emits
single symbols). :attr:`HMM.log_emission` has ``|A| ** order`` columns, indexed
by the code of the ``order`` symbols ending at the current position; a state of
smaller width ``w`` reads only the last ``w`` of them
(``column % |A| ** w``), so a backend can compute one window code per position
and use it for every state. Silent states (start, end and declared silent
states) emit nothing; their rows are ``-inf`` (probability 0) and their
``emission`` is ``None``.

Silent states
-------------
A silent state's value at a position depends on its predecessors at the *same*
position, so within one column silent states must be visited after their silent
predecessors. Cycles of silent states are rejected when the model is built, and
:attr:`HMM.column_order` lists all states in an order that respects those
dependencies (the identity when the declaration order already does).
"""

from __future__ import annotations

import functools
import heapq
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dslc.sdk import Alphabet

START, END, EMITTING, SILENT = "start", "end", "emitting", "silent"
KINDS = (START, END, EMITTING, SILENT)


@dataclass(frozen=True)
class Transition:
    """``start -> end`` with probability ``prob`` (states by number)."""

    index: int
    start: int
    end: int
    prob: float

    @property
    def logprob(self) -> float:
        return float(np.log(self.prob)) if self.prob > 0 else -np.inf


@dataclass(frozen=True, eq=False)
class State:
    """One state. ``emission`` is ``None`` for silent states (start and end
    included); ``transitions_to`` are the numbers of the transitions *into* this
    state, ``transitions_from`` those *out of* it."""

    index: int
    name: str
    kind: str  # "start" | "end" | "emitting" | "silent"
    emission: np.ndarray | None
    transitions_to: tuple[int, ...]
    transitions_from: tuple[int, ...]
    width: int = 0  # symbols emitted per visit; 0 for silent states
    emission_name: str | None = None

    @property
    def isstart(self) -> bool:
        return self.kind == START

    @property
    def isend(self) -> bool:
        return self.kind == END

    @property
    def issilent(self) -> bool:
        return self.kind != EMITTING

    @property
    def isemitting(self) -> bool:
        return self.kind == EMITTING


@dataclass(frozen=True, eq=False)
class HMM:
    """A hidden Markov model over ``alphabet``.

    Build one with :func:`build_hmm` (which fills in the cross references and
    checks the structure) rather than by hand. ``profile`` is the HMMER3
    :class:`~.hmmer3.Profile` a model was converted from, else ``None``.
    """

    name: str
    alphabet: Alphabet
    states: tuple[State, ...]
    transitions: tuple[Transition, ...]
    order: int = 1
    profile: Any = field(default=None, repr=False)

    # ---- the parts the accessors read
    @property
    def n_states(self) -> int:
        return len(self.states)

    @property
    def n_transitions(self) -> int:
        return len(self.transitions)

    @property
    def start(self) -> State:
        return self.states[0]

    @property
    def end(self) -> State:
        return self.states[-1]

    def state(self, name: str) -> State:
        for s in self.states:
            if s.name == name:
                return s
        raise KeyError(name)

    def __repr__(self) -> str:
        return (f"HMM({self.name!r}, alphabet={self.alphabet.name!r}, "
                f"{self.n_states} states, {self.n_transitions} transitions, order {self.order})")

    # ---- flat arrays for the backends
    @functools.cached_property
    def trans_start(self) -> np.ndarray:
        """``int64[T]``: the from-state of each transition."""
        return np.array([t.start for t in self.transitions], dtype=np.int64)

    @functools.cached_property
    def trans_end(self) -> np.ndarray:
        """``int64[T]``: the to-state of each transition."""
        return np.array([t.end for t in self.transitions], dtype=np.int64)

    @functools.cached_property
    def trans_prob(self) -> np.ndarray:
        return np.array([t.prob for t in self.transitions], dtype=np.float64)

    @functools.cached_property
    def trans_logprob(self) -> np.ndarray:
        """``float64[T]``: natural log of each transition's probability."""
        with np.errstate(divide="ignore"):
            return np.log(self.trans_prob)

    @functools.cached_property
    def log_transition(self) -> np.ndarray:
        """``float64[n, n]``: ``[a, b]`` the log probability of ``a -> b``,
        ``-inf`` where there is no transition."""
        n = self.n_states
        m = np.full((n, n), -np.inf)
        if self.transitions:
            m[self.trans_start, self.trans_end] = self.trans_logprob
        return m

    @functools.cached_property
    def widths(self) -> np.ndarray:
        """``int64[n]``: symbols emitted per visit (0 for silent states)."""
        return np.array([s.width for s in self.states], dtype=np.int64)

    @functools.cached_property
    def is_silent(self) -> np.ndarray:
        return np.array([s.issilent for s in self.states], dtype=bool)

    @functools.cached_property
    def emission_matrix(self) -> np.ndarray:
        """``float64[n, |A| ** order]`` probabilities (see the module notes)."""
        a = len(self.alphabet)
        cols = a ** self.order
        m = np.zeros((self.n_states, cols))
        idx = np.arange(cols)
        for s in self.states:
            if s.emission is not None:
                m[s.index] = s.emission[idx % (a ** s.width)]
        return m

    @functools.cached_property
    def log_emission(self) -> np.ndarray:
        """``float64[n, |A| ** order]``: log of :attr:`emission_matrix`; silent
        rows are ``-inf``."""
        with np.errstate(divide="ignore"):
            return np.log(self.emission_matrix)

    @functools.cached_property
    def _in_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        offsets = np.zeros(self.n_states + 1, dtype=np.int64)
        trans = [t for s in self.states for t in s.transitions_to]
        for s in self.states:
            offsets[s.index + 1] = offsets[s.index] + len(s.transitions_to)
        trans = np.array(trans, dtype=np.int64)
        return offsets, self.trans_start[trans] if len(trans) else trans, \
            self.trans_logprob[trans] if len(trans) else np.zeros(0), trans

    @property
    def in_offsets(self) -> np.ndarray:
        """``int64[n + 1]``: the in-edges of state ``s`` are entries
        ``in_offsets[s] .. in_offsets[s + 1] - 1`` of the ``in_*`` arrays."""
        return self._in_csr[0]

    @property
    def in_source(self) -> np.ndarray:
        """``int64[T]``: the from-state of each in-edge (CSR by to-state)."""
        return self._in_csr[1]

    @property
    def in_logprob(self) -> np.ndarray:
        """``float64[T]``: the log probability of each in-edge (CSR by to-state)."""
        return self._in_csr[2]

    @property
    def in_transition(self) -> np.ndarray:
        """``int64[T]``: the transition number of each in-edge."""
        return self._in_csr[3]

    @functools.cached_property
    def out_offsets(self) -> np.ndarray:
        """``int64[n + 1]``: transitions are ordered by from-state, so the
        out-edges of ``s`` are transitions ``out_offsets[s] .. out_offsets[s+1]-1``
        (use :attr:`trans_end`, :attr:`trans_logprob`)."""
        offsets = np.zeros(self.n_states + 1, dtype=np.int64)
        for s in self.states:
            offsets[s.index + 1] = offsets[s.index] + len(s.transitions_from)
        return offsets

    @functools.cached_property
    def column_order(self) -> tuple[int, ...]:
        """All states in an order in which every silent state comes after the
        silent states with a transition into it (stable: the numbering itself
        whenever that already holds)."""
        return _column_order(self.states, self.transitions)

    def kmer_code(self, codes) -> int:
        """The k-mer code of a run of symbol codes (oldest first)."""
        a = len(self.alphabet)
        c = 0
        for x in codes:
            c = c * a + int(x)
        return c


def _column_order(states, transitions) -> tuple[int, ...]:
    """Stable topological order of the dependency graph restricted to edges
    between silent states (emitting states read the previous column only)."""
    n = len(states)
    silent = [s.issilent for s in states]
    preds: list[list[int]] = [[] for _ in range(n)]
    for t in transitions:
        if silent[t.start] and silent[t.end]:
            preds[t.end].append(t.start)
    order: list[int] = []
    # Repeatedly take the lowest-numbered state whose silent predecessors are done.
    indeg = [len(set(p)) for p in preds]
    succs: list[set[int]] = [set() for _ in range(n)]
    for b, ps in enumerate(preds):
        for a in set(ps):
            succs[a].add(b)
    heap = [i for i in range(n) if indeg[i] == 0]
    heapq.heapify(heap)
    while heap:
        i = heapq.heappop(heap)
        order.append(i)
        for j in sorted(succs[i]):
            indeg[j] -= 1
            if indeg[j] == 0:
                heapq.heappush(heap, j)
    if len(order) != n:
        raise ValueError("silent states form a cycle")
    return tuple(order)


def silent_cycle(names: list[str], silent: list[bool], edges: list[tuple[int, int]]) -> list[int] | None:
    """A cycle among silent states (as a list of state numbers), or ``None``."""
    n = len(names)
    succ: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        if silent[a] and silent[b]:
            succ[a].append(b)
    colour = [0] * n  # 0 new, 1 on stack, 2 done
    parent = [-1] * n
    for root in range(n):
        if colour[root] or not silent[root]:
            continue
        stack = [(root, iter(succ[root]))]
        colour[root] = 1
        while stack:
            v, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[v] = 2
                stack.pop()
                continue
            if colour[nxt] == 0:
                colour[nxt] = 1
                parent[nxt] = v
                stack.append((nxt, iter(succ[nxt])))
            elif colour[nxt] == 1:
                cyc = [v]
                while cyc[-1] != nxt:
                    cyc.append(parent[cyc[-1]])
                return cyc[::-1]
    return None


def build_hmm(name: str, alphabet: Alphabet, states: list[tuple], transitions: list[tuple[int, int, float]],
              profile: Any = None) -> HMM:
    """Assemble an :class:`HMM`.

    ``states`` lists ``(name, kind, emission_or_None, width, emission_name)`` in
    state-number order (start first, end last); ``transitions`` lists
    ``(from, to, prob)`` in any order. Transitions are renumbered by
    (from, to). No probabilistic validation happens here (the ``define`` parser
    does that); structural invariants are asserted.
    """
    n = len(states)
    if n < 2 or states[0][1] != START or states[-1][1] != END:
        raise ValueError("an HMM needs the start state first and the end state last")
    ordered = sorted(transitions, key=lambda t: (t[0], t[1]))
    trans = tuple(Transition(i, int(a), int(b), float(p)) for i, (a, b, p) in enumerate(ordered))
    into: list[list[int]] = [[] for _ in range(n)]
    out: list[list[int]] = [[] for _ in range(n)]
    for t in trans:
        out[t.start].append(t.index)
        into[t.end].append(t.index)
    built = []
    order = 1
    for i, (sname, kind, emission, width, ename) in enumerate(states):
        if kind not in KINDS:
            raise ValueError(f"bad state kind {kind!r}")
        if emission is not None:
            emission = np.asarray(emission, dtype=np.float64)
            emission.setflags(write=False)
            order = max(order, width)
        else:
            width = 0
        built.append(State(i, sname, kind, emission, tuple(into[i]), tuple(out[i]), width, ename))
    return HMM(name, alphabet, tuple(built), trans, order, profile)
