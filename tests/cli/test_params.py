"""Script parameters: ``param NAME [= default]``, ``--set NAME=VALUE`` (``-``:
standard input), keyword arguments in Python, one clear error per mistake."""

from __future__ import annotations

import io

import pytest

import dslc
from dslc.cli import main
from dslc.errors import DslcError

SCRIPT = """\
param db = "d.fa"
param query
param gap = 11
param scale = 0.5
int f(seq[protein] s, seq[protein] t) = len(s) + len(t)
q = load(seq[protein], query)
d = load(seq[protein], db)
print map(f, q (*) d)
print gap * scale
"""
FILES = {"d__fa": ">x\nAAAA\n>y\nCC\n", "q__fa": ">a\nMKV\n"}


@pytest.fixture
def script(write_bio):
    return str(write_bio(SCRIPT, **FILES))


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main(["run", "--backend", "interp", "--quiet", "--format", "jsonl", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_set_from_the_command_line(capsys, script, tmp_path):
    code, out, err = _run(capsys, script, "--set", f"query={tmp_path / 'q.fa'}",
                          "--set", "gap=3", "--set", "scale=2")
    assert code == 0, err
    assert out.splitlines() == ['{"q": "a", "d": "x", "map(f, q (*) d)": 7}',
                                '{"q": "a", "d": "y", "map(f, q (*) d)": 5}',
                                '{"print": "gap * scale", "value": 6.0}']


def test_dash_is_standard_input(capsys, script, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(">s1\nMKVLA\n>s2\nM\n"))
    code, out, err = _run(capsys, script, "--set", "query=-")
    assert code == 0, err
    assert [line.split('"')[3] for line in out.splitlines()[:4]] == ["s1", "s1", "s2", "s2"]
    assert out.splitlines()[-1] == '{"print": "gap * scale", "value": 5.5}'


@pytest.mark.parametrize("args, words", [
    (["--set", "query=q.fa", "--set", "gapp=3"], ["no 'param gapp'", "db, query, gap, scale"]),
    (["--set", "query=q.fa", "--set", "gap=1.5"], [":3:1:", "'gap' is an int", "'1.5'"]),
    (["--set", "query=q.fa", "--set", "scale=x"], [":4:1:", "'scale' is a number"]),
    ([], [":2:1:", "param 'query' has no default", "--set query="]),
    (["--set", "query"], ["--set expects name=value"]),
])
def test_mistakes_are_one_clear_error(capsys, script, args, words):
    code, out, err = _run(capsys, script, *args)
    assert code == 2 and "Traceback" not in err, err
    for w in words:
        assert w in err, err


def test_keyword_arguments_in_python(script, tmp_path):
    prog = dslc.compile(script, backend="interp")
    out = prog.run(query=str(tmp_path / "q.fa"), gap=4)
    assert out["gap * scale"] == 2.0 and out["map(f, q (*) d)"].values.tolist() == [[7, 5]]
    with pytest.raises(DslcError, match="'gap' is an int"):
        prog.run(query="q.fa", gap="4")
    with pytest.raises(DslcError, match="no 'param nope'"):
        prog.run(query="q.fa", nope=1)


@pytest.mark.parametrize("text, words", [
    ("param x = 1\nparam x = 2", ["declared twice"]),
    ("param x = y", ["must be a string or a number"]),
    ("int x = 5", ["'int x' is not a statement", "param x = ..."]),
])
def test_bad_declarations(text, words):
    with pytest.raises(DslcError) as e:
        dslc.compile(text)
    for w in words:
        assert w in e.value.render()


def test_param_is_not_a_keyword():
    """Programs written to the language contract may use ``param`` as a name."""
    prog = dslc.compile("int f(int param) = param + 1\nparam = f(2)\nprint param",
                        backend="interp")
    assert prog.run()["param"] == 3


def test_defines_still_set_consts(capsys, write_bio):
    path = write_bio("const k = 2\nparam m = 3\nprint k * m\n")
    code = main(["run", "--backend", "interp", str(path), "-D", "k=5", "--set", "m=7"])
    assert code == 0 and capsys.readouterr().out == "k * m = 35\n"
