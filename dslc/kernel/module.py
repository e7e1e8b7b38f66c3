"""A generated module as records: what a code generator hands on, printed only where
text is needed.

The plan's driver (dslc.plan.driver) hands a backend the module its generator built,
not its text: the backend that compiles or caches it prints it with its target's
printer (targets.printer ``Printer.module``), the one place a ``def`` line and a
decorator are written. The task's body is kernel IR (dslc.kernel.body and
dslc.kernel.ir, after the strategy's passes); the parts around it (the module's
imports, its constants, the runtime helpers and the generated helper functions the
task calls) are text the same target's printer made while the task was built.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Function:
    """A generated function: ``body``, its statements (kernel IR), printed under the
    target's decorator of ``kind`` (targets.printer: ``FUNCTION``, ``SHORT``,
    ``NOALIAS``...)."""

    name: str
    params: tuple[str, ...]
    body: tuple
    kind: str = "FUNCTION"


@dataclass(frozen=True)
class Module:
    """A generated module's parts in order: :class:`Function` records and text."""

    parts: tuple

    def function(self, name: str) -> Function:
        """The part that is function ``name``."""
        return next(p for p in self.parts if isinstance(p, Function) and p.name == name)
