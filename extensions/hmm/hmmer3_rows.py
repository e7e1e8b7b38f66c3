"""What each line of a HMMER3 profile's body must hold, checked as it is read.

HMMER's own reader takes a line's tokens one at a time and ignores any left
over, and it reads a model without checking that its distributions sum to 1.
A line that lost a field is then read shifted (a match line with 19 of its 20
emissions takes the MAP column as the 20th), and a model whose rows are all
``0.00000`` (every probability 1) is read as a model. Either gives a different
answer with no warning, so dslc refuses such a file, naming the line and the
column:

* **field counts**, from the alphabet's size ``K`` and the format's version: a
  match line holds the node number, ``K`` emissions and the annotation columns
  of its version (:data:`ANNOTATIONS`); an insert line ``K`` values; a
  transition line 7; ``COMPO`` the tag and ``K`` values;
* **sums**: every distribution (match and insert emissions, ``COMPO``, and the
  transitions out of each state: ``m->m m->i m->d``, ``i->m i->i``,
  ``d->m d->d``, node 0's and node M's included) sums to 1 within
  :data:`TOLERANCE`;
* **the last node**: its ``m->d`` and ``d->d`` are ``*`` (probability 0):
  there is no node ``M + 1`` to delete into (HMMER requires the same);
* **annotations**: ``MAP`` is a whole number where the header says ``MAP yes``
  (``-`` or a number otherwise); ``CONS``, ``RF``, ``MM`` and ``CS`` are one
  character each.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

from dslc.sdk import DslcError

# HMMER writes -ln p with five decimals, so each probability it writes is off by a
# relative 5e-6 at most and a distribution it writes sums to 1 within about 5e-6 (the
# Pfam and Rfam models of pyhmmer's tests: 4.9e-6 at most). 1e-4 is the tolerance
# HMMER's own programs validate a model at (p7_hmm_Validate); a row off by more was
# not written by HMMER from a model.
TOLERANCE = 1e-4

# The columns after a match line's emissions, by the letter of the format's first
# line (HMMER3/a .. HMMER3/f): HMMER's reader requires each, '-' where unset.
_OLD = ("MAP", "RF", "CS")
ANNOTATIONS = {"a": _OLD, "b": _OLD, "c": _OLD, "d": _OLD,
               "e": ("MAP", "CONS", "RF", "CS"), "f": ("MAP", "CONS", "RF", "MM", "CS")}

# the columns of a transition line (Profile.transitions), and their names
MM, MI, MD, IM, II, DM, DD = range(7)
TRANSITION_NAMES = ("m->m", "m->i", "m->d", "i->m", "i->i", "d->m", "d->d")
# the transition line's three distributions: (first field, end)
_STATES = ((0, 3), (3, 5), (5, 7))

Fail = Callable[[str, int, int], DslcError]  # (message, line, column) -> the error
_FIELD = re.compile(r"\S+")
WHOLE = re.compile(r"[0-9]+")
# a -ln probability as HMMER writes it (ASCII digits; '*' is probability 0)
_DECIMAL = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")


@dataclass(frozen=True)
class Row:
    """One line of a profile: its number, its fields and the column (1-based)
    each field starts at, so that an error can point at the field."""

    lineno: int
    fields: tuple[str, ...]
    cols: tuple[int, ...]
    end: int  # the column just after the last field: where a missing one would go

    @classmethod
    def of(cls, lineno: int, text: str) -> "Row":
        found = list(_FIELD.finditer(text))
        return cls(lineno, tuple(m.group() for m in found), tuple(m.start() + 1 for m in found),
                   found[-1].end() + 1 if found else 1)

    def col(self, i: int) -> int:
        return self.cols[i] if i < len(self.cols) else self.end


def match_parts(K: int, version: str) -> str:
    return f"the node number, {K} emissions, " + ", ".join(ANNOTATIONS[version])


def check_count(row: Row, want: int, what: str, parts: str, fail: Fail) -> None:
    """``row`` holds exactly ``want`` fields; the error points at the first field
    too many, or at the end of a line that is short."""
    n = len(row.fields)
    if n != want:
        raise fail(f"{what}: expected {want} fields, found {n} ({parts})",
                   row.lineno, row.col(want) if n > want else row.end)


def probability(row: Row, i: int, what: str, fail: Fail) -> float:
    """The probability of the ``-ln p`` field ``i`` (``*`` is 0)."""
    text = row.fields[i]
    if text == "*":
        return 0.0
    if not _DECIMAL.fullmatch(text):  # Python's float() would take '1_0', 'nan', '٣'
        raise fail(f"'{text}' is not a number ({what})", row.lineno, row.cols[i])
    v = float(text)
    if v < -1e-4:
        raise fail(f"{what} is {text}: a -ln probability cannot be negative", row.lineno,
                   row.cols[i])
    return math.exp(-v)


def probabilities(row: Row, first: int, count: int, what: str, fail: Fail) -> list[float]:
    return [probability(row, i, what, fail) for i in range(first, first + count)]


def check_sum(row: Row, first: int, probs: list[float], what: str, fail: Fail) -> None:
    """``probs`` (fields ``first ..``) are one distribution: they sum to 1
    within :data:`TOLERANCE`. The error points at the first of them."""
    total = math.fsum(probs)
    if not abs(total - 1.0) <= TOLERANCE:
        raise fail(f"{what} (fields {first + 1} to {first + len(probs)}) sum to {total:.4g}, "
                   f"not 1: a HMMER3 distribution sums to 1 within {TOLERANCE:g}",
                   row.lineno, row.col(first))


def check_transitions(row: Row, probs: list[float], k: int, M: int, fail: Fail) -> None:
    """Node ``k``'s transition line: node M's impossible moves are ``*``, and the
    transitions out of each of the node's three states sum to 1."""
    if k == M:
        for j in (MD, DD):
            if probs[j] != 0.0:
                raise fail(f"node {M} transition {TRANSITION_NAMES[j]} is '{row.fields[j]}': "
                           f"it must be '*' at the last node (there is no node {M + 1} to "
                           "delete into)", row.lineno, row.cols[j])
    for lo, hi in _STATES:
        names = " ".join(TRANSITION_NAMES[lo:hi])
        check_sum(row, lo, probs[lo:hi], f"node {k} transitions {names}", fail)


def check_annotations(row: Row, first: int, k: int, version: str, map_set: bool,
                      fail: Fail) -> None:
    """A match line's annotation columns (from field ``first``): MAP a whole
    number where the header says ``MAP yes``, the others one character."""
    for i, name in enumerate(ANNOTATIONS[version], first):
        text = row.fields[i]
        if name == "MAP":
            if not (WHOLE.fullmatch(text) or (text == "-" and not map_set)):
                want = "a node number of the alignment (the header says MAP yes)" if map_set \
                    else "'-' or a node number of the alignment"
                raise fail(f"node {k} MAP annotation is '{text}', expected {want}", row.lineno,
                           row.cols[i])
        elif len(text) != 1:
            raise fail(f"node {k} {name} annotation is '{text}', expected one character",
                       row.lineno, row.cols[i])
