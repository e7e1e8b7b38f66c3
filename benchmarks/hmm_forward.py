"""Profile-HMM forward over real proteins: dslc (the standard library's
`hmm_forward` over a HMMER3 profile) against pyhmmer's search with every filter
off, in the same run.

The profile is Thioesterase.hmm from pyhmmer's test data; the proteins are the
2,100-protein test proteome (dslc runs the first --n of them, on --backend: cpu
by default, where the model's accessors are compiled through the hmm extension's
device layout; cuda runs the proteins as GPU threads, the profile's silent delete
states through the in-kernel repeat-until-done sweep, and reports its kernel under
``device``; the interpreter is far slower). Throughput is
model nodes x residues per second. Note the models differ: dslc runs the file's
core model as a global HMM (docs/language.md), pyhmmer its local search model with
null-model scoring; the figure compares the cost of a forward pass, not scores.

    python benchmarks/hmm_forward.py [--n 2100] [--backend cpu] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import device_report, proteome_path  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2100,
                    help="proteins of the proteome to run (all 2,100 by default)")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--entry", default="hmm_forward", choices=("hmm_forward", "profile_forward"),
                    help="the standard library's forward over states (hmm_forward) or over "
                         "(node, position) (profile_forward)")
    ap.add_argument("--json")
    args = ap.parse_args()

    import pyhmmer

    import dslc
    from dslc.lang.stdlib import stdlib_source

    hmm_path = Path(pyhmmer.__file__).parent / "tests" / "data" / "hmms" / "txt" / "Thioesterase.hmm"
    with pyhmmer.plan7.HMMFile(hmm_path) as fh:
        hmm = fh.read()
    alphabet = hmm.alphabet
    with pyhmmer.easel.SequenceFile(proteome_path(), digital=True, alphabet=alphabet) as fh:
        seqs = list(fh)
    residues_all = sum(len(s) for s in seqs)
    t0 = time.perf_counter()
    hits = list(pyhmmer.hmmsearch([hmm], seqs, bias_filter=False, F1=1.0, F2=1.0, F3=1.0,
                                  E=1e9, domE=1e9))
    t_py = time.perf_counter() - t0
    nodes = hmm.M

    script = stdlib_source("hmm") + f"""
g = load(hmm, "{hmm_path}")
xs = load(seq[protein], "{proteome_path()}")
"""
    prog = dslc.compile(script, backend=args.backend)
    prog.run()
    from dslc.lang.values import Sequence

    stop = prog.checked.alphabets["protein"].code("*")
    # the proteome's records end in a stop symbol, which no profile state emits
    xs = [Sequence(x.name, x.alphabet, x.codes[:-1] if x.codes[-1] == stop else x.codes)
          for x in prog._globals["xs"][: args.n]]
    g = prog._globals["g"]
    t0 = time.perf_counter()
    prog.map(args.entry, g, xs)  # the first run plans and compiles (cached on disk)
    t_first = time.perf_counter() - t0
    engine = prog._engine()
    kernel_before = getattr(engine, "kernel_seconds", 0.0)
    t0 = time.perf_counter()
    out = prog.map(args.entry, g, xs)
    t_dslc = time.perf_counter() - t0
    device = device_report(engine, args.entry)
    if device is not None:  # the timed run's share of the kernel time
        device["kernel_seconds"] -= kernel_before
    residues = sum(len(s) for s in xs)
    report = {
        "profile": hmm_path.name, "nodes": nodes,
        "pyhmmer": {"proteins": len(seqs), "residues": residues_all, "seconds": t_py,
                    "node_residues_per_s": nodes * residues_all / t_py,
                    "hits_reported": sum(len(h) for h in hits)},
        "dslc": {"backend": args.backend, "entry": args.entry,
                 "fallbacks": dict(engine.fallbacks),
                 **({"device": device} if device is not None else {}),
                 "proteins": len(xs), "residues": residues, "seconds": t_dslc,
                 "first_run_seconds": t_first,
                        "node_residues_per_s": nodes * residues / t_dslc,
                        "first_log_likelihoods": [float(v) for v in out.values.ravel()[:3]],
                        # every value, so that runs on two backends can be compared
                        "log_likelihoods": [float(v) for v in out.values.ravel()]},
    }
    report["ratio_dslc_over_pyhmmer"] = (report["dslc"]["node_residues_per_s"]
                                         / report["pyhmmer"]["node_residues_per_s"])
    print(json.dumps(report, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
