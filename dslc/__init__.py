"""dslc: a compiler for .bio dynamic-programming scripts.

``dslc.compile(path_or_source)`` gives a :class:`dslc.api.Program`; see
docs/language.md for the language and docs/architecture.md for the pipeline.
"""

from dslc import numba_import
from dslc.errors import DslcError

numba_import.install()

__version__ = "0.1.0"


def compile(path_or_source: str, defines: dict | None = None, backend: str = "auto"):
    """Parse and check a script; see :func:`dslc.api.compile`."""
    from dslc.api import compile as _compile

    return _compile(path_or_source, defines, backend)


__all__ = ["DslcError", "compile", "__version__"]
