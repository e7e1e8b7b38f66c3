"""A Dask client that runs maps: shards out, results back in task order.

A map arrives as a :class:`~dslc.lang.batch.TaskBatch`. Its payloads (the
database's packed buffer, the query, a matrix, an HMM) are scattered once to
every worker, each keeping its own copy; a shard is a
:class:`~dslc.cluster.columns.Part` (its tasks' indexes into those payloads) and
its values come back as one array, placed by task index. A worker that dies
takes nothing with it: the scheduler gives its unfinished shards to another
worker (distributed's ``allowed-failures``), and every worker holds the payloads.
A shard that runs out of memory on its worker comes back as such and is split in
two by predicted work, each half submitted on its own, down to a single task.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

from dslc import runlog
import numpy as np

from dslc.cluster.columns import Part, payloads, wide
from dslc.cluster.shards import parse_gpus, shard_tasks, split, task_cells
from dslc.cluster.worker import Failed, OutOfMemory, Plan, run_shard
from dslc.errors import DslcError
from dslc.lang.batch import TaskBatch
from dslc.lang.limits import size_text


def _distributed():
    try:
        import distributed
    except ImportError:
        raise DslcError("running on a cluster needs Dask's distributed package",
                        hint="pip install 'dslc[cluster]'") from None
    return distributed


RESENDS = 3  # times a map sends a shard's payloads again after losing them (per shard)


@dataclass
class Pool:
    """A client and how many shards each of its worker threads gets (more than
    one evens out workers of different speeds and makes a re-run shard small).
    ``owned``: the cluster was started for this pool, and closes with it."""

    client: object
    per_thread: int = 2
    backend: str | None = None  # the workers' backend where the pool decides it (GPUs)
    owned: object = None
    splits: int = 0  # shards split in two because they ran out of memory (all maps)

    def threads(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def map(self, plan: Plan, program, func: str, tasks, span, progress=None) -> list:
        """The results of ``plan``'s ``func`` over ``tasks`` (a batch, or a list
        of dicts), in task order; a language error in a task is raised as a local
        run raises it. ``program``: the client's checked program, to predict each
        task's work."""
        batch = TaskBatch.of(tasks)
        if not len(batch):
            return []
        cells = task_cells(program, func, batch)
        shards = shard_tasks(batch, cells, self.threads() * self.per_thread)
        sent = self._scatter(plan, batch)
        futures = {self._shard(sent, func, ids, k, span): ids for k, ids in enumerate(shards)}
        out = np.empty(len(batch), dtype=object)
        failures = []
        done = 0
        resent = 0
        made = len(shards)
        running = _distributed().as_completed(futures)

        def submit(ids, k: int) -> None:
            again = self._shard(sent, func, ids, k, span)
            futures[again] = ids
            running.add(again)

        for fut in running:
            ids = futures.pop(fut)
            if fut.cancelled() and resent < RESENDS * len(shards):
                # a payload it reads went with the last worker holding it (Dask
                # keeps a broadcast's copies only where a shard waits): send again
                resent += 1
                if any(f.cancelled() for f in [sent.plan, *sent.common.values()]):
                    sent = self._scatter(plan, batch)
                submit(ids, resent)
                continue
            result = fut.result()
            if isinstance(result, OutOfMemory):
                if len(ids) == 1:
                    failures.append((ids, _alone(result, func, span)))
                    continue
                for half in self._halves(func, ids, cells, result):
                    made += 1  # the next worker, round robin: halves run apart
                    submit(half, made)
                continue
            if isinstance(result, Failed):
                failures.append((ids, result))
                continue
            out[ids] = result  # numbers become Python's, as a local run gives them
            done += len(ids)
            runlog.log.info("map %s: shard of %d task(s) done, %d/%d", func, len(ids), done,
                            len(batch))
            if progress is not None:
                progress(done)
        if failures:
            raise _first_error(failures, batch)
        return out.tolist()

    def _halves(self, func: str, ids: np.ndarray, cells: np.ndarray, oom: OutOfMemory) -> list:
        """The two halves, by predicted cells, of the shard ``ids`` that ran out
        of memory (each in increasing task order, as every shard is)."""
        self.splits += 1
        runlog.log.info("map %s: a shard of %d task(s) ran out of memory on its worker (%s); "
                        "split in two", func, len(ids), oom.detail)
        halves = split(cells[ids], 2)
        if len(halves) < 2:  # cut into ranges (many tasks), the first outweighing the rest
            halves = [np.arange(1), np.arange(1, len(ids))]
        return [ids[np.asarray(h)] for h in halves]

    def _scatter(self, plan, batch: TaskBatch) -> "_Sent":
        """The plan and the batch's payloads but the wide ones sent once to every
        worker (futures); the wide ones are cut per shard (:meth:`_shard`)."""
        buffers, slots = payloads(batch)
        cut = wide(batch, slots)
        client = self.client
        plan_f = client.scatter(plan, broadcast=True, hash=False)
        common = [k for k in range(len(buffers)) if k not in cut]
        futures = client.scatter([buffers[k] for k in common], broadcast=True, hash=False)
        return _Sent(plan_f, dict(zip(common, futures)), batch, slots, cut,
                     list(client.nthreads()))

    def _shard(self, sent: "_Sent", func: str, ids, k: int, span):
        """The future of one shard: the tasks ``ids`` as a :class:`Part`, its own
        slice of each wide payload sent to the ``k``-th worker (round robin), where
        the scheduler then runs the shard."""
        part, own = Part.cut(sent.batch, ids, sent.slots, sent.cut)
        client = self.client
        worker = [sent.workers[k % len(sent.workers)]] if own else None
        mine = {n: client.scatter(v, workers=worker, hash=False) for n, v in own.items()}
        buffers = [mine[n] if n in mine else sent.common[n]
                   for n in range(len(sent.common) + len(mine))]
        return client.submit(run_shard, sent.plan, func, part, buffers, span, pure=False,
                             key=f"dslc-{func}-shard-{os.urandom(6).hex()}")

    def close(self) -> None:
        self.client.close()
        if self.owned is not None:
            self.owned.close()


@dataclass(frozen=True)
class _Sent:
    """What a map has scattered: the plan's future, those of the payloads every
    worker holds (by payload number), and what cuts the rest per shard."""

    plan: object
    common: dict
    batch: TaskBatch
    slots: dict
    cut: frozenset
    workers: list


def _alone(oom: OutOfMemory, func: str, span) -> Failed:
    """A single task that ran out of memory on its worker: nothing is left to
    split, so it fails the map as its first task (the client names it)."""
    said = f"an allocation of {size_text(oom.needed)} failed" if oom.needed else oom.detail
    return Failed(f"map({func}, ...): this task alone does not fit in its worker's "
                  f"memory ({said})", span,
                  "give the workers more memory (or a GPU with more), or the task shorter "
                  "sequences", 0)


def _first_error(failures: list, batch: TaskBatch) -> DslcError:
    """The error a local run raises: the first failing task's, by its position
    in the whole map (an error outside any task first)."""
    from dslc.interp.backend import TaskError

    ids, f = min(failures, key=lambda x: -1 if x[1].task is None else x[0][x[1].task])
    error = DslcError(f.message, f.span, f.hint)
    if f.task is None:
        return error
    k = int(ids[f.task])
    return TaskError(error, k, batch[k])


@contextlib.contextmanager
def using(client=None, cluster: str | None = None, gpus=None, backend: str = "auto"):
    """A pool for one run, or None for a run on this process alone: on the
    caller's ``client`` (left open), or on a cluster opened for the run and
    closed after it (``cluster``: an address or ``"local"``; ``gpus``: ``all``,
    a count, ``"0,2"`` or a list of device numbers)."""
    given = [n for n, v in (("client", client), ("cluster", cluster), ("gpus", gpus))
             if v is not None]
    if len(given) > 1:
        raise DslcError(f"give one of {' and '.join(given)}, not both")
    if gpus is not None and backend not in ("auto", "cuda"):
        raise DslcError(f"--gpus runs maps on the cuda backend, not on '{backend}'")
    if client is not None:
        yield Pool(client)
        return
    if cluster is None and gpus is None:
        yield None
        return
    if gpus is not None:
        gpus = parse_gpus(gpus if isinstance(gpus, str) else ",".join(map(str, _list(gpus))))
    pool = open_pool(cluster, gpus)
    try:
        yield pool
    finally:
        pool.close()


def _list(gpus) -> list:
    return list(range(gpus)) if isinstance(gpus, int) else list(gpus)


def open_pool(cluster: str | None = None, gpus=None, workers: int | None = None) -> Pool:
    """A pool on the scheduler at ``cluster`` (an address), on a cluster of this
    host's CPUs started for it (``"local"``), or on one worker per GPU of
    ``gpus`` (device numbers), each worker seeing only its own device."""
    distributed = _distributed()
    if gpus is not None:
        owned = _gpu_cluster(distributed, gpus)
        return Pool(distributed.Client(owned), per_thread=1, backend="cuda", owned=owned)
    if cluster == "local":
        owned = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                         processes=True, dashboard_address=":0")
        return Pool(distributed.Client(owned), owned=owned)
    address = _scheduler_address(distributed, cluster)
    try:
        return Pool(distributed.Client(address, timeout=f"{CONNECT_SECONDS}s"))
    except (OSError, TimeoutError) as e:
        raise DslcError(f"--cluster {cluster}: no Dask scheduler answered ({e})",
                        hint=_START_ONE) from None


CONNECT_SECONDS = 10  # how long a scheduler has to answer (docs/robustness.md, "Limits")
_START_ONE = "start one with: dask scheduler; and workers with: dask worker ADDRESS"
_ADDRESS_FORM = "a scheduler's address is tcp://HOST:PORT, as 'dask scheduler' prints it"


def _scheduler_address(distributed, cluster) -> str:
    """``cluster`` as Dask's address of a scheduler that answered, or one DslcError
    within :data:`CONNECT_SECONDS`. Dask's client alone raises a ValueError for an
    address that is none, and waits forever on a server that accepts the connection
    but never answers (its own timeout covers the connection only); a server that
    answers what is not Dask's protocol makes it allocate whatever length the bytes
    spell. So the server is asked who it is first, that question bounded here."""
    import asyncio

    from distributed.comm import addressing, registry

    try:
        address = addressing.normalize_address(str(cluster))
        scheme, where = addressing.parse_address(address)
        registry.get_backend(scheme)  # (http://... is no scheme of Dask's)
        _, port = addressing.parse_host_port(where)
    except (ValueError, TypeError) as e:
        raise DslcError(f"--cluster {cluster}: not a scheduler address ({e})",
                        hint=_ADDRESS_FORM) from None
    if not 0 < port < 65536:
        raise DslcError(f"--cluster {cluster}: port {port} is outside 1 .. 65535",
                        hint=_ADDRESS_FORM)
    try:
        who = asyncio.run(_identity(distributed, address))
    except (OSError, TimeoutError, asyncio.TimeoutError) as e:
        raise DslcError(f"--cluster {cluster}: no Dask scheduler answered within "
                        f"{CONNECT_SECONDS} s ({str(e) or 'no answer'})", hint=_START_ONE) from None
    except Exception as e:  # noqa: BLE001 - whatever a server that is not Dask makes it raise
        raise DslcError(f"--cluster {cluster}: the server there does not speak Dask's "
                        f"protocol ({type(e).__name__})", hint=_START_ONE) from None
    kind = who.get("type") if isinstance(who, dict) else None
    if kind != "Scheduler":
        raise DslcError(f"--cluster {cluster}: the server there is "
                        f"{'a Dask ' + str(kind) if kind else 'no Dask server'}, not a scheduler",
                        hint=_START_ONE)
    return address


async def _identity(distributed, address: str):
    """What the server at ``address`` says it is (Dask's ``identity`` call)."""
    import asyncio

    remote = distributed.core.rpc(address, timeout=CONNECT_SECONDS)
    try:
        return await asyncio.wait_for(remote.identity(), CONNECT_SECONDS)
    finally:
        await remote.close_rpc()


def _gpu_cluster(distributed, gpus):
    """One worker process per GPU, with one thread, its CUDA_VISIBLE_DEVICES set
    to its device (so its CUDA context, stream and copies of the operands are
    its own), as dask-cuda's LocalCUDACluster starts them."""
    spec = {f"gpu-{d}": {"cls": distributed.Nanny,
                         "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(d)},
                                     "host": "127.0.0.1", "dashboard_address": ":0"}}
            for d in gpus}
    scheduler = {"cls": distributed.Scheduler,
                 "options": {"host": "127.0.0.1", "dashboard_address": ":0"}}
    return distributed.SpecCluster(workers=spec, scheduler=scheduler, asynchronous=False)
