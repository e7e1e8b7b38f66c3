"""An undeclared int parameter's table grows to the calls that reach past it
(dslc.interp.tables.Table.grow): the memo keeps every cell already known, in
every kind of storage (dense, sparse, a backend's numbers)."""

from __future__ import annotations

import numpy as np
import pytest

import dslc
from dslc.interp.backend import InterpBackend
from dslc.interp.tables import MISSING, Numbers, Task, demand
from dslc.runtime.script import backend_globals

SRC = """\
int h(int i, int s)
  | i == 0 = s
  | otherwise = h(i - 1, s) + h(i - 1, 0 max (s - 1)) + 1
print h(3, 0)
"""


def h(i, s):
    return s if i == 0 else h(i - 1, s) + h(i - 1, max(0, s - 1)) + 1


@pytest.fixture
def table():
    checked = dslc.compile(SRC, backend="interp").checked
    interp = InterpBackend(checked, backend_globals(checked)).interp
    cf = interp.functions["h"]
    task = Task()
    return interp.table_for(task, cf, {"$task": task}, (2, 0), None)


def test_the_dense_memo_keeps_its_cells(table):
    assert table.extents == (2, 0) and demand(table, (2, 0)) == h(2, 0)
    table.check_domain((3, 4), None, "h(3, 4)")
    assert table.extents == (3, 4)
    assert table.get((1, 0)) == h(1, 0)  # kept from before
    assert demand(table, (3, 4)) == h(3, 4)
    table.check_domain((1, 2), None, "h(1, 2)")  # below: nothing changes
    assert table.extents == (3, 4)


def test_a_backends_numbers_become_the_memo(table):
    raw = np.array([[h(i, 0)] for i in range(3)], dtype=np.float64)
    table.give_numbers(Numbers(raw, one=lambda x: int(x), many=lambda a: a.astype(object)))
    table.check_domain((2, 3), None, "h(2, 3)")
    assert table.numbers is None and not table.whole
    assert table.get((2, 0)) == h(2, 0) and table.get((2, 3)) is MISSING
    assert demand(table, (2, 3)) == h(2, 3)


def test_a_negative_argument_stays_an_error(table):
    with pytest.raises(dslc.DslcError, match="s = -1 is outside its domain 0..0"):
        table.check_domain((1, -1), None, "h(1, -1)")
