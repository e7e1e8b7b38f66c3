"""Every example runs from the command line, on every backend, with the results
the independent references give for the same inputs."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from tests import reference as ref
from tests.conftest import EXAMPLES


def run_json(path, backend, *extra) -> dict:
    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", str(path), "--format", "json",
                        "--backend", backend, "--quiet", *extra],
                       capture_output=True, text=True, cwd="/")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def literals(path) -> list[str]:
    return re.findall(r'"([A-Za-z]+)"', path.read_text())


def test_edit_distance(backend):
    out = run_json(EXAMPLES / "edit_distance.bio", backend)
    assert out["r[6, 7]"] == 3
    assert out["r"][6][7] == 3 and len(out["r"]) == 7 and len(out["r"][0]) == 8


def test_needleman_wunsch(backend):
    out = run_json(EXAMPLES / "needleman_wunsch.bio", backend, "-D", "gap=4")
    (key,) = [k for k in out if k.startswith("score")]
    assert out[key] == ref.needleman_wunsch("HEAGAWGHEE", "PAWHEAE", ref.blosum62_dict(), 4)
    assert out["table"][-1][-1] == out[key]


def test_smith_waterman_over_fasta(backend):
    from dslc.lang.fasta import read_fasta
    from dslc.lang.stdlib import standard_alphabets

    out = run_json(EXAMPLES / "smith_waterman.bio", backend)
    db = read_fasta(str(EXAMPLES / "data" / "db.fasta"), standard_alphabets()["protein"])
    query = max(literals(EXAMPLES / "smith_waterman.bio"), key=len)
    want = [ref.gotoh_local(query, s.text, ref.blosum62_dict(), 11, 1) for s in db]
    assert out["scores"] == want


def test_nussinov(backend):
    out = run_json(EXAMPLES / "nussinov.bio", backend)
    assert out["r"] == 3
    trna = next(x for x in literals(EXAMPLES / "nussinov.bio") if len(x) > 50)
    assert out["n(trna, 0, 76)"] == ref.nussinov(trna)
    # the structures, read off the traceback on this backend's tables, as the reference
    # traceback gives them (examples/expected.json), and each as many pairs as its score
    from tests.test_examples_expected import EXPECTED

    assert out == EXPECTED["nussinov.bio"]
    for key, score in (('brackets(trace(n("GGGAAAUCC", 0, 9)))', "r"),
                       ("brackets(trace(n(trna, 0, 76)))", "n(trna, 0, 76)")):
        assert out[key]["brackets"].count("(") == out[score]


def test_three_way(backend):
    out = run_json(EXAMPLES / "three_way.bio", backend)
    ((key, value),) = out.items()
    a, b, c = re.findall(r'"([ACGT]+)"', key)
    assert value == ref.three_way(a, b, c, 2, -1, 2)


def test_coins(backend):
    """Arrays of numbers (a loaded file and a literal), div and code: the values the
    independent references give (examples/expected.json)."""
    expected = json.loads((EXAMPLES / "expected.json").read_text())["coins.bio"]
    assert run_json(EXAMPLES / "coins.bio", backend) == expected
    assert expected["fewest(68)"] == 10 and expected["ways(12)"] == 377


def test_profile_forward(backend):
    """A Pfam profile as a (node, position) wavefront: P(x | profile) equals the
    independent numpy forward over the same profile's numbers."""
    from tests.hmm_reference import profile_forward
    from dslc.lang.fasta import read_fasta
    from dslc_extensions.hmm.hmmer3 import AMINO, read_profiles

    out = run_json(EXAMPLES / "profile_forward.bio", backend)
    (profile,) = read_profiles(str(EXAMPLES / "data" / "PF02826.hmm"))[:1]
    xs = read_fasta(str(EXAMPLES / "data" / "profile_db.fasta"), AMINO)
    want = [profile_forward(profile, np.array([AMINO.code(c) for c in x.text])) for x in xs]
    got = [v["log"] for v in out["p"]]
    assert np.allclose(got, want, rtol=1e-9, atol=0), (got, want)


@pytest.mark.parametrize("name", ["edit_distance", "needleman_wunsch", "smith_waterman",
                                  "nussinov", "three_way", "profile_forward", "coins"])
def test_examples_check_and_explain(name, capsys):
    from dslc.cli import main

    assert main(["check", str(EXAMPLES / f"{name}.bio")]) == 0
    assert main(["explain", str(EXAMPLES / f"{name}.bio"), "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    groups = [r for k, r in rep.items() if not k.startswith("_")]
    assert groups and all(r["partitions"] >= 1 and r["loops"] for r in groups)


def explain_report(path, capsys) -> dict:
    from dslc.cli import main

    assert main(["explain", str(path), "--backend", "cuda", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def record(rep: dict, backend: str, entry: str, work: str = "map") -> dict:
    """The decision record explain printed for ``entry``'s ``work`` on ``backend``."""
    return next(r for r in rep[f"_{backend}"] if r["entry"] == entry and r["work"] == work)


def test_explain_for_cuda_shows_strategy_sizes_and_placement(capsys, write_bio):
    from dslc.cli import main

    assert main(["explain", str(EXAMPLES / "smith_waterman.bio"), "--backend", "cuda",
                 "--format", "json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    sw = record(rep, "cuda", "sw")
    assert sw["strategy"] == "task-per-thread" and sw["block"] > 0 and sw["grid"] >= 1
    assert sw["rows"] == 32 and sw["launches"] == 1 and sw["tasks"] == 20
    assert all(st["shape"][-1] == "tasks" for st in sw["storage"].values())
    assert any(p["memory"] == "shared" for p in sw["placement"].values())
    assert sw["value_type"] == "float32"
    assert sw["notes"]["hybrid"].startswith("one block per task for maps of fewer than")
    assert "name:shared|constant|global" in sw["notes"]["placement"]
    assert record(rep, "cpu", "sw")["strategy"] == "cpu task groups"
    # the example's calls of n are small: the CPU part runs them, and says why
    nussinov = (EXAMPLES / "nussinov.bio").read_text()
    assert main(["explain", str(EXAMPLES / "nussinov.bio"), "--backend", "cuda",
                 "--format", "json"]) == 0
    call = record(json.loads(capsys.readouterr().out), "cuda", "n", "call")
    assert call["backend"] == "cpu" and "fewer than DSLC_CUDA_WHOLE" in call["why"][0]
    # a map of n: its one run-time check (the cell asked for) flags the task on the device
    p = write_bio(nussinov + 'xs = load(seq[rna], "xs.fa")\nprint map(n, xs)\n',
                  xs__fa=">a\nGGGAAAUCC\n>b\nGGGAAAAUCCC\n")
    n = record(explain_report(p, capsys), "cuda", "n")
    assert n["strategy"] == "task-per-thread"
    assert n["storage"]["_fail"]["shape"] == ["tasks"]
    assert "failure flag" in n["storage"]["_fail"]["why"]
    rep = explain_report(EXAMPLES / "casino.bio", capsys)
    assert record(rep, "cuda", "px")["notes"]["hybrid"].startswith(
        "one thread per task at any count")


@pytest.mark.parametrize("name", ["coin_change", "knapsack", "fewest_squares", "hofstadter_q"])
def test_data_dependent_offsets(name, backend):
    """Offsets that depend on data, on every backend: the values tests/reference.py
    gives (examples/expected.json)."""
    from tests.test_examples_expected import EXPECTED

    assert run_json(EXAMPLES / f"{name}.bio", backend) == EXPECTED[f"{name}.bio"]


def test_co_optimal_tuples(backend):
    """A table of (distance, count) tuples, on every backend (compiled on cpu and
    cuda, emit.tuples): the values tests/reference.py gives."""
    from tests.test_examples_expected import EXPECTED

    assert run_json(EXAMPLES / "co_optimal.bio", backend) == EXPECTED["co_optimal.bio"]


def test_search_hit_table():
    """examples/search.bio printed as TSV with --top-total: its scores are the reference
    Gotoh scores (gaps cost 11 + L, the function's open + L * extend), its
    E-values, on this 20-sequence database, BLAST's composition-based statistics:
    K m' n' exp(-lambda r S) with BLOSUM62 11/1's published lambda and K, m' and n'
    the effective lengths (the published equation's fixed point, worked out in
    tests/runtime/test_search_stats.py) and r each pair's ungapped lambda over the
    standard one (found there by bisection, independently of dslc), as the TSV's
    first line says. On the CPU only: the interpreter and the CUDA simulator take
    minutes over 60 alignments, and the functions are smith_waterman.bio's, which
    runs on every backend."""
    from dslc.lang.fasta import read_fasta
    from dslc.lang.stdlib import standard_alphabets
    from tests.runtime.test_search_stats import _freqs, _lambda_u, fixed_point

    r = subprocess.run([sys.executable, "-m", "dslc.cli", "run", str(EXAMPLES / "search.bio"),
                        "--format", "tsv", "--top-total", "4", "--backend", "cpu", "--quiet"],
                       capture_output=True, text=True, cwd="/")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("# evalue: published BLOSUM62 11/1") and "composition" in lines[0]
    assert lines[1].split("\t") == ["query", "subject", "score", "bits", "evalue"]
    protein = standard_alphabets()["protein"]
    queries = {s.name: s.text for s in read_fasta(str(EXAMPLES / "data/queries.fasta"), protein)}
    db = {s.name: s.text for s in read_fasta(str(EXAMPLES / "data/db.fasta"), protein)}
    n = sum(len(t) for t in db.values())

    def evalue(qn, tn, score):
        ell = fixed_point(len(queries[qn]), n, len(db))
        ratio = _lambda_u(_freqs(queries[qn]), _freqs(db[tn])) / 0.3176
        return (0.041 * max(len(queries[qn]) - ell, 1 / 0.041) * (n - len(db) * ell)
                * np.exp(-0.267 * ratio * score))

    scored = [(ref.gotoh_local(q, t, ref.blosum62_dict(), 11, 1), qn, tn)
              for qn, q in queries.items() for tn, t in db.items()]
    want = sorted(scored, key=lambda x: evalue(x[1], x[2], x[0]))[:4]
    want.sort(key=lambda x: list(queries).index(x[1]))  # printed by query (stable: by E-value)
    rows = [line.split("\t") for line in lines[2:]]
    assert [(int(s), qn, tn) for qn, tn, s, _, _ in rows] == want
    for (qn, tn, s, bits, ev) in rows:
        assert float(ev) == pytest.approx(evalue(qn, tn, int(s)), rel=1e-6)
        assert float(bits) == pytest.approx((0.267 * int(s) - np.log(0.041)) / np.log(2), rel=1e-8)
    assert min(float(r[4]) for r in rows if r[0] == "q2") < 1e-10  # the planted fragments
