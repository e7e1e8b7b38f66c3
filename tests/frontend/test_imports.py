"""``import "file.bio"`` and ``import stdlib.NAME`` (docs/language.md, "Imports").

Run on the interpreter (the point is the front end): relative paths from the
importing file, the library, a file imported twice, missing files, cycles, names
defined twice across files, errors located in the imported file, the parsed-script
cache following an imported file's edits, and random import graphs against a
reference computed from the graph alone.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.cli import main
from dslc.errors import DslcError


def _write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _run(path, *extra) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["run", str(path), "--backend", "interp", "--quiet", *extra])
    return code, out.getvalue(), err.getvalue()


def _values(path) -> dict:
    return dslc.compile(path, backend="interp").run()


def test_paths_are_relative_to_the_importing_file(tmp_path, monkeypatch):
    _write(tmp_path, {
        "proj/main.bio": 'import "lib/a.bio"\nimport stdlib.align\n'
                         'print twice(21)\nprint edit("ACGT", "AGT", 4, 3)\n',
        # a's own import is relative to lib/, not to main.bio's folder
        "proj/lib/a.bio": 'import "b.bio"\nint twice(int a) = 2 * one(a)\n',
        "proj/lib/b.bio": "int one(int a) = a\n",
    })
    monkeypatch.chdir(tmp_path)  # neither the script's folder nor lib/
    got = _values(tmp_path / "proj" / "main.bio")
    assert got == {"twice(21)": 42, 'edit("ACGT", "AGT", 4, 3)': 1}


def test_a_file_imported_twice_defines_its_names_once(tmp_path):
    _write(tmp_path, {
        "main.bio": 'import "a.bio"\nimport "b.bio"\nimport "./c.bio"\nprint f(1) + g(1)\n',
        "a.bio": 'import "c.bio"\nint f(int x) = h(x)\n',
        "b.bio": 'import "c.bio"\nint g(int x) = h(x) + 1\n',
        "c.bio": "int h(int x) = 10 * x\n",
    })
    assert _values(tmp_path / "main.bio") == {"f(1) + g(1)": 21}


def test_source_text_imports_from_the_working_directory(tmp_path, monkeypatch):
    _write(tmp_path, {"a.bio": "int f(int x) = x + 1\n"})
    monkeypatch.chdir(tmp_path)
    assert dslc.compile('import "a.bio"\nprint f(1)\n', backend="interp").run() == {"f(1)": 2}


def _located(err: str, file: str, line: int, col: int, words: str) -> None:
    assert "Traceback" not in err
    head = err.splitlines()[0]
    assert head.startswith(f"{file}:{line}:{col}: error: "), err
    assert words in head, err


def test_missing_file_is_an_error_at_the_import(tmp_path, monkeypatch):
    _write(tmp_path, {"main.bio": 'int f(int x) = x\n  import "gone.bio"\nprint f(1)\n'})
    monkeypatch.chdir(tmp_path)
    code, out, err = _run("main.bio")
    assert code == 2 and out == ""
    _located(err, "main.bio", 2, 3, "cannot open imported file")
    assert "gone.bio" in err and 'import "gone.bio"' in err  # the line quoted


@pytest.mark.parametrize("target,words", [("stdlib.nope", "no module 'stdlib.nope'"),
                                          ("numpy.linalg", "no library 'numpy'")])
def test_unknown_library_module(tmp_path, monkeypatch, target, words):
    _write(tmp_path, {"main.bio": f"import {target}\n"})
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("main.bio")
    assert code == 2
    _located(err, "main.bio", 1, 1, words)
    assert "stdlib.hmm" in err  # the modules there are


def test_cycle_is_an_error_at_the_import_that_closes_it(tmp_path, monkeypatch):
    _write(tmp_path, {"main.bio": 'import "a.bio"\nprint 1\n',
                      "a.bio": '// a\nimport "b.bio"\n',
                      "b.bio": 'int g(int x) = x\n\nimport "a.bio"\n'})
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("main.bio")
    assert code == 2
    _located(err, "b.bio", 3, 1, "import cycle: a.bio imports b.bio, which imports a.bio")


def test_a_script_importing_itself_is_a_cycle(tmp_path, monkeypatch):
    _write(tmp_path, {"main.bio": 'import "../x/main.bio"\n'})
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "main.bio").write_text('import "main.bio"\n')
    monkeypatch.chdir(tmp_path / "x")
    code, _, err = _run("main.bio")
    assert code == 2
    _located(err, "main.bio", 1, 1, "import cycle: main.bio imports main.bio")


def test_name_clash_with_the_script_names_both_places(tmp_path, monkeypatch):
    _write(tmp_path, {"main.bio": 'import stdlib.align\n\nint edit(int a) = a\n'})
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("main.bio")
    assert code == 2
    _located(err, "main.bio", 3, 1, "function 'edit' is defined twice (first at ")
    assert re.search(r"first at \S*stdlib/align\.bio:\d+:1\)", err), err


def test_name_clash_between_two_imported_files(tmp_path, monkeypatch):
    _write(tmp_path, {"main.bio": 'import "a.bio"\nimport "b.bio"\n',
                      "a.bio": "const k = 1\n", "b.bio": "\n\nint k(int x) = x\n"})
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("main.bio")
    assert code == 2
    _located(err, "b.bio", 3, 1, "'k' is defined twice (first at a.bio:1:1, as a constant")


def test_errors_in_imported_definitions_keep_their_own_file(tmp_path, monkeypatch):
    _write(tmp_path, {"main.bio": '\n\nimport "lib/a.bio"\nprint f(2)\n',
                      "lib/a.bio": "// helpers\nint f(int x) =\n    x + nope\n",
                      "syntax.bio": 'import "lib/bad.bio"\n',
                      "lib/bad.bio": "int g(int x) = x +\n"})
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("main.bio")
    assert code == 2
    _located(err, "lib/a.bio", 3, 9, "undefined name 'nope'")
    assert "    x + nope" in err  # the imported file's line is quoted, not main.bio's
    code, _, err = _run("syntax.bio")
    assert code == 2
    _located(err, "lib/bad.bio", 1, 18, "syntax error")  # as in a script


@pytest.mark.parametrize("stmt,what", [("print 3", "a print statement"),
                                       ("x = 3", "an assignment"),
                                       ("param db = 3", "a script parameter")])
def test_imported_files_hold_definitions_only(tmp_path, monkeypatch, stmt, what):
    _write(tmp_path, {"main.bio": 'import "a.bio"\n', "a.bio": f"int f(int x) = x\n{stmt}\n"})
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("main.bio")
    assert code == 2
    _located(err, "a.bio", 2, 1, f"{what} in an imported file")


@pytest.mark.parametrize("text,words", [
    ("import stdlib\n", "import a file by its path in quotes"),
    ("import\n", "syntax error"),
    ('import ""\n', "import of an empty file name"),
    ('imports "a.bio"\n', "'imports' is not a statement"),
])
def test_malformed_imports(tmp_path, monkeypatch, text, words):
    _write(tmp_path, {"main.bio": text})
    monkeypatch.chdir(tmp_path)
    code, _, err = _run("main.bio")
    assert code == 2 and "Traceback" not in err
    assert re.match(r"main\.bio:1:\d+: error: ", err) and words in err, err


def test_import_is_no_keyword(tmp_path):
    # the contract's keywords are unchanged: a script may still name things `import`
    prog = dslc.compile("int import(int a) = a + 1\nimport_ = 2\nprint import(import_)\n",
                        backend="interp")
    assert prog.run() == {"import(import_)": 3}


def test_the_parsed_cache_follows_the_imported_files_text(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    _write(tmp_path, {"main.bio": 'import "a.bio"\nprint f(1)\n', "a.bio": "int f(int x) = x\n"})
    assert _values(tmp_path / "main.bio") == {"f(1)": 1}
    assert _values(tmp_path / "main.bio") == {"f(1)": 1}  # main.bio read back from the cache
    assert list((tmp_path / "cache").rglob("ast_*.json")), "nothing was cached"
    (tmp_path / "a.bio").write_text("int f(int x) = x + 41\n")
    assert _values(tmp_path / "main.bio") == {"f(1)": 42}
    (tmp_path / "a.bio").write_text("int f(int x) = x +\n")
    with pytest.raises(DslcError, match="syntax error"):
        _values(tmp_path / "main.bio")


# --------------------------------------------------------------------------- random graphs

N = 4


def _reachable_cycle(edges: dict[int, set[int]], roots: set[int]) -> bool:
    """Whether the files reachable from ``roots`` import each other in a cycle: the
    reachable subgraph, its files with no imports left removed repeatedly (Kahn),
    still has a file."""
    seen, todo = set(), list(roots)
    while todo:
        k = todo.pop()
        if k not in seen:
            seen.add(k)
            todo.extend(edges[k])
    left = {k: set(edges[k]) for k in seen}
    while True:
        done = [k for k, out in left.items() if not out]
        if not done:
            return bool(left)
        for k in done:
            del left[k]
        for out in left.values():
            out.difference_update(done)


def _reachable(edges, roots) -> set[int]:
    seen, todo = set(), list(roots)
    while todo:
        k = todo.pop()
        if k not in seen:
            seen.add(k)
            todo.extend(edges[k])
    return seen


@st.composite
def graphs(draw):
    edges = {k: set(draw(st.sets(st.integers(0, N - 1), max_size=2))) for k in range(N)}
    roots = draw(st.sets(st.integers(0, N - 1), min_size=1, max_size=3))
    return edges, roots


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(graph=graphs())
def test_random_import_graphs(tmp_path_factory, graph):
    edges, roots = graph
    root = tmp_path_factory.mktemp("g")
    files = {"main.bio": "".join(f'import "f{k}.bio"\n' for k in sorted(roots))}
    for k in range(N):
        files[f"f{k}.bio"] = "".join(f'import "f{j}.bio"\n' for j in sorted(edges[k])) \
            + f"int g{k}(int a) = a + {10 ** k}\n"
    reached = _reachable(edges, roots)
    files["main.bio"] += "print " + " + ".join(f"g{k}(0)" for k in sorted(reached)) + "\n"
    _write(root, files)
    if _reachable_cycle(edges, roots):
        with pytest.raises(DslcError, match="import cycle"):
            _values(root / "main.bio")
    else:
        (got,) = _values(root / "main.bio").values()
        assert got == sum(10 ** k for k in reached)
