"""Decoding from Python: the Viterbi state path and posterior decoding.

>>> import dslc
>>> from dslc_extensions.hmm import viterbi_path, posterior_decoding
>>> casino = dslc.compile("examples/casino.bio").checked.defined["casino"]
>>> best = viterbi_path(casino, "3151166666666662")
>>> best.states[:3], best.emitting[-2:], round(best.logprob, 6)
(['start', 'fair', 'fair'], ['loaded', 'loaded'], -33.108856)
>>> posterior_decoding(casino, "3151166666666662")[4:7]
['fair', 'loaded', 'loaded']

Both functions run the standard library's own routines (``stdlib/hmm.bio``:
``hmm_vtrace``, ``hmm_viterbi`` and ``hmm_pstate``) on the model, so Python and
``.bio`` scripts always agree, ties included:

* the Viterbi path is the most probable path; where several predecessors reach
  a state with the same best probability, the lowest-numbered one is taken;
* posterior decoding gives, per symbol, the emitting state most likely to have
  emitted it; on a tie the state decoded for the previous symbol if it is
  among the best, else the lowest-numbered one.

A model is an :class:`~.model.HMM`: a script's ``define hmm`` or
``load(hmm, ...)`` value (``prog.checked.defined[name]`` after
``dslc.compile``, or a global of ``prog.run()``). A sequence is a string of the
model's alphabet's symbols (one character each), a :class:`Sequence`, or a
numpy integer array of symbol codes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from dslc.sdk import DslcError

from .model import HMM

__all__ = ["ViterbiPath", "viterbi_path", "posterior_decoding"]


@dataclass(frozen=True)
class ViterbiPath:
    """The most probable path of a model through a sequence.

    ``states``: the names of the states visited, in order, from the start state
    to the end state, *silent states included* (the start and end states and
    any state without emissions, such as the delete states of a profile), so
    ``len(states)`` is ``len(x)`` plus the number of silent visits.
    ``emitting``: one name per symbol, the state that emitted ``x[i]`` (silent
    states left out), so ``len(emitting) == len(x)``.
    ``logprob``: the natural log of the path's joint probability with ``x``
    (``hmm_viterbi``); ``-inf``, with both lists empty, when no path emits ``x``.
    """

    states: list[str]
    emitting: list[str]
    logprob: float


@functools.cache
def _program(backend: str):
    import dslc
    from dslc.sdk import stdlib_source

    return dslc.compile(stdlib_source("hmm"), backend=backend)


def _check(model) -> HMM:
    if not isinstance(model, HMM):
        raise DslcError(f"expected a hidden Markov model, got a {type(model).__name__}",
                        hint="compile the script that defines it and take "
                             "prog.checked.defined[NAME]")
    for s in model.states:
        if s.emission is not None and s.width != 1:
            raise DslcError(f"state '{s.name}' of model '{model.name}' emits {s.width} symbols at "
                            f"a time; decoding covers single-symbol emissions")
    return model


def viterbi_path(model: HMM, x, backend: str = "auto") -> ViterbiPath:
    """The Viterbi (most probable) path of ``model`` through ``x``."""
    h = _check(model)
    prog = _program(backend)
    logprob = prog.hmm_viterbi(h, x).log
    if logprob == -np.inf:
        return ViterbiPath([], [], logprob)
    trace = np.asarray(prog.hmm_vtrace(h, x).values, dtype=bool)  # states x positions
    rank = {s: k for k, s in enumerate(h.column_order)}
    visits = []
    for s, i in zip(*np.nonzero(trace)):
        s, i = int(s), int(i)
        # Within one position the emitting state (reached from i - 1) comes first,
        # then the silent states, which follow each other along transitions and so
        # in the model's column order.
        visits.append((i, 0 if h.states[s].emission is not None else 1, rank[s], s))
    visits.sort()
    states = [h.states[v[3]].name for v in visits]
    emitting = [h.states[v[3]].name for v in visits if v[1] == 0]
    return ViterbiPath(states, emitting, float(logprob))


def posterior_decoding(model: HMM, x, backend: str = "auto") -> list[str]:
    """Per symbol of ``x``, the name of the emitting state with the highest
    posterior probability of having emitted it; an empty list when ``model``
    cannot emit ``x`` at all."""
    h = _check(model)
    numbers = np.asarray(_program(backend).hmm_pstate(h, x).values).ravel()[1:]
    if len(numbers) and int(numbers[0]) < 0:
        return []
    return [h.states[int(k)].name for k in numbers]
