"""What a product map's launches take from earlier ones instead of making again
(:meth:`CudaBackend._launches`, ``Launches.rows_as``, :attr:`TaskBatch.twins`):
each reuse equals what recomputing it gives."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dslc
from dslc.cuda.backend import CudaBackend
from dslc.lang.batch import SeqColumn, Shared, TaskBatch
from dslc.lang.records import SeqPack
from dslc.runtime.binding import bind_call
from dslc.runtime.script import backend_globals
from tests.test_properties import GOTOH

AA = "ARNDCQEGHILKMFPSTWYV"


@functools.lru_cache(maxsize=1)
def _program():
    return dslc.compile(GOTOH, backend="interp").checked


def _product(texts: list[str], nq: int, layout: str, keep: int | None) -> TaskBatch:
    """Queries ``texts[:nq]`` x the database ``texts[nq:]``, as `dslc run` binds
    ``q (*) db`` (``slow``: the query varying slowest) or with the query varying
    fastest; ``keep``: only the first tasks."""
    checked = _program()
    sw = checked.functions["sw"]
    bound = [bind_call(sw, [checked.defined["blosum62"], 10, 1, t, t], checked, None)
             for t in texts]
    qs = SeqPack.of([b["s"] for b in bound[:nq]], bound[0]["s"].alphabet)
    db = SeqPack.of([b["t"] for b in bound[nq:]], bound[0]["t"].alphabet)
    nd, n = len(texts) - nq, nq * (len(texts) - nq)
    q, t = (np.arange(n) // nd, np.arange(n) % nd) if layout == "slow" else \
        (np.arange(n) % nq, np.arange(n) // nq)
    n = n if keep is None else min(n, keep)
    cols = {k: Shared(v) for k, v in bound[0].items()}
    cols["s"], cols["t"] = SeqColumn(qs, q[:n]), SeqColumn(db, t[:n])
    return TaskBatch(tuple(bound[0]), cols, n)


seqs = st.lists(st.integers(1, 12), min_size=67, max_size=75).map(
    lambda lens: [(AA * 2)[k % 20: k % 20 + n] for k, n in enumerate(lens)])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=seqs, nq=st.integers(1, 3), layout=st.sampled_from(["slow", "fast"]),
       keep=st.one_of(st.none(), st.integers(60, 200)), piece=st.sampled_from([8, 16, 40]),
       budget=st.sampled_from([None, 4000, 16000]), strategy=st.sampled_from(["thread", "block"]))
def test_a_launch_reusing_an_earlier_one_s_rows_reads_the_same_rows(texts, nq, layout, keep,
                                                                   piece, budget, strategy):
    """Every launch's ``rows_as`` launch reads the same database rows, its
    ``constant`` columns are one value in it, its ``longest`` is the maximum of
    its tasks' lengths, and the launches are those of each group cut with its own
    gathered lengths (nothing taken from a twin changes them). ``budget``: bytes
    of scratch per launch, small enough that a longer query's launches are cut
    at other places than a shorter one's (a block per task: its storage grows
    with the query too)."""
    from dslc.cuda import map_sizing

    batch = _product(texts, nq, layout, keep)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DSLC_CUDA_PIPELINE", str(piece))
        mp.setenv("DSLC_CUDA_STRATEGY", strategy)
        if budget is not None:
            mp.setattr(map_sizing, "scratch_budget", lambda held=0: budget)
        run = CudaBackend(_program(), backend_globals(_program()))._choose_map("sw",
                                                                               batch).compiled
        reference = _reference_launches(batch, run)
    index = {n: c.index for n, c in batch.columns.items() if isinstance(c, SeqColumn)}
    order, bounds = batch.grouped
    for g, twin in enumerate(batch.twins):
        assert twin <= g and (twin == g or twin == batch.twins[g - 1])
        rows = slice(bounds[g], bounds[g + 1])
        head = slice(bounds[twin], bounds[twin + 1])
        assert np.array_equal(index["t"][order[rows]], index["t"][order[head]])
    assert sorted(np.concatenate(run.launches).tolist()) == list(range(len(batch)))
    for n, ids in enumerate(run.launches):
        m = run.rows_as[n]
        assert m <= n
        assert run.longest[n] == {k: int(v[ids].max()) for k, v in batch.lengths.items()}
        for name, ix in index.items():
            if name in run.constant:
                assert len(set(ix[ids].tolist())) == 1
            else:
                assert np.array_equal(ix[ids], ix[run.launches[m]])
    assert [ids.tolist() for ids in run.launches] == reference


def _reference_launches(batch: TaskBatch, run) -> list[list[int]]:
    """Each group cut with its own tasks' gathered lengths (as before twins)."""
    from dslc.cuda.map_sizing import pipeline_tasks, scratch_budget

    engine = CudaBackend(_program(), backend_globals(_program()))
    k = run.kernel
    piece = pipeline_tasks()
    order, bounds = batch.grouped
    if len(bounds) > 2 and int(np.diff(bounds).min()) < piece // 4:
        order, bounds = batch.order, np.array([0, len(batch)])
    budget = scratch_budget() // (2 if len(batch) > piece or len(bounds) > 2 else 1)
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        ids = order[a:b]
        lens = {n: v[ids] for n, v in batch.lengths.items()}
        out += [ids[lo:hi].tolist() for lo, hi, _ in
                engine._cut(len(ids), lens, piece, budget, k.plan, k.storage, k.dtype)]
    return out


def test_a_launch_packs_what_it_would_make_afresh(monkeypatch):
    """The arrays a product's launches pack, taking the database's interleaved
    copy, bases and lengths from an earlier query's launch, equal those each
    launch makes for itself."""
    monkeypatch.setenv("DSLC_CUDA_PIPELINE", "24")
    batch = _product([(AA * 2)[k % 20: k % 20 + 1 + k % 7] for k in range(68)], 2, "slow", None)
    reusing = CudaBackend(_program(), backend_globals(_program()))
    run = reusing._choose_map("sw", batch).compiled
    assert any(m != n for n, m in enumerate(run.rows_as))  # some launch reuses
    k, f, memory = run.kernel, _program().functions["sw"], reusing._memory()
    made = {}
    for n, ids in enumerate(run.launches):
        stream, arena = memory.streams[n % 2], memory.arenas[n % 2]
        got = reusing._pack(list(k.args), run.travel, batch, ids, k.plan, f, k.dtype, k.block,
                            stream, (run, n, made, arena))
        afresh = CudaBackend(_program(), backend_globals(_program()))
        want = afresh._pack(list(k.args), run.travel, batch, ids, k.plan, f, k.dtype, k.block,
                            stream)
        for a, x, y in zip(k.args, got, want):
            x, y = [v.copy_to_host() if hasattr(v, "copy_to_host") else v for v in (x, y)]
            assert np.array_equal(np.asarray(x), np.asarray(y)), (n, a.name)
        memory.streams[n % 2].synchronize()
        arena.reset()
