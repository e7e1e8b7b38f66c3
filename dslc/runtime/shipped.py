"""A checked program as another process gets it: its plan, checked again there.

A Dask worker (dslc.cluster.worker) and a traceback's fill process
(dslc.runtime.fill_process) run a program's compiled code in a process of their own.
They get the program as its :class:`Plan` (the checked script's syntax tree, its consts
and the backend's name), check it once per process (:func:`checked_again`) and give
its backend the globals the parent's got (:func:`backend_globals`). The
program is checked again rather than sent checked because the checked program holds
the extensions' functions, which only an import can bring.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Plan:
    """Everything another process needs to build the backend a program runs on."""

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


def checked_again(plan: Plan):
    """The checked program of ``plan``, checked in this process."""
    from dslc import deep
    from dslc.check.program import check_program

    return deep.run(plan.tree.depth, check_program, plan.tree, dict(plan.consts), None,
                    plan.base_dir, plan.float_consts)


def backend_globals(program) -> dict:
    """The globals a backend of ``program`` gets: its consts and its defined models."""
    g = dict(program.consts)
    g.update(program.defined)
    return g
