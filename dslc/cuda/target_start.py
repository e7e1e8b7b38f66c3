"""Numba-CUDA's own start, on a thread while the run parses and reads its data.

The first kernel a process launches makes Numba-CUDA set up its target: a
context on the device, then its typing and lowering registries (the
``refresh`` a cached kernel's load begins with). On an H200 that set-up took
about 0.5 s of a 3.6 s ``dslc run`` of one query against a million proteins,
every kernel already cached, while the run had spent the seconds before it
reading 340 MB of FASTA with the GPU idle. A CUDA backend on a real device
therefore starts that set-up on a thread when it is made (:meth:`start`), and
the first launch waits for it (:meth:`wait`) before it loads or dispatches a
kernel, so the two never set up the target at once. The set-up is the
process's, so there is one (:func:`shared`): ``--backend auto`` starts it too,
when a run begins reading a large sequence file on a machine whose calibration
found a GPU (dslc.auto), before it has decided where the map will run.

Nothing is lost if the thread fails or is not done: the launch makes the same
calls itself and reports what goes wrong there, as before.
"""

from __future__ import annotations

import threading


class TargetStart:
    """One set-up of Numba-CUDA's target, started once, waited for before use."""

    def __init__(self):
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=_set_up, name="dslc-cuda-start",
                                            daemon=True)
            self._thread.start()

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()


def _set_up() -> None:
    try:
        from numba import cuda
        from numba.cuda.descriptor import cuda_target

        cuda.current_context()
        cuda_target.target_context.refresh()
    except Exception:  # the first launch makes the same calls, and reports
        pass


_SHARED = TargetStart()


def shared() -> TargetStart:
    """The process's one set-up (Numba-CUDA's target is the process's)."""
    return _SHARED
