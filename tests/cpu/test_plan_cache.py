"""The on-disk plan cache (dslc.cpu.modules.plan_key): what decides generated
code decides the key, the installed extensions' compiled forms included."""

from __future__ import annotations

import dataclasses
import types

import dslc
from dslc import sdk
from dslc.cpu.modules import plan_key
from dslc.options import CompileOptions
from dslc.store.key import extensions_digest


def _program(src="int f(int n) = n\nprint f(1)\n"):
    return dslc.compile(src, backend="interp").checked


def _key(program, registry):
    view = types.SimpleNamespace(ast=program.ast, consts=program.consts, registry=registry)
    return plan_key(view, "f", "value", None, {"n": 1}, options=CompileOptions())


def test_the_key_is_stable_across_compilations():
    assert _key(_program(), _program().registry) == _key(_program(), _program().registry)


def test_an_edited_compiled_form_changes_the_key():
    """An extension author who edits an accessor's compiled form (here the hmm
    extension's k.prev) must get new code, not the plan cached from the old one."""
    program = _program()
    reg = program.registry
    prev = reg.accessors[("pnode", "prev")]
    edited = dict(reg.accessors)
    edited[("pnode", "prev")] = dataclasses.replace(prev, device=sdk.RECV - 1)
    other = dataclasses.replace(reg, accessors=edited)
    assert extensions_digest(other) != extensions_digest(reg)
    assert _key(program, other) != _key(program, reg)
    bounds = dict(reg.accessors)
    bounds[("pnode", "prev")] = dataclasses.replace(prev, bounds=sdk.ANY)
    assert _key(program, dataclasses.replace(reg, accessors=bounds)) != _key(program, reg)
