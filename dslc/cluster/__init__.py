"""Maps over several GPUs of a host and over a Dask cluster.

The tasks of a ``map`` are independent, so they are what is spread: the batch of
tasks a script hands to its backend's ``map`` is split into shards balanced by
predicted work (:mod:`dslc.cluster.shards`), sent as columns (the payloads apart,
each shard as indexes: :mod:`dslc.cluster.columns`), each shard runs on a Dask
worker through that worker's own backend's ``map`` (:mod:`dslc.cluster.worker`),
and the results come back in task order (:mod:`dslc.cluster.pool`). Whatever a
backend does inside its ``map`` (batches, lanes, kernels) is unchanged by this.

``distributed`` is an optional dependency (the ``[cluster]`` extra): nothing
here imports it until a pool is started.
"""

from dslc.cluster.backend import ShardedBackend, sharded
from dslc.cluster.pool import Pool, open_pool, using
from dslc.cluster.shards import parse_gpus, split

__all__ = ["Pool", "ShardedBackend", "open_pool", "parse_gpus", "sharded", "split", "using"]
