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
    if e.func == "brackets":
        from dslc.trace.brackets import brackets

        try:
            return brackets(runner.eval(e.args[0]))
        except DslcError as err:
            raise DslcError(err.message, e.span, err.hint) from None
    if e.func in ("common", "merged"):
        from dslc.trace.align import common_text, merged_text

        try:
            return (common_text if e.func == "common" else merged_text)(runner.eval(e.args[0]))
        except DslcError as err:
            raise DslcError(err.message, e.span, err.hint) from None
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
    return trace_runner(runner).trace(call.func, bound, call.span, final)


def trace_runner(runner) -> TraceRunner:
    """The script runner's one trace runner (made on first use)."""
    held = getattr(runner, "_trace_runner", None)
    if held is None:
        held = runner._trace_runner = TraceRunner(runner.p, runner.globals, runner.backend)
    return held


def map_alignments(runner, func: str, batch, span, ks: list[int]) -> list:
    """The alignments of tasks ``ks`` of a map of ``func`` the runner ran over
    ``batch``: each task traced as ``trace`` traces a map task (its final cell),
    the tasks together (their tables filled in one backend call), then aligned;
    one entry of the run's timings where the run is timed (``--timings``)."""
    tracer = trace_runner(runner)

    def aligned() -> list:
        out = []
        for d in tracer.traces(func, [(batch[k], True) for k in ks], span):
            try:
                out.append(alignment(d))
            except DslcError as err:
                raise DslcError(f"the rows' alignments (--align, --columns): {err.message}",
                                span, err.hint) from None
        return out
    timed = getattr(runner.backend, "traced", None)
    if timed is None:
        return aligned()
    return timed(func, len(ks), getattr(tracer.engine, "name", "interp"), aligned)
