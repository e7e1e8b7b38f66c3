"""The standard library's files and the predefined alphabets (shadowable by any
script). The predefined matrices are files here too, but read through the
extension registry's ``matrix`` loader (dslc.check.registry): the core knows no
matrix format."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from dslc.errors import InternalError
from dslc.lang.values import Alphabet

PROTEIN = "ARNDCQEGHILKMFPSTWYVBZX*"


@functools.cache
def standard_alphabets() -> dict[str, Alphabet]:
    """``dna`` (ACGT), ``rna`` (ACGU) and ``protein`` (the 20 amino acids, B Z X and *)."""
    return {"dna": Alphabet("dna", tuple("ACGT")), "rna": Alphabet("rna", tuple("ACGU")),
            "protein": Alphabet("protein", tuple(PROTEIN))}


def stdlib_dir():
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


def stdlib_source(name: str) -> str:
    """The text of ``stdlib/NAME.bio`` (routines to compile with a script)."""
    return stdlib_dir().joinpath(f"{name}.bio").read_text(encoding="utf-8")
