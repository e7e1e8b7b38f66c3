"""Hostile input, fuzzed: random malformed scripts and data files.

Every run must end in one of two ways: a value, equal on the compiled CPU backend to the
interpreter's (the specification), or exit status 2 with one located message
(``file:line[:col]: error: ...``) and no Python traceback. A traceback, any other exit
status, a message without a location or a value that differs from the interpreter's fails.

Mutations start from small valid programs (so many mutants still parse, type-check and run)
and insert, delete, replace and duplicate text drawn from the tokens that caused trouble
before: huge and special numbers, keywords, stray symbols, byte-order marks, NUL bytes.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.cli import main

SEEDS = [
    """\
const gap = 2
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = j * gap
  | j == 0 = i * gap
  | otherwise = d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 3)
        min d(i - 1, j) + gap min d(i, j - 1) + gap
r = d("ACGT", "AGT")
print r
print d("ACGT", "AGT", 4, 3)
""",
    """\
const gap = 1.5
float f(float x, int i) | i == 0 = x | otherwise = f(i - 1) * 0.5 + gap
print f(3.0, 5)
print f(3.0, 5, 2)
""",
    """\
const gap = 1
define matrix m[dna] {
     A  C  G  T
  A  2 -1 -1 -1
  C -1  2 -1 -1
  G -1 -1  2 -1
  T -1 -1 -1  2
}
int h(matrix sm, seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = 0
  | otherwise = 0 max h(i - 1, j - 1) + sm[s[i - 1], t[j - 1]] max h(i - 1, j) - gap
        max h(i, j - 1) - gap
int best(matrix sm, seq[dna] s, seq[dna] t) = max(i in 0 ... len(s) : max(j in 0 ... len(t) : h(i, j)))
db = load(seq[dna], "db.fasta")
print map(best, m (*) "GATTACA" (*) db)
""",
    """\
define alphabet rna "ACGU"
bool pairs(symbol[rna] a, symbol[rna] b) =
    (a == 'A' and b == 'U') or (a == 'U' and b == 'A') or (a == 'G' and b == 'C')
 or (a == 'C' and b == 'G')
const gap = 4
int n(seq[rna] x, index[x] i, index[x] j)
  | j <= i + gap = 0
  | otherwise = n(i + 1, j)
        max max(k in i + 4 ... j - 1 where pairs(x[i], x[k]) : 1 + n(i + 1, k) + n(k + 1, j))
print n("GGGAAAUCC", 0, 9)
""",
    """\
const gap = 0
int c(int n, int k) | k == gap = 1 | n == 0 = 0 | otherwise = c(n - 1, k - 1) + c(n - 1, k)
print c(10, 4)
x = 7 - 3 * 2
print x
""",
]

FASTA = ">one\nACGTACGT\n>two\nGATTACA\n>three\nTTT\n"

TOKENS = [
    "99999999999999999999999", "-9223372036854775807 - 2", "9223372036854775807", "1e400",
    "1e308 * 10.0", "inf", "-inf", "inf - inf", "0 * inf", "nan", "0.0", "/ 0", "% 0", "-",
    "+", "*", "/", "max", "min", "(", ")", "[", "]", ",", "|", "=", "==", "...", ":", "'A'",
    "'Z'", "\"ACGTN\"", "\"\"", "if", "then", "else", "otherwise", "const", "define", "map",
    "load", "print", "schedule", "where", "in", "sum", "len(s)", "i", "j", "s", "t", "\n",
    "\ufeff", "\x00", "\u00e9", "$", "\"", "//", "/*", "1_000", "0x10", "-1", "9",
    # imports: of a file that is no script, of itself (a cycle), of nothing, of the library
    "import \"db.fasta\"\n", "import \"fuzz.bio\"\n", "import \"nope.bio\"\n",
    "import stdlib.align\n", "import stdlib.nope\n", "import", "import \"\"",
    # a whole result folded, a structure read off a trace, a table of a plain function
    "sum(", "max(", "brackets(trace(", "brackets(", "\nprint sum(n(\"GGGAAAUCC\"))\n",
    "\nprint brackets(trace(n(\"GGGAAAUCC\", 0, 9)))\n", "\nprint pairs(\"A\")\n",
]
FASTA_TOKENS = [">", ">x\n", "\n", "N", "acgt", "*", "\x00", "\ufeff", "\xff", " ", "ZZZ", ";"]

# Token-level mutations keep most mutants valid, so they reach the checker and the backends.
LEXEME = re.compile(r'"[^"\n]*"|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[A-Za-z_]\w*|\.\.\.|[=!<>]=|\S')
NUMBERS = ["99999999999999999999999", "9223372036854775807", "-9223372036854775807 - 2",
           "1e400", "1e308 * 10.0", "inf", "-inf", "(inf - inf)", "(0 * inf)", "0", "-1",
           "1e-320", "0.5", "(0.0 / 0.0)", "(1 / 0)", "(7 % 0)", "2.5", "100000"]
STRINGS = ['"ACGTN"', '""', '"acgt"', '"ZZZ"', '"' + "ACGT" * 40 + '"', '"A"', '"GATTACA"']
WORDS = ["if", "then", "else", "otherwise", "const", "map", "inf", "len", "i", "j", "k", "s",
         "t", "x", "n", "dna", "rna", "protein", "blosum62", "m", "sum", "max", "min", "nope",
         "import", "trace", "brackets"]
OPERATORS = ["+", "-", "*", "/", "%", "max", "min", "==", "!=", "<", "<=", ">", ">=", "and",
             "or"]


def _category(tok: str) -> str:
    if tok[0].isdigit():
        return "number"
    if tok[0] == '"':
        return "string"
    if tok in OPERATORS:
        return "operator"
    return "word" if tok[0].isalpha() or tok[0] == "_" else "other"


REPLACEMENTS = {"number": NUMBERS, "string": STRINGS, "operator": OPERATORS,
                "word": WORDS + OPERATORS[5:7]}


def _mutate_tokens(draw, text: str, edits: int) -> str:
    """Replace a number, a string, an operator or a name by another of its kind (mostly
    numbers and strings, which keep the program well formed)."""
    for _ in range(edits):
        kind = draw(st.sampled_from(["number"] * 5 + ["string"] * 2 + ["operator", "word"]))
        lexemes = [m for m in LEXEME.finditer(text) if _category(m.group()) == kind]
        if not lexemes:
            continue
        m = lexemes[draw(st.integers(0, len(lexemes) - 1))]
        new = draw(st.sampled_from(REPLACEMENTS[kind]))
        text = text[: m.start()] + new + text[m.end():]
    return text


LOCATED = re.compile(r"^\S.*?:\d+(:\d+)?: error: ", re.M)
# a mistake on the command line has no place in a file: its message names the option instead
COMMAND_LINE = re.compile(r"^error: -D ")


def _mutate(draw, text: str, pool: list[str], max_edits: int) -> str:
    for _ in range(draw(st.integers(1, max_edits))):
        n = len(text)
        at = draw(st.integers(0, n))
        kind = draw(st.sampled_from(["insert", "delete", "replace", "duplicate", "truncate"]))
        if kind == "insert":
            text = text[:at] + draw(st.sampled_from(pool)) + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)):]
        elif kind == "replace":
            end = at + draw(st.integers(1, 4))
            text = text[:at] + draw(st.sampled_from(pool)) + text[end:]
        elif kind == "duplicate":
            lines = text.splitlines(keepends=True) or [""]
            k = draw(st.integers(0, len(lines) - 1))
            text = "".join(lines[: k + 1] + [lines[k]] + lines[k + 1:])
        else:
            text = text[:at]
    return text


@st.composite
def hostile_cases(draw):
    script = draw(st.sampled_from(SEEDS))
    if draw(st.integers(0, 3)):
        script = _mutate_tokens(draw, script, draw(st.integers(1, 2)))
    else:
        script = _mutate(draw, script, TOKENS, 3)
    fasta = FASTA if draw(st.booleans()) else _mutate(draw, FASTA, FASTA_TOKENS, 3)
    define = draw(st.sampled_from([None, None, None, "gap=3", "gap=inf", "gap=nan", "gap=1_000",
                                   "gap=99999999999999999999999", "gap=-4", "nope=1"]))
    return script, fasta, define


def _run(path, backend: str, define: str | None) -> tuple[object, str, str]:
    """One in-process ``dslc run``; returns (exit status or the escaped exception, out, err)."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["run", str(path), "--backend", backend, "--format", "json", "--quiet"]
    if define:
        argv += ["-D", define]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code
        except BaseException as e:  # noqa: BLE001 - the very thing this test looks for
            code = e
    return code, out.getvalue(), err.getvalue()


def _assert_clean_ending(code, out: str, err: str, backend: str) -> None:
    assert not isinstance(code, BaseException), f"{backend}: {type(code).__name__}: {code}"
    assert "Traceback" not in err, err
    assert code in (0, 2), (backend, code, err)
    if code == 2:
        assert LOCATED.search(err) or COMMAND_LINE.match(err) or err.startswith("usage:"), \
            f"{backend}: no location:\n{err}"


@pytest.mark.parametrize("backend", ["cpu"])
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=hostile_cases())
def test_malformed_input_is_a_value_or_one_located_error(tmp_path, backend, case):
    script, fasta, define = case
    (tmp_path / "db.fasta").write_text(fasta, encoding="utf-8", errors="surrogateescape")
    path = tmp_path / "fuzz.bio"
    path.write_text(script, encoding="utf-8", errors="surrogateescape")
    want = _run(path, "interp", define)
    _assert_clean_ending(*want, "interp")
    got = _run(path, backend, define)
    _assert_clean_ending(*got, backend)
    if want[0] == 0 and got[0] == 0:
        assert got[1] == want[1], f"{backend} printed a different value than the interpreter"
    elif want[0] == 2:
        assert got[0] == 2, f"the interpreter refused, {backend} printed {got[1]!r}"
