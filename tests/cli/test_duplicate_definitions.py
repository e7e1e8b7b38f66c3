"""A name defined twice in a script is one located error naming the first
definition, whatever the kinds of the two (alphabet, matrix, model, constant,
function, schedule); the standard library's names may be defined once."""

from __future__ import annotations

import pytest

from tests.cli.test_errors import expect_error, run_cli

MATRIX = """\
define matrix m[dna] {
 A C G T
A 1 0 0 0
C 0 1 0 0
G 0 0 1 0
T 0 0 0 1
}
"""


@pytest.mark.parametrize("text, line, contains", [
    ('define alphabet a "AC"\ndefine alphabet a "GT"\nint f(seq[a] s) = len(s)\n'
     'print f("GT")\n', 2, ("alphabet 'a' is defined twice", "first at line 1")),
    (MATRIX + MATRIX + 'int f(matrix q, seq[dna] s) = q[s[0], s[0]]\nprint f(m, "A")\n', 8,
     ("matrix 'm' is defined twice", "first at line 1")),
    ("const g = 1\nint g(int x) = x + 10\nint f(int x) = x + g\nprint f(0)\n", 2,
     ("'g' is defined twice", "first at line 1", "constant", "function")),
    ("int g(int x) = x + 10\nconst g = 1\nprint g\n", 2,
     ("'g' is defined twice", "first at line 1")),
    ("int g(int x) = x\nint h(int x) = x\nint g(int x) = x + 1\nprint g(1)\n", 3,
     ("function 'g' is defined twice", "first at line 1")),
    (MATRIX + "const m = 3\nprint m\n", 8, ("'m' is defined twice", "first at line 1")),
    ("int d(int n)\n  | n == 0 = 0\n  | otherwise = d(n - 1)\n"
     "schedule d(n) = n\nschedule d(n) = 2 * n\nprint d(3, 3)\n", 5,
     ("'d' has two schedules", "first at line 4")),
])
def test_a_second_definition_is_an_error_naming_the_first(capsys, write_bio, text, line,
                                                          contains):
    p = write_bio(text)
    expect_error(capsys, p, line=line, col=1, contains=contains)


def test_the_hint_gives_the_first_definition_position(capsys, write_bio):
    p = write_bio('x = 1\ndefine alphabet a "AC"\ndefine alphabet a "GT"\n')
    expect_error(capsys, p, line=3, contains=(f"{p}:2:1",), args=("check",))


def test_standard_names_may_be_defined_once(capsys, write_bio):
    p = write_bio('define alphabet dna "TGCA"\n' + MATRIX.replace("matrix m", "matrix blosum62")
                  + 'int f(seq[dna] s) = len(s)\nprint f("TTGCA")\n')
    code, out, err = run_cli(capsys, "run", str(p))
    assert code == 0, err
    assert "5" in out
