"""What a strategy's builder gives: the task's module as kernel IR records.

A builder (emit.strategies names one per strategy) is a function from a plan to a
:class:`Built` record: the module (kernel.module), the task's arguments in order, the
printer that spells it for its target, and what the backend's launch needs to know
of it (its value type, the per-task storage the launch makes, the register tile's
rows). Nothing is built lazily: a plan the strategy cannot take raises
``NotCompilable`` from the builder itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from dslc.kernel import value_type
from dslc.kernel.ir import TaskArg
from dslc.kernel.module import Module
from dslc.kernel.value_type import ValueType
from dslc.targets.printer import Printer


@dataclass(frozen=True, eq=False)
class Built:
    """A strategy's task, built: its module, arguments and printer (see the module's
    docstring)."""

    record: Module
    args: tuple[TaskArg, ...]
    printer: Printer  # (it recorded which runtime helpers the module calls)
    value: ValueType = value_type.FLOAT64  # the value type (kernel.value_type)
    # per-task storage the launch makes: (name, loop-IR dims without the task)
    storage: tuple = ()
    rows: int | None = None  # the register tile's rows (emit.tiles)
    functions: tuple = ()  # device functions beside the task (emit.tiles: its tiles)
    width: int | None = None  # the components of the task's result (a tuple), else None

    def result_width(self) -> int | None:
        """The number of components of the task's result (a tuple), else None."""
        return self.width

    @property
    def dtype(self) -> str:
        """The storage and arithmetic type of table values."""
        return self.value.dtype

    def module(self) -> tuple[Module, list[TaskArg]]:
        """The module as records and the task's arguments: what the plan's driver
        hands on, printed only where its text is needed."""
        return self.record, list(self.args)

    def generate(self) -> tuple[str, list[TaskArg]]:
        """The module's text, printed by its target's printer, and the task's
        arguments."""
        return self.printer.module(self.record), list(self.args)
