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
* comments ``[ ... ]`` anywhere between tokens (also ``[&&NHX...]``; a comment may
  hold bracketed text one level deep, ``[a [b] c]``);
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
from lark import Transformer

from dslc import sdk
from dslc.sdk import DslcError, GrammarError, Span, SyntaxProblem, is_token, register_source, span_of

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
#
# The grammar is newick.lark (LALR, through the SDK's grammar hook); the transformer
# below builds the nodes as the parser reduces each rule, and _describe words the
# syntax errors in Newick's terms.

class _Raw:
    __slots__ = ("name", "length", "has_length", "children", "token", "leaf")

    def __init__(self, leaf: bool, children: list, token=None):
        self.name = ""
        self.length = 0.0
        self.has_length = False
        self.children: list[_Raw] = children
        self.token = token  # a leaf's name token (its position, for errors)
        self.leaf = leaf


class _Build(Transformer):
    """Rules to nodes, each as the parser reduces it (no parse tree is kept)."""

    def start(self, children):
        return children[0]

    def leaf(self, children):
        return _labelled(_Raw(True, []), children, 0)

    def internal(self, children):
        k = 0
        while k < len(children) and isinstance(children[k], _Raw):
            k += 1
        return _labelled(_Raw(False, children[:k]), children, k)


def _labelled(node: _Raw, children: list, k: int) -> _Raw:
    """``node`` with the label and branch length among ``children[k:]`` (tokens)."""
    for tok in children[k:]:
        if tok.type == "LENGTH":
            if node.has_length:
                raise GrammarError("a second branch length", tok)
            node.length, node.has_length = _length(tok), True
        elif tok.type == "QUOTED":
            node.name, node.token = tok[1:-1].replace("''", "'"), tok
        else:
            colon = tok.find(":")
            if colon < 0:
                node.name, node.token = str(tok), tok
                continue
            # a name and its length in one token ('A:0.1', the usual way)
            node.name = tok[:colon]
            node.token = _Tok(node.name, tok.line, tok.column)
            number = _Tok(tok[colon + 1:], tok.line, tok.column + colon + 1)
            node.length, node.has_length = _length_value(number), True
    return node


def _length(colon) -> float:
    """The value of a ``LENGTH`` token (``:``, maybe blanks and comments, the number)."""
    text = colon[1:]
    if text[:1].isspace() or text[:1] == "[":  # blanks or comments after ':'
        text = _number_token(colon)
    else:
        text = _Tok(text, colon.line, colon.column + 1)
    if not text:
        raise GrammarError("missing branch length after ':'", colon)
    return _length_value(text)


def _number_token(length):
    """The number of a ``LENGTH`` token (``:``, blanks and comments, the number) as a
    token of its own, at its own position."""
    m = _LENGTH_NUMBER.search(length)
    text = m.group()
    before = length[:m.start()]
    line = length.line + before.count("\n")
    col = length.column + len(before) if "\n" not in before else len(before) - before.rfind("\n")
    return _Tok(text, line, col)


_LENGTH_NUMBER = re.compile(r"[^\s()\[\]':;,]*\Z")


class _Tok(str):
    """A piece of a token with its own position (for errors)."""

    def __new__(cls, text: str, line: int, column: int):
        self = super().__new__(cls, text)
        self.line, self.column = line, column
        self.end_line, self.end_column = line, column + len(text)
        return self


def _length_value(tok) -> float:
    """A branch length's number (``tok``: its text, with its position for errors).
    Digits of other scripts, which ``float`` reads as 0-9, are refused first."""
    foreign = sdk.foreign_digit(str(tok))
    if foreign is not None:
        raise GrammarError(f"bad branch length '{tok}': "
                           + sdk.foreign_digit_message(str(tok), foreign), tok)
    try:
        v = float(tok)
    except ValueError:
        raise GrammarError(f"bad branch length '{tok}'", tok) from None
    if not (0 <= v < math.inf):
        if math.isnan(v) or math.isinf(v):
            raise GrammarError(f"bad branch length '{tok}': not a finite number", tok)
        raise GrammarError(f"bad branch length '{tok}': a branch length cannot be negative", tok)
    return v


_DELIM_TOKENS = ("COMMA", "RPAR", "LENGTH", "SEMICOLON", "LPAR")


def _describe(p: SyntaxProblem) -> DslcError | None:
    """Newick's wording of a syntax error (None: the grammar's default)."""
    opens = _open_parens(p.stack)
    if p.kind == "character":
        what = {"[": "unterminated comment '['", "]": "']' without '['",
                "'": "unterminated quoted name"}.get(p.found)
        if p.found == "[" and _closed(p.text, p.offset):
            what = "a comment nested too deep: '[ [ ] ]' is the most this reader takes"
        return DslcError(what, p.span) if what else None
    if p.stack and is_token(p.stack[-1], "LENGTH") and not _number_token(p.stack[-1]):
        return DslcError("missing branch length after ':'", p.at(p.stack[-1]))
    if p.kind == "end":
        if not p.stack:
            return DslcError("empty Newick text: no tree", p.origin)
        if opens:
            return DslcError("unbalanced '(': never closed", p.at(opens[-1]),
                             hint=f"{len(opens)} '(' still open at the end of the text")
        return DslcError("missing ';' at the end of the tree", p.span)
    if "LPAR" in p.expected and p.token_type in _DELIM_TOKENS:
        return DslcError("a leaf with no name", p.span,
                         hint="every leaf needs a name (internal labels are optional)")
    if p.expected == {"$END"}:
        return DslcError("text after the end of the tree (';')", p.span,
                         hint="a Newick file here holds one tree")
    if p.token_type == "SEMICOLON" and opens:
        return DslcError("unbalanced '(': not closed before ';'", p.at(opens[-1]),
                         hint=f"{len(opens)} '(' still open")
    if p.token_type == "RPAR" and not opens:
        return DslcError("unbalanced ')': no '(' to close", p.span)
    if p.token_type == "COMMA" and not opens:
        return DslcError("',' outside parentheses", p.span,
                         hint="siblings go inside '( ... )'; the tree needs one root")
    if p.token_type == "LENGTH":
        return DslcError("a second branch length", p.span)
    if p.token_type in ("NAME", "QUOTED"):
        return DslcError("expected ',', ')' or ';'", p.span)
    return None


def _closed(text: str, at: int) -> bool:
    """Whether the '[' at ``at`` has its matching ']'."""
    depth = 0
    for c in text[at:]:
        depth += {"[": 1, "]": -1}.get(c, 0)
        if depth == 0:
            return True
    return False


def _open_parens(stack: tuple) -> list:
    """The '(' tokens not yet closed (a closed node whose rule is not reduced yet
    still has its '(' and ')' on the stack)."""
    opens: list = []
    for x in stack:
        if is_token(x, "LPAR"):
            opens.append(x)
        elif is_token(x, "RPAR") and opens:
            opens.pop()
    return opens


_GRAMMAR = sdk.grammar(__package__, "newick.lark", transformer=_Build(), describe=_describe)


def parse_newick(text: str, source_name: str = "<newick>", span: Span | None = None) -> Tree:
    """Parse one Newick tree.

    Errors point into the Newick text: at ``span`` when it lies in
    ``source_name`` (text embedded in a larger file, ``span`` being where it
    starts), else at ``source_name:line:col``.
    """
    root = _GRAMMAR.parse(text, source_name, span)
    tree = _number(root, source_name)
    _check_leaf_names(tree, root, source_name)
    return tree


def _check_leaf_names(tree: Tree, root: _Raw, source: str) -> None:
    """Leaves are told apart by name: two with one name is an error at the second."""
    if len(tree.leaf_index) == len(tree.leaves):
        return
    first: dict[str, object] = {}
    for leaf in _leaves(root):
        if leaf.name in first:
            raise DslcError(f"two leaves named '{leaf.name}'", span_of(source, leaf.token),
                            hint=f"the first is at {span_of(source, first[leaf.name])}")
        first[leaf.name] = leaf.token


def _leaves(root: _Raw):
    """The leaves, left to right, without recursion."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.leaf:
            yield node
        stack.extend(reversed(node.children))


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
