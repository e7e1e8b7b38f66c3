"""A map's tasks as columns (dslc.lang.batch) and FASTA read straight into one
packed buffer (dslc.lang.fasta's byte reader, dslc.lang.records)."""

from __future__ import annotations

import gc
import gzip
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dslc
from dslc import backends
from dslc.errors import DslcError, Span
from dslc.lang.batch import SeqColumn, Shared, TaskBatch
from dslc.lang.fasta import _read_packed, parse_fasta_text, read_fasta
from dslc.lang.records import Records, SeqPack
from dslc.runtime.script import ScriptRunner
from dslc.lang.stdlib import standard_alphabets
from dslc.lang.values import Sequence

DNA = standard_alphabets()["dna"]
SPAN = Span("prog.bio", 3, 6)

_header = st.builds(lambda name, rest: ">" + name + rest,
                    st.sampled_from(["", "a", "r_1", "x.y|z"]),
                    st.sampled_from(["", " desc here", "\tx"]))
_residues = st.text("ACGTacgt \t", max_size=12)
_line = st.one_of(_header, _residues, st.just(""), st.just(";note"))
_fasta = st.builds(lambda first, lines, eol, last: first + eol + eol.join(lines) + last,
                   _header, st.lists(_line, max_size=8), st.sampled_from(["\n", "\r\n"]),
                   st.sampled_from(["", "\n"]))


@settings(max_examples=60, deadline=None)
@given(_fasta)
def test_the_byte_reader_reads_what_the_line_reader_reads(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("f") / "x.fa"
    path.write_bytes(text.encode())
    want = parse_fasta_text(text, DNA)
    pack = _read_packed(str(path), DNA, None)
    assert pack is not None
    assert [pack.name(k) for k in range(len(pack))] == [r.name for r in want]
    assert [pack.sequence(k).codes.tolist() for k in range(len(pack))] == \
        [r.codes.tolist() for r in want]


def test_the_byte_reader_leaves_a_bad_symbol_to_the_line_reader_s_message(tmp_path):
    text = ">a\nACGT\n>b\nAC\nGNA\n"
    path = tmp_path / "reads.fasta"
    path.write_text(text)
    with pytest.raises(DslcError) as packed:
        read_fasta(str(path), DNA, SPAN)
    with pytest.raises(DslcError) as lines:
        parse_fasta_text(text, DNA, str(path), SPAN)
    assert str(packed.value) == str(lines.value)
    assert "record 'b'" in str(packed.value) and "position 4 (line 5)" in str(packed.value)


def test_a_gzipped_database_is_one_buffer_of_codes(tmp_path):
    path = tmp_path / "db.fa.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("".join(f">s{k} x\n{'ACGT' * k}\nacg\n" for k in range(300)))
    records = read_fasta(str(path), DNA)
    assert isinstance(records, Records) and len(records) == 300
    assert records.pack.codes.dtype == np.uint8
    assert records.pack.codes.nbytes == sum(4 * k + 3 for k in range(300))
    assert records[7].name == "s7" and records[7].text == "ACGT" * 7 + "ACG"
    assert records[7] is records[7]  # sequences compare by identity: one object per record
    assert records[-1].name == "s299" and [r.name for r in records[1:3]] == ["s1", "s2"]


LCS = """
define alphabet dna "ACGT"
int lcs(seq[dna] s, index[s] i, seq[dna] t, index[t] j)
  | i == 0 or j == 0 = 0
  | s[i - 1] == t[j - 1] = lcs(i - 1, j - 1) + 1
  | otherwise = lcs(i - 1, j) max lcs(i, j - 1)
a = load(seq[dna], "a.fa")
b = load(seq[dna], "b.fa")
print map(lcs, a (*) b)
"""


def _write(tmp_path, na=4, nb=5):
    rng = np.random.default_rng(3)
    for name, n in (("a", na), ("b", nb)):
        (tmp_path / f"{name}.fa").write_text("".join(
            f">{name}{k}\n{''.join(rng.choice(list('ACGT'), 3 + k))}\n" for k in range(n)))
    (tmp_path / "s.bio").write_text(LCS)


def _run(tmp_path, backend, engines=None):
    prog = dslc.compile(str(tmp_path / "s.bio"), backend=backend)
    seen = {}

    def make(program, globals_):
        engine = backends.get(backend)(program, globals_)
        if engines is not None:
            engines.append(engine)
        run_map = engine.map

        def recording(func, tasks, span, progress=None):
            seen.setdefault("tasks", tasks)  # (the whole map: its parts call map again)
            return run_map(func, tasks, span, progress)
        engine.map = recording
        return engine

    runner = ScriptRunner(prog.checked, make, prog.base_dir, quiet=True)
    (result,) = dict(runner.run()).values()
    return result, seen["tasks"], runner.globals


def _lcs(s: str, t: str) -> int:
    row = [0] * (len(t) + 1)
    for a in s:
        prev, row = row, [0]
        for j, b in enumerate(t, 1):
            row.append(prev[j - 1] + 1 if a == b else max(prev[j], row[j - 1]))
    return row[-1]


def test_a_map_over_loaded_records_is_columns_over_their_buffers(tmp_path):
    _write(tmp_path)
    result, batch, env = _run(tmp_path, "interp")
    assert isinstance(batch, TaskBatch) and len(batch) == 20
    s, t = batch.columns["s"], batch.columns["t"]
    assert isinstance(s, SeqColumn) and s.pack is env["a"].pack  # the records, not a copy
    assert t.pack is env["b"].pack
    assert s.index.tolist() == [k // 5 for k in range(20)]
    assert t.index.tolist() == [k % 5 for k in range(20)]
    assert [ax.labels for ax in result.axes] == [tuple(f"a{k}" for k in range(4)),
                                                 tuple(f"b{k}" for k in range(5))]
    want = [[_lcs(x.text, y.text) for y in env["b"]] for x in env["a"]]
    assert result.values.tolist() == want


def test_the_cpu_backend_runs_a_columnar_map_as_the_interpreter_does(tmp_path):
    _write(tmp_path)
    want, _, _ = _run(tmp_path, "interp")
    got, batch, _ = _run(tmp_path, "cpu")
    assert isinstance(batch.columns["s"], SeqColumn)
    assert got.values.tolist() == want.values.tolist()
    assert [ax.labels for ax in got.axes] == [ax.labels for ax in want.axes]


SW_FILES = """
q = load(seq[protein], "q.fa")
db = load(seq[protein], "db.fa")
print map(sw, blosum62 (*) 10 (*) 1 (*) q (*) db)
"""


def _sw_files(tmp_path, queries: int, proteins: int) -> None:
    from benchmarks.common import SW_PROGRAM

    rng = np.random.default_rng(5)
    aa = list("ACDEFGHIKLMNPQRSTVWY")
    (tmp_path / "q.fa").write_text("".join(
        f">q{k}\n{''.join(rng.choice(aa, 20 + 7 * k))}\n" for k in range(queries)))
    (tmp_path / "db.fa").write_text("".join(
        f">d{k}\n{''.join(rng.choice(aa, 5 + k % 37))}\n" for k in range(proteins)))
    (tmp_path / "s.bio").write_text(SW_PROGRAM + SW_FILES)


def _lanes_signatures(engine) -> list[str]:
    return [next(line for line in source.splitlines() if line.startswith("def lanes("))
            for _, source, _ in engine.packs.generated.values()]


def test_a_one_record_query_file_is_passed_to_the_lanes_once(tmp_path):
    """Every task reads the one record of a query file: the batch keeps it a column
    (the GPU's product path groups by it), the CPU's lanes take it as a shared query
    (one array, its residues scalars in the lane loop), and the scores are the
    interpreter's."""
    _sw_files(tmp_path, 1, 40)
    want, _, _ = _run(tmp_path, "interp")
    engines = []
    got, batch, _ = _run(tmp_path, "cpu", engines)
    assert isinstance(batch.columns["s"], SeqColumn) and batch.shared == {"sm", "open", "ext"}
    assert batch.uniform == {"sm", "open", "ext", "s"}
    (lanes,) = _lanes_signatures(engines[0])
    assert "a_s," in lanes and "n_s" not in lanes  # one query array, no per-lane lengths
    assert got.values.tolist() == want.values.tolist()
    assert [ax.labels for ax in got.axes] == [ax.labels for ax in want.axes]


def test_a_few_queries_against_a_database_run_one_map_each(tmp_path, monkeypatch):
    """Queries x a database (the queries a narrow column, TaskBatch.grouped): the
    CPU backend runs one map per query, each with its query every task's, so the
    lanes take it once; the values are the interpreter's, in the product's order.
    (Two threads, as CI has: a part must give each thread two groups of lanes.)"""
    import numba

    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    _sw_files(tmp_path, 3, 80)
    want, _, _ = _run(tmp_path, "interp")
    engines = []
    got, batch, _ = _run(tmp_path, "cpu", engines)
    assert batch.uniform == batch.shared  # the whole map's queries differ
    assert all("n_s" not in lanes for lanes in _lanes_signatures(engines[0]))
    assert got.values.tolist() == want.values.tolist()
    assert [ax.labels for ax in got.axes] == [ax.labels for ax in want.axes]


def test_a_batch_of_dicts_shares_what_every_task_shares():
    q = Sequence("q", DNA, DNA.encode("ACG"))
    xs = [Sequence(f"x{k}", DNA, DNA.encode("ACGT"[:k + 1])) for k in range(4)]
    batch = TaskBatch.of([{"q": q, "t": x, "n": 2} for x in xs])
    assert batch.shared == {"q", "n"} and isinstance(batch.columns["q"], Shared)
    codes, starts, lens = batch.seq_rows("t")
    assert [codes[a:a + n].tolist() for a, n in zip(starts, lens)] == \
        [x.codes.tolist() for x in xs]
    assert batch.order.tolist() == [3, 2, 1, 0]
    sub = batch.subset([2, 0])
    assert [t["t"].name for t in sub] == ["x2", "x0"] and sub[0]["q"] is q


def test_the_api_keeps_a_database_on_the_device_across_maps(tmp_path):
    _write(tmp_path, 2, 3)
    prog = dslc.compile(LCS.split("a = load")[0], backend="cuda")
    db = prog.load(tmp_path / "b.fa", "dna")
    queries = prog.load(tmp_path / "a.fa", "dna")
    first = prog.map("lcs", queries, db).values.tolist()
    engine = prog._engine()
    codes = weakref.ref(db.pack.codes)

    def of_db():
        return [v[1] for v in engine._uploaded.values() if v[0]() is codes()]
    uploaded = of_db()
    assert uploaded  # the database's buffer on the device (interleaved: tiled kernels)
    assert prog.map("lcs", queries, db).values.tolist() == first
    assert all(a is b for a, b in zip(of_db(), uploaded)) and len(of_db()) == len(uploaded)
    assert first == [[_lcs(x.text, y.text) for y in db] for x in queries]
    kept = len(engine._uploaded)
    del db, uploaded
    gc.collect()
    assert 0 < len(engine._uploaded) < kept  # the queries' alone: the database's are gone


def test_a_large_database_is_copied_while_its_first_map_is_planned(tmp_path, monkeypatch):
    """dslc.cuda.ahead: the copy made on the thread is the one the launches read,
    the values are the same, and nothing is left pending once the map has run."""
    from dslc.cuda import ahead, device

    monkeypatch.setattr(ahead, "AHEAD_BYTES", 0)  # every buffer counts as large here
    monkeypatch.setattr(device, "PIN_BYTES", 0)  # and is page-locked for its copy
    from numba import cuda

    pinned, locked = cuda.pinned, []
    monkeypatch.setattr(cuda, "pinned", lambda *a: locked.append(a) or pinned(*a))
    _write(tmp_path, 2, 3)
    prog = dslc.compile(LCS.split("a = load")[0], backend="cuda")
    db = prog.load(tmp_path / "b.fa", "dna")
    queries = prog.load(tmp_path / "a.fa", "dna")
    engine = prog._engine()
    taken = []
    take = engine._ahead.take
    monkeypatch.setattr(engine._ahead, "take", lambda codes: taken.append(take(codes)) or
                        taken[-1])
    got = prog.map("lcs", queries, db).values.tolist()
    assert got == [[_lcs(x.text, y.text) for y in db] for x in queries]
    assert any(t is not None for t in taken)  # a launch read a copy made ahead
    resident = [v[1] for v in engine._uploaded.values() if v[0]() is db.pack.codes]
    assert any(r is t for r in resident for t in taken) and not engine._ahead._pending
    assert any(a[0] is db.pack.codes for a in locked)  # copied from page-locked memory
    assert prog.map("lcs", queries, db).values.tolist() == got  # resident: not copied again
    assert not engine._ahead._pending


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 70000), max_size=60))
def test_tasks_run_largest_first_ties_in_order(sizes):
    from dslc.lang.batch import largest_first

    sizes = np.array(sizes, dtype=np.int64)
    assert largest_first(sizes).tolist() == np.argsort(-sizes, kind="stable").tolist()


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=20), st.sampled_from([1, 2, 4, 32]))
def test_interleaving_by_block_puts_every_residue_where_the_kernel_reads_it(lens, block):
    """Residue ``j`` of task ``k`` at ``base[k // block] + j * block + k % block``,
    every other byte of a block 0 (emit.tiles reads them by that rule); made on
    the device (here Numba's simulator) from the packed buffer."""
    from numba import cuda

    from dslc.cuda.layout import interleave

    lens = np.array(lens, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64) if len(lens) else lens
    codes = (np.arange(int(lens.sum()), dtype=np.int64) % 250 + 1).astype(np.uint8)
    device, base = interleave(cuda, cuda.to_device(codes if len(codes) else np.zeros(1, np.uint8)),
                              starts, lens, block, 0, threads=8)
    buf = device.copy_to_host()
    want = np.zeros(max(1, sum(max(lens[b:b + block], default=0) * block
                               for b in range(0, len(lens), block))), dtype=np.uint8)
    for k, n in enumerate(lens.tolist()):
        for j in range(n):
            want[base[k // block] + j * block + k % block] = codes[starts[k] + j]
    assert buf.tolist() == want.tolist()


def _product(nq: int, nd: int, lens: list[int]) -> TaskBatch:
    """``nq`` queries x ``nd`` database sequences, as `dslc run` binds a product."""
    seqs = [Sequence(f"s{k}", DNA, DNA.encode("".join("ACGT"[(k + j) % 4] for j in range(n))))
            for k, n in enumerate(lens)]
    qs, db = SeqPack.of(seqs[:nq], DNA), SeqPack.of(seqs[nq:nq + nd], DNA)
    n = nq * nd
    return TaskBatch(("s", "t"), {"s": SeqColumn(qs, np.arange(n) // nd),
                                  "t": SeqColumn(db, np.arange(n) % nd)}, n)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 4), st.integers(1, 90), st.data())
def test_a_product_groups_by_query_each_reading_the_database_in_one_order(nq, nd, data):
    from dslc.lang.batch import NARROW

    lens = data.draw(st.lists(st.integers(0, 6), min_size=nq + nd, max_size=nq + nd))
    batch = _product(nq, nd, lens)
    order, bounds = batch.grouped
    assert sorted(order.tolist()) == list(range(nq * nd))
    groups = [order[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    if nd <= NARROW:  # no wide column: one group, largest first
        assert len(groups) == 1 and order.tolist() == batch.order.tolist()
        return
    assert len(groups) == nq
    size = batch.lengths["s"] + batch.lengths["t"]
    rows = []
    for g in groups:
        assert len(set((g // nd).tolist())) == 1  # one query per group
        assert g.tolist() == sorted(g.tolist(), key=lambda k: (-size[k], k))
        rows.append((g % nd).tolist())
    assert all(r == rows[0] for r in rows)  # the database in the same order for each


def _reference_groups(batch: TaskBatch, narrow: list[str]) -> list[list[int]]:
    """Groups by the narrow columns' items (in their order), each by size, largest
    first, ties in task order: what ``TaskBatch.grouped`` promises, spelled out."""
    size = sum(batch.lengths.values())
    keys = sorted({tuple(int(batch.columns[n].index[k]) for n in reversed(narrow))
                   for k in range(len(batch))})
    return [sorted((k for k in range(len(batch)) if tuple(
        int(batch.columns[n].index[k]) for n in reversed(narrow)) == key),
        key=lambda k: (-size[k], k)) for key in keys]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(65, 90), st.sampled_from(["slow", "fast", "shuffled"]),
       st.booleans(), st.data())
def test_grouped_equals_the_reference_order_for_any_binding(nq, nd, layout, partial, data):
    """However the tasks of a product are laid out (query varying slowest,
    fastest, or tasks in any order, some pairs left out), the groups equal the
    reference; the reuse of one group's order by the next is never visible."""
    lens = data.draw(st.lists(st.integers(0, 6), min_size=nq + nd, max_size=nq + nd))
    batch = _product(nq, nd, lens)
    q, t = batch.columns["s"].index, batch.columns["t"].index
    if layout == "fast":
        q, t = np.arange(nq * nd) % nq, np.arange(nq * nd) // nq
    ids = np.arange(nq * nd)
    if layout == "shuffled":
        ids = np.array(data.draw(st.permutations(range(nq * nd))))
    if partial:
        ids = ids[:data.draw(st.integers(1, len(ids)))]
    batch = TaskBatch(("s", "t"), {"s": SeqColumn(batch.columns["s"].pack, q[ids]),
                                   "t": SeqColumn(batch.columns["t"].pack, t[ids])}, len(ids))
    order, bounds = batch.grouped
    got = [order[a:b].tolist() for a, b in zip(bounds[:-1], bounds[1:])]
    assert got == _reference_groups(batch, ["s"])


def test_a_query_every_task_reads_is_one_shared_block(monkeypatch):
    """A launch whose tasks all read one sequence (the query) interleaves one block
    for all (every block's base 0), kept while its buffer lives; the database's
    rows are interleaved once for every query of a product."""
    from dslc.cuda import backend as cb

    calls = []
    real = cb.layout.interleave
    monkeypatch.setattr(cb.layout, "interleave",
                        lambda *a, **k: calls.append(len(a[3])) or real(*a, **k))
    engine = cb.CudaBackend.__new__(cb.CudaBackend)
    engine._uploaded, engine._ahead = {}, cb.Ahead(cb._upload)
    batch = _product(3, 70, [2, 3, 4] + [1 + k % 5 for k in range(70)])
    order, bounds = batch.grouped
    for a, b in zip(bounds[:-1], bounds[1:]):
        ids, bases = order[a:b], {}
        q = engine._interleaved(batch, "s", ids, 32, bases, None)
        assert bases["s"].tolist() == [0, 0, 0]
        codes, starts, lens = batch.seq_rows("s", ids[:1])
        start, n = int(starts[0]), int(lens[0])
        want = np.repeat(codes[start:start + n], 32)  # residue j in every lane
        assert q.copy_to_host()[:n * 32].tolist() == want.tolist()
        engine._interleaved(batch, "t", ids, 32, bases, None)
    assert calls == [32, 70, 32, 32]  # each query's one block, the database once



@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=40), st.integers(0, 7),
       st.sampled_from(["whole", "shuffled", "repeated"]), st.data())
def test_a_database_s_rows_and_order_are_the_gathers_they_stand_for(lens, qlen, index, data):
    """Whatever the database column's index (the whole pack in order, as a map
    over a file binds it, or any other rows), its rows and the tasks' order equal
    the gathers and the sort they save: a shared query's length left out of the
    sort key, the whole pack's rows read without a gather, and gathers split over
    threads (dslc.lang.gather, its threshold lowered) equal to one."""
    from dslc.lang import gather

    seqs = [Sequence(f"s{k}", DNA, DNA.encode("A" * n)) for k, n in enumerate(lens)]
    pack = SeqPack.of(seqs, DNA)
    n = len(lens)
    ix = {"whole": np.arange(n), "shuffled": np.array(data.draw(st.permutations(range(n)))),
          "repeated": np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1,
                                                  max_size=60)))}[index]
    query = Sequence("q", DNA, DNA.encode("C" * qlen))
    batch = TaskBatch(("s", "t"), {"s": Shared(query), "t": SeqColumn(pack, ix)}, len(ix))
    assert batch.columns["t"].whole == (index == "whole" or ix.tolist() == list(range(n)))
    size = [qlen + lens[r] for r in ix.tolist()]
    assert batch.order.tolist() == sorted(range(len(ix)), key=lambda k: (-size[k], k))
    ids = np.array(data.draw(st.permutations(range(len(ix)))), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lens)[:-1]])
    for threshold in (1 << 18, 1):
        gather.PARALLEL = threshold
        try:
            codes, starts, got = batch.seq_rows("t", ids)
            assert starts.tolist() == offsets[ix[ids]].tolist()
            assert got.tolist() == [lens[r] for r in ix[ids].tolist()]
            out = np.zeros(len(ids))
            gather.put(out, ids, np.arange(len(ids), dtype=np.float64))
            assert out[ids].tolist() == list(range(len(ids)))
        finally:
            gather.PARALLEL = 1 << 18
