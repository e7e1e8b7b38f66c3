"""Numba started with less: three changes to what its start does, none to what it computes.

**SciPy's linear algebra.** When Numba's CPU target starts (a process's first compile),
it imports ``numba.np.arraymath``, whose module-level ``_check_blas`` imports
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

**Cached code loaded without the compiler's registries.** Numba's on-disk cache
(``Cache.load_overload``) refreshes the CPU target before it loads a function: that
imports every lowering implementation Numba has (``numba.np.arraymath``,
``numba.np.npyimpl``, the typed containers, ``numba.cpython.*``: about 15 MB of a CPU
search's peak memory), which only compiling reads. Loading machine code from the cache
needs the runtime (NRT) initialised, the first step of that refresh, and nothing else
the refresh installs. So for Numba's CPU target the load initialises the runtime alone;
the rest is left to whatever compiles, which refreshes the target itself (Numba's
``CompilerBase`` does, before every compile, and lowering refreshes on a function it
does not know). A process whose code is all cached never imports the registries.

**The runtime's own functions compiled when something links them.** Initialising the
NRT compiles a small LLVM module of Numba's (``nrtdynmod.compile_nrt_functions``: the
reference counts' atomics, ``NRT_incref``/``NRT_decref``), which runs LLVM's optimiser and
code generator in every process: about 20 MB of LLVM's pages resident and 40 ms. Cached
code never calls that module: every library Numba compiles links a copy of it in
(``CPUContext.post_lowering``'s ``add_linking_library``), so the cached object holds its
own. So the module is made a :class:`_LazyNrt`, compiled (under Numba's compiler lock) the
first time anything reads it, which only a compile does.

:func:`install` is called on ``import dslc``; it costs one finder on ``sys.meta_path``
until the three modules are imported (or nothing where they are imported already), and
nothing once they have been.
"""

from __future__ import annotations

import importlib.abc
import sys

_ARRAYMATH = "numba.np.arraymath"
_CACHING = "numba.core.caching"
_HIDDEN = "scipy.linalg"


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the modules of :data:`_HOOKS` through the other finders and runs each
    through its hook; removes itself once all have been imported."""

    def __init__(self):
        self._inner: dict[str, importlib.abc.Loader] = {}

    def find_spec(self, name, path, target=None):
        """The module's spec as the other finders give it, loaded through this
        finder. (The spec is always returned from here, never declined: the import
        system is iterating over ``sys.meta_path`` while this finder may take itself
        out of it, and would skip the finder after it.)"""
        if name not in _HOOKS:
            return None
        if all(m in sys.modules or m == name for m in _HOOKS):
            _remove(self)
        for finder in list(sys.meta_path):
            if finder is self:
                continue
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None:
                    self._inner[name] = spec.loader
                    spec.loader = self
                return spec
        return None

    def create_module(self, spec):
        return self._inner[spec.name].create_module(spec)

    def exec_module(self, module) -> None:
        inner = self._inner.pop(module.__name__)
        module.__loader__ = module.__spec__.loader = inner  # (as if found plainly)
        _HOOKS[module.__name__](lambda: inner.exec_module(module), module)


def _without_linalg(run, module) -> None:
    """``numba.np.arraymath`` executed with ``scipy.linalg`` hidden, where it is not
    imported already."""
    if _HIDDEN in sys.modules:
        run()
        return
    sys.modules[_HIDDEN] = None
    try:
        run()
    finally:
        if sys.modules.get(_HIDDEN, ...) is None:
            del sys.modules[_HIDDEN]


def _patched_after(patch):
    """A hook that executes its module, then applies ``patch`` to it."""
    def hook(run, module) -> None:
        run()
        patch(module)
    return hook


_NRTDYNMOD = "numba.core.runtime.nrtdynmod"
_CACHE_PARTS = ("_load_overload", "_guard_against_spurious_io_errors")  # (what the lean load calls)


def _patch_cache(caching) -> None:
    """``Cache.load_overload`` for Numba's CPU target: the runtime initialised, then
    the function loaded, without the target's refresh (see the module's docstring);
    every other target's loads as Numba makes them."""
    cache = getattr(caching, "Cache", None)
    numba_load = getattr(cache, "load_overload", None)
    if numba_load is None or getattr(numba_load, "_dslc_lean", False) \
            or not all(hasattr(cache, a) for a in _CACHE_PARTS):
        return  # (a Numba whose cache is made otherwise loads as it does)

    def load_overload(self, sig, target_context):
        from numba.core.cpu import CPUContext

        if type(target_context) is not CPUContext:
            return numba_load(self, sig, target_context)
        from numba.core.runtime import rtsys

        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        # (None where the guard swallowed an error, as in Numba's own)

    load_overload._dslc_lean = True
    load_overload.__doc__ = numba_load.__doc__
    cache.load_overload = load_overload


class _LazyNrt:
    """The NRT's library (``nrtdynmod.compile_nrt_functions(ctx)``), compiled the first
    time any attribute of it is read; until then nothing is compiled."""

    def __init__(self, compile_now, ctx):
        self._compile_now, self._ctx, self._library = compile_now, ctx, None

    def __getattr__(self, name):
        library = self.__dict__.get("_library")
        if library is None:
            from numba.core.compiler_lock import global_compiler_lock

            with global_compiler_lock:  # (re-entrant: a compile holds it already)
                if self._library is None:
                    self._library = self._compile_now(self._ctx)
            library = self._library
        return getattr(library, name)


def _patch_nrt(nrtdynmod) -> None:
    """``compile_nrt_functions`` returning a :class:`_LazyNrt` (once; nothing where
    the module has no such function)."""
    compile_now = getattr(nrtdynmod, "compile_nrt_functions", None)
    if compile_now is None or getattr(compile_now, "_dslc_lazy", False):
        return

    def compile_nrt_functions(ctx):
        return _LazyNrt(compile_now, ctx)

    compile_nrt_functions._dslc_lazy = True
    compile_nrt_functions.__doc__ = compile_now.__doc__
    nrtdynmod.compile_nrt_functions = compile_nrt_functions


# what each module's import changes: the cache's loads and the runtime's compile are
# patched once the module has run (or at once where it has); arraymath runs hidden
_PATCHES = {_CACHING: _patch_cache, _NRTDYNMOD: _patch_nrt}
_HOOKS = {_ARRAYMATH: _without_linalg,
          **{name: _patched_after(patch) for name, patch in _PATCHES.items()}}


def _remove(finder) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


def install() -> None:
    """The three changes, each once per process: made at once to a module imported
    already (the cache's loads, the runtime's compile; arraymath's import is over by
    then), else when it is imported."""
    for name, patch in _PATCHES.items():
        if name in sys.modules:
            patch(sys.modules[name])
    if all(m in sys.modules for m in _HOOKS) \
            or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
