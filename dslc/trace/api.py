"""``Program.trace`` and ``Program.align``: the Python API's side of tracebacks.

Arguments are those of ``Program.call`` (every argument: that call's value) or of
``Program.map`` for one task (a table's calling arguments and its unranged ``int``
recursive ones: the final cell, as a map's task has it)."""

from __future__ import annotations

from dslc.check.calls import arrange, value_fits
from dslc.errors import DslcError
from dslc.runtime.binding import bind_call
from dslc.trace.derive import Derivation
from dslc.trace.run import TraceRunner


def trace(prog, name: str, args: tuple) -> Derivation:
    """The derivation of one call of ``name`` (see the module's docstring)."""
    from dslc.api import _texts

    tf = prog._function(name)
    values = [prog._from_python(a) for a in args]
    if len(values) == len(tf.params):
        values = _texts(tf.params, arrange(tf.params, values, value_fits))
        tf = prog._const_kinds(tf, tf.params, [values])
        bound, final = bind_call(tf, values, prog.checked, None), False
    elif tf.is_table and len(values) == len(tf.map_params):
        tf = prog._const_kinds(tf, tf.map_params, [values])
        bound, final = prog._bind_map(tf, values), True
    else:
        raise DslcError(f"trace of {name} takes its {len(tf.params)} arguments"
                        + (f" (or a map task's {len(tf.map_params)})" if tf.is_table else "")
                        + f", got {len(values)}")
    return runner(prog).trace(name, bound, None, final)


def runner(prog) -> TraceRunner:
    """One runner per checked program (a float const checks it again: a new one)."""
    engine = prog._engine()
    held = getattr(prog, "_trace_runner", None)
    if held is None or held.program is not prog.checked or held.engine_of is not engine:
        held = TraceRunner(prog.checked, prog._globals, engine)
        prog._trace_runner = held
    return held
