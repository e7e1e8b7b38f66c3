"""Affine schedules of recursive groups (thesis §5.3): search, verification,
and what a schedule implies (partitions, order inside a partition, window).

``find_schedule`` chooses the legal schedule with the fewest partitions;
``verify_schedule`` checks one a user wrote. Legality is decided exactly by
isl (through ``dslc.deps.polyhedra``) for every extent at once.
"""

from dslc.schedule.model import Embedding, Extents, Schedule, extents_for, partition_range
from dslc.schedule.problems import InvalidScheduleError, NoScheduleError, PartitionCycleError
from dslc.schedule.solve import find_schedule
from dslc.schedule.verify import checked_schedule, verify_schedule

__all__ = ["Embedding", "Extents", "InvalidScheduleError", "NoScheduleError",
           "PartitionCycleError", "Schedule", "checked_schedule", "extents_for", "find_schedule",
           "partition_range", "verify_schedule"]
