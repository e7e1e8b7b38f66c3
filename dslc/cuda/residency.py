"""Sequence buffers resident on the device: a packed buffer uploaded once and kept
while it lives, its rows interleaved by block for a launch and kept likewise,
and the copies started while a map is planned (functions over the backend,
which holds what is uploaded)."""

from __future__ import annotations

import weakref

import numpy as np

from dslc.cuda import layout
from dslc.cuda.device import numba_cuda, ready, upload
from dslc.lang.batch import SeqColumn


def upload_ahead(be, batch) -> None:
    """Start copying the batch's large packed buffers not yet on the device,
    while the map is planned (dslc.cuda.ahead)."""
    for col in batch.columns.values():
        if isinstance(col, SeqColumn) and on_device(be, col.pack.codes) is None:
            be._ahead.start(col.pack.codes)


def interleaved(be, batch, name, ids, block, bases: dict, stream, same=None, put=None,
                 rows_of=None):
    """Sequence ``name`` of tasks ``ids`` interleaved by block on the device
    (:mod:`dslc.cuda.layout`), from its resident packed buffer; the device
    copy is kept, like :meth:`_resident`'s, while the packed buffer lives,
    under the rows the launch reads: the same database searched again by
    another query reuses it. A sequence every
    task of the launch reads (a query) is one block that every block's base
    points to. ``same``: whether every task of ``ids`` reads one sequence, where
    the caller knows (else found out); ``put``: where the interleaving's small
    host arrays are copied to the device (the launch's arena: nothing to free);
    ``rows_of``: a dict given the tasks' lengths where this call gathers them
    (the launch's length argument, not gathered again)."""
    codes, items = batch.seq_items(name, ids[:1] if same else ids)
    same = same or items is None or bool((items == items[0]).all())
    rows = None if items is None else items[:1] if same else items
    key = (id(codes), block, same, None if rows is None else (len(rows), int(rows[0])))
    hit = be._uploaded.get(key)
    if hit is not None and hit[0]() is codes and (rows is None or np.array_equal(hit[3], rows)):
        device, base = hit[1], hit[2]
        hit[4].wait(stream or 0)  # made on the other stream of this map: written first
    else:
        starts, lens = batch.seq_rows(name, ids[:1] if same else ids, rows)[1:]
        if same:  # one sequence for every task (a query): every block shares one
            starts, lens = np.full(block, starts[0]), np.full(block, lens[0])
        elif rows_of is not None:
            rows_of[name] = lens
        device, base = layout.interleave(numba_cuda(), resident(be, codes, stream), starts,
                                         lens, block, stream, put=put)
        keep(be, key, codes, device, base, rows, ready(stream))
    bases[name] = np.zeros(-(-len(ids) // block), dtype=np.int64) if same else base
    return device


def keep(be, key, codes: np.ndarray, *made) -> None:
    """Keep ``made`` (device copies) under ``key`` while ``codes`` lives."""
    be._uploaded[key] = (weakref.ref(codes), *made)
    weakref.finalize(codes, be._uploaded.pop, key, None)


def resident(be, codes: np.ndarray, stream):
    """The device copy of a packed sequence buffer, uploaded on first use and
    kept while the buffer lives (a database loaded once and searched by many
    maps, or by many calls of the Python API, is uploaded once)."""
    device = on_device(be, codes)
    if device is not None:
        return device
    device = be._ahead.take(codes)  # (dslc.cuda.ahead)
    if device is None:
        device = upload(codes, stream)
    keep(be, id(codes), codes, device)
    return device


def on_device(be, codes: np.ndarray):
    """The resident device copy of a packed buffer, or None."""
    hit = be._uploaded.get(id(codes))
    return hit[1] if hit is not None and hit[0]() is codes else None
