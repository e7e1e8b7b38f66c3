"""The columns of a hit table: the ones printed by default, and those ``--columns``
names (BLAST's tabular fields, HMMER's tblout-like ones, the table's own).

A hit table knows no algorithm. Its columns come from what the map's result holds:

- its **axes**: the record names of each list operand. A table of two or more axes is a
  search of *queries* against *subjects* (the last axis: the database), so
  ``qseqid``/``query`` is the first axis's record name and ``sseqid``/``target``/
  ``subject`` the last's; ``qlen``/``slen`` their sequences' lengths (a row's query, as
  dslc.runtime.hits orders and cuts the rows, is its index on every axis but the last);
- its **printed values**: ``score`` is the score column (the first printed column that
  is neither an E-value nor a bit score), ``evalue`` the E-value column (made by
  ``evalue(...)``, a map of a float function named ``evalue``, or a float result
  printed as ``evalue``) and ``bitscore`` the bit-score column (the same with ``bits``);
- the row's **alignment**, where the map's task is traced again (``dslc.trace.align``:
  the derivation read as moves through two sequences): ``pident length mismatch gapopen
  qstart qend sstart send nident positive gaps cigar qseq sseq``. Coordinates are
  1-based and inclusive (BLAST's), whatever the Python objects hold (0-based,
  half-open). Naming any of them traces the printed rows, as ``--align`` does: a
  column's value is never guessed without the alignment.

A name the table has itself (an axis, a printed result) means that first, so a script
that prints a result named ``length`` keeps its column.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dslc.errors import DslcError
from dslc.lang.results import HitTable, MapResult

EVALUE = "evalue"
BITS = "bits"
# BLAST's tabular output (blastp -outfmt 6): its twelve columns, in its order
BLAST = ("qseqid", "sseqid", "pident", "length", "mismatch", "gapopen", "qstart", "qend",
         "sstart", "send", "evalue", "bitscore")
# HMMER's per-sequence table (--tblout): target name, query name, E-value, score (bits)
HMMER = ("target", "query", "evalue", "bitscore")
PRESETS = {"blast": BLAST, "hmmer": HMMER}
# --align's columns: where the alignment lies, and what it holds
ALIGNED = ("qstart", "qend", "sstart", "send", "length", "pident", "nident", "mismatch",
           "positive", "gapopen", "gaps", "cigar", "qseq", "sseq")
_QUERY = ("qseqid", "query")
_SUBJECT = ("sseqid", "subject", "target")
_LENGTHS = {"qlen": 0, "slen": -1}
_ROLES = {"score": "score", "evalue": EVALUE, "bitscore": BITS}


@dataclass(frozen=True)
class Column:
    """One printed column: its header ``name`` and where its cells come from:
    ``axis`` (record names of axis ``at``), ``value`` (printed result ``at``),
    ``length`` (the sequence lengths of axis ``at``) or ``aligned`` (field ``at``
    of the row's alignment, :func:`aligned_cell`)."""

    name: str
    kind: str
    at: object


def role(name: str, r: MapResult) -> str:
    """What a printed result is to the table: an E-value or a bit score (a float
    result made by ``evalue``/``bits``, or printed under that name), or a score."""
    if r.value_type == "float":
        for what in (EVALUE, BITS):
            if r.func == what or name == what:
                return what
    return "score"


def default_columns(table: HitTable, align: bool) -> tuple[Column, ...]:
    """The record names, each printed result, and with ``align`` the alignment's."""
    axis_keys, col_keys = table.keys()
    cols = [Column(n, "axis", k) for k, n in enumerate(axis_keys)]
    cols += [Column(n, "value", k) for k, n in enumerate(col_keys)]
    return tuple(cols) + (tuple(Column(n, "aligned", n) for n in ALIGNED) if align else ())


def chosen_columns(table: HitTable, names: tuple[str, ...], align: bool) -> tuple[Column, ...]:
    """``--columns``: each name (a preset, ``blast`` or ``hmmer``, stands for its
    columns) resolved on ``table``; with ``align``, the alignment's columns not
    named already follow."""
    wanted = [n for name in names for n in PRESETS.get(name, (name,))]
    if align:
        wanted += [n for n in ALIGNED if n not in wanted]
    return tuple(_resolve(table, n) for n in wanted)


def _resolve(table: HitTable, name: str) -> Column:
    axis_keys, col_keys = table.keys()
    if name in axis_keys:
        return Column(name, "axis", axis_keys.index(name))
    if name in col_keys:
        return Column(name, "value", col_keys.index(name))
    n = len(table.axes)
    if name in _QUERY + _SUBJECT:
        if n >= 2:
            return Column(name, "axis", 0 if name in _QUERY else n - 1)
        if n == 1 and name in _SUBJECT:
            return Column(name, "axis", 0)
        return Column(name, "aligned", "qname")  # (a query given alone: the alignment's)
    if name in _LENGTHS:
        k = _LENGTHS[name] % max(n, 1)
        if n < (2 if name == "qlen" else 1) or table.axes[k].lengths is None:
            raise DslcError(f"--columns: '{name}' needs a map over a list of sequences "
                            f"{'(the queries, the first of two lists)' if name == 'qlen' else ''}"
                            .rstrip())
        return Column(name, "length", k)
    if name in _ROLES:
        roles = [role(n, r) for n, r in table.columns]
        want = _ROLES[name]
        if want in roles:
            return Column(name, "value", roles.index(want))
        if want == "score" and roles:  # (a table of bit scores only: the bits are its score)
            return Column(name, "value", 0)
        raise DslcError(f"--columns: the printed map results have no {_ROLE_TEXT[want]} "
                        f"column for '{name}'", hint=_ROLE_HINT[want])
    if name in ALIGNED:
        return Column(name, "aligned", name)
    known = axis_keys + col_keys + [*_QUERY, *_SUBJECT, *_LENGTHS, *_ROLES, *ALIGNED]
    raise DslcError(f"--columns: no column '{name}'",
                    hint="columns: " + ", ".join(dict.fromkeys(known)) + "; presets: "
                    + ", ".join(PRESETS))


_ROLE_TEXT = {EVALUE: "E-value", BITS: "bit-score", "score": "score"}
_ROLE_HINT = {EVALUE: "print evalue(scores, queries, db, blosum62, 11, 1) too",
              BITS: "print bits(scores, blosum62, 11, 1) too", "score": None}


def needs_alignment(cols: tuple[Column, ...]) -> bool:
    return any(c.kind == "aligned" for c in cols)


def plain(cols: tuple[Column, ...], table: HitTable) -> bool:
    """Are the columns the table's own, in its order (its whole-table TSV applies)?"""
    return cols == default_columns(table, False)


def header(cols: tuple[Column, ...], table: HitTable) -> list[str]:
    """The header's names: a probability column is two, ``NAME`` and ``NAME.log``."""
    out = []
    for c in cols:
        prob = c.kind == "value" and table.columns[c.at][1].value_type == "prob"
        out += [c.name, c.name + ".log"] if prob else [c.name]
    return out


def cells(cols: tuple[Column, ...], table: HitTable, row: tuple, aligned) -> list:
    """A row's values, a column at a time: ``row`` is ``(names, values, task)``
    (``HitTable.indexed_rows``), ``aligned`` its alignment or None."""
    names, values, task = row
    where = None
    out = []
    for c in cols:
        if c.kind == "axis":
            out.append(names[c.at])
        elif c.kind == "value":
            out.append(values[c.at])
        elif c.kind == "length":
            if where is None:
                where = np.unravel_index(task, table.columns[0][1].values.shape)
            out.append(int(table.axes[c.at].lengths[int(where[c.at])]))
        else:  # (None: a row whose task its map's where skipped has no alignment)
            out.append(None if aligned is None else
                       aligned_cell(aligned, c.at, _query_subject(table, names)))
    return out


def _query_subject(table: HitTable, names: tuple) -> tuple[str | None, str | None]:
    """The row's query and subject record names, where the table has them."""
    n = len(table.axes)
    return (names[0] if n >= 2 else None), (names[-1] if n >= 1 else None)


def aligned_cell(a, field: str, row_names: tuple):
    """Field ``field`` of alignment ``a`` (dslc.trace.align.Alignment), as a search
    prints it: the query first (the alignment's two sequences swapped where its
    first is the row's subject), coordinates 1-based and inclusive, ``pident`` the
    percent of identical columns to three decimals (BLAST's), ``mismatch`` the
    aligned pairs that differ, ``gapopen`` the runs of gap columns."""
    q0, q1, s0, s1, qseq, sseq, names, cigar = _oriented(a, *row_names)
    pairs = a.length - a.gaps
    got = {
        "qname": names[0], "qstart": q0 + 1, "qend": q1, "sstart": s0 + 1, "send": s1,
        "length": a.length, "nident": a.identities, "mismatch": pairs - a.identities,
        "positive": a.similar, "gaps": a.gaps, "gapopen": a.gap_opens,
        "cigar": cigar or "-", "qseq": qseq, "sseq": sseq,
    }
    if field == "pident":
        return round(100.0 * a.identities / a.length, 3) if a.length else 0.0
    return got[field]


def tsv_cell(c: Column, v) -> str:
    """A non-value column's cell as TSV text (``pident`` with BLAST's three decimals;
    None, the alignment of a task that did not run, empty)."""
    if v is None:
        return ""
    return f"{v:.3f}" if c.kind == "aligned" and c.at == "pident" else str(v)


def _oriented(a, query: str | None, subject: str | None):
    """The alignment's starts, ends and rows with the row's query first."""
    swap = (query is not None and query != subject and tuple(a.names) == (subject, query))
    (qs, ss), (qe, se), rows, names = a.starts, a.ends, (a.rows[0], a.rows[2]), a.names
    cigar = a.cigar
    if swap:  # (an I consumes the query: the two swap with the sequences)
        qs, ss, qe, se, rows, names = ss, qs, se, qe, rows[::-1], names[::-1]
        cigar = cigar.translate(_SWAP)
    return qs, qe, ss, se, rows[0], rows[1], names, cigar


_SWAP = str.maketrans("ID", "DI")
