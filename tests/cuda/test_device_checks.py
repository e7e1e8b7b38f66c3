"""HMM and tree programs as GPU kernels: run-time checks on the device (a failed
check flags its task, which the CPU backend re-runs and reports), the
repeat-until-done sweep of silent HMM states, and SDK device layouts passed to
kernels. Each program is compared with the interpreter and must not fall back
(the entry is not in ``device_fallbacks``) nor leave tasks to the CPU
(``reruns``). In CI they run in Numba's CUDA simulator: inputs are small."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dslc
from dslc.interp.backend import InterpBackend
from dslc.runtime.script import ScriptRunner
from tests.conftest import EXAMPLES, ROOT
from tests.hmm_models import CASINO, CASINO2_MODEL as CASINO2, SILENT_MODEL, STDLIB_HMM

cuda = pytest.importorskip("dslc.cuda.backend")
if not cuda.CudaBackend.available():
    pytest.skip("no CUDA device or simulator", allow_module_level=True)

STDLIB_PHYLO = (ROOT / "stdlib" / "phylo.bio").read_text()


def _run(path_or_src, backend_factory, base_dir=None):
    """The script's printed values and the backend that ran it."""
    p = dslc.compile(str(path_or_src), backend="interp")
    holder = {}

    def make(prog, g):
        holder["b"] = backend_factory(prog, g)
        return holder["b"]

    out = dict(ScriptRunner(p.checked, make, base_dir or p.base_dir, quiet=True).run())
    return {k: (v.values.ravel().tolist() if hasattr(v, "values") else v)
            for k, v in out.items()}, holder["b"]


def close(a, b, rel=1e-12) -> bool:
    a, b = float(a), float(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def on_the_device(be, entry: str) -> None:
    """The map over ``entry`` ran as a kernel and every task finished there."""
    assert entry not in be.device_fallbacks, be.device_fallbacks
    assert be.strategy.get(entry, "").startswith("task-per-thread"), be.strategy
    assert not be.reruns, be.reruns


@pytest.mark.parametrize("name,entry", [("casino.bio", "px"), ("parsimony.bio", "cost")])
def test_examples_run_as_kernels_and_equal_the_interpreter(name, entry):
    got, be = _run(EXAMPLES / name, cuda.CudaBackend)
    want, _ = _run(EXAMPLES / name, InterpBackend)
    assert got.keys() == want.keys()
    for k in got:  # (a printed number is one value: parsimony.bio's total)
        g, w = (v if isinstance(v, list) else [v] for v in (got[k], want[k]))
        assert len(g) == len(w) and all(close(a, b) for a, b in zip(g, w)), (k, g, w)
    on_the_device(be, entry)


HMMS = CASINO + CASINO2 + SILENT_MODEL + STDLIB_HMM


def _hmm_programs():
    cu = dslc.compile(HMMS, backend="cuda")
    cu.run()
    it = dslc.compile(HMMS, backend="interp")
    it.run()
    return cu, it


@pytest.mark.parametrize("model,symbols,funcs", [
    ("casino", "123456", ("hmm_forward", "hmm_viterbi")),
    # silent states read at the same position: the repeat-until-done sweep
    ("sil", "ACGT", ("hmm_forward", "hmm_viterbi", "hmm_backward")),
])
def test_hmm_maps_run_as_kernels(model, symbols, funcs):
    cu, it = _hmm_programs()
    rng = np.random.default_rng(11)
    texts = ["".join(rng.choice(list(symbols), int(k))) for k in rng.integers(1, 9, 5)] + [""]
    for func in funcs:
        got = cu.map(func, cu._globals[model], texts).values.ravel()
        want = it.map(func, it._globals[model], texts).values.ravel()
        assert all(close(a, b) for a, b in zip(got, want)), (func, got, want)
        on_the_device(cu._engine(), func)


def test_silent_states_keep_done_flags_in_launch_storage():
    from dslc.emit.cuda import DONE, FAIL, MISS
    from dslc.emit.strategies import build, strategy
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call

    cu, _ = _hmm_programs()
    args = bind_call(cu.checked.functions["hmm_forward"], [cu._globals["sil"], "ACGT"],
                     cu.checked, None)
    plan = lower(cu.checked, "hmm_forward", "value", args, None).task
    gen = build(strategy("cuda task-per-thread"), cu.checked, plan)
    source, _ = gen.generate()
    assert {DONE + "hmm_fwd", MISS, FAIL} <= {n for n, _ in gen.storage}
    task = source.split("def task(")[1]
    assert "_F[tid] = 0" in task and "D_hmm_fwd[" in task and "np.zeros" not in task
    assert "_chk(" not in task and "_dom(" not in task  # only the flagging variants


def test_a_map_over_two_models_runs_once_per_model_on_the_device():
    cu, it = _hmm_programs()
    texts = ["1266", "", "61"]
    got = cu.map("hmm_forward", [cu._globals["casino"], cu._globals["casino2"]], texts)
    want = it.map("hmm_forward", [it._globals["casino"], it._globals["casino2"]], texts)
    assert got.values.shape == (2, 3)
    assert all(close(a, b) for a, b in zip(got.values.ravel(), want.values.ravel()))
    on_the_device(cu._engine(), "hmm_forward")


TREES = STDLIB_PHYLO + f"""
define matrix dnasimple[dna] {{
     A  C  G  T
  A  0  2  1  2
  C  2  0  2  1
  G  1  2  0  2
  T  2  1  2  0
}}
t = load(tree, "{EXAMPLES / 'data' / 'species.nwk'}")
cols = load(columns[dna], "{EXAMPLES / 'data' / 'aln.fasta'}")
s = map(sankoff, t (*) cols (*) dnasimple)
print s
l = map(jc69, t (*) cols)
print l
"""


def test_sankoff_and_jc69_over_columns_run_as_kernels():
    got, be = _run(TREES, cuda.CudaBackend, base_dir=EXAMPLES)
    want, _ = _run(TREES, InterpBackend, base_dir=EXAMPLES)
    assert got["s"] == want["s"]
    assert all(close(a, b) for a, b in zip(got["l"], want["l"])), (got["l"], want["l"])
    for entry in ("sankoff", "jc69"):
        on_the_device(be, entry)


# A check isl cannot prove (s[i + 2] under a data-dependent condition) fails in
# the second task only; and a checked read of an empty sequence, which the kernel
# must not make (the read itself is guarded).
FAILING = [
    ("int f(seq[dna] s, index[s] i)\n"
     "  | i == 0 = 0\n"
     "  | otherwise = f(i - 1) + (if s[i - 1] == 'T' and s[i + 2] == 'A' then 1 else 0)\n"
     'xs = load(seq[dna], "x.fasta")\nprint map(f, xs)\n',
     ">a\nAAAA\n>b\nAATAC\n>c\nCCCC\n", "f", "3:52: error: index i + 2 = 5 is outside"),
    ("int g(seq[dna] s) = if s[0] == 'A' then 1 else 0\n"
     'xs = load(seq[dna], "x.fasta")\nprint map(g, xs)\n',
     ">a\nAC\n>b\n\n>c\nCA\n", "g", "1:24: error: index 0 = 0 is outside"),
]


@pytest.mark.parametrize("src,fasta,entry,message", FAILING)
def test_a_failed_check_on_the_device_is_reported_as_on_the_cpu(tmp_path, src, fasta, entry,
                                                                message):
    path = tmp_path / "bad.bio"
    path.write_text(src)
    (tmp_path / "x.fasta").write_text(fasta)
    errors = {}
    for backend in ("cpu", "cuda"):
        r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", str(path), "--backend",
                            backend], capture_output=True, text=True, env=dict(os.environ))
        assert r.returncode == 2, (backend, r.stderr)
        assert f"{path}:{message}" in r.stderr and "[in map task 2 (s=b)]" in r.stderr
        assert "Traceback" not in r.stderr
        errors[backend] = r.stderr[r.stderr.index(str(path)):]  # (after any Numba warning)
    assert errors["cuda"] == errors["cpu"]
    # in process: the kernel ran, and exactly the failing task went to the CPU
    with pytest.raises(dslc.errors.DslcError):
        _run(path, _Recording)
    be = _Recording.last
    assert entry not in be.device_fallbacks and entry in be.strategy, be.device_fallbacks
    assert be.reruns == {entry: 1}


class _Recording(cuda.CudaBackend):
    """The CUDA backend, kept for inspection after the run raised."""

    last = None

    def __init__(self, program, globals_):
        super().__init__(program, globals_)
        _Recording.last = self


def test_explain_shows_the_casino_entry_on_the_device():
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "explain", "--backend", "cuda",
                        str(EXAMPLES / "casino.bio")], capture_output=True, text=True,
                       env=dict(os.environ), cwd=str(Path(ROOT)))
    assert r.returncode == 0, r.stderr
    assert "cuda, entry px: task-per-thread" in r.stdout
    assert "not compiled for the device" not in r.stdout


def test_a_tuple_sums_check_inside_a_lexicographic_min_takes_the_tasks_flag():
    """A tuple sum's ``inf - inf`` checks inside a lexicographic max/min were text
    (emit.tuples composed the min around them), unseen by the failure-flag pass,
    so the task was refused; as records the pass sees them and the task clears and
    returns through its flag."""
    from dslc.emit.strategies import build, strategy
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call

    prog = dslc.compile("tuple[int, float] lex(int k) = max((1, 2), (1, 3.5)) min (0, 9) "
                        "+ (k, k)\n", backend="interp")
    args = bind_call(prog.checked.functions["lex"], [1], prog.checked, None)
    plan = lower(prog.checked, "lex", "value", args, None).task
    task = build(strategy("cuda task-per-thread"), prog.checked, plan).generate()[0] \
        .split("def task(")[1]
    assert "_F[tid] = 0" in task and "_undef_f(_F, tid, " in task
    assert "return _tresult2_f(_F, tid, " in task


UNDEFINED_IN_A_TILE = """int f0(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | j < 1 = inf
  | otherwise = ((f0(i, j - 1)) max (f0(i, j - 1))) max (f0(i, j - 1) * 0)
"""


@pytest.mark.parametrize("rows", [2, 3])
def test_a_check_that_fails_only_inside_a_register_tile_function_is_reported(monkeypatch, rows):
    """The register tile's checks sit in its device functions (``_tile_inner``,
    ``_tile_edge``, ``_tile_head``), not in the task that calls them: the task must
    still clear its flag and return through it, or a flagged task's value (here
    ``inf max (inf * 0)``, which a device's ``max`` makes ``inf``) is printed as if it
    were right. Found by the random-recurrence test of small register tiles."""
    from dslc.errors import DslcError
    from dslc.runtime.binding import bind_value
    from dslc.runtime.script import backend_globals

    monkeypatch.setenv("DSLC_CUDA_TILE", str(rows))
    prog = dslc.compile(UNDEFINED_IN_A_TILE, backend="interp")
    engine = cuda.CudaBackend(prog.checked, backend_globals(prog.checked))
    f = prog.checked.functions["f0"]
    tasks = [{p.name: bind_value(x, p.type, prog.checked, None)
              for p, x in zip(f.calling_params, pair)} for pair in [("ACG", "TA"), ("", "")]]
    with pytest.raises(DslcError, match="undefined arithmetic"):
        engine.map("f0", tasks, None)
    assert "register tile" in engine.strategy.get("f0", ""), engine.strategy
    assert engine.map("f0", tasks[1:], None) == [math.inf]  # j = 0: no check fails
