"""``trace(f(...))`` and ``align(d)`` in a script (docs/language.md, "Tracebacks").

Both are ordinary calls by name, not keywords: a script that defines its own
function ``trace`` or ``align`` calls it as before (the contract's programs are
unchanged), and only a script that defines none gets these forms."""

from __future__ import annotations

from dslc.check.calls import arrange, value_fits
from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.runtime.binding import bind_call, bind_value, check_index_args, check_links
from dslc.trace.align import alignment
from dslc.trace.run import TraceRunner

FORMS = ("trace", "align")


def is_form(name: str, functions) -> bool:
    return name in FORMS and name not in functions


def check(typer, e: ast.Call) -> None:
    """The static shape: ``trace`` of one call of a script function; ``align`` of a
    derivation and, optionally, a matrix."""
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
    if len(e.args) not in (1, 2):
        raise DslcError("align takes a derivation and optionally a matrix: "
                        "align(trace(f(...))[, blosum62])", e.span)
    for a in e.args:
        typer.type_of(a)


def evaluate(runner, e: ast.Call):
    if e.func == "align":
        values = [runner.eval(a) for a in e.args]
        try:
            return alignment(*values)
        except DslcError as err:
            raise DslcError(err.message, e.span, err.hint) from None
    call = e.args[0]
    tf = runner.p.functions[call.func]
    values = [runner.eval(a) for a in call.args]
    if len(values) == len(tf.params):
        bound, final = bind_call(tf, arrange(tf.params, values, value_fits), runner.p,
                                 call.span), False
    else:
        params = tf.calling_params if len(values) == len(tf.calling_params) else tf.map_params
        raw = dict(zip((p.name for p in params), values))
        bound = {p.name: bind_value(v, p.type, runner.p, call.span, raw,
                                    what=f"argument '{p.name}' of {tf.name}")
                 for p, v in zip(params, values)}
        check_index_args(tf, bound, call.span)
        check_links(tf, bound, runner.p, call.span)
        final = True
    held = getattr(runner, "_trace_runner", None)
    if held is None:
        held = runner._trace_runner = TraceRunner(runner.p, runner.globals, runner.backend)
    return held.trace(call.func, bound, call.span, final)
