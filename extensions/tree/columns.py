"""Alignment columns for tree algorithms: ``load(columns[dna], "aln.fasta")``.

The file is an aligned FASTA file (gzip-compressed files too): every record
(row) has the same length. A record's name is the first word of its ``>``
line; rows are matched to the tree's leaves by that name, and every leaf must
have exactly one row and every row a leaf.

The value is a :class:`Columns`: ``codes[col, u]`` is the symbol code of leaf
``u`` (a post-order node number) in column ``col``; internal nodes hold
:data:`NO_SYMBOL` (255). One column is a :class:`Column`, and ``c[u]`` reads it.

Choices:

* Letters are upper-cased first when the alphabet has no lower-case symbols
  (soft-masked or lower-case alignments read as usual).
* Gaps (``-`` or ``.``) are errors unless the alphabet has that symbol: with
  ``define alphabet dnagap "ACGT-"`` the gap is a state like any other. A
  missing-data treatment (a gap matching every symbol) cannot be expressed by a
  single symbol code, so it is left to the program and its alphabet.
* Alphabets with multi-character symbols cannot be read this way (one
  character is one symbol in an aligned FASTA row).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dslc import sdk
from dslc.sdk import Alphabet, DslcError, Span

from . import NO_SYMBOL
from .newick import Tree


@dataclass(frozen=True, eq=False)
class Column:
    """One alignment column over a tree's nodes."""

    alphabet: Alphabet
    tree: Tree
    index: int
    codes: np.ndarray  # uint8[n_nodes]; NO_SYMBOL at internal nodes

    def __getitem__(self, u: int) -> int:
        return int(self.codes[u])

    def __len__(self) -> int:
        return len(self.codes)

    def __repr__(self) -> str:
        syms = self.alphabet.symbols
        leaves = "".join(syms[self.codes[u]] for u in self.tree.leaves)
        return f"Column({self.index}, {leaves!r})"


@dataclass(frozen=True, eq=False)
class Columns:
    """All columns of an alignment, laid out over ``tree``'s nodes."""

    alphabet: Alphabet
    tree: Tree
    codes: np.ndarray  # uint8[n_columns, n_nodes]
    source: str = ""

    def __len__(self) -> int:
        return self.codes.shape[0]

    @property
    def n_columns(self) -> int:
        return self.codes.shape[0]

    def __getitem__(self, col: int) -> Column:
        if not -len(self) <= col < len(self):
            raise IndexError(col)
        col %= len(self)
        return Column(self.alphabet, self.tree, col, self.codes[col])

    def __iter__(self):
        return (self[k] for k in range(len(self)))

    def __repr__(self) -> str:
        return f"Columns({self.n_columns} columns over {len(self.tree.leaves)} leaves, {self.alphabet.name})"


def _read_aligned_fasta(text: str, source: str, span: Span | None) -> list[tuple[str, int, str]]:
    """``(name, header line number, row)`` for each record."""
    records: list[tuple[str, int, list[str]]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith(";"):
            continue
        if s.startswith(">"):
            words = s[1:].split()
            if not words:
                raise DslcError(f"{source}, line {lineno}: a record with no name", span)
            records.append((words[0], lineno, []))
        else:
            if not records:
                raise DslcError(f"{source}, line {lineno}: sequence data before the first '>' line", span,
                                hint="is this a FASTA file?")
            records[-1][2].append("".join(s.split()))
    if not records:
        raise DslcError(f"{source}: no FASTA records", span)
    return [(name, ln, "".join(parts)) for name, ln, parts in records]


def parse_columns_text(text: str, source: str, alphabet: Alphabet, tree: Tree,
                       span: Span | None = None) -> Columns:
    """The :class:`Columns` of an aligned FASTA text (see the module notes)."""
    if not alphabet.single_chars:
        raise DslcError(f"alignment columns need an alphabet of one-character symbols; "
                        f"'{alphabet.name}' has longer ones", span)
    if len(alphabet) >= NO_SYMBOL:
        raise DslcError(f"alphabet '{alphabet.name}' has too many symbols for alignment columns", span)
    records = _read_aligned_fasta(text, source, span)
    upper = not any(c.islower() for c in alphabet.symbols)

    seen: dict[str, int] = {}
    for name, ln, _ in records:
        if name in seen:
            raise DslcError(f"{source}, line {ln}: a second row named '{name}'", span,
                            hint=f"the first is at line {seen[name]}")
        seen[name] = ln
    leaf_index = tree.leaf_index
    extra = [name for name, _, _ in records if name not in leaf_index]
    missing = [name for name in leaf_index if name not in seen]
    if extra or missing:
        parts = []
        if missing:
            parts.append(f"no row for tree leaves {_names(missing)}")
        if extra:
            parts.append(f"rows {_names(extra)} are not leaves of the tree")
        raise DslcError(f"{source}: the alignment does not match the tree: " + "; ".join(parts), span,
                        hint="rows are matched to leaves by the first word of the '>' line")

    width = len(records[0][2])
    for name, ln, row in records:
        if len(row) != width:
            raise DslcError(f"{source}, line {ln}: row '{name}' has {len(row)} columns, but row "
                            f"'{records[0][0]}' has {width}", span, hint="an alignment's rows all have one length")
    if width == 0:
        raise DslcError(f"{source}: the alignment has no columns", span)

    codes = np.full((width, tree.n), NO_SYMBOL, dtype=np.uint8)
    table = np.full(256, NO_SYMBOL, dtype=np.int64)
    for k, sym in enumerate(alphabet.symbols):
        if ord(sym) < 256:
            table[ord(sym)] = k
    for name, ln, row in records:
        if upper:
            row = row.upper()
        raw = np.frombuffer(row.encode("latin-1", errors="replace"), dtype=np.uint8)
        if len(raw) != width:  # a character outside Latin-1
            raw = np.array([min(ord(c), 255) for c in row], dtype=np.uint8)
        got = table[raw]
        bad = np.flatnonzero(got == NO_SYMBOL)
        if len(bad):
            pos = int(bad[0])
            c = row[pos]
            hint = None
            if c in "-.":
                hint = (f"gaps are not symbols of '{alphabet.name}'; remove gapped columns or use an "
                        f"alphabet with the gap, e.g. define alphabet {alphabet.name}gap "
                        f"\"{''.join(alphabet.symbols)}{c}\"")
            raise DslcError(f"{source}, line {ln}: row '{name}' has '{c}' in column {pos + 1}, which is not "
                            f"a symbol of alphabet '{alphabet.name}'", span, hint=hint)
        codes[:, leaf_index[name]] = got
    codes.setflags(write=False)
    return Columns(alphabet, tree, codes, source)


def load_columns(path: str, alphabet: Alphabet, tree: Tree, span: Span | None = None) -> Columns:
    """Read an aligned FASTA file as columns over ``tree``'s leaves."""
    path = str(path)
    return parse_columns_text(sdk.read_text(path, span, "alignment"), path, alphabet, tree, span)


def _names(names: list[str], most: int = 5) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")
