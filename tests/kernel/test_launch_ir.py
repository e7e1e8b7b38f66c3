"""The launch kernel IR (dslc.kernel): built, lowered by passes, verified after
every pass, printed per target."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dslc.errors import InternalError
from dslc.kernel import ir, launch
from dslc.targets.show import show
from dslc.kernel.verify import verify
from dslc.targets.printer import CudaPrinter, Printer
from tests.conftest import ROOT


@dataclass
class Placed:
    memory: str
    shape: tuple
    dtype: str
    value: object = None


TRAVEL = ("cseq", "seq", "scalar", "shared")


@st.composite
def launches(draw):
    """A launch of random arguments, storage and result width, on either target,
    with the passes of a strategy (placements on a GPU)."""
    n = draw(st.integers(1, 4))
    names = [f"a_{c}" for c in "stuv"[:n]]
    travel = {a: draw(st.sampled_from(TRAVEL)) for a in names}
    args = [ir.TaskArg(a, "argument", a[2:]) for a in names]
    target = draw(st.sampled_from(["cpu", "cuda"]))
    width = draw(st.sampled_from([None, 2, 3]))
    storage = tuple(draw(st.lists(st.sampled_from(["h", "e", "_fail"]), unique=True)))
    passes = launch.CPU
    if target == "cuda":
        shared = [a for a in names if travel[a] == "shared"]
        placed = {}
        for a in shared:
            memory = draw(st.sampled_from(["shared", "constant", "global"]))
            if memory != "global":
                shape = draw(st.sampled_from([(5,), (4, 6)]))
                placed[a] = Placed(memory, shape, "float64", np.zeros(shape))
        per_block = width is None and draw(st.booleans())
        passes = ((launch.place(placed),) if placed else ()) + \
            (launch.BLOCK_PER_TASK if per_block else launch.THREAD_PER_TASK)
    else:
        storage = ()
    return launch.tasks(target, args, travel, storage, width), passes


@settings(max_examples=60, deadline=None)
@given(launches())
def test_every_pass_keeps_the_kernel_valid_and_printable(case):
    k, passes = case
    done = launch.apply(k, passes)  # verified after each pass
    pr = CudaPrinter() if k.target == "cuda" else Printer()
    text = pr.kernel(done)
    compile(text, "<launch>", "exec")  # the target's text is Python
    assert show(done).startswith(f"kernel batch ({k.target})")
    if k.target == "cuda":
        assert not any(isinstance(s, ir.Tasks) for s in ir.walk(done.body))


def _cpu_kernel():
    return launch.tasks("cpu", [ir.TaskArg("a_s", "argument", "s")], {"a_s": "cseq"})


def _cuda_kernel():
    return launch.tasks("cuda", [ir.TaskArg("a_s", "argument", "s")], {"a_s": "shared"}, ("h",))


def test_the_verifier_refuses_a_barrier_some_threads_miss():
    def bad(k):  # a barrier inside the branch only some threads take
        k = launch.thread_per_task(k)
        body = tuple(replace(s, body=s.body + (ir.Barrier(),)) if isinstance(s, ir.If) else s
                     for s in k.body)
        return replace(k, body=body)
    with pytest.raises(InternalError, match="barrier"):
        launch.apply(_cuda_kernel(), (bad,))


@pytest.mark.parametrize("broken,why", [
    (lambda k: replace(k, body=(ir.Assign("x", ir.Thread("global")),) + k.body), "thread number"),
    (lambda k: replace(k, body=(ir.Barrier(),) + k.body), "Barrier in a cpu kernel"),
    (lambda k: replace(k, body=(ir.Assign("x", ir.Name("nowhere")),) + k.body), "before"),
    (lambda k: replace(k, body=(ir.Store(ir.Index(ir.Name("k"), (ir.Const(0),)),
                                         ir.Const(1)),) + k.body), "store"),
    (lambda k: replace(k, params=k.params + (k.params[0],)), "twice"),
    (lambda k: replace(k, params=k.params + (ir.Param("x", "mystery"),)), "role"),
    (lambda k: replace(k, body=(ir.Assign("x", ir.Call("nope", ())),) + k.body), "nope"),
])
def test_the_verifier_names_the_broken_rule(broken, why):
    with pytest.raises(InternalError, match=why):
        verify(broken(_cpu_kernel()))


def test_compile_emit_kernel_prints_the_launches(tmp_path):
    src = tmp_path / "m.bio"
    db = tmp_path / "db.fa"
    db.write_text(">a\nACGT\n>b\nAC\n>c\nGGA\n")
    src.write_text("int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =\n"
                   "    if i == 0 then j else if j == 0 then i\n"
                   "    else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1\n"
                   f'db = load(seq[dna], "{db}")\nr = map(d, "ACG" (*) db)\nprint r\n')
    out = subprocess.run([sys.executable, "-m", "dslc.cli", "compile", str(src), "--emit",
                          "kernel"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "kernel batch (cpu)" in out.stdout and "kernel batch (cuda)" in out.stdout
    assert "for each task n < length(order), in parallel:" in out.stdout
    assert "n = thread in grid" in out.stdout
