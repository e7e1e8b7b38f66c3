"""Phylogenetic trees in Newick format.

Accepted::

    ((human:0.1,chimp:0.12)hominini:0.3,'gorilla gorilla':0.4,orang);

* leaf names, unquoted (any characters but blanks and ``()[]':;,``; underscores
  are kept as they are, not turned into blanks, so names match FASTA records)
  or quoted with ``'...'`` (``''`` inside for a quote);
* labels on internal nodes (kept as their ``name``; often support values);
* branch lengths ``:0.1``, finite and not negative (optional anywhere; a
  missing one reads as 0.0 and ``has_length`` says whether it was given; the
  root may have one too);
* comments ``[ ... ]`` anywhere between tokens (also ``[&&NHX...]``);
* any number of children per node (a trifurcating root, polytomies, and
  single-child nodes);
* blanks and newlines between tokens.

One tree per text; it must end with ``;``. Errors (unbalanced parentheses, a
missing ``;``, a leaf without a name, two leaves with one name, a bad branch
length, text after the ``;``) point at the line and column in the Newick text.

Nodes are numbered in post-order: children before their parent, siblings left
to right, the root last (``n - 1``).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

import numpy as np

from dslc import sdk
from dslc.sdk import DslcError, Span, register_source

NO_NODE = -1
_DELIMS = set("()[]':;,")


@dataclass(frozen=True)
class Node:
    """One node. ``parent`` is ``-1`` for the root; ``length`` is the branch to
    the parent (0.0 when the file gives none, see ``has_length``); ``name`` is
    ``""`` for an unlabelled internal node."""

    index: int
    name: str
    parent: int
    children: tuple[int, ...]
    length: float
    is_leaf: bool
    has_length: bool = False

    @property
    def left(self) -> int:
        """The first child, ``-1`` for a leaf."""
        return self.children[0] if self.children else NO_NODE

    @property
    def right(self) -> int:
        """The second child, ``-1`` when there is none."""
        return self.children[1] if len(self.children) > 1 else NO_NODE

    @property
    def is_root(self) -> bool:
        return self.parent == NO_NODE


@dataclass(frozen=True, eq=False)
class Tree:
    """A rooted tree with nodes in post-order (the root is ``nodes[-1]``)."""

    nodes: tuple[Node, ...]
    source: str = ""
    line: int = 0  # the line of the script's load(tree, ...), 0 when not loaded by one

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def n(self) -> int:
        return len(self.nodes)

    @property
    def root(self) -> int:
        return len(self.nodes) - 1

    @property
    def is_binary(self) -> bool:
        """Every internal node has exactly two children."""
        return all(node.is_leaf or len(node.children) == 2 for node in self.nodes)

    @functools.cached_property
    def labels(self) -> tuple[str, ...]:
        """A name per node for printed tables: a named node by its name, an unnamed
        root as ``root``, another unnamed internal node by the clade it is the
        ancestor of (``(Human,Chimp)``; past three leaves, the first two and the
        count), which is how a reader finds it in the tree."""
        below: list[list[str]] = []
        for node in self.nodes:  # post-order: children first
            below.append([node.name] if node.is_leaf else
                         [x for c in node.children for x in below[c]])
        out = []
        for node, leaves in zip(self.nodes, below):
            if node.name:
                out.append(node.name)
            elif node.is_root:
                out.append("root")
            elif len(leaves) <= 3:
                out.append("(" + ",".join(leaves) + ")")
            else:
                out.append(f"({leaves[0]},{leaves[1]},... {len(leaves)} leaves)")
        return tuple(out)

    @functools.cached_property
    def leaves(self) -> tuple[int, ...]:
        """Leaf numbers, left to right."""
        return tuple(node.index for node in self.nodes if node.is_leaf)

    @functools.cached_property
    def leaf_index(self) -> dict[str, int]:
        """Leaf name -> node number."""
        return {self.nodes[i].name: i for i in self.leaves}

    def __repr__(self) -> str:
        return f"Tree({self.n} nodes, {len(self.leaves)} leaves)"

    # ---- arrays for the backends
    @functools.cached_property
    def parents(self) -> np.ndarray:
        """``int64[n]``; -1 for the root."""
        return np.array([node.parent for node in self.nodes], dtype=np.int64)

    @functools.cached_property
    def child_offsets(self) -> np.ndarray:
        """``int64[n + 1]``: the children of ``u`` are
        ``child_index[child_offsets[u] : child_offsets[u + 1]]``."""
        off = np.zeros(self.n + 1, dtype=np.int64)
        off[1:] = np.cumsum([len(node.children) for node in self.nodes])
        return off

    @functools.cached_property
    def child_index(self) -> np.ndarray:
        """``int64[n - 1]``: all children, grouped by parent (CSR)."""
        return np.array([c for node in self.nodes for c in node.children], dtype=np.int64)

    @functools.cached_property
    def lengths(self) -> np.ndarray:
        """``float64[n]``: branch length to the parent."""
        return np.array([node.length for node in self.nodes], dtype=np.float64)

    @functools.cached_property
    def is_leaf(self) -> np.ndarray:
        return np.array([node.is_leaf for node in self.nodes], dtype=bool)

    @functools.cached_property
    def left(self) -> np.ndarray:
        """``int64[n]``: first child, -1 for leaves."""
        return np.array([node.left for node in self.nodes], dtype=np.int64)

    @functools.cached_property
    def right(self) -> np.ndarray:
        """``int64[n]``: second child, -1 where there is none."""
        return np.array([node.right for node in self.nodes], dtype=np.int64)

    def to_newick(self) -> str:
        """The tree written back as Newick (quoting names where needed)."""

        def label(s: str) -> str:
            if s and not (set(s) & _DELIMS) and not re.search(r"\s", s):
                return s
            return "'" + s.replace("'", "''") + "'" if s else ""

        parts: list[str] = []
        for node in self.nodes:  # post-order: children are already written
            text = label(node.name)
            if node.children:
                kids = [parts[c] for c in node.children]
                text = "(" + ",".join(kids) + ")" + text
            if node.has_length:
                text += f":{node.length!r}"
            parts.append(text)
        return parts[-1] + ";"


# --------------------------------------------------------------------------- parsing

class _Locator:
    def __init__(self, origin: Span, text: str):
        self.origin = origin
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def span(self, start: int, end: int | None = None) -> Span:
        def lc(off: int) -> tuple[int, int]:
            lo, hi = 0, len(self.line_starts) - 1
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self.line_starts[mid] <= off:
                    lo = mid
                else:
                    hi = mid - 1
            col = off - self.line_starts[lo]
            if lo == 0:
                return self.origin.line, self.origin.col + col
            return self.origin.line + lo, col + 1

        line, col = lc(start)
        if end is None or end <= start:
            return Span(self.origin.file, line, col)
        eline, ecol = lc(end)
        return Span(self.origin.file, line, col, eline, ecol)


class _Raw:
    __slots__ = ("name", "length", "has_length", "children", "pos", "leaf")

    def __init__(self, pos: int, leaf: bool):
        self.name = ""
        self.length = 0.0
        self.has_length = False
        self.children: list[_Raw] = []
        self.pos = pos
        self.leaf = leaf


def parse_newick(text: str, source_name: str = "<newick>", span: Span | None = None) -> Tree:
    """Parse one Newick tree.

    Errors point into the Newick text: at ``span`` when it lies in
    ``source_name`` (text embedded in a larger file, ``span`` being where it
    starts), else at ``source_name:line:col``.
    """
    origin = span if span is not None and span.file == source_name else Span(source_name, 1, 1)
    loc = _Locator(origin, text)
    n = len(text)
    i = 0

    def err(msg: str, a: int, b: int | None = None, hint: str | None = None) -> DslcError:
        return DslcError(msg, loc.span(a, b if b is not None else min(a + 1, n)), hint)

    def skip() -> None:
        """Blanks and comments."""
        nonlocal i
        while i < n:
            c = text[i]
            if c.isspace():
                i += 1
            elif c == "[":
                depth, j = 0, i
                while j < n:
                    if text[j] == "[":
                        depth += 1
                    elif text[j] == "]":
                        depth -= 1
                        if depth == 0:
                            break
                    j += 1
                if j >= n:
                    raise err("unterminated comment '['", i)
                i = j + 1
            elif c == "]":
                raise err("']' without '['", i)
            else:
                break

    def label() -> tuple[str, int, int]:
        """A name (maybe empty) at the current position."""
        nonlocal i
        skip()
        start = i
        if i < n and text[i] == "'":
            parts = []
            j = i + 1
            while True:
                k = text.find("'", j)
                if k < 0:
                    raise err("unterminated quoted name", start)
                parts.append(text[j:k])
                if k + 1 < n and text[k + 1] == "'":
                    parts.append("'")
                    j = k + 2
                    continue
                i = k + 1
                return "".join(parts), start, i
        while i < n and text[i] not in _DELIMS and not text[i].isspace():
            i += 1
        return text[start:i], start, i

    def length(node: _Raw) -> None:
        nonlocal i
        skip()
        if i < n and text[i] == ":":
            colon = i
            i += 1
            skip()
            start = i
            while i < n and text[i] not in _DELIMS and not text[i].isspace():
                i += 1
            tok = text[start:i]
            if not tok:
                raise err("missing branch length after ':'", colon)
            foreign = sdk.foreign_digit(tok)
            if foreign is not None:
                raise err(f"bad branch length '{tok}': "
                          + sdk.foreign_digit_message(tok, foreign), start, i)
            try:
                v = float(tok)
            except ValueError:
                raise err(f"bad branch length '{tok}'", start, i) from None
            if math.isnan(v) or math.isinf(v):
                raise err(f"bad branch length '{tok}': not a finite number", start, i)
            if v < 0:
                raise err(f"bad branch length '{tok}': a branch length cannot be negative",
                          start, i)
            node.length, node.has_length = v, True

    skip()
    if i >= n:
        raise err("empty Newick text: no tree", 0, 0)
    stack: list[_Raw] = []  # open '(' nodes
    root: _Raw | None = None
    leaves_seen: dict[str, int] = {}

    def attach(node: _Raw) -> None:
        nonlocal root
        if stack:
            stack[-1].children.append(node)
        else:
            root = node

    # state: expecting a subtree
    while True:
        skip()
        if i < n and text[i] == "(":
            node = _Raw(i, leaf=False)
            attach(node)
            stack.append(node)
            i += 1
            continue
        # a leaf
        name, a, b = label()
        if not name:
            if i >= n:
                raise err("unbalanced '(': never closed", stack[-1].pos,
                          hint=f"{len(stack)} '(' still open at the end of the text")
            raise err("a leaf with no name", i, hint="every leaf needs a name (internal labels are optional)")
        if name in leaves_seen:
            raise err(f"two leaves named '{name}'", a, b, hint=f"the first is at {loc.span(leaves_seen[name])}")
        leaves_seen[name] = a
        leaf = _Raw(a, leaf=True)
        leaf.name = name
        length(leaf)
        attach(leaf)
        # state: after a subtree
        while True:
            skip()
            c = text[i] if i < n else ""
            if c == ",":
                if not stack:
                    raise err("',' outside parentheses", i,
                              hint="siblings go inside '( ... )'; the tree needs one root")
                i += 1
                break  # next sibling
            if c == ")":
                if not stack:
                    raise err("unbalanced ')': no '(' to close", i)
                node = stack.pop()
                i += 1
                name, a, b = label()
                node.name = name
                length(node)
                continue
            if c == ";":
                if stack:
                    raise err("unbalanced '(': not closed before ';'", stack[-1].pos,
                              hint=f"{len(stack)} '(' still open")
                i += 1
                skip()
                if i < n:
                    raise err("text after the end of the tree (';')", i,
                              hint="a Newick file here holds one tree")
                assert root is not None
                return _number(root, source_name)
            if not c:
                if stack:
                    raise err("unbalanced '(': never closed", stack[-1].pos,
                              hint=f"{len(stack)} '(' still open at the end of the text")
                end = len(text.rstrip())
                raise err("missing ';' at the end of the tree", end, end)
            raise err(f"unexpected '{c}'" if c in _DELIMS else "expected ',', ')' or ';'", i)


def _number(root: _Raw, source: str) -> Tree:
    """Post-order numbering without recursion (deep caterpillar trees)."""
    order: list[_Raw] = []
    stack: list[tuple[_Raw, int]] = [(root, 0)]
    while stack:
        node, k = stack.pop()
        if k < len(node.children):
            stack.append((node, k + 1))
            stack.append((node.children[k], 0))
        else:
            order.append(node)
    index = {id(node): j for j, node in enumerate(order)}
    parent = [NO_NODE] * len(order)
    for node in order:
        for c in node.children:
            parent[index[id(c)]] = index[id(node)]
    nodes = tuple(
        Node(j, node.name, parent[j], tuple(index[id(c)] for c in node.children), node.length,
             node.leaf, node.has_length)
        for j, node in enumerate(order))
    return Tree(nodes, source)


def load_newick(path: str, span: Span | None = None) -> Tree:
    """Read a Newick file (gzip-compressed too). A missing file is reported at
    ``span`` (the ``load`` statement); a malformed one at its own line and
    column."""
    path = str(path)
    text = sdk.read_text(path, span, "Newick file")
    try:
        return parse_newick(text, path, None)
    except DslcError:
        register_source(path, text)  # so the error can quote the offending line
        raise
