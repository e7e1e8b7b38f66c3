"""A backend whose maps run on a pool's workers; calls and tables stay local.

It wraps the backend a run would use without a cluster, so the script runner
and the Python API need nothing new: a single call or a whole table (one large
problem) runs here as ever, and only a map's list of tasks is split.
"""

from __future__ import annotations

from dslc.cluster.worker import Plan


class ShardedBackend:
    def __init__(self, local, pool, plan: Plan):
        self.local = local
        self.pool = pool
        self.plan = plan
        self.program = local.program
        self.name = f"{plan.backend} on {pool.threads()} Dask worker thread(s)"

    def value(self, func: str, args: dict, span, description: str = ""):
        return self.local.value(func, args, span, description)

    def table(self, func: str, calling: dict, span, description: str = ""):
        return self.local.table(func, calling, span, description)

    def map(self, func: str, tasks, span, progress=None) -> list:
        """``tasks``: a :class:`~dslc.lang.batch.TaskBatch` (or a list of dicts)."""
        return self.pool.map(self.plan, self.program, func, tasks, span, progress)

    def __getattr__(self, name: str):
        if name == "local":
            raise AttributeError(name)
        return getattr(self.local, name)  # what -v and explain ask a backend


def sharded(pool, backend: str, base_dir: str | None, options=None):
    """A ``make_backend(program, globals)`` for the script runner: ``backend``
    (a name) runs calls here, under the CompileOptions ``options``, and, checked
    again on each worker, the shards of every map there (on the pool's own backend
    where it has one: ``cuda`` for a pool of GPUs; a worker builds its options from
    its own settings)."""
    from dslc import backends

    def make(program, globals_):
        local = backends.make(backend, options)(program, globals_)
        return ShardedBackend(local, pool, Plan.of(program, base_dir, pool.backend or backend))

    return make
