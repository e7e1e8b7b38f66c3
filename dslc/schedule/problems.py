"""The ways scheduling fails, as :class:`DslcError` subclasses that keep the
facts (which calls, which instance) for tools and tests; the message is what
the user reads."""

from __future__ import annotations

from dslc.deps.ir import Dependence
from dslc.errors import DslcError, Span


class NoScheduleError(DslcError):
    """No affine schedule (within the coefficient bound) satisfies ``calls``
    together; ``calls`` is minimal: without any one of them a schedule exists."""

    def __init__(self, message: str, span: Span | None, calls: tuple[Dependence, ...],
                 bound: int, hint: str | None = None):
        super().__init__(message, span, hint)
        self.calls, self.bound = calls, bound


class PartitionCycleError(DslcError):
    """Every legal schedule leaves ``calls`` inside one partition, in a cycle."""

    def __init__(self, message: str, span: Span | None, calls: tuple[Dependence, ...],
                 coeffs: tuple[int, ...], hint: str | None = None):
        super().__init__(message, span, hint)
        self.calls, self.coeffs = calls, coeffs


class InvalidScheduleError(DslcError):
    """A user schedule breaks ``call``: at ``caller_point`` it calls
    ``target_point`` (for the extents in ``extents``), which is not in an
    earlier partition."""

    def __init__(self, message: str, span: Span | None, call: Dependence,
                 caller_point: tuple[int, ...], target_point: tuple[int, ...],
                 extents: dict[str, int], hint: str | None = None):
        super().__init__(message, span, hint)
        self.call, self.caller_point, self.target_point = call, caller_point, target_point
        self.extents = extents
