"""The predefined alphabets and matrices (shadowable by any script)."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from dslc.runtime.values import Alphabet, Matrix

PROTEIN = "ARNDCQEGHILKMFPSTWYVBZX*"
_MATRICES = {"blosum45": "BLOSUM45", "blosum50": "BLOSUM50", "blosum62": "BLOSUM62",
             "blosum80": "BLOSUM80", "pam250": "PAM250"}


@functools.cache
def standard_alphabets() -> dict[str, Alphabet]:
    return {"dna": Alphabet("dna", tuple("ACGT")), "rna": Alphabet("rna", tuple("ACGU")),
            "protein": Alphabet("protein", tuple(PROTEIN))}


def _matrix_text(fname: str) -> str:
    try:
        return resources.files("dslc.stdlib").joinpath("matrices", fname).read_text()
    except (ModuleNotFoundError, FileNotFoundError):
        return (Path(__file__).resolve().parents[2] / "stdlib" / "matrices" / fname).read_text()


@functools.cache
def standard_matrices() -> dict[str, Matrix]:
    from dslc_extensions.matrix.ncbi import parse_matrix

    protein = standard_alphabets()["protein"]
    return {name: parse_matrix(_matrix_text(f), protein, name=name)
            for name, f in _MATRICES.items()}


def stdlib_source(name: str) -> str:
    """The text of ``stdlib/NAME.bio`` (routines to compile with a script)."""
    fname = f"{name}.bio"
    try:
        return resources.files("dslc.stdlib").joinpath(fname).read_text()
    except (ModuleNotFoundError, FileNotFoundError):
        return (Path(__file__).resolve().parents[2] / "stdlib" / fname).read_text()
