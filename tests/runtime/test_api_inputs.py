"""What the Python API takes: a script as a path, text or Script, a backend by
name, params as ``--set`` takes them; every mistake one DslcError (never a raw
Python exception)."""

import numpy as np
import pytest

import dslc
from dslc.api import Script
from dslc.errors import DslcError


def test_compile_path_like(tmp_path):
    p = tmp_path / "ok.bio"
    p.write_text("x = 1\nprint x\n")
    assert dslc.compile(p, backend="interp").run() == {"x": 1}
    bad = tmp_path / "bad.bio"
    bad.write_text("x = \n")
    with pytest.raises(DslcError) as e:
        dslc.compile(bad)
    assert str(bad) in e.value.render()  # the file's name in the error's location
    with pytest.raises(DslcError):
        dslc.compile(tmp_path / "missing.bio")


@pytest.mark.parametrize("what", [123, None, b"x = 1\nprint x\n", ["x = 1"]])
def test_compile_refuses_other_types(what):
    with pytest.raises(DslcError) as e:
        dslc.compile(what)
    assert "dslc.compile takes a file path" in e.value.message


def test_script_constructors_check_types():
    with pytest.raises(DslcError, match="source text is a str"):
        Script.source(5)
    with pytest.raises(DslcError, match="named by a str or a path"):
        Script.file(5)


@pytest.mark.parametrize("backend", ["gpu", None, ["cpu"]])
def test_unknown_backend(backend):
    with pytest.raises(DslcError, match="unknown backend") as e:
        dslc.compile("x = 1\nprint x\n", backend=backend)
    assert "interp" in e.value.hint and "cpu" in e.value.hint


def test_run_unknown_backend():
    with pytest.raises(DslcError, match="unknown backend 'gpu'"):
        dslc.compile("x = 1\nprint x\n", backend="interp").run(backend="gpu")


def test_run_params_not_a_dict():
    prog = dslc.compile("param k = 3\nprint k\n", backend="interp")
    with pytest.raises(DslcError, match=r"run\(params=...\) takes a dict"):
        prog.run(params=[1, 2])
    assert prog.run(params={"k": 4}) == {"k": 4}


PSRC = ("param f = 0.5\nparam k = 3\n"
        "float h(const x, int i) = if i == 0 then x else h(i - 1) + x\nprint h(f, 2)\nprint k\n")


@pytest.mark.parametrize("given, words", [
    ({"f": float("nan")}, "param 'f' is NaN"),
    ({"f": np.float64("nan")}, "param 'f' is NaN"),
    ({"k": 10**30}, "param 'k' does not fit in a 64-bit integer"),
])
def test_run_params_refused_as_set_refuses(given, words):
    prog = dslc.compile(PSRC, backend="interp")
    with pytest.raises(DslcError) as e:
        prog.run(**given)
    assert words in e.value.message
    prog.set_params({k: str(v) for k, v in given.items()}, from_text=True)
    with pytest.raises(DslcError):  # --set refuses the same values
        prog.run_printed(quiet=True)


def test_run_params_infinity_and_numbers_taken():
    prog = dslc.compile(PSRC, backend="interp")
    assert prog.run(f=float("inf"), k=np.int64(5)) == {"h(f, 2)": float("inf"), "k": 5}
    assert prog.run(f=1) == {"h(f, 2)": 3.0, "k": 3}
