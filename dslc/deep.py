"""Deeply nested scripts.

Every stage walks expressions recursively (the parser's transformer, the
checker, dependence extraction, the interpreter's evaluators, the code
generators), one or a few Python frames per level of nesting. Python's default
limit (1,000 frames) would fail on an honest ``1 + 1 + ... + 1`` of a few
hundred terms, so the entry points (the parser, ``dslc.compile``, a program's
``run``, ``call`` and ``map``, and the command line) run the work of a program
nested deeper than :data:`SHALLOW` through :func:`run`: in a thread with a large
stack and a raised recursion limit. Shallower programs (all ordinary ones) run
in the caller's thread as ever, so Ctrl-C, CUDA contexts and the cost of a call
are unchanged for them.

The front end refuses nesting deeper than :data:`MAX_NESTING` levels with one
clear error, so the stages behind it only ever see depths they were tested at.
"""

from __future__ import annotations

import functools
import sys
import threading

from dslc.errors import DslcError

MAX_NESTING = 1000  # levels of nested expression the front end accepts (docs/robustness.md)
SHALLOW = 100  # parse-tree depth every stage handles within Python's default 1,000 frames
FRAMES = 100_000  # recursion limit while deep work runs: ample for MAX_NESTING in every stage
STACK_BYTES = 512 * 2**20  # reserved, not used: pages are touched only as deep as work goes

_local = threading.local()
_lock = threading.Lock()
_active = 0  # deep threads running; the old limit comes back when the last one ends
_saved_limit = 0


def run(depth: int, fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` for a program whose parse tree is ``depth`` deep:
    directly where that is at most SHALLOW (or this thread is already a deep
    one), else in a thread with a stack for :data:`FRAMES` frames, its result or
    exception coming back to the caller."""
    if depth <= SHALLOW or getattr(_local, "deep", False):
        return fn(*args, **kwargs)
    return _in_thread(fn, args, kwargs)


def in_deep_thread() -> bool:
    """Is this thread one :func:`run` started (work that needs its stack stays on it)?"""
    return getattr(_local, "deep", False)


def for_program(method):
    """A method of an object with a ``checked`` program, run as :func:`run` says
    for that program's depth."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        return run(self.checked.ast.depth, method, self, *args, **kwargs)

    return wrapper


def _in_thread(fn, args, kwargs):
    outcome: dict = {}

    def body():
        _local.deep = True
        try:
            outcome["value"] = fn(*args, **kwargs)
        except RecursionError:
            outcome["error"] = DslcError(
                "the script is nested too deeply for dslc to process",
                hint=f"keep expressions within {MAX_NESTING} levels of nesting; name parts "
                     "of a long expression with const or a function")
        except BaseException as e:  # handed to the caller, which raises it
            outcome["error"] = e

    _enter()
    try:
        with _lock:
            old = threading.stack_size(STACK_BYTES)
            try:
                worker = threading.Thread(target=body, name="dslc-deep", daemon=True)
                worker.start()
            finally:
                threading.stack_size(old)
        worker.join()
    finally:
        _leave()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _enter() -> None:
    global _active, _saved_limit
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(FRAMES, _saved_limit))
        _active += 1


def _leave() -> None:
    global _active
    with _lock:
        _active -= 1
        if _active == 0:
            sys.setrecursionlimit(_saved_limit)
