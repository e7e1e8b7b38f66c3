"""Maps on a real Dask cluster: two worker processes of one thread each, started
once for the module, on free ports (so it runs inside an xdist worker too). The
workers run the interpreter: what is tested is the spreading (shards, shared
operands, order, labels, errors, a dead worker), not a backend, and compiling
Numba code in each worker process would cost CI more than the rest together."""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time

import numpy as np
import pytest

import dslc
from dslc.cli import main
from dslc.interp.backend import TaskError
from dslc.lang.fasta import read_fasta
from dslc.lang.records import SeqPack
from dslc.lang.stdlib import standard_alphabets
from dslc.lang.values import Sequence
from tests.conftest import EXAMPLES

distributed = pytest.importorskip("distributed")

QUERY = "MKVLAAGIVG"
DB = ["MKVLA", "GIVGLLLAGC", "SSHKEE", "MKV", "AAGIVGLLLA", "TPAAQE", "KVLAAGIV"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    with cluster, distributed.Client(cluster) as c:
        yield c


def _axes(result) -> list:
    return [(a.name, a.labels, a.numbered) for a in result.axes]


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if not hasattr(a[k], "axes"):  # a plain value (parsimony's sum(costs))
            assert a[k] == b[k]
            continue
        assert _axes(a[k]) == _axes(b[k])
        np.testing.assert_array_equal(a[k].values, b[k].values)


@pytest.mark.parametrize("example", ["casino", "parsimony"])
def test_script_maps_equal_a_local_run(client, example):
    # an HMM over a list of sequences; a tree's parsimony over alignment columns
    prog = dslc.compile(str(EXAMPLES / f"{example}.bio"), backend="interp")
    _same(prog.run(client=client), prog.run())


def test_alignment_map_from_python_equals_a_local_run(client):
    prog = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="interp")
    here = prog.map("sw", "blosum62", 10, 1, QUERY, DB)
    there = prog.map("sw", "blosum62", 10, 1, QUERY, DB, client=client)
    assert _axes(there) == _axes(here) and there.values.tolist() == here.values.tolist()
    assert len(set(there.values.tolist())) > 1  # the scores tell the tasks apart


ERROR_SCRIPT = """\
float f(seq[dna] s) = 12 / (len(s) - 3)
xs = load(seq[dna], "s.fasta")
print map(f, xs)
"""


def test_a_task_error_is_reported_by_position_as_locally(client, tmp_path, capsys):
    (tmp_path / "s.fasta").write_text("".join(f">r{n}\n{'ACGT'[:n]}\n" for n in (1, 2, 4, 3, 1)))
    script = tmp_path / "e.bio"
    script.write_text(ERROR_SCRIPT)
    assert main(["run", str(script), "--backend", "interp"]) == 2
    local = capsys.readouterr().err
    assert main(["run", str(script), "--backend", "interp",
                 "--cluster", client.scheduler.address]) == 2
    remote = capsys.readouterr().err
    assert remote == local and "in map task 4 (s=r3)" in remote and "Traceback" not in remote
    prog = dslc.compile(str(script), backend="interp")
    with pytest.raises(TaskError) as e:
        prog.run(client=client)
    assert e.value.render() in local


def test_a_worker_killed_mid_map_loses_nothing(client):
    # a script no worker has seen yet: each checks it before its first shard, so the map is
    # still running when the first worker given a shard is killed
    prog = dslc.compile(str(EXAMPLES / "edit_distance.bio"), backend="interp")
    words = ["intention", "execution", "kitten", "sitting", "sunday", "saturday",
             "levenshtein", "meilenstein", "distance", "editing"] * 2
    expected = prog.map("d", words, "algorithm")
    pids = client.run(os.getpid)
    outcome = {}
    runner = threading.Thread(target=lambda: outcome.update(
        r=prog.map("d", words, "algorithm", client=client)))
    runner.start()
    victim = _busy_worker(client)
    running_at_kill = runner.is_alive()
    os.kill(pids[victim], signal.SIGKILL)
    runner.join(120)
    # (the nanny starts the killed worker again: the module's later tests count two)
    client.wait_for_workers(2, timeout=120)
    assert running_at_kill and not runner.is_alive()
    assert outcome["r"].values.tolist() == expected.values.tolist()
    assert _axes(outcome["r"]) == _axes(expected)


def _busy_worker(client, wait: float = 30.0) -> str:
    """The address of a worker the scheduler has given a shard to."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        for worker, keys in client.processing().items():
            if any(str(k).startswith("dslc-") for k in keys):
                return worker
        time.sleep(0.005)
    raise AssertionError("no shard was ever given to a worker")


PROTEIN_EDITS = """\
int d(seq[protein] s, index[s] i, seq[protein] t, index[t] j) =
    if i == 0 then j
    else if j == 0 then i
    else if s[i - 1] == t[j - 1] then d(i - 1, j - 1)
    else (d(i - 1, j) min d(i, j - 1) min d(i - 1, j - 1)) + 1
"""


def test_a_product_map_ships_each_packed_buffer_once_per_worker(client, monkeypatch, tmp_path):
    # 2 queries x 70 proteins read from FASTA files (packed buffers), in 4 shards (2 per
    # worker thread): the queries' buffer goes to every worker once (a broadcast), the
    # proteins' (more than NARROW) in slices, each protein in one slice sent to one worker;
    # a shard carries indexes only
    prog = dslc.compile(PROTEIN_EDITS, backend="interp")
    queries = _records(tmp_path / "q.fasta", ["MKVLA", "GIVG"])
    rng = np.random.default_rng(5)
    proteins = ["".join(rng.choice(list("ACDEFGHIKLMNPQRSTVWY"), int(n)))
                for n in rng.integers(1, 7, 70)]
    db = _records(tmp_path / "db.fasta", proteins)
    scattered, submitted = [], []
    scatter, submit = client.scatter, client.submit

    def spy_scatter(data, **kw):
        scattered.append((data, kw))
        return scatter(data, **kw)

    def spy_submit(fn, *args, **kw):
        submitted.append(args)
        return submit(fn, *args, **kw)

    monkeypatch.setattr(client, "scatter", spy_scatter)
    monkeypatch.setattr(client, "submit", spy_submit)
    there = prog.map("d", queries, db, client=client)
    here = prog.map("d", queries, db)
    assert _axes(there) == _axes(here) and there.values.tolist() == here.values.tolist()
    packs = [(p, kw) for data, kw in scattered for p in _walk(data) if isinstance(p, SeqPack)]
    whole = [p for p, kw in packs if kw.get("broadcast")]
    assert [len(p) for p in whole] == [2] and whole[0] is queries.pack
    slices = [(p, kw) for p, kw in packs if not kw.get("broadcast")]
    assert all(len(kw["workers"]) == 1 for _, kw in slices)
    names = sorted(p.name(k) for p, _ in slices for k in range(len(p)))
    assert names == sorted(f"p{k}" for k in range(70))  # every protein sent once
    assert len(submitted) == len(slices) == 2 * len(client.nthreads())
    carried = [v for args in submitted for v in _walk(args)]
    assert not any(isinstance(v, (SeqPack, Sequence)) for v in carried)


def _records(path, seqs: list[str]):
    path.write_text("".join(f">p{k}\n{s}\n" for k, s in enumerate(seqs)))
    return read_fasta(str(path), standard_alphabets()["protein"])


def _walk(value):
    """``value`` and what it holds (containers, dataclass fields), depth first."""
    yield value
    if isinstance(value, (list, tuple, dict)):
        for v in value.values() if isinstance(value, dict) else value:
            yield from _walk(v)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _walk(getattr(value, field.name))


@pytest.mark.parametrize("lost", [2, 3])
def test_payloads_lost_with_their_workers_are_sent_again(client, monkeypatch, lost):
    # a payload released before any shard ran, as when every worker holding it dies: the
    # word every worker holds (scatter 2, after the plan: every shard reads it) or one
    # shard's slice of the 70 words (scatter 3); the shards that read it run again
    prog = dslc.compile(str(EXAMPLES / "edit_distance.bio"), backend="interp")
    words = ["kitten", "sitting", "sunday", "saturday", "distance"] * 14
    sent, parts = [], []
    scatter, submit = client.scatter, client.submit

    def losing(data, **kw):
        futures = scatter(data, **kw)
        sent.append(futures)
        if len(sent) == lost:
            client.cancel(futures)
            _forgotten(client, futures)
        return futures

    def spy_submit(fn, *args, **kw):
        parts.append(args[2])
        return submit(fn, *args, **kw)

    monkeypatch.setattr(client, "scatter", losing)
    monkeypatch.setattr(client, "submit", spy_submit)
    there = prog.map("d", words, "algorithm", client=client)
    here = prog.map("d", words, "algorithm")
    assert there.values.tolist() == here.values.tolist()
    assert sum(p.count for p in parts) > len(words)  # some tasks were sent twice


def _forgotten(client, futures, wait: float = 30.0) -> None:
    """Returns once the scheduler no longer knows ``futures`` (a cancel is asynchronous)."""
    keys = [f.key for f in (futures if isinstance(futures, list) else [futures])]
    end = time.monotonic() + wait
    while time.monotonic() < end:
        if not client.run_on_scheduler(lambda dask_scheduler: [k for k in keys
                                                               if k in dask_scheduler.tasks]):
            return
        time.sleep(0.01)
    raise AssertionError("the scheduler kept a cancelled payload")




# Out of memory, for real: each worker's address space is limited (RLIMIT_AS) to its size
# plus MARGIN. f keeps its table whole (f(0, j) reads a row back): a 1,000 x 1,000 task's
# int64 table is about 8 MiB and fits (two at once too: a worker's Numba threads), a
# 1,000 x 10,000 one (76 MiB, more than a malloc arena holds, so it asks the kernel for new
# address space) does not. A CPU worker's tasks each allocate their own table, so what
# splitting can cure there is a shard holding a task too large: it is split until that
# task is alone, which is then named; the tasks split away from it run.
WHOLE_TABLE = """\
int f(seq[dna] s, index[s] i, seq[dna] t, index[t] j) =
    if i == 0 or j == 0 then i + j
    else if s[i - 1] == t[j - 1] then f(i - 1, j - 1) + f(0, j)
    else f(i - 1, j) max f(i, j - 1)
"""
MARGIN = 36 * 2**20

def _limit(margin):
    """In a worker: limit its address space to its size now plus ``margin``
    (None: lift the limit again, up to the hard limit, which is left as it was)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if margin is None:
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        return None
    with open("/proc/self/status") as status:
        size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
    resource.setrlimit(resource.RLIMIT_AS, (size + margin, hard))
    return size


def test_a_shard_out_of_memory_is_split_down_to_the_task_too_large(client, tmp_path):
    from dslc.cluster.pool import Pool
    from dslc.cluster.worker import Plan

    rng = np.random.default_rng(3)
    dna = ["".join(rng.choice(list("ACGT"), n)) for n in [1000] * 4 + [10000]]
    path = tmp_path / "s.fasta"
    path.write_text("".join(f">r{k}\n{s}\n" for k, s in enumerate(dna)))
    xs = read_fasta(str(path), standard_alphabets()["dna"])
    prog = dslc.compile(WHOLE_TABLE, backend="cpu")
    plan = Plan.of(prog.checked, None, "cpu")
    small = [{"s": xs[k], "t": xs[0]} for k in range(4)]
    expected = prog.map("f", xs[:4], xs[0]).values.tolist()
    for per_thread in (1, 2):  # compiled (or loaded) for shards of 2 tasks and of 1, unlimited
        assert Pool(client, per_thread=per_thread).map(plan, prog.checked, "f", small, None) \
            == expected
    # tasks 2, 4, 6, 8 are too large; two shards of 4 tasks ([1, 2, 5, 6], [3, 4, 7, 8]),
    # each split in halves and again: 6 splits
    tasks = [{"s": xs[k], "t": xs[t]} for k in range(4) for t in (0, 4)]
    client.run(_limit, MARGIN)
    pool = Pool(client, per_thread=1)
    try:
        assert pool.map(plan, prog.checked, "f", small, None) == expected  # they fit
        with pytest.raises(TaskError) as e:
            pool.map(plan, prog.checked, "f", tasks, None)
    finally:
        client.run(_limit, None)
    assert pool.splits == 6
    message = e.value.render()
    assert "this task alone does not fit in its worker's memory" in message
    assert "[in map task 2 (s=r0, t=r4)]" in message and "Traceback" not in message
