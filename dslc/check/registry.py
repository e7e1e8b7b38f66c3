"""The extension registry a program is checked with, and the predefined matrices.

The registry holds the core's own extensions (arrays of numbers,
:mod:`dslc.check.arrays`, and their 2-D form, :mod:`dslc.check.grids`; lists of
sequences, :mod:`dslc.check.words`) first, then every installed one. The predefined
matrices (``blosum62`` ...) are the NCBI files of ``stdlib/matrices``, parsed by
the registry's ``matrix`` definition like a script's ``define matrix
blosum62[protein] { ... }``: the core knows no matrix format, and a program
checked without the matrix extension has no predefined matrices. (Package data,
so not read as a user's file: the size limits on data files do not apply.)
"""

from __future__ import annotations

import functools

from dslc.check import arrays, grids, words
from dslc.check.consteval import eval_number_text
from dslc.lang.stdlib import standard_alphabets, stdlib_dir
from dslc.lang.values import Matrix
from dslc.sdk import DefineSpec, Extension, ExtContext, Registry, installed_extensions


def make_registry(extra: tuple[Extension, ...] = ()) -> Registry:
    """The core's extension, every installed one, then ``extra``."""
    reg = Registry()
    for ext in (arrays.extension, grids.extension, words.extension, *installed_extensions(),
                *extra):
        reg.add(ext)
    return reg


def standard_matrices(reg: Registry | None = None) -> dict[str, Matrix]:
    """The predefined substitution matrices over ``protein``, one per file of
    ``stdlib/matrices`` (``BLOSUM62`` is the script name ``blosum62``), so adding a
    matrix is adding its file; none where ``reg`` has no matrix loader."""
    define = (reg if reg is not None else make_registry()).defines.get("matrix")
    return {} if define is None else _read_matrices(define)


@functools.cache
def _read_matrices(define: DefineSpec) -> dict[str, Matrix]:
    """Read once per definition (the files are package data and do not change)."""
    ctx = ExtContext(standard_alphabets(), "<stdlib>", eval_number_text)
    folder = stdlib_dir().joinpath("matrices")
    files = sorted(f.name for f in folder.iterdir() if "." not in f.name)
    return {f.lower(): define.parse(f.lower(), ("protein",),
                                    folder.joinpath(f).read_text(encoding="utf-8"), None, ctx)
            for f in files}
