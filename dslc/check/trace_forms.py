"""``trace(f(...))``, ``align(d)``, ``brackets(d)``, ``common(d)`` and ``merged(d)`` in a script (docs/language.md,
"Tracebacks").

Both are ordinary calls by name, not keywords: a script that defines its own
function ``trace`` or ``align`` calls it as before (the contract's programs are
unchanged), and only a script that defines none gets these forms. Their static
check is here; running them is dslc.runtime.trace_forms."""

from __future__ import annotations

from dslc.errors import DslcError
from dslc.frontend import ast

FORMS = ("trace", "align", "brackets", "common", "merged")


def is_form(name: str, functions) -> bool:
    return name in FORMS and name not in functions


def check(typer, e: ast.Call) -> None:
    """The static shape: ``trace`` of one call of a script function; ``align`` of a
    derivation and, optionally, a matrix; ``brackets`` of a derivation."""
    if e.func == "trace":
        if len(e.args) != 1 or not isinstance(e.args[0], ast.Call) \
                or is_form(e.args[0].func, typer.sigs):
            raise DslcError("trace takes one call of a function: trace(f(...))", e.span)
        call = e.args[0]
        sig = typer._sig(call.func, call.func_span)
        for a in call.args:
            typer.type_of(a)
        if len(call.args) not in (len(sig.params), len(sig.calling_names),
                                  len(typer.functions[call.func].map_params)
                                  if call.func in typer.functions else -1):
            raise DslcError(f"trace of {call.func} takes its {len(sig.params)} arguments, or "
                            f"its calling ones for the final cell", call.span)
        return
    if e.func in ("brackets", "common", "merged"):
        if len(e.args) != 1:
            raise DslcError(f"{e.func} takes one derivation: {e.func}(trace(f(...)))", e.span)
        typer.type_of(e.args[0])
        return
    if len(e.args) not in (1, 2):
        raise DslcError("align takes a derivation and optionally a matrix: "
                        "align(trace(f(...))[, blosum62])", e.span)
    for a in e.args:
        typer.type_of(a)
