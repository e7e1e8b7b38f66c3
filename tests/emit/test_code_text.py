"""All code text is the printers': no module of the compiler outside dslc.targets
spells a ``def`` line or a decorator in a string (a generated function is a kernel
IR body given to ``Printer.function``, a helper of the compiler's own is copied by
``Printer.copied``, code Python compiles itself gets its line from
``targets.printer.plain_function``), read off the source alone."""

from __future__ import annotations

import ast
import re
from pathlib import Path

DSLC = Path(__file__).parents[2] / "dslc"

# a def line (at a line's start, or a def of a name followed by its parameters) or a
# Numba decorator, in a string's text (each hole of an f-string read as a name)
CODE = re.compile(r"(^|\n)[ \t]*(async[ \t]+)?def[ \t]+\w|\bdef[ \t]+\w+\(|@[ \t]*(numba|cuda)\.")


def _docstrings(tree) -> set[int]:
    """The ids of the docstrings' nodes (prose, which may show code)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant):
            out.add(id(node.body[0].value))
    return out


def code_text(sources: dict[str, str]) -> list[str]:
    """``file:line`` of each string or f-string in ``sources`` (file name -> its
    text) that spells a ``def`` line or a decorator."""
    found = []
    for path, text in sources.items():
        tree = ast.parse(text)
        docs = _docstrings(tree)
        parts = set()  # the constant pieces of f-strings, read with their f-string
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                parts |= {id(v) for v in node.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                s = "".join(v.value if isinstance(v, ast.Constant) else "_" for v in node.values)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and id(node) not in docs and id(node) not in parts:
                s = node.value
            else:
                continue
            if CODE.search(s):
                found.append(f"{path}:{node.lineno}")
    return sorted(found)


def test_no_code_text_outside_the_printers():
    sources = {str(p.relative_to(DSLC)): p.read_text() for p in sorted(DSLC.rglob("*.py"))
               if p.relative_to(DSLC).parts[0] != "targets"}
    assert sources and code_text(sources) == []


def test_the_finder_sees_def_lines_and_decorators_in_strings_and_f_strings():
    """(The test above can fail: each way of spelling code text is found, prose is not.)"""
    assert code_text({
        "a.py": '"""Module prose: a def f(x) shown in a docstring."""\n'
                'X = "@numba.njit(cache=True)\\ndef _exact(v):\\n    return v == v\\n"\n'
                'def g(name, body):\n'
                '    """Prose of g."""\n'
                '    return f"def {name}(env):\\n    return {body}\\n"\n'
                'Y = f"{X}\\n  @cuda.jit(device=True)"\n'
                'Z = "def task(a, b):"\n'
                'W = "a function\'s def line, defined here"\n'}) == \
        ["a.py:2", "a.py:5", "a.py:6", "a.py:7"]
