"""A parsed program kept as JSON (dslc.frontend.stored) and read back instead of
parsing (dslc.runtime.parsed): the same program, spans that still quote their source,
entries that are checked, and a run of a kept script that imports no parser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from dslc.errors import DslcError, SourceName, source_text
from dslc.frontend import ast, parser, stored
from dslc.runtime import parsed
from tests.frontend.test_parser import contract_blocks
from tests.generators import ENTRY_REPLACEMENTS, entry_replacements, recurrences

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted([*ROOT.glob("examples/*.bio"), *ROOT.glob("stdlib/*.bio")])


def _spans(x):
    """Every Span in a program."""
    if isinstance(x, tuple):
        for v in x:
            yield from _spans(v)
    elif hasattr(x, "__dataclass_fields__"):
        if type(x).__name__ == "Span":
            yield x
        for name in x.__dataclass_fields__:
            yield from _spans(getattr(x, name))


def _round_trip(text: str, name: str = "prog.bio") -> None:
    program = parser.parse(text, name)
    back = stored.loads(stored.dumps(program), program.source_name)
    assert back == program
    spans = list(_spans(back))
    assert spans and all(isinstance(s.file, SourceName) and s.file.text == text for s in spans)
    assert isinstance(back.source_name, SourceName)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_shipped_script_reads_back_as_parsed(path):
    _round_trip(path.read_text(), str(path))


@pytest.mark.parametrize("k", range(len(contract_blocks())))
def test_every_contract_program_reads_back_as_parsed(k):
    _round_trip(contract_blocks()[k])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recurrences())
def test_random_recurrences_read_back_as_parsed(rec):
    _round_trip(rec.source())


def test_ints_floats_and_infinities_keep_their_kind():
    text = "const a = 1\nconst b = 1.0\nconst c = 1e308 * 10\nprint a + b\nprint inf\n"
    program = parser.parse(text, "k.bio")
    back = stored.loads(stored.dumps(program), program.source_name)
    nums = [x for x in _walk(back) if isinstance(x, ast.Num)]
    assert [type(n.value) for n in nums] == [type(n.value) for n in _walk(program)
                                             if isinstance(n, ast.Num)]
    assert back == program


def _walk(x):
    if isinstance(x, tuple):
        for v in x:
            yield from _walk(v)
    elif hasattr(x, "__dataclass_fields__"):
        yield x
        for name in x.__dataclass_fields__:
            yield from _walk(getattr(x, name))


@pytest.mark.parametrize("bad", [
    "", "[]", "{}", '{"@": "Program"}', '{"@": "os.system", "source_name": "x"}',
    '{"@": "Program", "source_name": "x", "stmts": [], "extra": 1}',
    '{"@": "Program", "source_name": "x", "stmts": [{"@": "Num"}]}',
    '{"@": "Span", "file": "x", "line": 1, "col": 1}',  # (a node, not a program)
])
def test_anything_but_a_kept_program_reads_as_none(bad):
    assert stored.loads(bad, "x") is None


def test_a_program_nested_deeper_than_kept_is_not_stored():
    n = stored.MAX_DEPTH + 5
    deep = "print " + "(1 + " * n + "1" + ")" * n + "\n"
    program = parser.parse(deep, "deep.bio")
    assert program.depth > stored.MAX_DEPTH and stored.dumps(program) is None


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


TEXT = ("const n = 3\nint fib(int i)\n  | i < 2 = i\n  | otherwise = fib(i - 1) + fib(i - 2)\n"
        "print fib(n)\n")


def test_a_second_parse_reads_the_kept_program(cache, monkeypatch):
    first = parsed.parse(TEXT, "fib.bio")
    assert len(list(cache.glob("ast_*.json"))) == 1

    def no_parser(*a, **k):
        raise AssertionError("parsed again")
    monkeypatch.setattr(parser, "parse", no_parser)
    again = parsed.parse(TEXT, "fib.bio")
    assert again == first
    assert source_text(next(iter(_spans(again))).file) == TEXT


def test_another_name_or_text_is_parsed_afresh(cache):
    parsed.parse(TEXT, "fib.bio")
    other = parsed.parse(TEXT, "other.bio")
    assert all(s.file == "other.bio" for s in _spans(other))
    parsed.parse(TEXT + "print 1\n", "fib.bio")
    assert len(list(cache.glob("ast_*.json"))) == 3


def test_an_edited_entry_is_parsed_again(cache, monkeypatch):
    parsed.parse(TEXT, "fib.bio")
    entry = next(cache.glob("ast_*.json"))
    check, body = entry.read_text().split("\n", 1)
    entry.write_text(check + "\n" + body.replace('"fib"', '"fob"'))
    calls = []
    real = parser.parse
    monkeypatch.setattr(parser, "parse", lambda *a: calls.append(a) or real(*a))
    program = parsed.parse(TEXT, "fib.bio")
    assert calls and program == real(TEXT, "fib.bio")


def test_a_syntax_error_is_reported_as_before_and_not_kept(cache):
    with pytest.raises(DslcError) as got:
        parsed.parse("print (1 +\n", "bad.bio")
    with pytest.raises(DslcError) as want:
        parser.parse("print (1 +\n", "bad.bio")
    assert str(got.value) == str(want.value)
    assert not list(cache.glob("ast_*.json"))


def test_a_run_of_a_kept_script_imports_no_parser(tmp_path):
    script = tmp_path / "fib.bio"
    script.write_text(TEXT)
    env = dict(os.environ, DSLC_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    code = ("import sys, runpy; sys.argv = ['dslc', 'run', '--backend', 'interp', 'fib.bio']\n"
            "from dslc.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "import json; print(json.dumps(sorted(m for m in sys.modules "
            "if m.split('.')[0] == 'lark' or m == 'dslc.frontend.parser')))\n")
    runs = [subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout.splitlines()
            for _ in range(2)]
    assert runs[0][0] == runs[1][0] == "fib(n) = 2"
    assert "lark" in json.loads(runs[0][-1])  # the first run parsed
    assert json.loads(runs[1][-1]) == []  # the second read the program back


def test_a_run_without_a_usable_cache_parses_and_says_nothing_of_it(tmp_path):
    """No usable default cache directory (``~/.cache`` a file): an interpreted run,
    which needs no cache, parses its script and prints no warning."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".cache").write_text("not a directory")
    (tmp_path / "fib.bio").write_text(TEXT)
    env = {k: v for k, v in os.environ.items() if k != "DSLC_CACHE_DIR"}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT))
    got = subprocess.run([sys.executable, "-m", "dslc.cli", "run", "--backend", "interp",
                          "fib.bio"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert (got.returncode, got.stdout, got.stderr) == (0, "fib(n) = 2\n", "")


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(replacement=entry_replacements())
def test_anything_but_a_regular_file_at_a_kept_program_is_parsed_again(tmp_path_factory,
                                                                      replacement):
    """A FIFO, a link (to a device, elsewhere) or a directory at a kept program's
    name: the script is parsed as on a first run, nothing blocks or fails."""
    text = "int f(int n) = n + 1\nprint f(2)\n"
    with pytest.MonkeyPatch.context() as mp:
        d = tmp_path_factory.mktemp("kept") / "cache"
        mp.setenv("DSLC_CACHE_DIR", str(d))
        first = parsed.parse(text, "prog.bio")
        [entry] = d.glob("ast_*.json")
        entry.unlink()
        ENTRY_REPLACEMENTS[replacement](entry)
        again = parsed.parse(text, "prog.bio")
    assert again == first
