"""Numba's CPU target loaded without SciPy's linear algebra, which dslc's code never calls.

When Numba's CPU target starts (a process's first compile, or first load of cached
code), it imports ``numba.np.arraymath``, whose module-level ``_check_blas`` imports
``scipy.linalg.cython_blas`` wherever SciPy is installed: all of ``scipy.linalg`` and its
BLAS and LAPACK libraries, about 16 MB of a process's peak memory and 0.2 s of its
start-up, for one flag (``_HAVE_BLAS``) that only decides whether compiled
``np.correlate`` and ``np.convolve`` take a BLAS inner product. Generated code is loops
over tables and sequences; it calls neither. So while that one module executes,
``scipy.linalg`` reads as absent (``None`` in ``sys.modules``, which makes its import
raise ImportError, as on a machine without SciPy), and is present again as soon as it
has run. Nothing else changes: every other module imports SciPy as usual, and a
compiled ``np.dot`` or ``np.linalg`` call (in an extension's own Numba code) imports
SciPy when it is compiled, through Numba's ``ensure_blas``. Where the process imported
``scipy.linalg`` before, nothing is hidden (its memory is spent already).

:func:`install` is called on ``import dslc``; it costs one finder on ``sys.meta_path``
until that module is imported, and nothing once it has been.
"""

from __future__ import annotations

import importlib.abc
import sys

_MODULE = "numba.np.arraymath"
_HIDDEN = "scipy.linalg"


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``numba.np.arraymath`` through the other finders and runs it with
    ``scipy.linalg`` hidden; removes itself on first use."""

    def __init__(self):
        self._inner = None

    def find_spec(self, name, path, target=None):
        """The module's spec as the other finders give it, loaded through this
        finder where ``scipy.linalg`` is not imported yet. (The spec is always
        returned from here, never declined: the import system is iterating over
        ``sys.meta_path`` while this finder takes itself out of it, and would skip
        the finder after it.)"""
        if name != _MODULE:
            return None
        _remove(self)
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and _HIDDEN not in sys.modules:
                    self._inner = spec.loader
                    spec.loader = self
                return spec
        return None

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module) -> None:
        inner = self._inner
        module.__loader__ = module.__spec__.loader = inner  # (as if found plainly)
        sys.modules[_HIDDEN] = None
        try:
            inner.exec_module(module)
        finally:
            if sys.modules.get(_HIDDEN, ...) is None:
                del sys.modules[_HIDDEN]


def _remove(finder) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


def install() -> None:
    """Hide ``scipy.linalg`` from Numba's ``numba.np.arraymath`` when it is imported
    (once per process; nothing where it is imported already)."""
    if _MODULE in sys.modules or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
