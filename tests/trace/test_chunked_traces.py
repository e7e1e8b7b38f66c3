"""Many calls traced a chunk at a time (``TraceRunner.chunk``), each walk's tables
released once its derivation is made (dslc.trace.run): the derivations and
alignments are those traced all together and the interpreter's, the tables are
filled one backend call per chunk, and a released table read afterwards (a step
made when first read, a cell nobody read) still gives the right values (one
Numba compile: the example's table sweep, shared with test_traces_together)."""

from __future__ import annotations

import pytest

import dslc
import dslc.cpu.tables
from dslc.interp.tables import MISSING, demand
from tests.conftest import EXAMPLES

PAIRS = [("MKVLAAGIVGLLLAGCSSHKEE", "HKKLTIENCPVHELEDEIEKE"),
         ("HKKLTIENCPVHELEDEIEKE", "MKVLAAGIVGLLLAG"),
         ("MKVLAAGIVGLL", "MKVLAAGIVGLLLAGCSSHKEEAAGIV"),
         ("GCSSHKEEAAG", "MKVLAGCSSHKEEAAGIVGLL"),
         ("HELEDEIEKE", "HKKLTIENCPVHELEDEIEKEMKV")]
CALLS = [("blosum62", 10, 1, q, r) for q, r in PAIRS]


@pytest.fixture(scope="module")
def programs():
    path = str(EXAMPLES / "smith_waterman.bio")
    cpu, interp = dslc.compile(path, backend="cpu"), dslc.compile(path, backend="interp")
    return cpu, interp, [interp.trace("sw", *c) for c in CALLS]


@pytest.mark.parametrize("chunk", [1, 2, len(CALLS)])
def test_chunks_give_the_derivations_traced_together(programs, monkeypatch, chunk):
    cpu, interp, want = programs
    fills = []
    whole_tables = dslc.cpu.tables.whole_tables

    def counted(cpu_, func, callings, span, description="", after=None):
        fills.append(len(callings))
        return whole_tables(cpu_, func, callings, span, description, after)
    monkeypatch.setattr(dslc.cpu.tables, "whole_tables", counted)
    cpu.trace("sw", *CALLS[0])  # (the runner made)
    fills.clear()
    cpu._trace_runner.chunk = chunk
    got = cpu.traces("sw", CALLS)
    sizes = [min(chunk, len(CALLS) - at) for at in range(0, len(CALLS), chunk)]
    assert fills == sizes  # one backend call per chunk, each chunk's calls together
    assert [d.steps for d in got] == [d.steps for d in want]
    assert [str(cpu.align(d)) for d in got] == [str(interp.align(d)) for d in want]
    assert all(d.recompute() == [s.value for s in d.steps] for d in got)


def test_released_tables_still_read_right_values(programs):
    """Every table a derivation walked holds no numbers once traced; the steps a
    compiled walk makes when first read, and any cell read later, are right."""
    cpu, interp, want = programs
    cpu.trace("sw", *CALLS[0])
    cpu._trace_runner.chunk = 2
    got = cpu.traces("sw", CALLS)
    tables = [d.steps[1].env["$table"] for d in got]  # (steps[0]: sw, no table)
    assert all(t.numbers is None for d in got for t in d.steps[1].env["$task"].tables.values())
    assert [d.steps for d in got] == [d.steps for d in want]  # (the tails made only now)
    for table, (_, _, _, q, r) in zip(tables, CALLS):
        calling = {n: table.env[n] for n in table.func.calling_names}
        fresh = cpu._engine().tables("h", [calling], None)[0]["h"]  # (filled again)
        for rec in [(len(q), len(r)), (len(q) // 2, 1), (1, len(r) // 2)]:
            assert table.get(rec) is MISSING or table.get(rec) == fresh.one(fresh.raw[rec])
            assert demand(table, rec) == fresh.one(fresh.raw[rec])


def test_the_fills_share_one_pool_of_threads_kept_across_chunks():
    """A pool made per fill started every thread again for every chunk of hits; the
    sweeps now run on one pool the process keeps, and a forked child starts afresh."""
    import os

    from dslc import workers
    from dslc.cpu import tables

    first = tables.pool()
    assert tables.pool() is first and first in workers.started().values()
    pid = os.fork()
    if pid == 0:  # the child: the parent's pools (whose threads it lacks) are dropped
        os._exit(0 if not workers.started() and tables.pool() is not first else 1)
    assert os.waitpid(pid, 0)[1] == 0


def test_the_next_chunk_is_filled_while_this_one_is_walked(programs, monkeypatch):
    """Chunk n + 1's fill is started before chunk n's walks (on a thread of its own),
    and its error, if it has one, is raised where it was before: after those walks."""
    from dslc.errors import DslcError

    cpu, interp, want = programs
    cpu.trace("sw", *CALLS[0])
    runner = cpu._trace_runner
    runner.chunk = 2
    events = []
    ahead, walked = runner._fill_ahead, runner._walked
    monkeypatch.setattr(runner, "_fill_ahead", lambda f, calls, span: (
        events.append(f"fill {len(calls)}"), ahead(f, calls, span))[1])
    monkeypatch.setattr(runner, "_walked", lambda *a: (events.append("walk"), walked(*a))[1])
    assert [d.steps for d in cpu.traces("sw", CALLS)] == [d.steps for d in want]
    assert events == ["fill 2", "fill 2", "walk", "walk", "fill 1", "walk", "walk", "walk"]

    whole_tables, fills = dslc.cpu.tables.whole_tables, []

    def second_fails(cpu_, func, callings, span, description="", after=None):
        fills.append(len(callings))
        if len(fills) == 2:
            raise DslcError("the second chunk's fill failed")
        return whole_tables(cpu_, func, callings, span, description, after)
    monkeypatch.setattr(dslc.cpu.tables, "whole_tables", second_fails)
    events.clear()
    with pytest.raises(DslcError, match="second chunk's fill failed"):
        cpu.traces("sw", CALLS)
    assert events == ["fill 2", "fill 2", "walk", "walk"]


def test_a_deep_programs_thread_fills_its_chunks_itself(programs):
    """In a deeply nested program's thread (dslc.deep: its large stack), the fill is
    not handed to another thread: the backend's planning and fallbacks may need it."""
    from dslc import deep
    from dslc.api import _trace_call

    cpu, interp, want = programs
    cpu.trace("sw", *CALLS[0])
    runner = cpu._trace_runner
    calls = [_trace_call(cpu, "sw", c) for c in CALLS[:2]]  # (as Program.traces binds)
    here = runner._fill_ahead("sw", calls, None)
    there = deep.run(deep.SHALLOW + 1, runner._fill_ahead, "sw", calls, None)
    assert here._future is not None and there._future is None
    assert [sorted(d) for d in here.result()] == [sorted(d) for d in there.result()]



def test_a_walks_first_read_is_made_where_its_table_was_filled(programs, monkeypatch):
    """The entry's whole-table read (each row's best, dslc.trace.ahead) is learned from
    a walk and made by the threads that fill later tables, once per hit: the walks
    take it from there instead of reading the table again, with the same derivations."""
    import threading

    import dslc.trace.ahead as ahead

    cpu, interp, want = programs
    cpu.trace("sw", *CALLS[0])  # (learned: the read a walk of sw makes)
    cpu._trace_runner.chunk = 2
    made, read = [], ahead.row_extremes
    monkeypatch.setattr(ahead, "row_extremes", lambda *a: (
        made.append(threading.current_thread().name), read(*a))[1])
    assert [d.steps for d in cpu.traces("sw", CALLS)] == [d.steps for d in want]
    assert len(made) == len(CALLS)  # once per hit: no walk read its table again
    assert sum(name.startswith("dslc-tables") for name in made) >= len(CALLS) - 1


def test_a_read_ahead_that_does_not_match_costs_no_value(programs):
    """A learned read that no walk makes (another operator and box) is made ahead and
    kept under its own key, never taken for the walk's read."""
    from dslc.trace.ahead import _absolute, _relative

    cpu, interp, want = programs
    cpu.trace("sw", *CALLS[0])
    runner = cpu._trace_runner
    runner.chunk = 2
    runner.tracer.reads.learn("h", "min", (1, 0), (slice(1, 3), slice(2, 9)), (10, 12))
    assert [d.steps for d in cpu.traces("sw", CALLS)] == [d.steps for d in want]
    box = (slice(1, 3), slice(0, 9), 4)
    assert _absolute(_relative(box, (10, 12, 5)), (10, 12, 5)) == box
    assert _absolute(_relative(box, (10, 12, 5)), (2, 12, 5)) is None  # (rows 1..9 of 2)


def test_by_default_the_first_chunk_is_half_a_chunk(programs, monkeypatch):
    """Nothing is walked while the first chunk fills: by default it is half of
    chunk_size() (one sweep per thread), the rest in whole chunks."""
    import dslc.trace.run as run

    cpu, interp, want = programs
    fills, whole_tables = [], dslc.cpu.tables.whole_tables

    def counted(cpu_, func, callings, span, description="", after=None):
        fills.append(len(callings))
        return whole_tables(cpu_, func, callings, span, description, after)
    cpu.trace("sw", *CALLS[0])
    cpu._trace_runner.chunk = 0
    monkeypatch.setattr(run, "chunk_size", lambda: 4)
    monkeypatch.setattr(dslc.cpu.tables, "whole_tables", counted)
    assert [d.steps for d in cpu.traces("sw", CALLS)] == [d.steps for d in want]
    assert fills == [2, 3]
    assert run._parts(list(range(7)), 4, 2) == [[0, 1], [2, 3, 4, 5], [6]]
