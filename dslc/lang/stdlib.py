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
# the IUPAC ambiguity codes beyond N, read as N by the nucleotide alphabets that have it
IUPAC_AMBIGUOUS = "RYSWKMBDHV"
NUCLEOTIDE_STAND_INS = tuple((c, "N") for c in IUPAC_AMBIGUOUS)


@functools.cache
def standard_alphabets() -> dict[str, Alphabet]:
    """``dna`` (ACGT), ``rna`` (ACGU), ``dna5`` and ``rna5`` (the same and N, reading
    the other IUPAC ambiguity codes R Y S W K M B D H V as N:
    ``define alphabet dna5 "ACGTN" where "RYSWKMBDHV" = 'N'``) and ``protein`` (the
    20 amino acids, B Z X and *, reading U, O and J as X:
    ``define alphabet protein "..." where "UOJ" = 'X'``).
    ``dna`` and ``rna`` keep four symbols, so the tables and models written over them
    (a 4 x 4 matrix, four emissions) stay what they are; an ambiguity code has no
    symbol of theirs to stand for, and the error reading one names ``dna5``/``rna5``
    (docs/conventions.md, "Unusual residues")."""
    out = {"protein": Alphabet("protein", tuple(PROTEIN), stand_ins=PROTEIN_STAND_INS)}
    for name, bases in (("dna", "ACGT"), ("rna", "ACGU")):
        wide = f"{name}5"
        out[name] = Alphabet(name, tuple(bases), elsewhere=(
            "N" + IUPAC_AMBIGUOUS, f"an ambiguity code reads as N in the predefined "
            f"alphabet {wide} ({bases}N): load(seq[{wide}], ...)"))
        out[wide] = Alphabet(wide, tuple(bases + "N"), stand_ins=NUCLEOTIDE_STAND_INS)
    return out


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
