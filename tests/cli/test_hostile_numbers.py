"""Numbers no reader may take: digits outside ASCII (Python's int() and float()
read them), ints with more digits than 64 bits allow (past 4,300 Python refuses
to convert them at all) and floats that overflow to infinity. Each, wherever a
number is read from text (a script literal, a const array, -D, --set, an ints or
floats file, a matrix file), is one message giving the reason, exit status 2, no
traceback (dslc.numtext). Drawn by tests/generators.hostile_numbers; the
interpreter suffices: the refusal comes before any backend runs."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.cli import main
from tests.generators import HOSTILE_REASONS, hostile_numbers

LOCATED = re.compile(r"^\S.*?:\d+:\d+: error: ", re.M)
COMMAND_LINE = re.compile(r"^error: -D ")

# in-process runs here give --setting, which holds for the rest of the process
pytestmark = pytest.mark.usefixtures("settings_restored")


MATRIX = "   A  C  G  T\nA  2 -1 -1 -1\nC -1  2 -1 -1\nG -1 -1  2 -1\nT -1 -1 -1  X\n"


def _site(site: str, number: str) -> tuple[str, list[str], dict[str, str]]:
    """(script, extra arguments, data files) that read ``number`` at ``site``."""
    if site == "literal":
        return f"int f(int i) = i + 1\nprint f({number})\n", [], {}
    if site == "const array":
        return f"const w = [1, {number}, 3]\nint f(int i) = w[i]\nprint f(0)\n", [], {}
    if site == "-D":
        return "const gap = 1\nprint gap\n", ["-D", f"gap={number}"], {}
    if site == "--set":
        return "param n = 1\nprint n\n", ["--set", f"n={number}"], {}
    if site in ("ints file", "floats file"):
        kind = site.split()[0]
        value = kind[:-1].replace("ints", "int")
        return (f'const w = load({kind}, "w.txt")\n{value} f(int i) = w[i]\nprint f(0)\n', [],
                {"w.txt": f"1 2\n3 {number} 4\n"})
    assert site == "matrix file"
    return ('define alphabet dna "ACGT"\nm = load(matrix[dna], "m.txt")\n'
            'int f(matrix sm, seq[dna] s) = sm[s[0], s[0]]\nprint f(m, "A")\n', [],
            {"m.txt": MATRIX.replace("X", number)})


SITES = ["literal", "const array", "-D", "--set", "ints file", "floats file", "matrix file"]


def _reason(site: str, kind: str, number: str) -> str | None:
    """The piece of the message the refusal must hold; None where the number is
    a fine value there (an int of 20 digits is a float in a floats file)."""
    if kind == "huge" and site == "floats file":
        return None if len(number.lstrip("0")) < 309 else HOSTILE_REASONS["overflow"]
    if kind == "overflow" and site == "ints file":
        return "is not an int"  # (a float in an ints file, whatever its size)
    return HOSTILE_REASONS[kind]


def _run(tmp_path, script: str, args: list[str], files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    path = tmp_path / "n.bio"
    path.write_text(script, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["run", str(path), "--backend", "interp", "--quiet", *args])
        except SystemExit as e:
            code = e.code
        except BaseException as e:  # noqa: BLE001 - the very thing this test looks for
            code = e
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(number=hostile_numbers(), site=st.sampled_from(SITES))
def test_a_hostile_number_is_one_error_wherever_it_is_read(tmp_path, number, site):
    kind, text = number
    code, out, err = _run(tmp_path, *_site(site, text))
    assert not isinstance(code, BaseException), f"{site}: {type(code).__name__}: {code}"
    assert "Traceback" not in err, err
    want = _reason(site, kind, text)
    if want is None:
        assert code == 0, err
        return
    assert code == 2, (site, kind, out, err)
    assert LOCATED.search(err) or COMMAND_LINE.match(err), f"{site}: no location:\n{err}"
    assert want in err, (site, kind, err)
    assert len(err) < 2000, "the message quotes the whole number"


def test_a_foreign_digit_in_a_script_is_pointed_at(tmp_path):
    code, _, err = _run(tmp_path, "x = 1\nprint x + ١٢\n", [], {})
    assert code == 2
    assert err.startswith(f"{tmp_path / 'n.bio'}:2:11: error: '١' (ARABIC-INDIC DIGIT ONE) "
                          "is not an ASCII digit"), err
    assert err.splitlines()[2] == "            ^"


@pytest.mark.parametrize("text", ["9223372036854775807", "-9223372036854775808",
                                  "000000000000000000000000000012", "0" * 5000 + "12", "1e308",
                                  "1e-999", "inf", "-inf"])
def test_the_edges_of_what_is_accepted_still_read(tmp_path, text):
    code, out, err = _run(tmp_path, f"print {text}\n", [], {})
    assert code == 0, err
    code, out2, err = _run(tmp_path, "const c = 0\nprint c\n", ["-D", f"c={text}"], {})
    assert code == 0, err
    assert out.split("=", 1)[1] == out2.split("=", 1)[1]


@pytest.mark.parametrize("setting", ["--setting", "env"])
def test_a_setting_in_foreign_digits_is_refused(tmp_path, monkeypatch, setting):
    args = []
    if setting == "env":
        monkeypatch.setenv("DSLC_MAX_LOAD_BYTES", "１２")
    else:
        args = ["--setting", "DSLC_MAX_LOAD_BYTES=" + "9" * 5000]
    code, _, err = _run(tmp_path, "print 1\n", args, {})
    assert code == 2 and "Traceback" not in err
    assert err.startswith("error: ") and "DSLC_MAX_LOAD_BYTES" in err and len(err) < 600, err


@pytest.mark.parametrize("site", ["ints file", "matrix file", "--set"])
def test_leading_zeros_past_pythons_digit_limit_still_read(tmp_path, site):
    script, args, files = _site(site, "0" * 5000 + "7")
    code, out, err = _run(tmp_path, script, args, files)
    assert code == 0, err
    want = {"ints file": "f(0) = 1", "matrix file": 'f(m, "A") = 2', "--set": "n = 7"}[site]
    assert out.strip() == want


@pytest.mark.parametrize("option, value, says", [
    ("--top", "١٢", "is not an ASCII digit"), ("--top", "3.5", "is not a whole number"),
    ("--top", "9" * 5000, "does not fit"), ("--min-score", "1e999", "too large for a float"),
    ("--max-evalue", "nan", "is not a number"), ("--min-score", "２", "is not an ASCII digit"),
])
def test_a_number_option_is_read_as_d_reads_numbers(tmp_path, option, value, says):
    code, _, err = _run(tmp_path, "print 1\n", ["--format", "tsv", option, value], {})
    assert code == 2 and err.startswith("usage: ") and says in err, err
    assert len(err) < 1500
