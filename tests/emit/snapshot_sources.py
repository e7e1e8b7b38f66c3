"""Every generated source, for diffing code generation before and after a change to it.

Run by hand (it runs every example once on the CPU, so it takes minutes, too long
for the suite)::

    NUMBA_ENABLE_CUDASIM=1 .venv/bin/python -m tests.emit.snapshot_sources OUT_DIR

and compare two such folders with ``diff -r``. For each example (examples/*.bio) and
each program of tests.test_properties it writes one file holding:

* ``dslc compile --emit python`` (the CPU backend's sources, as the run made them)
  and ``--emit kernel`` (the launches, CPU and GPU thread-per-task);
* every walk the traceback compiled (dslc.trace.jit);
* for every plan the run made, the source each strategy of kernel.strategies
  generates from it (CPU plain, CPU packs in float64 and float32 checked, CUDA
  task-per-thread, register-tiled, task-per-block and the whole-GPU wavefront,
  with a thread and with a warp per point), or the reason it refuses the plan.

No GPU is needed: CUDA sources are generated, never compiled (set
NUMBA_ENABLE_CUDASIM=1 where no driver is installed).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _strategies(program, plan) -> list[tuple[str, object]]:
    """(label, a thunk giving the source text) for every strategy over ``plan``."""
    from dslc.emit.wavefront import Lanes
    from dslc.emit.strategies import build, strategy
    from dslc.kernel.value_type import ValueType
    from dslc.options import CompileOptions

    options = CompileOptions.from_settings()  # (as the run's backends build them)
    seqs = frozenset(n for n, p in plan.scope.items() if type(p.type).__name__ == "SeqT")

    def text(gen):
        out = gen.generate()
        return "\n".join(x for x in out if isinstance(x, str)) + \
            f"\n# args: {[a for a in out[-1]]}\n"

    def storage(gen):
        return f"# storage: {[(f, [str(d) for d in dims]) for f, dims in gen.storage]}\n"

    def cuda(key, *args, **kw):
        def run():
            gen = build(strategy(key), program, plan, *args, **kw)
            return text(gen) + storage(gen)
        return run

    def packs(value):
        return lambda: text(build(strategy("cpu task groups"), program, plan, ValueType(value),
                                  seqs))

    warp = tuple(Lanes(32, "a warp") for _ in plan.groups)
    return [("cpu plain", lambda: text(build(strategy("cpu plain"), program, plan))),
            ("cpu packs float64", packs("float64")),
            ("cpu packs float32c", packs("float32c")),
            ("cuda task-per-thread", cuda("cuda task-per-thread")),
            ("cuda register-tiled", cuda("cuda register-tiled", seqs,
                                         value=ValueType("float64"), options=options)),
            ("cuda register-tiled float32", cuda("cuda register-tiled", frozenset(), rows=4,
                                                 value=ValueType("float32"), options=options)),
            ("cuda task-per-block", cuda("cuda task-per-block", 128)),
            ("cuda wavefront", cuda("cuda whole-GPU wavefront", None, simulated=True)),
            ("cuda wavefront warp", cuda("cuda whole-GPU wavefront", warp, simulated=False))]


def snapshot(label: str, program) -> str:
    """The sources of one compiled program (``dslc.compile``'s result)."""
    from dslc import explain
    from dslc.errors import DslcError, NotCompilable
    from dslc.trace import jit

    walks: list[str] = []
    generate = jit._generate

    def recording(prog, func, scope, shape):
        source, args = generate(prog, func, scope, shape)
        walks.append(f"# ---- walk of {func}\n{source}\n# args: {args}\n")
        return source, args

    jit._generate = recording
    try:
        done = explain.run(program)
        kernels = explain.kernels(program, done)
    finally:
        jit._generate = generate
    engine = done.engine
    out = [f"######## {label}: --emit python"]
    compiled = {e: s for e, (_, s, _) in engine.packs.generated.items()}
    compiled.update({e: s for e, (_, s) in engine.generated.items()})
    out += [f"# ---- entry {name}\n{src}" for name, src in compiled.items()]
    out += [f"# {n}: not compiled ({why})" for n, why in engine.fallbacks.items()]
    out += [f"######## {label}: --emit kernel", kernels, f"######## {label}: walks", *walks]
    for entry, plan in done.plans.items():
        for name, run in _strategies(program.checked, plan):
            out.append(f"######## {label}: {entry} ({plan.kind}), {name}")
            try:
                out.append(run())
            except (NotCompilable, DslcError) as e:
                out.append(f"# refused: {e}")
    return "\n".join(out) + "\n"


def _planned(label: str, source: str, entry: str, values: list, kind: str, request=None,
             bound_by: str | None = None):
    """The strategies' sources over one plan made from ``values`` (the generator tests'
    cases: tests/kernel/test_body_ir.py, tests/emit/test_tiles.py)."""
    import dslc
    from dslc.errors import DslcError, NotCompilable
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call

    prog = dslc.compile(source, backend="interp")
    values = [prog.checked.defined[v] if v == "blosum62" else v for v in values]
    values = bind_call(prog.checked.functions[bound_by or entry], values, prog.checked, None)
    plan = lower(prog.checked, entry, kind, values, request).task
    out = []
    for name, run in _strategies(prog.checked, plan):
        out.append(f"######## {label}: {entry} ({plan.kind}), {name}")
        try:
            out.append(run())
        except (NotCompilable, DslcError) as e:
            out.append(f"# refused: {e}")
    return "\n".join(out) + "\n"


def _walks() -> str:
    """The traceback's compiled walks over the standard library's alignment."""
    import dslc
    from dslc.lang.stdlib import stdlib_source
    from dslc.trace import jit

    walks: list[str] = []
    generate = jit._generate

    def recording(prog, func, scope, shape):
        source, args = generate(prog, func, scope, shape)
        walks.append(f"# ---- walk of {func}\n{source}\n# args: {args}\n")
        return source, args

    jit._generate = recording
    try:
        prog = dslc.compile(stdlib_source("align"), backend="cpu")
        prog.traces("sw", [("blosum62", 10, 1, "MKVLAAGIV", "MKVLAGIV")])
    finally:
        jit._generate = generate
    return "\n".join(walks)


def programs() -> list[tuple[str, object]]:
    """(label, a thunk giving the snapshot's text): the examples, then the generator
    tests' plans, then the compiled walk."""
    import dslc
    from tests.emit.test_tiles import BOUNDED
    from tests.test_properties import GOTOH, NUSSINOV

    out = []
    for path in sorted((ROOT / "examples").glob("*.bio")):
        def example(path=path):
            os.chdir(path.parent)  # (data files are named relative to the script)
            return snapshot(path.stem, dslc.compile(str(path), backend="cpu"))
        out.append((path.stem, example))
    x = "GGGAAAUCC"
    out.append(("case-nussinov", lambda: _planned("nussinov", NUSSINOV, "n", [x, 0, len(x)],
                                                  "cell", (0, len(x)))))
    sw = ["blosum62", 10, 1, "HEAGAW", "PAWHE"]
    out.append(("case-gotoh-sw", lambda: _planned("gotoh", GOTOH, "sw", sw, "value")))
    out.append(("case-gotoh-h", lambda: _planned("gotoh", GOTOH, "h", sw, "cell", (3, 2),
                                                 bound_by="sw")))
    out.append(("case-bounded", lambda: _planned("bounded", BOUNDED, "top", ["ACGTA", "ACG"],
                                                 "value")))
    out.append(("walks", _walks))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    os.environ["DSLC_CACHE_DIR"] = tempfile.mkdtemp(prefix="dslc-snapshot-")
    sys.path.insert(0, str(ROOT))
    dest = Path(argv[0]).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    for label, make in programs():
        try:
            text = make()
        except Exception as e:  # (a program the run refuses: its message is the snapshot)
            text = f"# {label}: {type(e).__name__}: {e}\n"
        (dest / f"{label}.txt").write_text(text)
        print(label, len(text.splitlines()), "lines", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
