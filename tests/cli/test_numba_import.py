"""Numba's CPU target starts without importing ``scipy.linalg`` (dslc.numba_import),
and SciPy is whole again for everything else.

Each case runs in a fresh interpreter (the module is imported once per process) over a
stand-in SciPy put first on the path: its ``scipy.linalg`` records that it was imported,
so the tests say the same where SciPy is installed and where it is not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

START_TARGET = """
from numba import njit
@njit(cache=False)
def f(x):
    return x + 1
f(1)
"""

REPORT = """
import json, sys
import numba.np.arraymath as m
print(json.dumps({"linalg_seen": "scipy.linalg" in sys.modules,
                  "have_blas": m._HAVE_BLAS,
                  "loader": type(m.__loader__).__name__,
                  "finders": [type(f).__name__ for f in sys.meta_path]}))
"""


def _stand_in(root) -> str:
    """A package ``scipy`` whose ``linalg`` (and ``linalg.cython_blas``) exist."""
    linalg = root / "scipy" / "linalg"
    linalg.mkdir(parents=True)
    (root / "scipy" / "__init__.py").write_text("__version__ = \"1.14.0\"\n")
    (linalg / "__init__.py").write_text("IMPORTED = True\n")
    (linalg / "cython_blas.py").write_text("")
    return str(root)


def _python(code: str, first_on_path: str, **env_vars) -> list[str]:
    """The lines a fresh interpreter prints running ``code``, with ``first_on_path``
    and this source tree on its path (and ``env_vars`` set), in ``first_on_path``."""
    env = dict(os.environ, **env_vars)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join([first_on_path, here])
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          cwd=first_on_path, capture_output=True, text=True,
                          check=True).stdout.splitlines()


def _run(tmp_path, before: str = "", after: str = "") -> dict:
    code = "\n".join([before, "import dslc", START_TARGET, REPORT, after])
    out = _python(code, _stand_in(tmp_path))
    return json.loads(out[0]), out[1:]


def test_the_cpu_target_starts_without_scipy_linalg(tmp_path):
    report, _ = _run(tmp_path)
    assert report["linalg_seen"] is False
    assert report["have_blas"] is False  # (only np.correlate and np.convolve read it)
    assert report["loader"] == "SourceFileLoader"  # (the module as if found plainly)
    assert "_Finder" not in report["finders"]  # (removed once used)


def test_scipy_linalg_imports_as_usual_afterwards(tmp_path):
    _, later = _run(tmp_path, after="import scipy.linalg\nprint(scipy.linalg.IMPORTED)")
    assert later == ["True"]


def test_nothing_is_hidden_where_scipy_linalg_was_imported_first(tmp_path):
    report, _ = _run(tmp_path, before="import scipy.linalg")
    assert report["linalg_seen"] is True
    assert report["have_blas"] is True


def test_compiled_code_still_runs_after_it(tmp_path):
    _, later = _run(tmp_path, after=textwrap.dedent("""
        import numpy as np
        from numba import njit
        @njit(cache=False)
        def total(a):
            s = 0.0
            for x in a:
                s += x
            return s
        print(total(np.arange(5.0)))
    """))
    assert later == ["10.0"]


CACHED = """
import numpy as np
from numba import njit, prange

@njit(cache=True)
def total(a):
    s = 0.0
    for x in a:
        s += x
    return s

@njit(cache=True, parallel=True)
def squares(n):
    out = np.empty(n)
    for i in prange(n):
        out[i] = i * i
    return out
"""

LOAD = """
import json, sys
import dslc
import numpy as np
import cached
first = [cached.total(np.arange(5.0)), float(cached.squares(6).sum())]
hits = [sum(f.stats.cache_hits.values()) for f in (cached.total, cached.squares)]
seen = [m for m in ("numba.np.arraymath", "numba.np.npyimpl", "numba.typed.typedlist")
        if m in sys.modules]
from numba.core.runtime import rtsys
runtime = [type(rtsys._library).__name__, rtsys._library.__dict__.get("_library") is None]
from numba import njit
@njit(cache=False)
def fresh(a):
    return np.sum(a * 2.0)
later = float(fresh(np.arange(4.0)))
made = [float(v) for v in cached.squares(4)]  # (the cached code again, after the compile)
print(json.dumps({"first": first, "hits": hits, "seen": seen, "later": later, "made": made,
                  "after": "numba.np.arraymath" in sys.modules, "runtime": runtime,
                  "compiled_runtime": rtsys._library.__dict__.get("_library") is not None}))
"""


def test_cached_code_loads_without_the_compilers_registries_and_compiling_still_works(tmp_path):
    """A process whose functions all come from Numba's cache (a plain one and a
    parallel one, both allocating arrays through the NRT) runs them right without
    importing Numba's lowering registries and without compiling the NRT's own module;
    compiling a new function afterwards refreshes the target and compiles that module,
    as Numba would, and the cached code still runs."""
    (tmp_path / "cached.py").write_text(CACHED)
    cache = str(tmp_path / "cache")
    make = "import dslc, numpy as np, cached; cached.total(np.arange(2.0)); cached.squares(3)"
    _python(make, str(tmp_path), NUMBA_CACHE_DIR=cache)
    report = json.loads(_python(LOAD, str(tmp_path), NUMBA_CACHE_DIR=cache)[-1])
    assert report["first"] == [10.0, 55.0]
    assert report["hits"] == [1, 1]  # (both loaded from the cache, not compiled)
    assert report["seen"] == []
    assert report["runtime"] == ["_LazyNrt", True]  # (nothing compiled for the runtime)
    assert report["later"] == 12.0 and report["after"] is True
    assert report["compiled_runtime"] is True and report["made"] == [0.0, 1.0, 4.0, 9.0]
