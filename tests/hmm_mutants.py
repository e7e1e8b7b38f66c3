"""Malformed HMMER3 files made from real ones, for the reader's hostile-input tests.

A mutant damages one line of a profile's body the way a hand edit, a bad converter
or a cut transfer does: a field dropped or added, a distribution set so it no
longer sums to 1 (every value ``0.00000`` or ``*``, or all scaled), one value moved
by far more than the reader's tolerance, one value spelt as only Python reads it
(Arabic-Indic digits, an underscore, ``nan``, ``inf``), or the file cut short. Each such file is
malformed, so the reader must refuse it with one error naming the damaged line
(the last line, for a cut file); it must never read it as another model.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from hypothesis import strategies as st

NUMBER = re.compile(r"\S+")
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


@dataclass(frozen=True)
class BodyRow:
    """A data line of a profile's body: its index in the file's lines, its kind
    (``compo``, ``match``, ``insert``, ``trans``) and its distributions as
    (first field, end) pairs."""

    index: int
    kind: str
    spans: tuple[tuple[int, int], ...]


def body_rows(lines: list[str], K: int) -> list[BodyRow]:
    """The data lines of the first profile in ``lines``: an optional ``COMPO``,
    node 0's insert emissions and transitions, then three lines a node."""
    start = next(i for i, ln in enumerate(lines) if ln.split()[:1] == ["m->m"]) + 1
    end = next(i for i in range(start, len(lines)) if lines[i].split()[:1] == ["//"])
    data = [i for i in range(start, end) if lines[i].strip()]
    spans = {"compo": ((1, K + 1),), "match": ((1, K + 1),), "insert": ((0, K),),
             "trans": ((0, 3), (3, 5), (5, 7))}
    kinds = ["compo"] if lines[data[0]].split()[0] == "COMPO" else []
    kinds += ["insert", "trans"] + ["match", "insert", "trans"] * ((len(data) - len(kinds) - 2) // 3)
    return [BodyRow(i, k, spans[k]) for i, k in zip(data, kinds, strict=True)]


def row_of(rows: list[BodyRow], kind: str, node: int) -> BodyRow:
    """The ``kind`` line of node ``node`` (0 .. M; node 0 has no match line)."""
    same = [r for r in rows if r.kind == kind]
    return same[node - 1] if kind == "match" else same[node]


def set_fields(line: str, values: dict[int, str]) -> str:
    """``line`` with fields replaced (by index), its spacing otherwise kept."""
    found = list(NUMBER.finditer(line))
    out, at = [], 0
    for i, m in enumerate(found):
        out.append(line[at:m.start()])
        out.append(values.get(i, m.group()))
        at = m.end()
    return "".join(out) + line[at:]


def neg_ln(p: float) -> str:
    return "*" if p <= 0 else f"{max(0.0, -math.log(p)):.5f}"


def prob(text: str) -> float:
    return 0.0 if text == "*" else math.exp(-float(text))


@dataclass(frozen=True)
class Mutant:
    text: str
    kind: str
    line: int | None  # the 1-based line the error must name (None: the file was cut)


@st.composite
def mutants(draw, text: str, K: int) -> Mutant:
    """One line of ``text``'s first profile damaged (see the module notes)."""
    lines = text.splitlines(keepends=True)
    rows = body_rows(lines, K)
    kind = draw(st.sampled_from(["drop", "add", "unnormalise", "perturb", "respell", "truncate"]))
    if kind == "truncate":
        cut = draw(st.integers(rows[0].index, rows[-1].index + 1))  # up to the '//' line
        partial = draw(st.integers(0, len(lines[cut]) - 1)) if cut <= rows[-1].index else 0
        return Mutant("".join(lines[:cut]) + lines[cut][:partial], kind, None)
    row = draw(st.sampled_from(rows))
    line = lines[row.index]
    fields = line.split()
    if kind == "drop":
        i = draw(st.integers(0, len(fields) - 1))
        new = set_fields(line, {i: ""})
    elif kind == "add":
        i = draw(st.integers(0, len(fields)))
        token = draw(st.sampled_from(["0.50000", "*", "-", "1", "2.07737", "0.00000"]))
        new = set_fields(line, {i: token + " " + fields[i]}) if i < len(fields) \
            else line.rstrip("\n") + "  " + token + "\n"
    elif kind == "unnormalise":
        lo, hi = draw(st.sampled_from(row.spans))
        how = draw(st.sampled_from(["ones", "zeros", "scale"]))
        f = draw(st.sampled_from([0.02, 0.5, 0.9, 1.1, 2.0, 5.0]))
        value = {"ones": lambda t: "0.00000", "zeros": lambda t: "*",
                 "scale": lambda t: neg_ln(prob(t) * f)}[how]
        new = set_fields(line, {i: value(fields[i]) for i in range(lo, hi)})
    elif kind == "respell":  # one value spelt as Python's float() reads it and HMMER never writes
        lo, hi = draw(st.sampled_from(row.spans))
        i = draw(st.integers(lo, hi - 1))
        old = fields[i] if fields[i] != "*" else "inf"
        spelt = draw(st.sampled_from(["arabic", "underscore", "nan", "inf"]))
        new_text = {"arabic": old.translate(ARABIC_INDIC), "underscore": old[:-1] + "_" + old[-1],
                    "nan": "nan", "inf": "inf"}[spelt]
        new = set_fields(line, {i: new_text})
    else:  # perturb: one probability moved by at least 0.01, a hundred times the tolerance
        lo, hi = draw(st.sampled_from(row.spans))
        i = draw(st.integers(lo, hi - 1))
        p = prob(fields[i])
        q = draw(st.floats(0.0, 1.0).filter(lambda q: abs(q - p) >= 0.01))
        new = set_fields(line, {i: neg_ln(q)})
    lines[row.index] = new
    # A COMPO line without its tag reads as node 0's insert line (COMPO is optional):
    # the line after it is then the first one out of place.
    shifted = kind == "drop" and row.kind == "compo" and i == 0
    return Mutant("".join(lines), kind, row.index + 1 + shifted)
