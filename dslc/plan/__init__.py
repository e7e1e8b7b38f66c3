"""Lowering a checked program: dependences, schedule, storage, loop nest, in one driver.

:func:`lower` (dslc.plan.driver) is the only caller of the dependence analysis,
the schedule search and isl on behalf of a backend; :mod:`dslc.plan.task` holds
the task plan (which tables, in what order, stored how) and :mod:`dslc.plan.user`
the user-written schedules.
"""

from dslc.plan.driver import Lowered, lower, verify_all

__all__ = ["Lowered", "lower", "verify_all"]
