"""Running ``trace(f(...))`` and ``align(d)`` in a script (docs/language.md,
"Tracebacks"); dslc.check.trace_forms checks them."""

from __future__ import annotations

from dslc.check.calls import arrange, value_fits
from dslc.check.trace_forms import FORMS, is_form  # noqa: F401 (the runner asks here)
from dslc.errors import DslcError
from dslc.frontend import ast
from dslc.runtime.binding import bind_call, bind_value, check_index_args, check_links
from dslc.trace.align import alignment
from dslc.trace.run import TraceRunner


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
