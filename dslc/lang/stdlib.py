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
# the residues a protein file may hold beyond BLOSUM's 24 symbols, read as X (unknown),
# as BLAST and HMMER read them: selenocysteine U, pyrrolysine O, J (I or L)
PROTEIN_STAND_INS = (("U", "X"), ("O", "X"), ("J", "X"))


@functools.cache
def standard_alphabets() -> dict[str, Alphabet]:
    """``dna`` (ACGT), ``rna`` (ACGU) and ``protein`` (the 20 amino acids, B Z X and *,
    reading U, O and J as X: ``define alphabet protein "..." where "UOJ" = 'X'``).
    ``dna`` and ``rna`` declare no stand-ins: an ambiguity code (N, R, Y, ...) has no
    symbol of theirs to stand for; a script that reads them defines an alphabet with
    N (docs/language.md, "Alphabets")."""
    return {"dna": Alphabet("dna", tuple("ACGT")), "rna": Alphabet("rna", tuple("ACGU")),
            "protein": Alphabet("protein", tuple(PROTEIN), stand_ins=PROTEIN_STAND_INS)}


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
