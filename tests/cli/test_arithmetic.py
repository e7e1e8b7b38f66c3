"""Hostile numbers: every backend gives the interpreter's value or its error (one
located message, exit status 2), never NaN, a wrong number or a traceback."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_errors import expect_error, run_cli

MATRIX_DNA = """\
define matrix dm[dna] {
     A  C  G  T
  A  5 -4 -4 -4
  C -4  5 -4 -4
  G -4 -4  5 -4
  T -4 -4 -4  5
}
"""

SCORE = """\
int f(matrix sm, seq[{alpha}] s, index[s] i)
  | i == 0 = 0
  | otherwise = f(i - 1) + sm[s[i - 1], s[i - 1]]
"""


def test_protein_matrix_indexed_by_dna_is_refused(capsys, write_bio, backend):
    p = write_bio(SCORE.format(alpha="dna") + 'print f(blosum62, "ACGT", 4)\n')
    err = expect_error(capsys, p, line=4, col=9, contains=("'protein'", "'dna'"),
                       args=("run", "--backend", backend))
    assert "sm" in err


def test_dna_matrix_indexed_by_protein_is_refused(capsys, write_bio, backend):
    p = write_bio(MATRIX_DNA + SCORE.format(alpha="protein") + 'print f(dm, "WWW", 3)\n')
    expect_error(capsys, p, line=11, col=9, contains=("'protein'", "'dna'"),
                 args=("run", "--backend", backend))


def test_map_over_sequences_of_another_alphabet_is_refused(capsys, write_bio, backend):
    """The tie passes through a caller (g hands its matrix to f) and through
    ``seq[*]``: the sequences' alphabet comes from the loaded file."""
    p = write_bio(MATRIX_DNA + SCORE.format(alpha="*") + """\
        int g(matrix m, seq[*] s) = f(m, s, len(s))
        db = load(seq[protein], "db.fasta")
        print map(g, dm (*) db)
        """.replace("        ", ""), db__fasta=">a\nWWW\n>b\nAC\n")
    expect_error(capsys, p, line=13, col=14, contains=("'protein'", "'dna'"),
                 args=("run", "--backend", backend))


def test_alphabets_of_values_from_python_are_checked_when_bound(write_bio, backend):
    """No static types at all: the link is checked when the arguments are bound,
    for a call and for every task of a map."""
    import dslc
    from dslc.errors import DslcError

    p = write_bio(MATRIX_DNA + SCORE.format(alpha="*") + """\
        int g(matrix m, seq[*] s) = f(m, s, len(s))
        db = load(seq[protein], "db.fasta")
        m = dm
        """.replace("        ", ""), db__fasta=">a\nWWW\n>b\nAC\n")
    prog = dslc.compile(str(p), None, backend)
    prog.run()
    m, db = prog._globals["m"], prog._globals["db"]
    with pytest.raises(DslcError, match="'dna'"):
        prog.call("g", m, db[0])
    with pytest.raises(DslcError, match="'protein'"):
        prog.map("g", m, db)


def test_matching_alphabets_still_run(capsys, write_bio, backend):
    p = write_bio(MATRIX_DNA + SCORE.format(alpha="*") + 'print f(dm, "ACGT", 4)\n'
                  + 'print f(blosum62, "WW", 2)\n')
    code, out, err = run_cli(capsys, "run", "--backend", backend, str(p))
    assert code == 0, err
    assert "= 20" in out and "= 22" in out


UNDEFINED = [
    # (program, line of the error)
    ("float f(float x) = x * 0.0\nprint f(1e308 * 10.0)\n", 1),
    ("int f(int i)\n  | i == 0 = -inf\n  | otherwise = f(i - 1) + inf\nprint f(3)\n", 3),
    ("int f(int i)\n  | i == 0 = 0\n  | otherwise = f(i - 1) * inf\nprint f(3)\n", 3),
    ("int f(int i) = if (i * inf) - inf > 0 then 1 else 2\nprint f(1)\n", 1),
    ("float f(float x, int i)\n  | i == 0 = x\n  | otherwise = f(x, i - 1) * 0.0 max 1.0\n"
     "print f(1e308 * 10.0, 3)\n", 3),
    ("int f(seq[dna] s, index[s] i)\n  | i == 0 = inf\n  | i == 1 = -inf\n"
     "  | otherwise = f(i - 1) max 0\n"
     "int g(seq[dna] s) = if sum(i in 0 ... len(s) : f(s, i)) > 0 then 1 else 2\n"
     'print g("ACG")\n', 5),
]


@pytest.mark.parametrize("src, line", UNDEFINED)
def test_undefined_arithmetic_is_an_error_everywhere(capsys, write_bio, backend, src, line):
    p = write_bio(src)
    expect_error(capsys, p, line=line, contains=("undefined arithmetic",),
                 args=("run", "--backend", backend))


def test_whole_table_with_undefined_cells_is_an_error(capsys, write_bio, backend):
    p = write_bio("int f(int i)\n  | i == 0 = inf\n  | otherwise = f(i - 1) - inf\n"
                  "r = f(3)\nprint r\n")
    expect_error(capsys, p, line=3, contains=("undefined arithmetic",),
                 args=("run", "--backend", backend))


def test_map_with_undefined_tasks_is_an_error(capsys, write_bio, backend):
    p = write_bio("int f(int k, int i)\n  | i == 0 = k\n  | otherwise = f(k, i - 1) + inf - inf\n"
                  "print map(f, 1 (*) 3)\n")
    expect_error(capsys, p, line=3, contains=("undefined arithmetic",),
                 args=("run", "--backend", backend))


def test_infinite_define_reaches_undefined_arithmetic(capsys, write_bio, backend):
    p = write_bio("const gap = 1\nint f(int i)\n  | i == 0 = 0 - gap\n"
                  "  | otherwise = f(i - 1) + gap\nprint f(3)\n")
    expect_error(capsys, p, line=4, contains=("undefined arithmetic",),
                 args=("run", "--backend", backend, "-D", "gap=inf"))


def test_infinite_values_that_are_defined_still_run(capsys, write_bio, backend):
    p = write_bio("int f(int i)\n  | i == 0 = -inf\n  | otherwise = f(i - 1) + 1 max i * 2\n"
                  "print f(3)\nfloat g(float x) = x * 2.0 + 1.0\nprint g(1e308 * 10.0)\n"
                  "int h(int k, seq[dna] s) = k + len(s)\n"
                  'db = load(seq[dna], "db.fasta")\nprint map(h, -inf (*) db)\n',
                  db__fasta=">a\nACG\n>b\nA\n")
    code, out, err = run_cli(capsys, "run", "--backend", backend, str(p))
    assert code == 0, err
    assert "f(3) = 6" in out and "g(1e308 * 10.0) = inf" in out and "-inf" in out


@pytest.mark.parametrize("value", ["nan", "1_000", "infinity", "0x10", "1e999",
                                   "99999999999999999999999"])
def test_define_takes_plain_numbers(capsys, write_bio, value):
    p = write_bio("const gap = 1\nprint gap\n")
    code, out, err = run_cli(capsys, "run", "-D", f"gap={value}", str(p))
    assert code == 2 and "Traceback" not in err
    assert "-D value" in err


def test_json_output_is_always_json(capsys, write_bio, backend):
    p = write_bio("const gap = 1.5\nfloat f(float x) = x * 2.0\nprint gap\nprint f(gap)\n")
    code, out, err = run_cli(capsys, "run", "--backend", backend, "--format", "json",
                             "-D", "gap=-inf", str(p))
    assert code == 0, err
    assert json.loads(out) == {"gap": "-inf", "f(gap)": "-inf"}
    code, out, err = run_cli(capsys, "run", "--backend", backend, "--format", "json",
                             "-D", "gap=nan", str(p))
    assert code == 2 and "NaN" not in out


@pytest.mark.parametrize("src, line", [
    ("int f(int i) = -9223372036854775807 - 2\nprint f(1)\n", 1),
    ("int f(int i) = i + 99999999999999999999999\nprint f(1)\n", 1),
    ("print 99999999999999999999999\n", 1),
    ("print 9223372036854775807 + 1\n", 1),
    ("int f(int i) = abs(i)\nprint f(-9223372036854775808)\n", 1),
    ("int f(int i) = -i\nprint f(-9223372036854775808)\n", 1),
])
def test_integers_outside_64_bits_are_errors(capsys, write_bio, backend, src, line):
    p = write_bio(src)
    expect_error(capsys, p, line=line, contains=("64 bits",), args=("run", "--backend", backend))


def test_least_int64_is_written_out(capsys, write_bio, backend):
    p = write_bio("int f(int i) = i + -9223372036854775808\nprint f(5)\n"
                  "print -9223372036854775808\n")
    code, out, err = run_cli(capsys, "run", "--backend", backend, str(p))
    assert code == 0, err
    assert "= -9223372036854775803" in out and "= -9223372036854775808" in out


def test_big_define_is_refused_before_compiling(capsys, write_bio, backend):
    p = write_bio("const gap = 1\nint f(int i) = i + gap\nprint f(1)\n")
    code, out, err = run_cli(capsys, "run", "--backend", backend,
                             "-D", "gap=99999999999999999999999", str(p))
    assert code == 2 and "Traceback" not in err and "64-bit" in err


BEYOND_DOUBLE = """\
prob a(int k) = 1e200
prob big(int k) = a(k) * a(k)
prob odds(seq[dna] x) = a(len(x)) * a(len(x)) * 1e-10
xs = load(seq[dna], "xs.fasta")
r = map(odds, xs)
print big(1)
print r
"""


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "tsv"])
def test_a_probability_beyond_the_largest_double_prints_with_its_log(capsys, write_bio,
                                                                     backend, fmt):
    """1e400 is a valid probability value (held as its log, 921.03): printed, its
    float is infinite and its log keeps it, in every format (no traceback)."""
    p = write_bio(BEYOND_DOUBLE, xs__fasta=">x1\nACGT\n>x2\nAC\n")
    code, out, err = run_cli(capsys, "run", "--backend", backend, "--format", fmt,
                             "--quiet", str(p))
    assert code == 0, err
    assert "921.03" in out
    if fmt == "json":
        got = json.loads(out)
        assert got["big(1)"] == {"prob": "inf", "log": pytest.approx(921.0340371976)}
        assert got["r"][0] == {"prob": "inf", "log": pytest.approx(898.0081863)}
    elif fmt == "text":
        assert "inf (log 921.03" in out


SCRIPT_PROBS = """\
prob a(int k) = 1e-200
prob half(int k) = 0.5
p = a(1)
h = half(1)
print p * p
print p * p / p
print p * p + p * p
print h / h
print p * 2
print 0.5 * h
print h + 0.25
print p * p max p
print p * p min p
print p * p < p
print p * p > 0
print h == 0.5
print p * p != p * p
"""


def test_script_arithmetic_on_probabilities_stays_in_log_space(capsys, write_bio):
    """Script statements hold probabilities as function bodies do: 1e-200 * 1e-200 is
    1e-400 (log -921.03), not a float's 0.0; a number with a probability becomes one,
    and comparisons compare the values, however far below a double's range."""
    p = write_bio(SCRIPT_PROBS)
    code, out, err = run_cli(capsys, "run", "--backend", "interp", "--format", "json",
                             "--quiet", str(p))
    assert code == 0, err
    got = json.loads(out)
    small = -921.0340371976183  # log 1e-400
    assert got["p * p"] == {"prob": 0.0, "log": pytest.approx(small)}
    assert got["p * p / p"]["log"] == pytest.approx(-460.5170185988)
    assert got["p * p + p * p"]["log"] == pytest.approx(small + 0.6931471805599453)
    assert got["h / h"] == {"prob": 1.0, "log": 0.0}
    assert got["p * 2"]["log"] == pytest.approx(-459.8238714182)
    assert got["0.5 * h"] == {"prob": pytest.approx(0.25), "log": pytest.approx(-1.3862943611)}
    assert got["h + 0.25"]["prob"] == pytest.approx(0.75)
    assert got["p * p max p"]["log"] == pytest.approx(-460.5170185988)
    assert got["p * p min p"]["log"] == pytest.approx(small)
    assert got["p * p < p"] is True and got["p * p > 0"] is True
    assert got["h == 0.5"] is True and got["p * p != p * p"] is False


@pytest.mark.parametrize("expr, col, message", [
    ("p - p", 7, "'-' is not defined on probabilities"),
    ("1 - p * p", 7, "'-' is not defined on probabilities"),
    ("p % 2", 7, "'%' needs ints, found prob and int"),
    ("-p", 7, "a probability cannot be negated"),
    ("-(p * p)", 7, "a probability cannot be negated"),
    ("p * -1", 11, "a probability cannot be negative (-1)"),
])
def test_script_refuses_on_probabilities_what_functions_refuse(capsys, write_bio, expr,
                                                                col, message):
    p = write_bio(f"prob a(int k) = 1e-200\np = a(1)\nprint {expr}\n")
    expect_error(capsys, p, line=3, col=col, contains=(message,),
                 args=("run", "--backend", "interp"))
    if expr != "p * -1":  # (a negative number is refused when the function runs)
        body = expr.replace("p", "a(k)")
        f = write_bio(f"prob a(int k) = 1e-200\nprob g(int k) = {body}\nprint g(1)\n",
                      name="in_function.bio")
        expect_error(capsys, f, line=2, contains=(message,), args=("check",))


@pytest.mark.parametrize("expr, message", [
    ("p - p", "'-' is not defined on probabilities"),
    ("p % p", "'%' needs ints, found prob and prob"),
])
def test_the_run_refuses_what_the_static_check_would(capsys, write_bio, monkeypatch, expr,
                                                     message):
    """Where a script's static types are not known, the run refuses the same."""
    import dslc.check.script as script_check

    monkeypatch.setattr(script_check, "refuse_prob_op", lambda *args: None, raising=False)
    p = write_bio(f"prob a(int k) = 1e-200\np = a(1)\nprint {expr}\n")
    expect_error(capsys, p, line=3, col=7, contains=(message,),
                 args=("run", "--backend", "interp"))
