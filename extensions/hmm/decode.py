"""Decoding from Python: the Viterbi state path and posterior decoding.

>>> import dslc
>>> from dslc_extensions.hmm import viterbi_path, posterior_decoding, decoding
>>> casino = dslc.compile("examples/casino.bio").checked.defined["casino"]
>>> best = viterbi_path(casino, "3151166666666662")
>>> best.states[:3], best.emitting[-2:], round(best.logprob, 6)
(['start', 'fair', 'fair'], ['loaded', 'loaded'], -33.108856)
>>> posterior_decoding(casino, "3151166666666662")[4:7]
['fair', 'loaded', 'loaded']
>>> d = decoding(casino, "3151166666666662")   # both, beside the posteriors
>>> d.tsv().splitlines()[0].split()
['position', 'symbol', 'viterbi', 'posterior', 'P(fair)', 'P(loaded)']
>>> d.plot("decoded.png")                         # doctest: +SKIP

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

__all__ = ["ViterbiPath", "viterbi_path", "posterior_decoding", "Decoding", "decoding"]


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


@dataclass(frozen=True)
class Decoding:
    """Both decodings of a sequence beside its posteriors, by state name: what a
    reader of a decoded sequence looks at first.

    ``symbols``: the sequence, one symbol per position; ``states``: the emitting
    states' names (the columns of ``posteriors``); ``posteriors[k, q]``: the
    probability that state ``states[q]`` emitted ``symbols[k]`` given the whole
    sequence (forward x backward / P(x), from ``hmm_fwd`` and ``hmm_bwd``); each row
    sums to 1. ``viterbi`` and ``posterior``: a state name per symbol
    (:func:`viterbi_path`'s ``emitting``, :func:`posterior_decoding`). All empty
    where the model cannot emit the sequence."""

    symbols: list[str]
    states: list[str]
    posteriors: np.ndarray
    viterbi: list[str]
    posterior: list[str]

    def tsv(self) -> str:
        """A row per symbol: its 1-based position, the symbol, the Viterbi state,
        the posterior-decoded state and each emitting state's posterior."""
        head = ["position", "symbol", "viterbi", "posterior"] + [f"P({s})" for s in self.states]
        rows = ["\t".join(head)]
        for k, sym in enumerate(self.symbols):
            probs = [f"{p:.6g}" for p in self.posteriors[k]] if len(self.posteriors) else []
            rows.append("\t".join([str(k + 1), sym, *(
                (self.viterbi[k], self.posterior[k]) if self.viterbi else ("-", "-")), *probs]))
        return "\n".join(rows) + "\n"

    def figure(self):
        """A matplotlib Figure (no pyplot: no display needed): each state's posterior
        along the sequence, with the Viterbi path as a band of the state's colour."""
        try:
            from matplotlib.figure import Figure
        except ImportError:
            raise DslcError("plotting a decoding needs matplotlib",
                            hint="pip install 'dslc[plot]' (or matplotlib)") from None
        fig = Figure(figsize=(10.0, 3.6), dpi=100, layout="constrained")
        ax = fig.add_subplot()
        pos = np.arange(1, len(self.symbols) + 1)
        colours = {}
        for q, name in enumerate(self.states):
            line, = ax.plot(pos, self.posteriors[:, q] if len(self.posteriors) else [],
                            drawstyle="steps-mid", label=f"P({name})")
            colours[name] = line.get_color()
        for k, name in enumerate(self.viterbi):
            ax.axvspan(k + 0.5, k + 1.5, ymin=0.0, ymax=0.04, color=colours[name], lw=0)
        ax.set_xlim(0.5, len(self.symbols) + 0.5)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("position (the band below: the Viterbi path)")
        ax.set_ylabel("posterior probability")
        ax.legend(loc="upper right", fontsize="small")
        return fig

    def plot(self, path: str) -> None:
        """:meth:`figure` as a PNG at ``path``."""
        import io

        buf = io.BytesIO()
        self.figure().savefig(buf, format="png")
        try:
            with open(path, "wb") as fh:
                fh.write(buf.getvalue())
        except OSError as e:
            raise DslcError(f"cannot write {path}: {e.strerror or e}") from None


def decoding(model: HMM, x, backend: str = "auto") -> Decoding:
    """The :class:`Decoding` of ``x`` under ``model``: the standard library's
    forward and backward tables give the posteriors, :func:`viterbi_path` and
    :func:`posterior_decoding` the two state paths."""
    h = _check(model)
    prog = _program(backend)
    symbols = _symbols(h, x)
    emitting = [s for s in h.states if s.emission is not None]
    names = [s.name for s in emitting]
    logp = prog.hmm_forward(h, x).log
    if logp == -np.inf:
        return Decoding(symbols, names, np.zeros((0, len(names))), [], [])
    f = np.asarray(prog.hmm_fwd(h, x).values, dtype=float)  # states x positions, as logs
    b = np.asarray(prog.hmm_bwd(h, x).values, dtype=float)
    rows = [s.index for s in emitting]
    post = np.exp(f[rows, 1:] + b[rows, 1:] - logp).T  # the state emitted x[i - 1]
    return Decoding(symbols, names, post, viterbi_path(h, x, backend).emitting,
                    posterior_decoding(h, x, backend))


def _symbols(h: HMM, x) -> list[str]:
    """``x`` as a list of symbols of the model's alphabet."""
    if isinstance(x, str):
        return list(x)
    text = getattr(x, "text", None)
    if isinstance(text, str):
        return list(text)
    return [str(h.alphabet.symbols[int(c)]) for c in np.asarray(x).ravel()]


def main(argv: list[str] | None = None) -> int:
    """``python -m dslc_extensions.hmm.decode SCRIPT MODEL SEQUENCE [--tsv FILE]
    [--plot FILE.png]``: the model ``MODEL`` a script defines (compiled, not run),
    decoded on ``SEQUENCE`` (the symbols themselves, or ``@file.fasta`` for each
    record of a FASTA file): the TSV on standard output (or ``--tsv``), the plot
    where ``--plot`` says (one per record: ``name.png`` becomes ``name.RECORD.png``
    where there are several). Errors are one message and exit status 2."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m dslc_extensions.hmm.decode",
                                 description="Decode sequences with a script's HMM: "
                                             "state names and posteriors as TSV, and a plot.")
    ap.add_argument("script")
    ap.add_argument("model", help="the name of the model the script defines or loads")
    ap.add_argument("sequence", help="the symbols, or @file.fasta")
    ap.add_argument("--tsv", help="write the table here instead of standard output")
    ap.add_argument("--plot", metavar="FILE.png", help="draw the posteriors (matplotlib)")
    ap.add_argument("--backend", default="auto")
    args = ap.parse_args(argv)
    try:
        records = _records(args.sequence)
        model = _model(args.script, args.model)
        out = []
        for name, x in records:
            d = decoding(model, x, args.backend)
            out.append((f"# {name}\n" if len(records) > 1 else "") + d.tsv())
            if args.plot:
                d.plot(_plot_path(args.plot, name, len(records)))
        text = "".join(out)
        if args.tsv:
            try:
                with open(args.tsv, "w") as fh:
                    fh.write(text)
            except OSError as e:
                raise DslcError(f"cannot write {args.tsv}: {e.strerror or e}") from None
        else:
            sys.stdout.write(text)
    except DslcError as e:
        sys.stderr.write(e.render() + "\n")
        return 2
    return 0


def _model(script: str, name: str) -> HMM:
    import dslc

    defined = dslc.compile(script).checked.defined
    if not isinstance(defined.get(name), HMM):
        known = sorted(k for k, v in defined.items() if isinstance(v, HMM))
        raise DslcError(f"{script} defines no model '{name}'",
                        hint="its models: " + (", ".join(known) or "none"))
    return defined[name]


def _records(arg: str) -> list[tuple[str, str]]:
    """``[(name, symbols)]``: one unnamed sequence, or a FASTA file's records."""
    if not arg.startswith("@"):
        return [("sequence", arg)]
    from dslc.sdk import read_text

    records, name, parts = [], None, []
    for line in read_text(arg[1:], None, "FASTA file").splitlines():
        if line.startswith(">"):
            if name is not None:
                records.append((name, "".join(parts)))
            name, parts = (line[1:].split() or [f"record{len(records) + 1}"])[0], []
        elif line.strip():
            parts.append(line.strip())
    if name is not None:
        records.append((name, "".join(parts)))
    if not records:
        raise DslcError(f"{arg[1:]} holds no FASTA record")
    return records


def _plot_path(path: str, name: str, count: int) -> str:
    if count == 1:
        return path
    stem, dot, ext = path.rpartition(".")
    return f"{stem}.{name}.{ext}" if dot else f"{path}.{name}"


if __name__ == "__main__":
    raise SystemExit(main())
