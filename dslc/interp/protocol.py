"""What every backend is: the interface the script runner, the Python API, the tracebacks
and ``dslc explain`` call, whatever runs the work (the interpreter, compiled CPU code,
the GPU, a choice between them per call, a pool of workers).

The interpreter (:class:`dslc.interp.backend.InterpBackend`) is the specification every
other backend is tested against, so the protocol sits beside it. A backend is made by
``make(program, globals, options=...)`` (:func:`dslc.backends.make`): ``program`` the
checked program, ``globals`` the script's constants and models, ``options`` the
:class:`~dslc.options.CompileOptions` it compiles under. Backends compose (the CUDA
backend holds a CPU backend for what the device declines; ``auto`` holds both; a pool's
backend wraps a local one); none inherits another. tests/test_backend_protocol.py
checks that each satisfies this protocol, signatures included.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Backend(Protocol):
    name: str  # shown by ``-v``, timings and decisions
    program: object  # the checked program it runs

    def value(self, func: str, args: dict, span, description: str = ""):
        """The value of one call of ``func`` with its arguments bound by name; an
        error in the program is a DslcError at ``span`` (``description``: the call
        as the user wrote it, for messages)."""

    def table(self, func: str, calling: dict, span, description: str = ""):
        """The whole table of ``func`` for the non-recursive arguments ``calling``."""

    def map(self, func: str, tasks, span, progress=None) -> list:
        """One value per task (a :class:`~dslc.lang.batch.TaskBatch` or a list of
        argument dicts), in order; ``progress(done)`` is called as groups finish."""
