"""What runs on a Dask worker: a shard of a map, on the worker's own backend.

A worker gets the program as its plan (the checked script's syntax tree, its
consts and the backend's name), checks it once per process and keeps one
backend per plan, so compiled code is reused from shard to shard (and loaded
from the on-disk cache where ``DSLC_CACHE_DIR`` is shared). The program is
checked again rather than sent checked because the checked program holds the
extensions' functions, which only an import can bring.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from dataclasses import dataclass, field

from dslc.cluster.columns import Part, as_column
from dslc.errors import DslcError


@dataclass(frozen=True)
class Plan:
    """Everything a worker needs to build the backend a map runs on."""

    tree: object  # the script's ast.Program
    consts: tuple  # (name, value) of every const, as checked on the client
    float_consts: frozenset
    base_dir: str | None
    backend: str  # as asked for ('auto' is resolved by each worker for itself)
    key: str = field(default="", compare=False)

    @staticmethod
    def of(checked, base_dir: str | None, backend: str) -> "Plan":
        consts = tuple(sorted(checked.consts.items()))
        body = (checked.ast, consts, checked.float_consts, base_dir, backend)
        key = hashlib.sha256(pickle.dumps(body)).hexdigest()
        return Plan(*body, key=key)


@dataclass(frozen=True)
class Failed:
    """A shard's language error, sent back as plain data (a DslcError's
    subclasses do not all survive pickling): ``task`` is its task's position in
    the shard, or None for an error outside any task."""

    message: str
    span: object
    hint: str | None
    task: int | None


_BACKENDS: dict[str, tuple] = {}  # plan key -> (backend, lock), per worker process
_LOCK = threading.Lock()


def backend_for(plan: Plan):
    """This process's backend for ``plan`` and the lock that runs one shard at a
    time on it (backends keep per-run state)."""
    with _LOCK:
        if plan.key not in _BACKENDS:
            if len(_BACKENDS) >= 8:  # a long-lived worker serving many scripts
                _BACKENDS.pop(next(iter(_BACKENDS)))
            _BACKENDS[plan.key] = (_build(plan), threading.Lock())
        return _BACKENDS[plan.key]


def _build(plan: Plan):
    from dslc import backends, deep
    from dslc.check.program import check_program
    from dslc.runtime.script import backend_globals

    checked = deep.run(plan.tree.depth, check_program, plan.tree, dict(plan.consts), None,
                       plan.base_dir, plan.float_consts)
    return backends.get(plan.backend)(checked, backend_globals(checked))


def run_shard(plan: Plan, func: str, part: Part, buffers: tuple, span):
    """The values of the shard ``part`` (its batch's payloads are ``buffers``,
    scattered once to this worker) as one array (:func:`as_column`), or a
    :class:`Failed` for a language error."""
    from dslc import deep
    from dslc.interp.backend import TaskError

    try:
        backend, lock = backend_for(plan)
        with lock:
            values = deep.run(plan.tree.depth, backend.map, func, part.batch(buffers), span)
        return as_column(values)
    except TaskError as e:
        return Failed(e.error.message, e.error.span, e.error.hint, e.k)
    except DslcError as e:
        return Failed(e.message, e.span, e.hint, None)
