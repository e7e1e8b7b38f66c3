"""examples/expected.json: what each example prints, computed independently.

The inputs are read from the example scripts themselves (their literal
sequences, constants and data files) and the values come from
tests/reference.py, never from dslc. ``EXPECTED`` maps an example file to
``{printed name: value}``, the printed name being the source text after
``print`` (what ``dslc run --format json`` uses as the key). Tables are nested
lists, row ``i`` first.

Regenerate the JSON after changing an example with

    python -m tests.test_examples_expected
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from tests import reference as ref

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
EXPECTED_JSON = EXAMPLES / "expected.json"


def _source(name: str) -> str:
    return (EXAMPLES / name).read_text()


def _one(pattern: str, text: str, name: str) -> re.Match:
    found = list(re.finditer(pattern, text, re.M))
    assert len(found) == 1, f"{name}: expected one match of {pattern!r}, found {len(found)}"
    return found[0]


def _const(text: str, cname: str, name: str) -> int:
    return int(_one(rf"^const\s+{cname}\s*=\s*(-?\d+)\s*$", text, name).group(1))


def printed_names(text: str) -> list[str]:
    """The names ``dslc run --format json`` gives the script's prints."""
    names = []
    for line in text.splitlines():
        line = re.sub(r"//.*$", "", line).strip()
        if line.startswith("print "):
            names.append(line[len("print "):].strip())
    return names


# --------------------------------------------------------------------------- per example


def expected_edit_distance() -> dict:
    name = "edit_distance.bio"
    text = _source(name)
    m = _one(r'^r\s*=\s*d\("([a-z]+)",\s*"([a-z]+)"\)', text, name)
    s, t = m.groups()
    table = ref.edit_distance_table(s, t)
    return {"r": table, "r[6, 7]": table[6][7]}


def expected_needleman_wunsch() -> dict:
    name = "needleman_wunsch.bio"
    text = _source(name)
    gap = _const(text, "gap", name)
    blosum = ref.blosum62_dict()
    out = {}
    m = _one(r'^print\s+(score\(blosum62,\s*"([A-Z]+)",\s*"([A-Z]+)"\))', text, name)
    out[m.group(1)] = ref.needleman_wunsch(m.group(2), m.group(3), blosum, gap)
    m = _one(r'^table\s*=\s*nw\(blosum62,\s*"([A-Z]+)",\s*"([A-Z]+)"\)', text, name)
    out["table"] = ref.needleman_wunsch_table(m.group(1), m.group(2), blosum, gap)
    return out


def expected_smith_waterman() -> dict:
    name = "smith_waterman.bio"
    text = _source(name)
    path = _one(r'^db\s*=\s*load\(seq\[protein\],\s*"([^"]+)"\)', text, name).group(1)
    m = _one(
        r'^scores\s*=\s*map\(sw,\s*blosum62\s*\(\*\)\s*(\d+)\s*\(\*\)\s*(\d+)\s*\(\*\)\s*'
        r'"([A-Z*]+)"\s*\(\*\)\s*db\)',
        text,
        name,
    )
    open_, ext, query = int(m.group(1)), int(m.group(2)), m.group(3)
    blosum = ref.blosum62_dict()
    db = ref.read_fasta(EXAMPLES / path)
    return {"scores": [ref.gotoh_local(query, s, blosum, open_, ext) for _, s in db]}


def expected_nussinov() -> dict:
    name = "nussinov.bio"
    text = _source(name)
    out = {}
    m = _one(r'^r\s*=\s*n\("([ACGU]+)",\s*0,\s*(\d+)\)', text, name)
    x, top = m.group(1), int(m.group(2))
    assert top == len(x), f"{name}: r covers {top} of {len(x)} bases"
    out["r"] = ref.nussinov(x)
    trna = _one(r'^trna\s*=\s*"([ACGU]+)"', text, name).group(1)
    m = _one(r"^print\s+(n\(trna,\s*0,\s*(\d+)\))", text, name)
    assert int(m.group(2)) == len(trna), f"{name}: the call covers {m.group(2)} of {len(trna)}"
    out[m.group(1)] = ref.nussinov(trna)
    # the structures: the sequence, its dot-bracket and its pairs (0-based, i < k)
    for seq, call in ((x, f'n("{x}", 0, {len(x)})'), (trna, f"n(trna, 0, {len(trna)})")):
        b = ref.nussinov_brackets(seq)
        out[_one(r"^print\s+(brackets\(trace\(" + re.escape(call) + r"\)\))", text,
                 name).group(1)] = {"sequence": seq, "brackets": b, "pairs": _pairs(b)}
    return out


def _pairs(brackets: str) -> list[list[int]]:
    """A balanced dot-bracket string's pairs, sorted."""
    out, open_ = [], []
    for k, c in enumerate(brackets):
        if c == "(":
            open_.append(k)
        elif c == ")":
            out.append([open_.pop(), k])
    assert not open_, brackets
    return sorted(out)


def expected_three_way() -> dict:
    name = "three_way.bio"
    text = _source(name)
    match, mismatch, gap = (_const(text, c, name) for c in ("match", "mismatch", "gap"))
    m = _one(r'^print\s+(align3\("([ACGT]+)",\s*"([ACGT]+)",\s*"([ACGT]+)"\))', text, name)
    a, b, c = m.group(2), m.group(3), m.group(4)
    return {m.group(1): ref.three_way(a, b, c, match, mismatch, gap)}


def expected_casino_decode() -> dict:
    # The casino's states are numbered start 0, fair 1, loaded 2, end 3; the tables
    # hold the start state at position 0 and then one state per roll.
    name = "casino_decode.bio"
    text = _source(name)
    rolls = _one(r'^rolls\s*=\s*"([1-6]+)"', text, name).group(1)
    number = {"fair": 1, "loaded": 2}
    # the posteriors, a row per position and a column per state (start, fair, loaded,
    # end): the start state before the first roll, the end state after the last
    post = [[1.0, 0.0, 0.0, 0.0]] + [[0.0, p["fair"], p["loaded"], 0.0]
                                     for p in ref.casino_posteriors(rolls)]
    post[-1][3] = 1.0
    return {"post": post,
            "path": [0] + [number[q] for q in ref.casino_viterbi_states(rolls)],
            "dec": [0] + [number[q] for q in ref.casino_posterior_states(rolls)]}


def expected_coins() -> dict:
    # the denominations from the data file, the fees and amounts from the script
    name = "coins.bio"
    text = _source(name)
    data = re.sub(r"#.*", "", (EXAMPLES / "data" / "coins.txt").read_text())
    coins = [int(x) for x in data.split()]
    fees = [int(x) for x in _one(r"^const\s+fee\s*=\s*\[([-\d,\s]+)\]", text, name)
            .group(1).split(",")]
    out = {}
    m = _one(r"^print\s+(fewest\((\d+)\))", text, name)
    out[m.group(1)] = ref.fewest_coins(int(m.group(2)), coins, fees)
    m = _one(r"^print\s+(ways\((\d+)\))", text, name)
    out[m.group(1)] = ref.ordered_ways(int(m.group(2)), coins)
    m = _one(r'^print\s+(amount\("(\d+)", \d+\))', text, name)
    out[m.group(1)] = int(m.group(2))
    m = _one(r'^print\s+(share\("(\d+)", (\d+)\))', text, name)
    out[m.group(1)] = int(m.group(2)) // int(m.group(3))
    m = _one(r'^print\s+(left\("(\d+)", (\d+)\))', text, name)
    out[m.group(1)] = int(m.group(2)) % int(m.group(3))
    return out


def _chain(text: str, fname: str, name: str) -> list[int]:
    """The values of ``int fname(int k) = if k == 0 then A else if ... else Z``,
    in order of ``k``."""
    m = _one(rf"^int\s+{fname}\(int k\)\s*=\s*((?:.|\n)*?else\s+\d+)\s*$", text, name)
    body = m.group(1)
    picks = [(int(k), int(v)) for k, v in re.findall(r"k == (\d+) then (\d+)", body)]
    assert [k for k, _ in picks] == list(range(len(picks))), f"{name}: {fname} out of order"
    last = re.search(r"else (\d+)\s*$", body)
    return [v for _, v in picks] + [int(last.group(1))]


def _calls(text: str, pattern: str, name: str) -> list[re.Match]:
    found = list(re.finditer(pattern, text, re.M))
    assert found, f"{name}: no print matches {pattern!r}"
    return found


def expected_coin_change() -> dict:
    name = "coin_change.bio"
    text = _source(name)
    coins = _chain(text, "coin", name)
    return {m.group(1): ref.coin_change_ways(coins[: int(m.group(2))], int(m.group(3)))
            for m in _calls(text, r"^print\s+(ways\((\d+),\s*(\d+)\))", name)}


def expected_knapsack() -> dict:
    name = "knapsack.bio"
    text = _source(name)
    weights, gains = _chain(text, "weight", name), _chain(text, "gain", name)
    out = {}
    for m in _calls(text, r"^print\s+(best\((\d+),\s*(\d+)\))", name):
        n = int(m.group(2))
        out[m.group(1)] = ref.knapsack(weights[:n], gains[:n], int(m.group(3)))
    return out


def expected_fewest_squares() -> dict:
    name = "fewest_squares.bio"
    return {m.group(1): ref.fewest_squares(int(m.group(2)))
            for m in _calls(_source(name), r"^print\s+(sq\((\d+)\))", name)}


def expected_hofstadter_q() -> dict:
    name = "hofstadter_q.bio"
    return {m.group(1): ref.hofstadter_q(int(m.group(2)))
            for m in _calls(_source(name), r"^print\s+(q\((\d+)\))", name)}


BUILDERS = {
    "edit_distance.bio": expected_edit_distance,
    "needleman_wunsch.bio": expected_needleman_wunsch,
    "smith_waterman.bio": expected_smith_waterman,
    "nussinov.bio": expected_nussinov,
    "three_way.bio": expected_three_way,
    "casino_decode.bio": expected_casino_decode,
    "coins.bio": expected_coins,
    "coin_change.bio": expected_coin_change,
    "knapsack.bio": expected_knapsack,
    "fewest_squares.bio": expected_fewest_squares,
    "hofstadter_q.bio": expected_hofstadter_q,
}


def expected_matrix_chain() -> dict:
    """Matrix chain order over the dimensions 30 35 15 5 10 20 25 (CLRS 15.2)."""
    d = [30, 35, 15, 5, 10, 20, 25]
    n = len(d) - 1
    m = [[None] * (n + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        m[i][i] = 0
    for length in range(2, n + 1):
        for i in range(1, n - length + 2):
            j = i + length - 1
            m[i][j] = min(m[i][k] + m[k + 1][j] + d[i - 1] * d[k] * d[j] for k in range(i, j))
    return {"r": m[1][n], "t": m}


def expected_number_triangle() -> dict:
    """Largest path sum from the apex down a triangle of v(r, c) = (7r + 13c + 5) % 10."""
    n = 4
    best = [[None] * (n + 1) for _ in range(n + 1)]
    for r in range(n, -1, -1):
        for c in range(r + 1):
            v = (7 * r + 13 * c + 5) % 10
            best[r][c] = v if r == n else v + max(best[r + 1][c], best[r + 1][c + 1])
    return {"top": best[0][0], "t": best}


def expected_co_optimal() -> dict:
    name = "co_optimal.bio"
    text = _source(name)
    m = _one(r'^r\s*=\s*d\("([a-z]+)",\s*"([a-z]+)"\)', text, name)
    table = ref.co_optimal_edit_table(*m.groups())
    return {"r": table, "r[9, 9]": table[9][9], "r[9, 9][1]": table[9][9][1]}


BUILDERS["matrix_chain.bio"] = expected_matrix_chain
BUILDERS["number_triangle.bio"] = expected_number_triangle
BUILDERS["co_optimal.bio"] = expected_co_optimal


def compute_expected() -> dict:
    return {name: build() for name, build in BUILDERS.items()}


EXPECTED = compute_expected()


def format_expected(expected: dict) -> str:
    """JSON with one line per printed name (a table as a list of rows)."""

    def value(v, indent):
        if isinstance(v, list) and v and isinstance(v[0], list):
            rows = (",\n" + indent).join(json.dumps(r) for r in v)
            return "[\n" + indent + rows + "]"
        return json.dumps(v)

    parts = []
    for name, prints in expected.items():
        items = ",\n".join(
            f"    {json.dumps(k)}: {value(v, ' ' * 6)}" for k, v in prints.items()
        )
        parts.append(f"  {json.dumps(name)}: {{\n{items}\n  }}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def write_expected_json(path: Path = EXPECTED_JSON) -> None:
    path.write_text(format_expected(EXPECTED))


# --------------------------------------------------------------------------- tests


def test_expected_json_matches_references():
    assert EXPECTED_JSON.exists(), "run: python -m tests.test_examples_expected"
    on_disk = json.loads(EXPECTED_JSON.read_text())
    assert on_disk == EXPECTED


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_expected_names_are_the_printed_names(name):
    # Every print of the example has an expected value, and nothing else does.
    assert sorted(printed_names(_source(name))) == sorted(EXPECTED[name])


def test_known_values():
    # Values that do not depend on the data files: the contract's own examples.
    assert EXPECTED["edit_distance.bio"]["r[6, 7]"] == 3
    assert EXPECTED["co_optimal.bio"]["r[9, 9]"] == [5, 7]  # intention -> execution
    assert EXPECTED["nussinov.bio"]["r"] == 3
    table = EXPECTED["needleman_wunsch.bio"]["table"]
    (score,) = [v for k, v in EXPECTED["needleman_wunsch.bio"].items() if k.startswith("score")]
    assert table[-1][-1] == score


def test_stdlib_blosum62_is_biopythons():
    # The examples use the predefined blosum62; the references use Biopython's.
    text = (ROOT / "stdlib" / "matrices" / "BLOSUM62").read_text()
    assert ref.parse_ncbi_matrix(text) == ref.blosum62_dict()


def test_smith_waterman_scores_agree_with_parasail():
    import parasail

    text = _source("smith_waterman.bio")
    m = re.search(r'map\(sw, blosum62 \(\*\) (\d+) \(\*\) (\d+) \(\*\) "([A-Z*]+)"', text)
    open_, ext, query = int(m.group(1)), int(m.group(2)), m.group(3)
    db = ref.read_fasta(EXAMPLES / "data" / "db.fasta")
    want = [parasail.sw(query, s, open_ + ext, ext, parasail.blosum62).score for _, s in db]
    assert EXPECTED["smith_waterman.bio"]["scores"] == want


def test_data_files_are_well_formed():
    db = ref.read_fasta(EXAMPLES / "data" / "db.fasta")
    assert len(db) == 20
    assert all(set(s) <= set("ARNDCQEGHILKMFPSTWYVBZX*") for _, s in db)
    assert all(50 <= len(s) <= 300 for _, s in db)
    rolls = ref.read_fasta(EXAMPLES / "data" / "rolls.fasta")
    assert len(rolls) >= 3
    assert all(set(s) <= set("123456") and 50 <= len(s) <= 300 for _, s in rolls)


def test_casino_comment_states_the_forward_values():
    # casino.bio (it needs the HMM extension) states ln P(x | casino) per record.
    text = _source("casino.bio")
    for rec, rolls in ref.read_fasta(EXAMPLES / "data" / "rolls.fasta"):
        lp = ref.casino_forward_log(rolls)
        assert math.isfinite(lp)
        m = re.search(rf"^//\s+{rec} \(\d+ rolls\):\s+(-?\d+\.\d+)\s*$", text, re.M)
        assert m, f"casino.bio does not state the value for {rec}"
        assert float(m.group(1)) == pytest.approx(lp, abs=5e-7)


if __name__ == "__main__":
    write_expected_json()
    print(f"wrote {EXPECTED_JSON}")
