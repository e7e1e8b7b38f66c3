"""The predefined alphabets and matrices (shadowable by any script)."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from dslc.errors import InternalError
from dslc.runtime.values import Alphabet, Matrix

PROTEIN = "ARNDCQEGHILKMFPSTWYVBZX*"
_MATRICES = {"blosum45": "BLOSUM45", "blosum50": "BLOSUM50", "blosum62": "BLOSUM62",
             "blosum80": "BLOSUM80", "pam250": "PAM250"}


@functools.cache
def standard_alphabets() -> dict[str, Alphabet]:
    """``dna`` (ACGT), ``rna`` (ACGU) and ``protein`` (the 20 amino acids, B Z X and *)."""
    return {"dna": Alphabet("dna", tuple("ACGT")), "rna": Alphabet("rna", tuple("ACGU")),
            "protein": Alphabet("protein", tuple(PROTEIN))}


def _matrix_text(fname: str) -> str:
    """The text of ``stdlib/matrices/FNAME``: package data when dslc is installed,
    else the file next to this source tree."""
    try:
        return resources.files("dslc.stdlib").joinpath("matrices").joinpath(fname) \
            .read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        pass
    local = Path(__file__).resolve().parents[2] / "stdlib" / "matrices" / fname
    try:
        return local.read_text(encoding="utf-8")
    except OSError:
        raise InternalError(f"the standard matrix file {fname} is missing from the "
                            "installation (looked in dslc.stdlib/matrices and "
                            f"{local.parent})") from None


@functools.cache
def standard_matrices() -> dict[str, Matrix]:
    """The predefined substitution matrices over ``protein``, by script name."""
    from dslc_extensions.matrix.ncbi import parse_matrix

    protein = standard_alphabets()["protein"]
    return {name: parse_matrix(_matrix_text(f), protein, name=name, source=f"matrices/{f}")
            for name, f in _MATRICES.items()}


def stdlib_source(name: str) -> str:
    """The text of ``stdlib/NAME.bio`` (routines to compile with a script)."""
    fname = f"{name}.bio"
    try:
        return resources.files("dslc.stdlib").joinpath(fname).read_text()
    except (ModuleNotFoundError, FileNotFoundError):
        return (Path(__file__).resolve().parents[2] / "stdlib" / fname).read_text()
