"""Hostile input, fuzzed: random malformed scripts and data files.

Every run must end in one of two ways: a value, equal on the compiled CPU backend to the
interpreter's (the specification), or exit status 2 with one located message
(``file:line[:col]: error: ...``) and no Python traceback. A traceback, any other exit
status, a message without a location or a value that differs from the interpreter's fails.

Data files are mutated too: a real HMMER3 profile with one line damaged (tests/hmm_mutants.py)
must be refused at that line, and a Stockholm file whose last line is not its closing ``//``
must be refused.

Mutations start from small valid programs (so many mutants still parse, type-check and run)
and insert, delete, replace and duplicate text drawn from the tokens that caused trouble
before: huge and special numbers, keywords, stray symbols, byte-order marks, NUL bytes.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

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
const gap = 3
int size(seq[dna] s) = len(s)
bool long(int n) = n >= gap
float scaled(int v, seq[dna] s, const z) = v * z + len(s)
db = load(seq[dna], "db.fasta")
n = map(size, db)
ok = map(long, n)
k = map(size, db where ok)
print map(scaled, k (*) db (*) 0.5)
print k
""",
    """\
const gap = 11
int f(seq[protein] s, seq[protein] t) = 3 * len(s) + len(t)
q = load(seq[protein], "db.fasta")
s = map(f, q (*) q)
print evalue(s, q, q, blosum62, gap, 1, "composition")
print bits(s, blosum62, gap, 1)
print evalue(s, len(q[0]), 1000, "blosum62", gap, 1)
""",
    """\
const gap = 0
define alphabet dna5 "ACGTN" where "RYKM" = 'N', 'U' = 'T'
int w(seq[protein] s, seq[dna5] t) = len(s) * 10 + len(t) + gap
print map(w, load(seq[protein], "db.fasta") (*) "ACGURY")
print w("MKUOJ", "ACGTN")
int c(int n, int k) | k == gap = 1 | n == 0 = 0 | otherwise = c(n - 1, k - 1) + c(n - 1, k)
print c(10, 4)
x = 7 - 3 * 2
print x
""",
    # two schedules of one mutually recursive group: a mutated coefficient makes them disagree
    """\
const gap = 2
int e(int n, int m) | n == 0 = m | otherwise = o(n - 1, m) + gap
int o(int n, int m) | n == 0 = 0 - m | otherwise = e(n - 1, m) * 2
schedule e(n, m) = 1 * n
schedule o(n, m) = 1 * n + 0 * m
print e(7, 3)
""",
    """\
const g = [[1, 2, 3], [4, 5, 6]]
const ws = ["AC", "G"]
bool wb(seqs[dna] d, seq[dna] s, index[s] i)
  | i == 0 = true
  | otherwise = any(k in 0 ... len(d) - 1 where len(d[k]) <= i : wb(i - len(d[k]))
        and all(m in 0 ... len(d[k]) - 1 : d[k][m] == s[i - len(d[k]) + m]))
int p(int i in 0 ... len(g) - 1, int j in 0 ... g.cols - 1)
  | i == 0 and j == 0 = g[0, 0] ** 2
  | otherwise = (if i > 0 then p(i - 1, j) else 0) max (if j > 0 then p(i, j - 1) else 0) + g[i, j]
int l(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = 0
  | s[i - 1] == t[j - 1] = l(i - 1, j - 1) + 1
  | otherwise = l(i - 1, j) max l(i, j - 1)
print wb(ws, "ACGAC", 5)
print p(1, 2)
print common(trace(l("GATTACA", "TACG")))
print merged(trace(l("GAT", "TA")))
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
    # digits outside ASCII (Python's int() reads them), more digits than Python converts,
    # a float overflowing to infinity
    "\uff11\uff12", "\u0663", "4\u0968", "9" * 5000, "0" * 4400 + "1", "1e999", "9" * 400 + ".0",
    # imports: of a file that is no script, of itself (a cycle), of nothing, of the library
    "import \"db.fasta\"\n", "import \"fuzz.bio\"\n", "import \"nope.bio\"\n",
    "import stdlib.align\n", "import stdlib.nope\n", "import", "import \"\"",
    # a whole result folded, a structure read off a trace, a table of a plain function
    "sum(", "max(", "brackets(trace(", "brackets(", "\nprint sum(n(\"GGGAAAUCC\"))\n",
    "\nprint brackets(trace(n(\"GGGAAAUCC\", 0, 9)))\n", "\nprint pairs(\"A\")\n",
    # 2-D arrays (ragged, nested too deep), word lists, powers, any/all, traceback text
    "[[1, 2], [3]]", "[[[1]]]", "[[1], 2]", "[\"AC\", 3]", "**", "** -1", "2 ** 70", "any(",
    "all(k in 0 ... 3 : k)", "d[0]", "g[0]", ".cols", "seqs[dna]", "ints2d", "common(trace(",
    "merged(", "pow(",
]
# (U, O, J: protein's stand-ins, read as X with a warning; strangers to dna; R, Y, K, M:
# IUPAC ambiguity codes, dna5's and rna5's stand-ins for N, strangers to dna)
FASTA_TOKENS = [">", ">x\n", "\n", "N", "acgt", "*", "\x00", "\ufeff", "\xff", " ", "ZZZ", ";",
                "U", "uoj", "OX", "RY", "km"]

# Token-level mutations keep most mutants valid, so they reach the checker and the backends.
LEXEME = re.compile(r'"[^"\n]*"|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|[A-Za-z_]\w*|\.\.\.|[=!<>]=|\S')
NUMBERS = ["99999999999999999999999", "9223372036854775807", "-9223372036854775807 - 2",
           "1e400", "1e308 * 10.0", "inf", "-inf", "(inf - inf)", "(0 * inf)", "0", "-1",
           "1e-320", "0.5", "(0.0 / 0.0)", "(1 / 0)", "(7 % 0)", "2.5", "100000",
           "\uff11\uff12", "\u0663", "1.\u0665", "9" * 5000, "0" * 4400 + "7", "1e999",
           "9" * 400 + ".5"]
STRINGS = ['"ACGTN"', '""', '"acgt"', '"ZZZ"', '"' + "ACGT" * 40 + '"', '"A"', '"GATTACA"',
           '"MKUO"', '"RYU"',
           '"fit"', '"auto"', '"published"', '"BLOSUM62"']
WORDS = ["if", "then", "else", "otherwise", "const", "map", "inf", "len", "i", "j", "k", "s",
         "t", "x", "n", "dna", "rna", "dna5", "rna5", "protein", "blosum62", "m", "sum", "max", "min", "nope",
         "evalue", "evd_evalue", "bits", "q",
         "import", "trace", "brackets", "any", "all", "common", "merged", "pow", "g", "d",
         "ws", "cols", "rows"]
OPERATORS = ["+", "-", "*", "/", "%", "max", "min", "==", "!=", "<", "<=", ">", ">=", "and",
             "or", "**"]


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
                                   "gap=99999999999999999999999", "gap=-4", "nope=1",
                                   "gap=\uff13", "gap=\u0663.5", "gap=" + "9" * 5000,
                                   "gap=1e999"]))
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


# ---------------------------------------------------------------- model and alignment files

from tests.conftest import EXAMPLES  # noqa: E402
from tests.hmm_mutants import mutants  # noqa: E402

try:  # pyhmmer's test data holds real Rfam and Pfam models
    import pyhmmer
    RF5S = Path(pyhmmer.__file__).parent / "tests" / "data" / "hmms" / "txt" / "RF00001.hmm"
except ImportError:  # pragma: no cover
    RF5S = Path("no-pyhmmer")
_EXAMPLE = (EXAMPLES / "profile_forward.bio").read_text()
# the example's profile forward, over a 119-node Rfam model and two short RNAs
PROFILE_SCRIPT = _EXAMPLE[_EXAMPLE.index("prob pf_m("):_EXAMPLE.index("g = load(")] + \
    'h = load(hmm, "m.hmm")\nxs = load(seq[rna], "x.fasta")\nprint map(profile_forward, h (*) xs)\n'


@pytest.mark.skipif(not RF5S.exists(), reason="pyhmmer's test data is not installed")
def test_the_profile_script_runs_on_the_undamaged_model(tmp_path):
    """The damaged-model fuzz below is meaningful only if its script runs on the real file."""
    (tmp_path / "x.fasta").write_text(">a\nGCCUAC\n>b\nACGU\n")
    (tmp_path / "m.hmm").write_text(RF5S.read_text())
    path = tmp_path / "fuzz.bio"
    path.write_text(PROFILE_SCRIPT)
    code, out, err = _run(path, "interp", None)
    assert code == 0 and '"prob"' in out, err


@pytest.mark.skipif(not RF5S.exists(), reason="pyhmmer's test data is not installed")
@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(m=mutants(RF5S.read_text() if RF5S.exists() else "", 4))
def test_damaged_hmmer3_file_is_one_located_error(tmp_path, m):
    """A real profile with one line damaged (a field dropped or added, a distribution that
    does not sum to 1, a value moved far past the tolerance, the file cut short) is refused
    with one message naming the file and the damaged line, exit status 2: never a
    traceback and never a forward value of another model."""
    (tmp_path / "x.fasta").write_text(">a\nGCCUAC\n>b\nACGU\n")
    path = tmp_path / "fuzz.bio"
    path.write_text(PROFILE_SCRIPT)
    (tmp_path / "m.hmm").write_text(m.text)
    code, out, err = _run(path, "interp", None)
    _assert_clean_ending(code, out, err, "interp")
    assert code == 2, f"a damaged model ({m.kind}) was read: {out}"
    where = f"m.hmm, line {m.line}, column " if m.line else "m.hmm, line "
    assert where in err, (m.kind, err)


STOCKHOLM = ("# STOCKHOLM 1.0\n#=GF ID fam\ns1  AC-GT\ns2  A..GT\n#=GS s1 DE first\n\n"
             "s1  TT\ns2  TA\n//\n# STOCKHOLM 1.0\nu1  GATTACA\n//\n")
STOCKHOLM_TOKENS = ["//\n", "# STOCKHOLM 1.0\n", "\n", "s1  ACGT\n", "s3  GG\n", "#=GF ID x\n",
                    "#=GS s1 DE y\n", "#=GR s1 SS ..\n", "#=GC SS_cons ..\n", "#=GF\n", "-", ".",
                    "X", " ", "\x00", "\ufeff"]
STOCKHOLM_SCRIPT = ('define alphabet dna "ACGT"\nint n(seq[dna] s) = len(s)\n'
                    'r = load(seq[dna], "db.sto")\nprint map(n, r)\n')


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_malformed_stockholm_is_a_value_or_one_located_error(tmp_path, data):
    """Mutated Stockholm files (cut short, lines dropped, slashes and headers moved) end in
    a value or one located error; a file whose last line is not '//' is always refused."""
    pytest.importorskip("Bio")
    text = _mutate(data.draw, STOCKHOLM, STOCKHOLM_TOKENS, 3)
    (tmp_path / "db.sto").write_text(text, encoding="utf-8", errors="surrogateescape")
    path = tmp_path / "fuzz.bio"
    path.write_text(STOCKHOLM_SCRIPT)
    code, out, err = _run(path, "interp", None)
    _assert_clean_ending(code, out, err, "interp")
    filled = [ln for ln in text.splitlines() if ln.strip()]
    if not filled or filled[-1].strip() != "//":
        assert code == 2, f"an alignment with no closing '//' was read:\n{text}"
