"""Record names decoded, and a grid's row aligned, a slice at a time (so that a
105,000-record map's labels are not held as several copies at once): the same
text as all at once, across slice boundaries and with multi-byte UTF-8 names."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dslc.lang import records
from dslc.runtime import render


class _Pack:
    def __init__(self, names: list[str]):
        raw = [n.encode("utf-8") for n in names]
        self.names = b"".join(raw)
        self.name_offsets = np.zeros(len(raw) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in raw], out=self.name_offsets[1:])


NAMES = [f"s{k}" + "é" * (k % 3) + "名" * (k % 2) for k in range(23)]


@pytest.mark.parametrize("at_once", [1, 2, 5, 22, 23, 1 << 14])
def test_record_names_in_slices_equal_each_name_decoded(monkeypatch, at_once):
    monkeypatch.setattr(records, "_NAMES_AT_ONCE", at_once)
    names = records.record_names(_Pack(NAMES))
    assert tuple(names) == tuple(NAMES) and names == tuple(NAMES) and tuple(NAMES) == names
    assert list(names[3:at_once + 3]) == NAMES[3:at_once + 3]


def test_record_names_read_as_a_tuple_of_their_strings():
    """A map axis's labels behave as the tuple of names they stand for: length,
    indexing from either end, slices with a step, equality both ways (and not with
    a different tuple), hashing and pickling as that tuple."""
    import pickle

    names = records.record_names(_Pack(NAMES))
    assert len(names) == len(NAMES) and names[0] == NAMES[0] and names[-1] == NAMES[-1]
    assert names[::3] == tuple(NAMES[::3]) and names[5:2] == ()
    with pytest.raises(IndexError):
        names[len(NAMES)]
    assert names != tuple(NAMES[:-1]) and names != tuple(NAMES[:-1]) + ("other",)
    assert hash(names) == hash(tuple(NAMES)) and repr(names) == repr(tuple(NAMES))
    back = pickle.loads(pickle.dumps(names))
    assert type(back) is tuple and back == tuple(NAMES)
    assert records.record_names(_Pack(["a\nb", "c"])) == ("a\nb", "c")
    assert len(records.record_names(_Pack([]))) == 0


@pytest.mark.parametrize("at_once", [1, 4, 23, 1 << 14])
def test_a_row_in_slices_equals_the_row_at_once(monkeypatch, at_once):
    monkeypatch.setattr(render, "_CELLS_AT_ONCE", at_once)
    want = " ".join(f"{x:>7}" for x in NAMES)
    assert render._row(NAMES, 7) == want
    assert render._row([], 3) == ""
    assert render._row(list(itertools.repeat("x", 5)), 1) == "x " * 4 + "x"
