"""A database of another size runs the machine code compiled for the first one.

Lengths are in a plan's key (the schedule is ranked, and its storage windows are
sized, at the run's extents: dslc.schedule.legality), but not in the generated
code, which reads every extent at run time: so another size plans again (a
fraction of a second) and finds the module's machine code in Numba's cache. Here
the second map is a fresh process's (the loaded modules forgotten), over a
database of other lengths and another count, as a user's next run is. And a few
queries x a database, run as one map per query, makes one plan for them all."""

from __future__ import annotations

import logging

import numpy as np

import dslc
from dslc.cpu import modules

# a map of fewer than 16 tasks (the scalar path: its compile is the cheaper one)
SRC = """
define alphabet dna "ACGT"
int d(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 = j
  | j == 0 = i
  | otherwise = (d(i - 1, j) + 1) min (d(i, j - 1) + 1)
      min (d(i - 1, j - 1) + (if s[i - 1] == t[j - 1] then 0 else 1))
int dist(seq[dna] s, seq[dna] t) = d(s, t, len(s), len(t))
"""


def _map(db: list[str], caplog) -> tuple[list, list[str]]:
    prog = dslc.compile(SRC, backend="cpu")
    with caplog.at_level(logging.INFO, logger="dslc"):
        caplog.clear()
        values = prog.map("dist", ["ACGTTGCA"], db)
    return values, [r.getMessage() for r in caplog.records]


def test_a_database_of_another_size_finds_its_code_in_the_cache(tmp_path, monkeypatch,
                                                                 caplog):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(modules, "_LOADED", {})
    small = ["ACG", "TTGCA", "A"]
    first, log = _map(small, caplog)
    assert any("compiled (not in the cache)" in m for m in log)
    monkeypatch.setattr(modules, "_LOADED", {})  # as a new process: nothing loaded
    large = ["ACGTACGTAAGT" * 5, "T" * 90, "GATTACA", "CC", "ACGTTGCAACGT"]
    second, log = _map(large, caplog)
    assert any("planned and generated" in m for m in log)  # other extents, planned again
    assert not any("compiled (not in the cache)" in m for m in log), log
    assert any("machine code from the cache" in m for m in log)
    interp = dslc.compile(SRC, backend="interp")
    for got, db in ((first, small), (second, large)):
        assert np.asarray(got).tolist() == np.asarray(interp.map("dist", ["ACGTTGCA"], db)).tolist()


def test_the_parts_of_a_few_queries_x_a_database_share_one_plan(monkeypatch):
    """A product over a few queries runs as one map per query (cpu.backend.item_parts),
    all planned for the whole map's widest binding: one plan key (and so one plan made
    on a first run), not one per query length. Nothing is compiled here: the keys are
    computed as the parts' maps compute them."""
    import numba

    from dslc.cpu import backend
    from dslc.cpu.packs import shared_arguments
    from dslc.lang.batch import SeqColumn, TaskBatch
    from dslc.lang.records import SeqPack
    from dslc.lang.values import Sequence

    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)  # (parts of 64 tasks split)
    prog = dslc.compile(SRC, backend="cpu")
    cpu = prog._engine()
    alphabet = cpu.program.alphabets["dna"]
    rng = np.random.default_rng(5)

    def seq(k: int, text: str) -> Sequence:
        return Sequence(f"r{k}", alphabet, alphabet.encode(text))
    queries = [seq(k, "ACGT"[: 1 + k % 4] * (3 + 7 * k)) for k in range(3)]
    db = [seq(k, "".join(rng.choice(list("ACGT"), int(n))))
          for k, n in enumerate(rng.integers(5, 60, 80))]
    qi, di = np.divmod(np.arange(len(queries) * len(db), dtype=np.int64), len(db))
    batch = TaskBatch(("s", "t"), {"s": SeqColumn(SeqPack.of(queries, alphabet), qi),
                                   "t": SeqColumn(SeqPack.of(db, alphabet), di)}, len(qi))
    parts = backend.map_parts(batch, cpu.program.registry, cpu.packs.applies(batch))
    assert parts is not None and len(parts) == len(queries)
    f = cpu.program.functions["dist"]

    def key(part):
        kind, scope, request = cpu.map_entry(f, part)
        return cpu.packs.plan_key("dist", kind, scope, request, "auto", shared_arguments(part))
    with cpu._parts_of(batch):
        keys = {key(batch.subset(p)) for p in parts}
    assert len(keys) == 1
    assert len({key(batch.subset(p)) for p in parts}) == len(queries)  # (each its own alone)
