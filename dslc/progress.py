"""Progress of a ``map``: a tqdm bar on stderr, or the caller's own callback.

Backends report progress from inside their drivers, as each group of tasks (a
chunk of the compiled CPU map, a CUDA launch, a task on the interpreter) is
done, by calling ``update(done)`` with the number of tasks done so far. This
module turns those calls into what the user asked for:

* ``True``: a tqdm bar on stderr, only where someone can see it (stderr is a
  terminal, or the code runs in a Jupyter notebook), and only for a map still
  running after :data:`DELAY` seconds, so short maps print nothing;
* ``False`` or ``None``: nothing;
* a callable: ``f(done, total)`` after each group, whatever stderr is.
"""

from __future__ import annotations

import sys
from typing import Callable

DELAY = 2.0  # seconds a map runs before its bar appears


class Progress:
    """One map's progress: ``update(done)`` as groups finish, ``close()`` at the end."""

    def __init__(self, total: int, want, stream=None):
        self.total = total
        self.callback: Callable | None = want if callable(want) else None
        self.bar = None
        self.last = 0
        if want is True and total > 1 and visible(stream or sys.stderr):
            self.bar = _bar(total, stream or sys.stderr)

    @property
    def active(self) -> bool:
        return self.callback is not None or self.bar is not None

    def update(self, done: int) -> None:
        """``done`` tasks of the map are finished (counts only grow)."""
        done = min(max(done, self.last), self.total)
        if self.bar is not None and done > self.last:
            self.bar.update(done - self.last)
        self.last = done
        if self.callback is not None:
            self.callback(done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def visible(stream) -> bool:
    """Is a bar on ``stream`` seen by someone: a terminal, or a notebook's cell?"""
    return bool(getattr(stream, "isatty", lambda: False)()) or in_notebook()


def in_notebook() -> bool:
    """Running in a Jupyter kernel (IPython's ZMQ shell), where tqdm draws a widget."""
    shell = sys.modules.get("IPython")
    try:
        ip = shell.get_ipython() if shell is not None else None
    except Exception:  # an IPython too old or half-imported: not a notebook we can draw in
        return False
    return type(ip).__name__ == "ZMQInteractiveShell"


def _bar(total: int, stream):
    if in_notebook():
        from tqdm.auto import tqdm
    else:
        from tqdm import tqdm
    import shutil

    # the terminal's size, 80 x 24 where it reports none (a pseudo-terminal of size
    # 0, on which tqdm's own measure hides the bar)
    size = shutil.get_terminal_size()
    return tqdm(total=total, file=stream, delay=DELAY, unit="task", leave=False,
                ncols=size.columns, nrows=size.lines)


def offset(progress: Callable | None, before: int) -> Callable | None:
    """``progress`` for a part of a map whose earlier parts did ``before`` tasks
    (a map run as one map per model counts its parts' tasks together)."""
    if progress is None:
        return None
    return lambda done: progress(before + done)


CHUNKS = 10  # pieces a compiled map is cut into when someone watches its progress
CHUNK_MIN = 512  # tasks a piece holds at least (each piece is one parallel run)


def in_chunks(run: Callable, tasks: list, progress: Callable | None,
              sizes: list[int] | None = None):
    """Every task's result (an array, in the order of ``tasks``) from
    ``run(ids)``, which runs the tasks numbered ``ids``: once for all of them
    when nobody watches, else over a few pieces with ``progress(done)`` after each.

    A compiled map runs its tasks in one parallel call, which says nothing until
    it returns; cut into :data:`CHUNKS` pieces of at least :data:`CHUNK_MIN`
    tasks, the bar moves. The pieces are consecutive runs of the tasks ordered
    largest first (``sizes``), as the drivers order them, so that a piece holds
    tasks of like size (packs pad no more than in one call) and the
    largest start first."""
    import numpy as np

    n = len(tasks)
    size = max(CHUNK_MIN, -(-n // CHUNKS))
    if progress is None or n <= size:
        out = run(np.arange(n))
        if progress is not None:
            progress(n)
        return out
    order = (np.argsort([-s for s in sizes], kind="stable") if sizes is not None
             else np.arange(n))
    out = np.empty(n, dtype=np.float64)
    for start in range(0, n, size):
        ids = order[start:start + size]
        out[ids] = run(ids)
        progress(start + len(ids))
    return out
