"""What ``dslc -v`` reports: which backend ran each call, table and map, and
whether its code was compiled or found in the cache.

Everything goes to the ``dslc`` logger at INFO level; the command line attaches
a handler to stderr only under ``-v``, and the Python API leaves that to the
application (``logging.basicConfig(level=logging.INFO)`` shows the same lines).
Without a handler nothing is printed: INFO is below Python's last-resort level.
"""

from __future__ import annotations

import logging
import sys

log = logging.getLogger("dslc")


def ran(backend, what: str, func: str) -> None:
    """One line after ``what`` (``call``, ``table``, ``map of N tasks``) of
    ``func`` ran: the backend that computed it and, where a compiled backend
    left it to another, why."""
    if log.isEnabledFor(logging.INFO):
        log.info("%s %s: ran on %s", what, func, where(backend, func))


def where(backend, func: str) -> str:
    name = getattr(backend, "name", type(backend).__name__)
    interp_why = getattr(backend, "fallbacks", {}).get(func)
    if interp_why:
        return f"interp, NOT COMPILED ({name} cannot compile it: {interp_why})"
    device_why = getattr(backend, "device_fallbacks", {}).get(func)
    if device_why:
        return f"cpu (the {name} device cannot run it: {device_why})"
    strategy = getattr(backend, "strategy", {}).get(func)
    decisions = getattr(backend, "decisions", None)
    last = decisions.of(func) if decisions is not None else None
    if strategy is None and last is not None and last.strategy == "interpreter" and last.why:
        return f"{name}, by its interpreter ({last.why[0]})"  # (chosen, not a fall-back)
    return f"{name}, {strategy}" if strategy else name


def enable(stream=None) -> logging.Handler:
    """Show the ``dslc`` logger's INFO lines on ``stream`` (stderr)."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter("dslc: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    return handler


def disable(handler: logging.Handler) -> None:
    """Undo :func:`enable` (``main`` may run more than once in a process)."""
    log.removeHandler(handler)
    log.setLevel(logging.NOTSET)
