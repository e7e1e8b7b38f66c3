"""Every backend satisfies the declared protocol (dslc.interp.protocol.Backend): the
members the script runner and the API call, with the protocol's parameters, so a new
backend, or a change to one, that drifts from it fails here rather than in a run."""

from __future__ import annotations

import inspect

import pytest

import dslc
from dslc.auto import AutoBackend
from dslc.cluster.backend import ShardedBackend
from dslc.cpu.backend import CpuBackend
from dslc.interp.backend import InterpBackend
from dslc.interp.protocol import Backend
from dslc.options import CompileOptions
from dslc.runtime.script import backend_globals
from dslc.timings import Collector, Timed

METHODS = ("value", "table", "map")
CLASSES = [InterpBackend, CpuBackend, AutoBackend, ShardedBackend, Timed]


def _cuda():
    from dslc.cuda.backend import CudaBackend

    return CudaBackend


def _params(fn) -> list[tuple[str, object]]:
    """Parameter names and defaults after ``self``."""
    return [(p.name, p.default) for p in list(inspect.signature(fn).parameters.values())[1:]]


@pytest.mark.parametrize("cls", CLASSES + [pytest.param(None, id="CudaBackend")],
                         ids=lambda c: getattr(c, "__name__", "CudaBackend"))
def test_every_backend_class_has_the_protocol_s_methods(cls):
    cls = cls or _cuda()
    for name in METHODS:
        assert _params(getattr(cls, name)) == _params(getattr(Backend, name)), (cls, name)


@pytest.fixture(scope="module")
def program():
    return dslc.compile("int f(int n) = if n == 0 then 0 else f(n - 1) + n\nprint f(3)\n",
                        backend="interp").checked


def test_each_backend_made_by_name_is_one_and_answers_as_the_interpreter(program):
    """Made as the API makes them (dslc.backends.make, with options), each is a
    Backend and gives the specification's value."""
    from dslc import backends

    options = CompileOptions.from_settings()
    want = InterpBackend(program, backend_globals(program)).value("f", {"n": 3}, None)
    made = {name: backends.make(name, options)(program, backend_globals(program))
            for name in ("interp", "cpu", "auto")}
    if _cuda().available():
        made["cuda"] = backends.make("cuda", options)(program, backend_globals(program))
    made["timed"] = Timed(made["cpu"], Collector())
    for name, engine in made.items():
        assert isinstance(engine, Backend), name
        assert engine.value("f", {"n": 3}, None) == want == 6, name
        assert engine.map("f", [{"n": 3}, {"n": 0}], None) == [6, 0], name
    assert made["cpu"].options is options and made["auto"].options is options


def test_a_class_missing_a_member_is_not_a_backend():
    class NoMap:
        name = "x"
        program = None

        def value(self, func, args, span, description=""):
            return 0

        def table(self, func, calling, span, description=""):
            return None

    assert not isinstance(NoMap(), Backend)
