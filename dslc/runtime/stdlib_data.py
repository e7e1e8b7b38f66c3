"""The predefined alphabets and matrices (shadowable by any script)."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from dslc.errors import InternalError
from dslc.runtime.values import Alphabet, Matrix

PROTEIN = "ARNDCQEGHILKMFPSTWYVBZX*"


@functools.cache
def standard_alphabets() -> dict[str, Alphabet]:
    """``dna`` (ACGT), ``rna`` (ACGU) and ``protein`` (the 20 amino acids, B Z X and *)."""
    return {"dna": Alphabet("dna", tuple("ACGT")), "rna": Alphabet("rna", tuple("ACGU")),
            "protein": Alphabet("protein", tuple(PROTEIN))}


def _stdlib_dir():
    """``stdlib/``: the installed package data (``dslc.stdlib``), or the folder next
    to this source tree when dslc runs uninstalled."""
    try:
        d = resources.files("dslc.stdlib")
        if d.joinpath("matrices").is_dir():
            return d
    except ModuleNotFoundError:
        pass
    local = Path(__file__).resolve().parents[2] / "stdlib"
    if not (local / "matrices").is_dir():
        raise InternalError(f"the standard library is missing from the installation "
                            f"(looked in dslc.stdlib and {local})")
    return local


@functools.cache
def standard_matrices() -> dict[str, Matrix]:
    """The predefined substitution matrices over ``protein``: every NCBI file in
    ``stdlib/matrices`` (``BLOSUM62`` is the script name ``blosum62``), so adding a
    matrix is adding its file."""
    from dslc_extensions.matrix.ncbi import parse_matrix

    protein = standard_alphabets()["protein"]
    folder = _stdlib_dir().joinpath("matrices")
    files = sorted(f.name for f in folder.iterdir() if "." not in f.name)
    return {f.lower(): parse_matrix(folder.joinpath(f).read_text(encoding="utf-8"), protein,
                                    name=f.lower(), source=f"matrices/{f}")
            for f in files}


def stdlib_source(name: str) -> str:
    """The text of ``stdlib/NAME.bio`` (routines to compile with a script)."""
    return _stdlib_dir().joinpath(f"{name}.bio").read_text(encoding="utf-8")
