"""Code generation is composed, not inherited: no class of the compiler overrides a
private method of a class it derives from (read off the source alone), no class
replaces any method of a class of code generation or its IRs (a strategy's own ways
are its builder's pieces, rules and passes); and a strategy is a row of the table
(dslc.emit.strategies): a builder and its passes, a new one written without touching
the compiler's other files."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from dslc.kernel import body as kb
from dslc.kernel import ir

DSLC = Path(__file__).parents[2] / "dslc"


def _classes(sources: dict[str, str]) -> dict[str, list[tuple[str, list[str], set[str]]]]:
    """class name -> (file, base names, methods) of each class of that name in
    ``sources`` (file name -> its text)."""
    out: dict = {}
    for path, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                         if isinstance(b, (ast.Name, ast.Attribute))]
                methods = {m.name for m in node.body
                           if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
                out.setdefault(node.name, []).append((path, bases, methods))
    return out


def _inherited(classes, name: str, seen: frozenset) -> set[str]:
    """Every method of class ``name`` and of the classes it derives from (in dslc/)."""
    out = set()
    for _, bases, methods in classes.get(name, ()):
        out |= methods
        for b in bases:
            if b not in seen:
                out |= _inherited(classes, b, seen | {b})
    return out


def private_overrides(sources: dict[str, str]) -> list[str]:
    """``file: Class.method`` for each private method a class defines over one of a
    class it derives from (by name, within ``sources``)."""
    classes = _classes(sources)
    found = []
    for name, defs in classes.items():
        for path, bases, methods in defs:
            above = set().union(*[_inherited(classes, b, frozenset({name, b})) for b in bases])
            found += [f"{path}: {name}.{m}" for m in sorted(methods & above)
                      if m.startswith("_") and not m.startswith("__")]
    return found


def test_no_class_overrides_a_private_method_of_its_base():
    sources = {str(p.relative_to(DSLC)): p.read_text() for p in sorted(DSLC.rglob("*.py"))}
    assert private_overrides(sources) == []


def test_the_finder_sees_an_override_through_a_base_of_a_base_in_another_module():
    """(The test above can fail: private overrides in a module's text are found.)"""
    assert private_overrides({
        "a.py": "class A:\n    def _h(self): pass\n    def __init__(self): pass\n",
        "b.py": "import a\nclass B(a.A):\n    def g(self): pass\n"
                "class C(B):\n    def _h(self): pass\n    def __init__(self): pass\n"
                "    def g(self): pass\n"}) == ["b.py: C._h"]


def _reversed(stmts: tuple) -> tuple:
    """A pass: each partition's points from last to first, every parallel loop of step
    1 run backwards (the points of a partition do not read each other, so any order of
    them is the same sweep)."""
    out = []
    for s in stmts:
        if isinstance(s, kb.If):
            s = replace(s, body=_reversed(s.body),
                        orelse=None if s.orelse is None else _reversed(s.orelse))
        elif kb.children(s):
            s = replace(s, body=_reversed(s.body))
        if isinstance(s, kb.Loop) and s.kind == "parallel" and s.over[2:] == (ir.Const(1),):
            lo, end = s.over[:2]
            s = replace(s, over=(ir.bare("-", end, ir.Const(1)), ir.bare("-", lo, ir.Const(1)),
                                 ir.Const(-1)))
        out.append(s)
    return tuple(out)


def test_a_new_strategy_is_a_pass_and_a_row_of_the_table(monkeypatch, tmp_path):
    """The recipe of docs/decisions/builders.md: a sweep whose partitions' points run
    in reverse is the CPU's builder given one pass more, in a row of its own; its code
    differs from the plain task's, and the CPU backend running it (in the plain row's
    place) computes what the interpreter does."""
    import dslc
    from dslc.emit import strategies as es
    from dslc.kernel.strategies import Pass
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call
    from tests.test_properties import EDIT

    backwards = Pass("reversed points", _reversed, "each partition's points, last first")
    row = replace(es.strategy("cpu plain"), key="cpu reversed", body=(backwards,))
    prog = dslc.compile(EDIT, backend="interp")
    s, t = "ACGTTGCA", "AGTTCA"
    args = bind_call(prog.checked.functions["d"], [s, len(s), t, len(t)], prog.checked, None)
    plan = lower(prog.checked, "d", "cell", args, (len(s), len(t))).task
    plain = es.build(es.strategy("cpu plain"), prog.checked, plan).generate()[0]
    turned = es.build(row, prog.checked, plan).generate()[0]
    assert ", -1):" in turned and ", -1):" not in plain
    assert turned.replace(", -1):", "") != plain

    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(es.BY_KEY, "cpu plain", row)
    cpu = dslc.compile(EDIT, backend="cpu")
    for s, t in (("ACGTTGCA", "AGTTCA"), ("", "ACG"), ("GATTACA", "TACGATTA")):
        assert cpu.call("d", s, len(s), t, len(t)) == prog.call("d", s, len(s), t, len(t))
    assert ", -1):" in cpu._engine().generated["d"][1]


def test_the_plan_hands_on_records_that_the_backend_prints():
    """The driver's ``emit`` gives the module as records (kernel.module): the task a
    function of kernel IR statements; printed by the CPU's printer it is the text the
    generator gives."""
    import dslc
    from dslc.emit import strategies as es
    from dslc.kernel.module import Function, Module
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call
    from dslc.targets.printer import Printer
    from tests.test_properties import EDIT

    prog = dslc.compile(EDIT, backend="interp")
    s, t = "ACGTTGCA", "AGTTCA"
    args = bind_call(prog.checked.functions["d"], [s, len(s), t, len(t)], prog.checked, None)
    plain = es.strategy("cpu plain")
    lowered = lower(prog.checked, "d", "cell", args, (len(s), len(t)),
                    emit=lambda task: es.build(plain, prog.checked, task).module())
    assert isinstance(lowered.module, Module)
    task = lowered.module.function("task")
    assert isinstance(task, Function) and task.body
    assert not any(isinstance(x, str) for x in task.body)
    text = Printer().module(lowered.module)
    assert "def task(" in text
    assert text == es.build(plain, prog.checked, lowered.task).generate()[0]


# ---------------------------------------------------------------- no overriding at all
# Code generation and the IRs it works on (CODEGEN) share code by composition: a class
# there may implement an interface (a base method whose body is only a docstring,
# ``...``, ``pass`` or ``raise NotImplementedError``: pyexpr.Names, loopir.Expr) but no
# class of dslc/ replaces a method a base class there defines.
CODEGEN = ("dslc.emit", "dslc.kernel", "dslc.plan", "dslc.poly")


def _abstract(fn) -> bool:
    """Is ``fn`` (a function, or a property's getter) only an interface's declaration?"""
    import inspect
    import textwrap

    fn = getattr(fn, "fget", fn)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError):
        return False
    body = tree.body[0].body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]  # (the docstring)
    return all(isinstance(s, ast.Pass)
               or isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
               or isinstance(s, ast.Raise) and "NotImplementedError" in ast.unparse(s)
               for s in body)


def concrete_overrides(classes, scope: tuple[str, ...]) -> list[str]:
    """``Class.method (base)`` for each non-dunder method or property a class defines
    over a concrete one of a base class defined in a module under ``scope``."""
    found = []
    for c in classes:
        for base in c.__mro__[1:]:
            if not base.__module__.startswith(scope):
                continue
            for name, mine in vars(c).items():
                theirs = vars(base).get(name)
                if name.startswith("__") or theirs is None or \
                        not (callable(theirs) or isinstance(theirs, property)):
                    continue
                if not _abstract(theirs) and mine is not theirs:
                    found.append(f"{c.__module__}.{c.__qualname__}.{name} "
                                 f"({base.__module__}.{base.__qualname__})")
    return found


def _dslc_classes() -> list[type]:
    """Every class defined in a module of dslc/ (each module imported)."""
    import importlib
    import inspect
    import pkgutil

    import dslc

    out = []
    for m in pkgutil.walk_packages(dslc.__path__, "dslc."):
        mod = importlib.import_module(m.name)
        out += [c for c in vars(mod).values()
                if inspect.isclass(c) and c.__module__ == mod.__name__]
    return out


def test_no_class_replaces_a_method_of_a_code_generation_class():
    """No generator subclass, and no subclass of any other class of code generation
    and its IRs: a strategy composes pieces (emit.cpu.Pieces) into its builder."""
    classes = _dslc_classes()
    assert len(classes) > 200 and any(c.__name__ == "Task" for c in classes)
    assert concrete_overrides(classes, CODEGEN) == []


def test_the_finder_sees_a_concrete_override_and_lets_an_interface_be_implemented():
    """(The test above can fail.)"""
    from dslc.emit.pyexpr import Lines, Names

    class Recording(Lines):
        def assign(self, name, value):
            super().assign(name, value)

    class Spelled(Names):
        def local(self, name):
            return f"v_{name}"

    found = concrete_overrides([Recording, Spelled], CODEGEN)
    assert found == [f"{__name__}.test_the_finder_sees_a_concrete_override_and_lets_an_"
                     "interface_be_implemented.<locals>.Recording.assign "
                     "(dslc.emit.pyexpr.Lines)"]


# ---------------------------------------------------------------- a strategy's builder
def _substituted(x, var: str, by):
    """Loop IR ``x`` with variable ``var`` replaced by ``by``."""
    from dataclasses import fields, is_dataclass

    from dslc.poly import loopir as L

    if isinstance(x, L.Var):
        return by if x.name == var else x
    if isinstance(x, tuple):
        return tuple(_substituted(y, var, by) for y in x)
    if is_dataclass(x):
        return replace(x, **{f.name: _substituted(getattr(x, f.name), var, by)
                             for f in fields(x)})
    return x


def _reversed_nest(stmt):
    """The loop nest with every parallel loop of step 1 run from its last point to its
    first: its variable ``v`` is ``lower + upper - v`` inside (the loop IR's bounds
    stay as they are). Legal for any recurrence: a parallel loop's points (those of
    one partition) do not read each other."""
    from dslc.poly import loopir as L

    if isinstance(stmt, L.Body):
        return L.Body(tuple(_reversed_nest(s) for s in stmt.stmts))
    if isinstance(stmt, L.Guard):
        return replace(stmt, body=_reversed_nest(stmt.body),
                       orelse=None if stmt.orelse is None else _reversed_nest(stmt.orelse))
    if isinstance(stmt, L.For):
        body = _reversed_nest(stmt.body)
        if stmt.kind == "parallel" and stmt.step == 1:
            body = _substituted(body, stmt.var,
                                L.Sub(L.Add(stmt.lower, stmt.upper), L.Var(stmt.var)))
        return replace(stmt, body=body)
    return stmt


def build_reversed(strategy, program, plan):
    """A new strategy's builder, written here alone (the recipe of docs/architecture.md,
    "Add a strategy"): the CPU's task composed with its pieces, one of them replaced,
    the loop nest each group is swept by (``nest``), whose partitions' points it runs
    last first."""
    from dslc.emit import cpu
    from dslc.emit.built import Built

    pieces = replace(cpu.CPU, nest=lambda task, g: _reversed_nest(g.nest.body))
    task = cpu.Task(program, plan, strategy, pieces)
    body, args = task.task_body()
    return Built(cpu.module_record(task, args, body), tuple(args), task.pr,
                 width=task.result_width())


def test_a_new_strategy_is_a_builder_of_its_own_and_a_row_of_the_table(monkeypatch, tmp_path):
    """A strategy whose builder composes the shared pieces with the sweep reversed,
    defined in this test and given a row of its own: its code differs from the plain
    task's, and the CPU backend running it (in the plain row's place) computes what
    the interpreter does, for a recurrence with partitions of many points."""
    import dslc
    from dslc.emit import strategies as es
    from dslc.plan import lower
    from dslc.runtime.binding import bind_call
    from tests.test_properties import EDIT

    row = replace(es.strategy("cpu plain"), key="cpu reversed sweep", build=build_reversed)
    prog = dslc.compile(EDIT, backend="interp")
    s, t = "ACGTTGCA", "AGTTCA"
    args = bind_call(prog.checked.functions["d"], [s, len(s), t, len(t)], prog.checked, None)
    plan = lower(prog.checked, "d", "cell", args, (len(s), len(t))).task
    plain = es.build(es.strategy("cpu plain"), prog.checked, plan).generate()[0]
    turned = es.build(row, prog.checked, plan).generate()[0]
    new = set(turned.splitlines()) - set(plain.splitlines())  # the reversed coordinates
    assert new and all(line.strip().startswith("x_") for line in new)

    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(es.BY_KEY, "cpu plain", row)
    cpu = dslc.compile(EDIT, backend="cpu")
    for s, t in (("ACGTTGCA", "AGTTCA"), ("", "ACG"), ("GATTACA", "TACGATTA"), ("A", "")):
        assert cpu.call("d", s, len(s), t, len(t)) == prog.call("d", s, len(s), t, len(t))
    assert new <= set(cpu._engine().generated["d"][1].splitlines())  # (what ran)
