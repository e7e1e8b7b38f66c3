"""The corpus (tests/corpus/*.bio): classic and bioinformatics recurrences written
the natural way from public problem statements (Rosalind, textbook dynamic
programming), each answered on every backend with the values of an independent
Python reference (tests/corpus_reference.py).

On the CPU backend each program is also checked for interpreter fall-backs: the
backend's record of what it could not compile (``fallbacks``, what ``dslc explain``
prints as "runs on the interpreter"). :data:`FALLS_BACK` is the list of programs
known to fall back, with the function and the reason: a new fall-back fails
the test, and so does one that was fixed, so its entry is removed and the compiled
fraction (:func:`test_the_compiled_fraction`) goes up."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.corpus_reference import EXPECTED

CORPUS = Path(__file__).resolve().parent / "corpus"
PROGRAMS = sorted(p.name for p in CORPUS.glob("*.bio"))

# program -> {function the CPU backend leaves to the interpreter: why}
FALLS_BACK: dict[str, dict[str, str]] = {
    "hmm_backward.bio": {"lp": "helper reading the table of b"},
}
# the fraction of the corpus the CPU backend compiles whole; the target is 0.95
COMPILED_AT_LEAST = 52 / 53


def run(name: str, backend: str):
    """The program's printed values on ``backend``, and the backend that ran them."""
    import dslc
    from dslc import backends
    from dslc.runtime.script import ScriptRunner

    made = []

    def make(program, globals_):
        made.append(backends.get(backend)(program, globals_))
        return made[-1]

    prog = dslc.compile(CORPUS / name)
    runner = ScriptRunner(prog.checked, make, prog.base_dir, quiet=True, params={},
                          from_text=False)
    return dict(runner.run([])), made[0]


def same(got, want) -> bool:
    if want == "inf":
        return isinstance(got, (int, float)) and math.isinf(got) and got > 0
    if isinstance(want, float):
        return math.isclose(float(got), want, rel_tol=1e-9, abs_tol=1e-300)
    return type(got) is type(want) and got == want


def test_the_corpus_is_complete():
    """At least 40 programs, each with its independent answers and nothing else."""
    assert len(PROGRAMS) >= 40
    assert sorted(EXPECTED) == PROGRAMS
    assert set(FALLS_BACK) <= set(PROGRAMS)


def test_the_compiled_fraction():
    compiled = 1 - len(FALLS_BACK) / len(PROGRAMS)
    assert compiled >= COMPILED_AT_LEAST, f"{compiled:.0%} of the corpus compiled"


@pytest.mark.parametrize("name", PROGRAMS)
def test_interp(name):
    out, _ = run(name, "interp")
    assert out.keys() == EXPECTED[name].keys()
    for key, want in EXPECTED[name].items():
        assert same(out[key], want), (key, out[key], want)


@pytest.mark.long
def test_compiled():
    """Every program on the compiled backends (CUDA under the simulator in CI): the
    same answers; on the CPU exactly the known fall-backs. One test, each program on
    the CPU first: the CUDA backend runs single calls on the CPU's compiled code,
    which the CPU's run has just cached."""
    from dslc.cpu.backend import CpuBackend
    from tests.conftest import available_backends

    targets = [b for b in ("cpu", "cuda") if b in available_backends()]
    if not targets:
        pytest.skip("no compiled backend here")
    assert CpuBackend.direct_scalars is False  # (tests/conftest.py: straight-line code compiled)
    wrong, fallbacks = [], {}
    for name in PROGRAMS:
        for target in targets:
            out, engine = run(name, target)
            wrong += [(target, name, key, out.get(key), want)
                      for key, want in EXPECTED[name].items() if not same(out.get(key), want)]
            if target == "cpu" and engine.fallbacks:
                fallbacks[name] = dict(engine.fallbacks)
    assert not wrong
    if "cpu" in targets:
        assert fallbacks == FALLS_BACK
