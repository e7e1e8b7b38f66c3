"""Are the E-values of examples/search.bio calibrated? Queries that cannot be related to
anything in the proteome, searched against it: the number of hits at E <= 10 should be
about 10 per query, at E <= 1 about 1 per query.

Four groups of queries, each drawn with a fixed seed:

* ``shuffled``: proteins of the proteome with their residues shuffled (each keeps
  its composition and length; no homology survives);
* ``membrane``: hydrophobic sequences (L, I, V, F, A, M, G and a little S, T, W, C,
  as transmembrane segments are), lengths 150-400;
* ``low-complexity``: 70% of residues from 4 of the 20 amino acids, the rest any,
  lengths 150-400;
* ``lc-stretch``: shuffled proteome proteins (as ``shuffled``, other picks) with one
  low-complexity stretch inserted at a random place: 30-60 residues, 80% from 3 of
  the 20 amino acids. The query's whole composition is near the proteome's; only a
  stretch of it shares the bias of other proteins' stretches.

The search is examples/search.bio itself (its functions and its ``evalue`` column, the
default ``auto`` method), with the other methods printed beside it in the same run (the
example's text with three more ``print`` lines). ``uncorrected`` is BLAST's published
formula ``K m n exp(-lambda S)`` with no length adjustment and no composition, computed
here from the same scores. A method is calibrated where its count at E <= 10 is within
0.5x-1.5x of 10 per query and its count at E <= 1 at most 1.5 per query.

``--seeds`` draws the four groups afresh for each seed and prints, per group and
method, the counts of every seed and whether all of them pass.

    python benchmarks/evalue_calibration.py [--queries 20] [--seeds 20240 1 2 3] [--backend cpu]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.common import ROOT, load_proteome, proteome_path  # noqa: E402

SEED = 20240
AMINO = "ACDEFGHIKLMNPQRSTVWY"
MEMBRANE = {"L": .20, "I": .15, "V": .13, "F": .10, "A": .12, "M": .05, "G": .08, "S": .06,
            "T": .05, "W": .03, "C": .03}
METHODS = ("fit", "composition", "published")


def queries(proteome, count: int, rng) -> dict[str, list[tuple[str, str]]]:
    """``count`` queries of each group, as (name, residues)."""
    picks = rng.choice(len(proteome), count, replace=False)
    shuffled = []
    for k in picks:
        residues = np.array(list(proteome[int(k)].text))
        rng.shuffle(residues)
        shuffled.append((f"shuffled_{proteome[int(k)].name}", "".join(residues)))
    symbols, weights = list(MEMBRANE), np.array(list(MEMBRANE.values()))
    membrane = [(f"membrane_{k}", "".join(rng.choice(symbols, int(rng.integers(150, 401)),
                                                      p=weights / weights.sum())))
                for k in range(count)]
    low = []
    for k in range(count):
        few = list(rng.choice(list(AMINO), 4, replace=False))
        p = np.r_[np.full(4, 0.7 / 4), np.full(20, 0.3 / 20)]
        low.append((f"lowcomplexity_{k}",
                    "".join(rng.choice(few + list(AMINO), int(rng.integers(150, 401)), p=p))))
    inserted = []  # drawn last: the groups above are the same draws with or without it
    for k in rng.choice(len(proteome), count, replace=False):
        residues = np.array(list(proteome[int(k)].text))
        rng.shuffle(residues)
        few = list(rng.choice(list(AMINO), 3, replace=False))
        p = np.r_[np.full(3, 0.8 / 3), np.full(20, 0.2 / 20)]
        stretch = "".join(rng.choice(few + list(AMINO), int(rng.integers(30, 61)), p=p))
        at = int(rng.integers(0, len(residues) + 1))
        inserted.append((f"lcstretch_{proteome[int(k)].name}",
                         "".join(residues[:at]) + stretch + "".join(residues[at:])))
    return {"shuffled": shuffled, "membrane": membrane, "low-complexity": low,
            "lc-stretch": inserted}


printed_notes: list[str] = []


def search(query_file: str, backend: str) -> list[list[str]]:
    """examples/search.bio over the queries and the proteome, every method printed:
    the TSV rows (q, d, score, bits, evalue, then one column per method)."""
    text = (ROOT / "examples" / "search.bio").read_text()
    text += "".join(f'\nprint evalue(score, query, subject, blosum62, open, extend, "{m}")'
                    for m in METHODS)
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "search_methods.bio")
        with open(script, "w") as f:
            f.write(text + "\n")
        out = subprocess.run([sys.executable, "-m", "dslc.cli", "run", script, "--set",
                              f"queries={query_file}", "--set", f"db={proteome_path()}",
                              "--format", "tsv", "--backend", backend, "--quiet"],
                             capture_output=True, text=True, check=False)
    if out.returncode:
        sys.exit(out.stderr)
    if not printed_notes:  # the statistics' notes, once (every seed's say the same)
        printed_notes.extend(ln for ln in out.stdout.splitlines() if ln.startswith("# "))
        print("\n".join(printed_notes))
    rows = [line.split("\t") for line in out.stdout.splitlines()
            if line and not line.startswith("#")]
    return rows[1:]


def counts(seed: int, proteome, n_queries: int, backend: str) -> dict:
    """One seed's draw searched: ``{(group, method): (hits at E <= 10, at E <= 1)}``."""
    from dslc.lang import stats

    groups = queries(proteome, n_queries, np.random.default_rng(seed))
    lengths = {name: len(res) for g in groups.values() for name, res in g}
    group_of = {name: g for g, qs in groups.items() for name, _ in qs}
    db_total = sum(len(s) for s in proteome)
    with tempfile.NamedTemporaryFile("w", suffix=".fasta", delete=False) as f:
        for qs in groups.values():
            for name, res in qs:
                f.write(f">{name}\n{res}\n")
        query_file = f.name
    try:
        rows = search(query_file, backend)
    finally:
        os.unlink(query_file)
    params = stats.karlin("blosum62", 11, 1)
    columns = {"uncorrected": lambda r: stats.evalue(float(r[2]), lengths[r[0]], db_total, params),
               "auto (search.bio)": lambda r: float(r[4])}
    columns.update({m: (lambda k: lambda r: float(r[5 + k]))(k) for k, m in enumerate(METHODS)})
    out = {}
    for g in groups:
        mine = [r for r in rows if group_of[r[0]] == g]
        for name, get in columns.items():
            ev = np.array([get(r) for r in mine])
            out[g, name] = (int(np.sum(ev <= 10)), int(np.sum(ev <= 1)))
    return out


def passes(ten: int, one: int, n_queries: int) -> bool:
    """Calibrated: E <= 10 within 0.5x-1.5x of 10 per query, E <= 1 at most 1.5 per query."""
    return 0.5 <= ten / (10 * n_queries) <= 1.5 and one <= 1.5 * n_queries


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=20, help="queries per group")
    ap.add_argument("--seeds", type=int, nargs="+", default=[SEED],
                    help="one draw of the queries per seed")
    ap.add_argument("--backend", default="cpu")
    args = ap.parse_args()

    proteome = load_proteome()
    results = {seed: counts(seed, proteome, args.queries, args.backend) for seed in args.seeds}
    q = args.queries
    print(f"\n{len(proteome)} database proteins, {sum(len(s) for s in proteome)} residues; {q} "
          f"queries per group; expected hits: {10 * q} at E <= 10 (0.5x-1.5x passes), {q} at "
          f"E <= 1 (at most {1.5 * q:g} passes); each cell: E<=10/E<=1, * where it fails")
    head = "".join(f"{'seed ' + str(s):>14}" for s in args.seeds)
    print(f"{'group':<16}{'method':<20}{head}  all pass")
    for g, method in results[args.seeds[0]]:
        cells = [results[s][g, method] for s in args.seeds]
        text = "".join(f"{f'{t}/{o}' + ('' if passes(t, o, q) else '*'):>14}" for t, o in cells)
        ok = all(passes(t, o, q) for t, o in cells)
        print(f"{g:<16}{method:<20}{text}  {'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
