"""Splitting a map into shards and naming GPUs: no Dask needed."""

from __future__ import annotations

import numpy as np
import pytest

import dslc
from dslc.cli import main
from dslc.cluster.columns import Part, payloads, wide
from dslc.cluster.shards import GREEDY_UP_TO, parse_gpus, shard_tasks, split, task_cells
from dslc.errors import DslcError
from dslc.lang.batch import TaskBatch
from dslc.lang.records import SeqPack
from tests.conftest import EXAMPLES


def _loads(shards, weights):
    return sorted(sum(weights[i] for i in s) for s in shards)


def test_split_covers_every_task_once_in_order():
    weights = [5, 1, 9, 3, 3, 7, 2, 8]
    shards = split(weights, 3)
    assert sorted(i for s in shards for i in s) == list(range(len(weights)))
    assert all(s == sorted(s) for s in shards)
    assert _loads(shards, weights) == [12, 13, 13]


def test_split_balances_cells_not_task_counts():
    # one task as large as the other nine together: it is a shard on its own
    weights = [900] + [100] * 9
    shards = split(weights, 2)
    assert [0] in shards and _loads(shards, weights) == [900, 900]


def test_split_never_makes_empty_shards_and_keeps_one_problem_whole():
    assert split([10**9], 8) == [[0]]
    assert split([1, 1, 1], 8) == [[0], [1], [2]]
    assert split([], 4) == []


def test_task_cells_follow_the_sequences_lengths():
    prog = dslc.compile(str(EXAMPLES / "edit_distance.bio"), backend="interp")
    tasks = [prog._bind_map(prog.checked.functions["d"], [s, "ab"])
             for s in ("abcdefghij", "a")]
    big, small = task_cells(prog.checked, "d", tasks)
    assert big == 11 * 3 and small == 2 * 3


def test_operands_every_task_shares_are_sent_once():
    prog = dslc.compile(str(EXAMPLES / "smith_waterman.bio"), backend="interp")
    runs = []
    from dslc.runtime.script import ScriptRunner

    class Spy:
        name = "spy"

        def __init__(self, program, globals_):
            pass

        def map(self, func, tasks, span, progress=None):
            runs.append(tasks)
            return [0] * len(tasks)

    ScriptRunner(prog.checked, Spy, prog.base_dir, quiet=True).run()
    batch = TaskBatch.of(runs[0])
    buffers, slots = payloads(batch)
    # the matrix and the query are one payload each; the database sequences one packed buffer
    assert {id(buffers[slots[n]]) for n in ("sm", "s")} == {id(batch[0]["sm"]), id(batch[0]["s"])}
    assert isinstance(buffers[slots["t"]], SeqPack) and len(buffers) == len(set(map(id, buffers)))
    part, own = Part.cut(batch, np.array([3, 1]), slots)
    assert part.indexes[batch.names.index("s")] is None and not own  # no value of its own
    rebuilt = part.batch(buffers)
    assert [rebuilt[k]["t"].codes.tolist() for k in (0, 1)] == \
        [batch[k]["t"].codes.tolist() for k in (3, 1)]


@pytest.mark.parametrize("spec, devices", [("all", (0, 1, 2, 3)), ("2", (0, 1)),
                                           ("0,2", (0, 2)), (" 3 ", (0, 1, 2))])
def test_gpus_names_devices(spec, devices):
    assert parse_gpus(spec, count=lambda: 4) == devices


@pytest.mark.parametrize("spec, says", [("5", "has 4 GPU"), ("0,7", "has 4 GPU"),
                                        ("1,1", "twice"), ("x", "expects all"),
                                        ("0", "at least one"), ("-1", "expects all"),
                                        # digits str.isdigit takes and int() does not, or reads
                                        # from another script; more digits than int() converts
                                        ("\u00b2", "expects all"), ("0,\u0661", "expects all"),
                                        ("9" * 5000, "more GPUs than any host")])
def test_gpus_refuses_what_is_not_there(spec, says):
    with pytest.raises(DslcError, match=says):
        parse_gpus(spec, count=lambda: 4)


def test_gpus_without_a_gpu_is_one_clear_error(capsys):
    path = str(EXAMPLES / "casino.bio")
    assert main(["run", path, "--gpus", "all"]) == 2
    err = capsys.readouterr().err
    assert "no CUDA GPU" in err and "Traceback" not in err


def test_gpus_and_cluster_exclude_each_other(capsys):
    path = str(EXAMPLES / "casino.bio")
    with pytest.raises(SystemExit) as e:
        main(["run", path, "--gpus", "all", "--cluster", "local"])
    assert e.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_gpus_need_the_cuda_backend(capsys):
    path = str(EXAMPLES / "casino.bio")
    assert main(["run", path, "--backend", "interp", "--gpus", "1"]) == 2
    assert "cuda backend" in capsys.readouterr().err


def test_a_products_shards_read_one_slice_of_the_database_for_every_query():
    # 3 words x 100 (more than NARROW: the wide column) in 4 shards of about equal cells
    prog = dslc.compile(str(EXAMPLES / "edit_distance.bio"), backend="interp")
    rng = np.random.default_rng(7)
    words = ["".join(rng.choice(list("abcdef"), int(n))) for n in rng.integers(1, 40, 100)]
    f = prog.checked.functions["d"]
    seqs = [prog._bind_map(f, [w, "a"])["s"] for w in words]
    queries = [prog._bind_map(f, ["a", q])["t"] for q in ("ab", "abcdefgh", "abcd")]
    batch = TaskBatch.of([{"s": s, "t": q} for q in queries for s in seqs])
    cells = task_cells(prog.checked, "d", batch)
    assert cells.tolist() == [(len(w) + 1) * (len(q) + 1) for q in ("ab", "abcdefgh", "abcd")
                              for w in words]
    shards = shard_tasks(batch, cells, 4)
    assert np.sort(np.concatenate(shards)).tolist() == list(range(300))
    for ids in shards:
        assert ids.tolist() == sorted(ids.tolist())
        slices = [set(ids[ids // 100 == g] % 100) for g in range(3)]
        assert slices[0] == slices[1] == slices[2]  # every query with the same proteins
    loads = [int(cells[ids].sum()) for ids in shards]
    assert len(shards) == 4 and max(loads) - min(loads) <= 2 * int(cells.max()) * 3


def test_many_units_are_cut_into_ranges_of_even_work():
    weights = np.random.default_rng(3).integers(1, 2000, GREEDY_UP_TO * 2)[::-1]
    shards = split(weights, 5)
    assert np.concatenate(shards).tolist() == list(range(len(weights)))  # ranges, in order
    loads = [int(weights[s].sum()) for s in shards]
    assert max(loads) - min(loads) <= 2 * int(weights.max())


def test_a_wide_buffer_is_cut_to_the_records_each_shard_reads():
    # 2 queries x 70 proteins: the proteins' buffer (more than NARROW records) is cut per
    # shard, renumbered; the queries' buffer is not
    prog = dslc.compile(str(EXAMPLES / "edit_distance.bio"), backend="interp")
    f = prog.checked.functions["d"]
    words = ["abcdef"[: 1 + k % 6] + "xyz"[: k % 3] for k in range(70)]
    seqs = [prog._bind_map(f, [w, "a"])["s"] for w in words]
    queries = [prog._bind_map(f, ["a", q])["t"] for q in ("ab", "abc")]
    batch = TaskBatch.of([{"s": s, "t": q} for q in queries for s in seqs])
    buffers, slots = payloads(batch)
    assert wide(batch, slots) == {slots["s"]}
    ids = np.array([140 - 1, 5, 70 + 5, 33])
    part, own = Part.cut(batch, ids, slots, wide(batch, slots))
    assert list(own) == [slots["s"]] and len(own[slots["s"]]) == 3  # rows 69, 5 and 33
    mine = part.batch([own.get(k, b) for k, b in enumerate(buffers)])
    whole = batch.subset(ids)
    for k in range(len(ids)):
        for n in ("s", "t"):
            assert mine[k][n].name == whole[k][n].name
            assert mine[k][n].codes.tolist() == whole[k][n].codes.tolist()


def test_out_of_memory_is_recognised_through_the_errors_raised_from_it():
    # numpy's MemoryError (with the allocation's size), the CPU backend's DslcError raised
    # from it, the CUDA driver's out-of-memory; a language error and another driver error
    # are not
    from numba.cuda.cudadrv.driver import CudaAPIError

    from dslc.cluster.worker import CUDA_ERROR_OUT_OF_MEMORY, out_of_memory

    def raised(make):
        try:
            make()
        except Exception as e:  # noqa: BLE001 - the error under test, whatever it is
            return e
        raise AssertionError("nothing was raised")

    def wrapped():
        try:
            np.empty((2**20, 2**20))  # 8 TiB
        except MemoryError:
            raise DslcError("could not allocate its working storage") from None

    def device(code):
        def fail():
            raise CudaAPIError(code, "Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY")
        return fail

    host = out_of_memory(raised(wrapped))
    assert host is not None and host.needed == 2**43
    gpu = out_of_memory(raised(device(CUDA_ERROR_OUT_OF_MEMORY)))
    assert gpu is not None and gpu.needed is None and "cuMemAlloc" in gpu.detail
    assert out_of_memory(raised(device(1))) is None
    assert out_of_memory(DslcError("division by zero")) is None


@pytest.mark.parametrize("cells", [[5, 1, 9, 3], [10**9] + [1] * (GREEDY_UP_TO + 5),
                                   [1] * (GREEDY_UP_TO + 5)])
def test_a_shard_out_of_memory_is_cut_in_two_halves_of_its_tasks(cells):
    # by the splitter every shard comes from, greedy or by ranges; never one half of all
    # (a first task outweighing the rest of many is cut off on its own)
    from dslc.cluster.pool import Pool
    from dslc.cluster.worker import OutOfMemory

    cells = np.array(cells, dtype=np.int64)
    ids = np.arange(0, 2 * len(cells), 2)  # a shard's tasks, among the map's
    everything = np.zeros(2 * len(cells), dtype=np.int64)
    everything[ids] = cells
    pool = Pool(client=None)
    halves = pool._halves("f", ids, everything, OutOfMemory("no memory", None))
    assert len(halves) == 2 and all(len(h) for h in halves) and pool.splits == 1
    assert sorted(np.concatenate(halves).tolist()) == ids.tolist()
    assert all((np.diff(h) > 0).all() for h in halves)
