"""A map's generated kernel kept on disk (dslc.cuda.kernel_cache): a later process
with the same program, shapes and settings runs no generator, and a damaged entry
is generated again."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import dslc
from tests.generators import ENTRY_REPLACEMENTS, entry_replacements
from tests.runtime.test_task_batch import LCS as LCS_SCRIPT, _lcs

LCS = LCS_SCRIPT.split("a = load")[0]  # the function alone: the tests load their own files


def _files(tmp_path, rng):
    for name, n in (("a", 2), ("b", 5)):
        (tmp_path / f"{name}.fa").write_text("".join(
            f">{name}{k}\n{''.join(rng.choice(list('ACGT'), 4 + 3 * k))}\n" for k in range(n)))


def _search(tmp_path):
    """A new program (a new backend, as in a new process) mapping the files."""
    prog = dslc.compile(LCS, backend="cuda")
    out = prog.map("lcs", prog.load(tmp_path / "a.fa", "dna"), prog.load(tmp_path / "b.fa", "dna"))
    return out.values.tolist(), prog._engine().decisions.of("lcs", "map")


def _reference(tmp_path):
    """The scores by a plain Python LCS (tests/runtime/test_task_batch.py)."""
    from tests.reference import read_fasta

    a, b = (read_fasta(tmp_path / f"{n}.fa") for n in "ab")
    return [[_lcs(x, y) for _, y in b] for _, x in a]


def test_a_later_backend_takes_the_kernel_from_disk_and_generates_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    _files(tmp_path, np.random.default_rng(5))
    first, decided = _search(tmp_path)
    assert first == _reference(tmp_path)
    kept = sorted((tmp_path / "cache").glob("cuda_kernel_*.pickle"))
    assert len(kept) == 1 and decided.backend == "cuda"

    def refuse(*args, **named):
        raise AssertionError("a builder ran although the kernel was on disk")
    with monkeypatch.context() as m:
        m.setattr("dslc.cuda.backend.build", refuse)  # (every strategy's builder)
        again, decided_again = _search(tmp_path)
    assert again == first and decided_again == decided
    from dslc.cuda import kernel_cache

    key = kept[0].stem[len("cuda_kernel_"):]
    kept[0].write_bytes(kept[0].read_bytes()[:-7])  # a truncated entry: generated again
    assert kernel_cache.load(key) is None
    assert _search(tmp_path)[0] == first
    assert kernel_cache.load(key) is not None  # and kept whole again
    from dslc.store import tools as cache_tools

    assert "1 kernels" in cache_tools.info()
    cache_tools.clear()
    assert not list((tmp_path / "cache").glob("cuda_kernel_*"))


def test_a_kernel_is_kept_under_its_settings(tmp_path, monkeypatch):
    """A setting that changes code (dslc.settings.CODE) names another entry."""
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    _files(tmp_path, np.random.default_rng(6))
    first, _ = _search(tmp_path)
    monkeypatch.setenv("DSLC_CUDA_TILE", "4")
    assert _search(tmp_path)[0] == first
    assert len(list((tmp_path / "cache").glob("cuda_kernel_*.pickle"))) == 2


@pytest.mark.parametrize("damage", [b"", b"x" * 80])
def test_an_unreadable_entry_is_no_entry(tmp_path, monkeypatch, damage):
    from dslc.cuda import kernel_cache

    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path))
    kernel_cache.store("k", {"source": "s"})
    assert kernel_cache.load("k") == {"source": "s", "format": kernel_cache.FORMAT}
    assert kernel_cache.load("other") is None
    (tmp_path / "cuda_kernel_k.pickle").write_bytes(damage)
    assert kernel_cache.load("k") is None


def test_a_kept_kernel_gives_this_map_s_reason_not_the_first_one_s(tmp_path, monkeypatch):
    """The hybrid rule's reason names the map's task count: a kernel generated for
    one map and taken from disk by a map of another size says the new count."""
    from dslc.cuda import map_kernel

    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))
    # the simulator's rule gives no count: one that does, as a real GPU's does
    monkeypatch.setattr(map_kernel, "hybrid", lambda plan, n, options: (False, f"{n} tasks"))
    _files(tmp_path, np.random.default_rng(7))
    _, decided = _search(tmp_path)
    prog = dslc.compile(LCS, backend="cuda")
    b = prog.load(tmp_path / "b.fa", "dna")  # the longest kept: the same kernel
    prog.map("lcs", prog.load(tmp_path / "a.fa", "dna"), b[1:])
    again = prog._engine().decisions.of("lcs", "map")
    assert decided.tasks == 10 and again.tasks == 8
    assert "10 tasks" in decided.why[0] and "8 tasks" in again.why[0], (decided.why, again.why)
    assert len(list((tmp_path / "cache").glob("cuda_kernel_*.pickle"))) == 1


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(replacement=entry_replacements())
def test_anything_but_a_regular_file_at_a_kernel_entry_is_no_entry(tmp_path_factory,
                                                                   replacement):
    """A FIFO, a link (to a device, elsewhere) or a directory where a kernel entry was
    is no entry, read without blocking; storing over it replaces it or is skipped."""
    from dslc.cuda import kernel_cache

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DSLC_CACHE_DIR", str(tmp_path_factory.mktemp("k") / "cache"))
        key = "0" * 32
        kernel_cache.store(key, {"source": "x"})
        assert kernel_cache.load(key)["source"] == "x"
        path = kernel_cache._path(key)
        path.unlink()
        ENTRY_REPLACEMENTS[replacement](path)
        assert kernel_cache.load(key) is None
        kernel_cache.store(key, {"source": "y"})
        stored = kernel_cache.load(key)
        assert stored is None if replacement == "directory with a file" \
            else stored["source"] == "y"
