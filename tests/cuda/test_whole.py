"""One big problem on the whole GPU (dslc.emit.wavefront): a single call or a
whole table, partition after partition, checked against the interpreter. The
size threshold is lowered so that small problems take this path (in CI they run
in Numba's CUDA simulator)."""

from __future__ import annotations

import os
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.interp.backend import InterpBackend
from dslc.runtime.script import ScriptRunner
from tests.conftest import ROOT
from tests.generators import check_ranged, ranged_recurrences
from tests.test_properties import NW as NW_TABLE

cuda = pytest.importorskip("dslc.cuda.backend")
if not cuda.CudaBackend.available():
    pytest.skip("no CUDA device or simulator", allow_module_level=True)

EXAMPLES = ROOT / "examples"
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def _run(path_or_src, backend_factory):
    p = dslc.compile(path_or_src, backend="interp")
    holder = {}

    def make(prog, g):
        holder["b"] = backend_factory(prog, g)
        return holder["b"]

    out = dict(ScriptRunner(p.checked, make, p.base_dir, quiet=True).run())
    return out, holder["b"]


def _values(v):
    return v.values.tolist() if hasattr(v, "values") else v


@pytest.fixture(autouse=True)
def whole_for_every_size(monkeypatch):
    monkeypatch.setenv("DSLC_CUDA_WHOLE", "0")
    monkeypatch.setenv("DSLC_CUDA_BLOCK", "32")


@pytest.mark.long
@pytest.mark.parametrize("name", ["nussinov.bio", "needleman_wunsch.bio", "three_way.bio"])
def test_examples_on_the_whole_gpu_equal_the_interpreter(name):
    got, be = _run(str(EXAMPLES / name), cuda.CudaBackend)
    want, _ = _run(str(EXAMPLES / name), InterpBackend)
    assert {k: _values(v) for k, v in got.items()} == {k: _values(v) for k, v in want.items()}
    assert any(s.startswith("whole problem") for s in be.strategy.values()), be.device_fallbacks


NW = NW_TABLE + """
int best(matrix sm, const gap, seq[protein] s, seq[protein] t) =
    max(i in 0 ... len(s) : max(j in 0 ... len(t) : nw(i, j)))
"""


@pytest.mark.parametrize("seed", range(3))
def test_random_alignments_cell_table_and_fused_value(seed):
    rnd = random.Random(seed)
    aa = "ACDEFGHIKLMNPQRSTVWY"
    s = "".join(rnd.choice(aa) for _ in range(rnd.randint(1, 9)))
    t = "".join(rnd.choice(aa) for _ in range(rnd.randint(1, 9)))
    src = NW + f'''
print nw(blosum62, 4, "{s}", "{t}", {len(s)}, {len(t)})
print best(blosum62, 4, "{s}", "{t}")
r = nw(blosum62, 4, "{s}", "{t}")
print r
'''
    got, be = _run(src, cuda.CudaBackend)
    want, _ = _run(src, InterpBackend)
    assert {k: _values(v) for k, v in got.items()} == {k: _values(v) for k, v in want.items()}
    assert be.strategy and all(v.startswith("whole problem") for v in be.strategy.values())


@pytest.mark.long
def test_an_error_in_the_entry_is_reported_by_position(tmp_path):
    """The whole-GPU path cannot report a bad call itself: the CPU backend re-runs
    it and gives the usual file:line:col message and exit status 2."""
    import os
    import subprocess
    import sys

    path = tmp_path / "bad.bio"
    path.write_text(
        "int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)\n"
        "  | i == 0 = j\n"
        "  | j == 0 = i\n"
        "  | otherwise = d(i - 1, j - 1) + 1 min d(i - 1, j) + 1 min d(i, j - 1) + 1\n"
        "int bad(seq[dna] s, seq[dna] t) = d(len(s) + 1, len(t))\n"
        'print bad("ACGT", "ACG")\n')
    env = dict(os.environ, DSLC_CUDA_WHOLE="0")
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", str(path), "--backend", "cuda"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 2, r.stderr
    assert f"{path}:5:35: error: recursive argument i = 5 is outside its domain" in r.stderr
    assert "Traceback" not in r.stderr


# --------------------------------------------------------------- lane-split reductions
# A warp per point (emit.wavefront.choose_lanes): forced with DSLC_CUDA_LANES=32
# here, since the simulator defaults to a thread per point. The simulator has no
# warp shuffles; emit.wavefront.simulated_shfl_xor stands in for them, so the
# generated butterfly itself runs. Each simulated lane is a Python thread: the
# problems stay small.

def _same_as_interpreter(src):
    got, be = _run(src, cuda.CudaBackend)
    want, _ = _run(src, InterpBackend)
    assert {k: _values(v) for k, v in got.items()} == {k: _values(v) for k, v in want.items()}
    return be


def _split_everywhere(be):
    assert be.strategy and all("a warp (32 lanes) per point" in s for s in be.strategy.values()), \
        (be.strategy, be.device_fallbacks)


@pytest.fixture
def warp_per_point(monkeypatch):
    monkeypatch.setenv("DSLC_CUDA_LANES", "32")


NUSSINOV = (EXAMPLES / "nussinov.bio").read_text().split("r = n(")[0]
TRNA = re.search(r'trna = "([ACGU]+)"', (EXAMPLES / "nussinov.bio").read_text()).group(1)
# The longest reduction of n(x, 0, m) ranges over k in 4 ... m - 1, m - 4 values: with
# m = 38 the widest cells (j - i = 37, 38) have 33 and 34 values, more than a warp's 32
# lanes, so lanes 0 and 1 take a second k on the strided loop, as the 76-nt tRNA's do (up to
# 72 values, three k on a lane). Every other path is the same code, run on a table a quarter
# of the tRNA's size (each simulated lane is a Python thread: the whole tRNA took ~4 minutes).
WIDER_THAN_A_WARP = 38


@pytest.mark.long
def test_nussinov_example_with_a_warp_per_point(warp_per_point):
    """The example's program and its calls: the fold of GGGAAAUCC as a variable,
    and the tRNA's first WIDER_THAN_A_WARP bases, whose reductions are wider than a warp."""
    x = TRNA[:WIDER_THAN_A_WARP]
    assert WIDER_THAN_A_WARP - 4 > 32
    be = _same_as_interpreter(NUSSINOV + f'r = n("GGGAAAUCC", 0, 9)\nprint r\n'
                              f'print n("{x}", 0, {len(x)})\n')
    _split_everywhere(be)
    _, src = be.generated["n"]
    shuffle = "_shfl_xor(" if SIMULATED else "cuda.shfl_xor_sync(0xffffffff"
    assert "+ _lane, " in src and "_lanes_max(" in src and shuffle in src


@pytest.mark.parametrize("seed,block", [(0, 32), (1, 64), (2, 32)])
def test_random_rna_folds_with_a_warp_per_point(seed, block, warp_per_point, monkeypatch):
    monkeypatch.setenv("DSLC_CUDA_BLOCK", str(block))
    rnd = random.Random(seed)
    x = "".join(rnd.choice("ACGU") for _ in range(rnd.randint(6, 25)))
    src = NUSSINOV + f'print n("{x}", 0, {len(x)})\nprint n("{x}", 1, {len(x) - 1})\n'
    _split_everywhere(_same_as_interpreter(src))


FUSED_AND_MIN = """
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = j
  | j == 0 = i
  | otherwise = min(k in 0 ... i - 1 : d(k, j - 1) + i - k)
        min d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1)
int total(seq[dna] s, seq[dna] t) = sum(i in 0 ... len(s) : sum(j in 0 ... len(t) : d(i, j)))
print total("ACGTTGCAAGTACGATTAC", "ACGTTACGAGCATG")
print d("ACGTTGCAAGTACGATTAC", "ACGTTACGAGCATG", 19, 14)
"""


@pytest.mark.long
def test_fused_sum_counts_each_point_once(warp_per_point):
    """The entry's fused int sum adds each cell once (lane 0), the cell's min is split."""
    be = _same_as_interpreter(FUSED_AND_MIN)
    _split_everywhere(be)
    _, src = be.generated["total"]
    assert "_lanes_min(" in src and "if _lane == 0 and lo0_0" in src


FLOAT_SUM = """
float f(seq[dna] s, index[s] i, index[s] j)
  | j <= i = 1.0
  | otherwise = sum(k in i ... j - 1 : f(i, k) * 0.3 + 0.1) / 3.0
        + float(sum(k in i ... j - 1 : sum(l in k ... j - 1 : len(s) - l)))
print f("ACGTTGCAAGTACGATTACGA", 0, 21)
"""


def test_float_sums_stay_whole_on_each_lane(warp_per_point):
    """A float sum would round differently regrouped: it runs whole on each lane;
    the int sum beside it is split, the one inside that runs whole on each lane."""
    be = _same_as_interpreter(FLOAT_SUM)
    _split_everywhere(be)
    _, src = be.generated["f"]
    part = src[src.index("def part_0"):src.index("def all_0")]
    assert part.count("+ _lane, ") == 1 and part.count("_lanes_sum(") == 1
    assert "for v_k in range(x_i, (x_j - 1) + 1):" in part  # the float sum, sequential
    assert "for v_l in range(v_k, (x_j - 1) + 1):" in part  # nested in the split one


@pytest.mark.skipif(not SIMULATED, reason="the simulator's default")
def test_a_thread_per_point_by_default_in_the_simulator():
    be = _same_as_interpreter(FLOAT_SUM)
    assert all("one thread per point (the CUDA simulator" in s for s in be.strategy.values())
    assert "_lane" not in be.generated["f"][1]


@pytest.mark.skipif(SIMULATED, reason="a real GPU's default")
def test_a_warp_per_point_by_default_on_a_gpu():
    be = _same_as_interpreter(FLOAT_SUM)
    _split_everywhere(be)
    assert "cuda.shfl_xor_sync(0xffffffff" in be.generated["f"][1]


def test_a_malformed_lane_count_is_one_clear_error(monkeypatch):
    from dslc.errors import DslcError

    monkeypatch.setenv("DSLC_CUDA_LANES", "16")
    with pytest.raises(DslcError, match=r"DSLC_CUDA_LANES: '16' is not 1 .* or 32"):
        _run(str(EXAMPLES / "nussinov.bio"), cuda.CudaBackend)


def test_a_warp_per_point_only_where_a_thread_per_point_leaves_the_gpu_idle(monkeypatch):
    """On a real GPU a group whose cells reduce over a range gets a warp per
    point unless its partitions already offer the device's resident threads."""
    from dslc.plan import lower
    from dslc.emit.wavefront import choose_lanes
    from dslc.runtime.binding import bind_call

    monkeypatch.delenv("DSLC_CUDA_LANES", raising=False)
    p = dslc.compile(NUSSINOV, backend="interp")
    x = "GGGAAAUCCGGGAAAUCC"
    args = bind_call(p.checked.functions["n"], [x, 0, len(x)], p.checked, None)
    plan = lower(p.checked, "n", "cell", {"x": args["x"]}, (0, len(x))).task
    (g,) = plan.groups
    assert [ln.width for ln in choose_lanes(p.checked, plan, True, 128, 270_336)] == [32]
    wide = choose_lanes(p.checked, plan, True, 128, int(g.width()))
    assert [ln.width for ln in wide] == [1] and "fill the" in wide[0].why
    assert [ln.width for ln in choose_lanes(p.checked, plan, False, 128, None)] == [1]


@settings(max_examples=5, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rec=ranged_recurrences(checked_ops=False), n=st.integers(0, 3))
def test_random_recurrences_over_declared_ranges(rec, n):
    """Whole tables, cells and calls outside over declared int ranges equal the
    interpreter's and the generator's meaning, computed on the device."""
    engine = check_ranged(rec, n, "cuda")._engine()
    assert engine.strategy.get("f0", "").startswith("whole problem"), \
        (rec.source(), engine.device_fallbacks, engine.fallbacks)


CROSS_POINT = """int f0(const n, int i in 0 ... n, int j in 1 ... n)
  | i < 0 or i > n or (j + 2) < 0 or (j + 2) < 1 or (j + 2) > n = 0
  | otherwise = f1(i, j + 2)

int f1(const n, int i in 0 ... n, int j in 1 ... n)
  | (i - 1) < 0 or (i - 1) > n or (j + 2) < 0 or (j + 2) < 1 or (j + 2) > n = 0 + 1 * j
  | otherwise = f0(i - 1, j + 2)
"""


def test_a_call_to_another_point_of_the_same_partition_runs_a_phase_later():
    """Found by the random ranged recurrences: f0(i, j) reads f1(i, j + 2), in the
    same partition (S = i) but at another point. Each point computed every function
    of the group, so f0's thread read f1's cell before another thread wrote it (a
    silent 0 for 3); now the functions run as phases, one after the other, as the
    CPU's loop nest runs them."""
    from dslc.emit import wavefront
    from dslc.plan import lower

    prog = dslc.compile(CROSS_POINT, backend="cuda")
    interp = dslc.compile(CROSS_POINT, backend="interp")
    for n in range(4):
        assert prog.call("f0", n).values.tolist() == interp.call("f0", n).values.tolist()
    engine = prog._engine()
    assert engine.strategy.get("f0", "").startswith("whole problem"), engine.device_fallbacks
    (g,) = lower(interp.checked, "f0", "table", {"n": 3}).task.groups
    assert not g.schedule.same_point_order
    assert wavefront._phases(g) == [["f1"], ["f0"]]


def _crossing(a: int, b: int) -> str:
    """Two functions of one group: ``f0(i, j)`` calls ``f1`` at ``j + a`` in its own
    partition (``S = i``), ``f1`` calls ``f0`` in the partition before, at ``j + b``."""
    return f"""int f0(const n, int i in 0 ... n, int j in 0 ... n)
  | j + {a} < 0 or j + {a} > n = i
  | otherwise = f1(i, j + {a}) * 2

int f1(const n, int i in 0 ... n, int j in 0 ... n)
  | i < 1 or j + {b} < 0 or j + {b} > n = j
  | otherwise = f0(i - 1, j + {b}) + 1
"""


@pytest.mark.parametrize("a,b", [(a, b) for a in (-2, -1, 1, 2) for b in (-1, 0, 1)])
def test_calls_to_other_points_of_a_partition_in_both_directions(a, b):
    """The class of the recurrence above: a same-partition call to a point before or
    after the caller's, with the other function's call from the partition before
    moving either way; every table on the whole GPU, and cells asked alone (window
    storage), equal the interpreter's."""
    from dslc.emit import wavefront
    from dslc.plan import lower

    src = _crossing(a, b)
    prog, interp = dslc.compile(src, backend="cuda"), dslc.compile(src, backend="interp")
    for n in (0, 2, 4):
        assert prog.call("f0", n).values.tolist() == interp.call("f0", n).values.tolist(), src
    for cell in ((4, 0), (3, 2), (4, 4)):
        assert prog.call("f0", 4, *cell) == interp.call("f0", 4, *cell), (src, cell)
    assert prog._engine().strategy.get("f0", "").startswith("whole problem"), src
    (g,) = lower(interp.checked, "f0", "table", {"n": 4}).task.groups
    assert len(wavefront._phases(g)) == 2, src
    (w,) = lower(interp.checked, "f0", "cell", {"n": 4}, (4, 0)).task.groups
    assert w.windowed, src


def test_a_partition_swept_until_done_is_refused_with_its_reason(write_bio):
    """Cells ordered at run time are swept again until done (emit.cpu ``_retry``,
    whose count ``_left`` a cell not ready yet adds to); the whole-problem kernels
    sweep each partition once, so they refuse the group, and say why, rather than
    emit the count's update with no count (the verifier reads it now)."""
    from dslc.emit.pyexpr import NotCompilable
    from dslc.emit import wavefront
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call
    from tests.cpu.test_runtime_order import SPECIALS

    prog = dslc.compile(str(write_bio(SPECIALS)), backend="interp")
    prog.run()
    args = bind_call(prog.checked.functions["score"], [prog._globals["m"], "GGLAVIG"],
                     prog.checked, None)
    plan = lower(prog.checked, "score", "value", args, None).task
    assert any(g.runtime_order for g in plan.groups)
    with pytest.raises(NotCompilable, match="a partition swept until done"):
        wavefront.build_wavefront(None, prog.checked, plan)


MODELS = """
define hmm m {
  alphabet dna;
  startstate b;
  state x emits ex;
  endstate e;
  b -> x 1; x -> x 0.5; x -> e 0.5;
  emission ex = * : 0.25;
}
int states(hmm h) = sum(s in h.states : 1)
int states_of_m() = sum(s in m.states : 1)
int leaves(tree t) = sum(u in t.leaves : 1)
int nodes(tree t) = sum(u in t.nodes : 1)
float root_length(tree t) = t.root.length
int d(seq[dna] s, index[s] i)
  | i == 0 = 0
  | otherwise = d(i - 1) + 1
int table_and_states(hmm h, seq[dna] s) = d(len(s)) + sum(x in h.states : 1)
t = load(tree, "species.nwk")
print states(m)
print states_of_m()
print leaves(t)
print nodes(t)
print root_length(t)
print table_and_states(m, "ACGTA")
"""


def test_a_call_whose_own_body_reads_a_models_layout(write_bio):
    """The entry's own body runs on the host after the sweep (``final``); where it
    reads a model's layout arrays (an argument's or a global's) that no cell reads,
    those arrays are task arguments of the final step and of the kernels alike (a
    call with no table at all takes this path where DSLC_CUDA_WHOLE is 0; a call with
    a table launches kernels too)."""
    path = write_bio(MODELS, species__nwk="((a:0.1,b:0.2):0.3,c:0.4):0.5;")
    be = _same_as_interpreter(str(path))
    calls = {"states", "states_of_m", "leaves", "nodes", "root_length", "table_and_states"}
    assert set(be.strategy) >= calls, be.device_fallbacks
    assert all(s.startswith("whole problem") for s in be.strategy.values()), be.strategy
