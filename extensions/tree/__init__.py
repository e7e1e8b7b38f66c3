"""The phylogenetic-tree extension, written only against :mod:`dslc.sdk`.

Types
-----
* ``tree`` (calling): a rooted tree, from ``load(tree, "species.nwk")`` (Newick);
* ``node[t]`` (recursive): the nodes of tree ``t``, numbered in post-order
  (children before their parent, siblings left to right, the root last);
* ``column[A]`` (calling): one alignment column over alphabet ``A``; ``c[u]`` is
  the symbol of leaf ``u`` in it. ``load(columns[A], "aln.fasta")`` gives the
  list of every column of an aligned FASTA file, so ``map(f, t (*) cols)`` runs
  once per column.

Accessors (the contract's, and four more marked *)
--------------------------------------------------
==================  =====================  ==================================================
receiver            accessor               result
==================  =====================  ==================================================
``u: node[t]``      ``u.isleaf``           ``bool``
``u: node[t]``      ``u.isroot`` *         ``bool``
``u: node[t]``      ``u.left``             ``node[t]``: the first child
``u: node[t]``      ``u.right``            ``node[t]``: the second child
``u: node[t]``      ``u.children``         iterable of the children, left to right
``u: node[t]``      ``u.parent`` *         ``node[t]``
``u: node[t]``      ``u.length``           ``float``: the branch length to the parent
``t: tree``         ``t.root``             ``node[t]``
``t: tree``         ``t.nodes`` *          iterable of every node, in post-order
``t: tree``         ``t.leaves`` *         iterable of the leaves, left to right
==================  =====================  ==================================================

Choices where the contract is silent:

* **Matching rows to leaves.** ``load(columns[A], file)`` matches the rows of
  the alignment to the leaves of the tree this script loaded *most recently*
  before the ``load`` of the columns (the contract's order: ``t = load(tree,
  ...)`` and then ``cols = load(columns[dna], ...)``). Every leaf needs exactly
  one row and every row a leaf (by the first word of its ``>`` line); a script
  that loads columns before any tree is told to load the tree first. With two
  trees, load each tree's columns right after it. A call or map task that binds a
  tree and columns matched to another tree (one without the same leaves at the
  same node numbers) is refused, naming the lines of both loads
  (``TypeSpec.fits_owner``): it would read other leaves' symbols.
* ``c[u]`` at an internal node is a run-time error (a column gives symbols at
  the leaves only): guard it with ``u.isleaf``.
* ``u.left`` and ``u.right`` need a binary node: ``u.left`` of a leaf, and
  ``u.right`` of a leaf or of a node without exactly two children (a
  trifurcating root, a polytomy, a single-child node) are run-time errors, not
  a silently ignored child; ``u.children`` serves any number of children.
* ``u.length`` is 0.0 where the Newick text gives no length (and for the root,
  unless the text gives it one).
* ``u.parent`` of the root is a run-time error.
* For the dependence analysis, children lie below their parent
  (``sdk.BELOW``), the parent above (``sdk.Bounds(1, None)``).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING

import numpy as np

from dslc import sdk
from dslc.sdk import DslcError

if TYPE_CHECKING:
    from .columns import Column
    from .newick import Tree

__all__ = ["extension", "Tree", "Column", "Columns"]

# what an internal node holds in a column (dslc_extensions.tree.columns)
NO_SYMBOL = 255

# The Newick and column readers are imported where first used: a script that loads
# no tree needs neither.
_PUBLIC = {"Tree": "newick", "Column": "columns", "Columns": "columns"}


def __getattr__(name: str):
    if name in _PUBLIC:
        import importlib
        return getattr(importlib.import_module(f"{__name__}.{_PUBLIC[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _instance_of(module: str, cls: str):
    """``isinstance(v, module.cls)`` without importing the module: before it is
    imported, no value of its classes exists."""
    def accepts(v) -> bool:
        m = sys.modules.get(f"{__name__}.{module}")
        return m is not None and isinstance(v, getattr(m, cls))
    return accepts


# --------------------------------------------------------------------------- the trees of a script

# The trees a script has loaded, most recent last: (the script's alphabet table,
# which identifies the running script, and the tree). Bounded: only the last
# few scripts matter.
_RECENT: list[tuple[dict, Tree]] = []
_RECENT_LIMIT = 16


def _remember(ctx: sdk.ExtContext, tree: Tree) -> None:
    for k, (alphabets, _) in enumerate(_RECENT):
        if alphabets is ctx.alphabets:
            del _RECENT[k]
            break
    _RECENT.append((ctx.alphabets, tree))
    del _RECENT[:-_RECENT_LIMIT]


def _recent_tree(ctx: sdk.ExtContext) -> Tree | None:
    for alphabets, tree in reversed(_RECENT):
        if alphabets is ctx.alphabets:
            return tree
    return None


# --------------------------------------------------------------------------- loaders

def _load_tree(arg, path, span, ctx: sdk.ExtContext) -> Tree:
    if arg is not None:
        raise DslcError("load(tree, file) takes no [...]", span)
    from .newick import load_newick

    tree = load_newick(path, span)
    if span is not None:
        tree = dataclasses.replace(tree, line=span.line)
    _remember(ctx, tree)
    return tree


def _load_columns(arg, path, span, ctx: sdk.ExtContext) -> list[Column]:
    if arg is None:
        raise DslcError("load(columns[A], file) needs the alphabet, e.g. columns[dna]", span)
    alphabet = ctx.alphabet(arg, span)
    tree = _recent_tree(ctx)
    if tree is None:
        raise DslcError("load(columns[...]) matches alignment rows to the leaves of a tree, but "
                        "no tree has been loaded yet", span,
                        hint='load the tree first: t = load(tree, "species.nwk")')
    from .columns import load_columns

    try:
        cols = load_columns(path, alphabet, tree, span)
    except DslcError as e:
        note = "the tree is the one this script loaded last"
        if tree.source:
            note += f", {tree.source}"
        raise DslcError(e.message, e.span, f"{e.hint}; {note}" if e.hint else note) from None
    return list(cols)


# --------------------------------------------------------------------------- accessors

def _node_of(t: sdk.ExtT) -> sdk.ExtT:
    return sdk.ExtT("node", owner=t.owner)


def _name(tree: Tree, u: int) -> str:
    node = tree.nodes[u]
    label = f" '{node.name}'" if node.name else ""
    return f"node {u}{label}"


def _left(tree: Tree, u: int) -> int:
    node = tree.nodes[u]
    if node.is_leaf:
        raise DslcError(f"u.left: {_name(tree, u)} is a leaf and has no children",
                        hint="guard with u.isleaf")
    return node.children[0]


def _right(tree: Tree, u: int) -> int:
    node = tree.nodes[u]
    if node.is_leaf:
        raise DslcError(f"u.right: {_name(tree, u)} is a leaf and has no children",
                        hint="guard with u.isleaf")
    if len(node.children) != 2:
        raise DslcError(f"u.right: {_name(tree, u)} has {len(node.children)} "
                        f"child{'ren' if len(node.children) != 1 else ''}, and u.left/u.right "
                        f"need exactly two", hint="iterate over u.children for any number of "
                                                  "children, or resolve the tree to a binary one")
    return node.children[1]


def _parent(tree: Tree, u: int) -> int:
    p = tree.nodes[u].parent
    if p < 0:
        raise DslcError(f"u.parent: {_name(tree, u)} is the root", hint="guard with u.isroot")
    return p


def _column_keys(t: sdk.ExtT):
    return (sdk.ExtT("node"),)


def _column_value(t: sdk.ExtT):
    return sdk.SymT(t.alpha if t.alpha is not None else sdk.AlphaRef("any"))


def _column_index(c: Column, u: int) -> int:
    if type(u) is not int or not 0 <= u < len(c.codes):
        raise DslcError(f"c[u]: node {u} is not a node of the tree column {c.index + 1} "
                        f"was matched to ({len(c.codes)} nodes)")
    code = c.codes[u]
    if code == NO_SYMBOL:
        raise DslcError(f"c[u]: {_name(c.tree, u)} is an internal node; a column gives "
                        f"symbols at the leaves only", hint="guard with u.isleaf")
    return int(code)


def _same_leaves(a: Tree, b: Tree) -> bool:
    """Whether a column matched to tree ``a`` reads right at the nodes of ``b``: the
    same nodes, a leaf where ``a`` has one, with the same name."""
    if a is b:
        return True
    if a.n != b.n:
        return False
    return all(x.is_leaf == y.is_leaf and (not x.is_leaf or x.name == y.name)
               for x, y in zip(a.nodes, b.nodes))


_FITS: dict[tuple[int, int], tuple[Tree, Tree, bool]] = {}  # a map's tasks share their trees


def _describe_tree(tree: Tree) -> str:
    where = f" loaded at line {tree.line}" if tree.line else ""
    name = f" ({os.path.basename(tree.source)})" if tree.source else ""
    return f"the tree{where}{name}"


def _column_fits(c: Column, tree: Tree) -> str | None:
    """``fits_owner`` of a column: it reads right only at the nodes of the tree its
    rows were matched to (or of one with the same leaves at the same numbers)."""
    if c.tree is tree:
        return None
    key = (id(c.tree), id(tree))
    hit = _FITS.get(key)
    if hit is None or hit[0] is not c.tree or hit[1] is not tree:
        if len(_FITS) > 64:
            _FITS.clear()
        hit = _FITS[key] = (c.tree, tree, _same_leaves(c.tree, tree))
    if hit[2]:
        return None
    return (f"column {c.index + 1} was matched to the leaves of {_describe_tree(c.tree)}, "
            f"not of {_describe_tree(tree)} (load(columns[...]) matches rows to the tree "
            f"loaded last: load each tree's columns right after it)")


# --------------------------------------------------------------------------- compiled forms

def _layout(tree: Tree) -> dict:
    """The tree as the compiled backends read it (see LAYOUT)."""
    off = np.zeros(tree.n + 1, dtype=np.int64)
    kids = []
    for u, node in enumerate(tree.nodes):
        kids.extend(node.children)
        off[u + 1] = len(kids)
    return {
        "kidoff": off, "kids": np.array(kids, dtype=np.int64),
        "parent": np.array([node.parent for node in tree.nodes], dtype=np.int64),
        "length": np.array([node.length for node in tree.nodes], dtype=np.float64),
        "leaves": np.array(tree.leaves, dtype=np.int64),
    }


# Every task (an alignment column) walks the same tree node by node, in
# lockstep: a warp reads one address at a time, which constant memory broadcasts.
LAYOUT = sdk.Layout(arrays=(
    sdk.DeviceArray("kidoff", where="constant",
                    doc="int64[n+1]: the children of u are kids[kidoff[u] .. -1]"),
    sdk.DeviceArray("kids", where="constant",
                    doc="int64[n-1]: children, left to right, grouped by parent"),
    sdk.DeviceArray("parent", where="constant", doc="int64[n]: the parent (-1 for the root)"),
    sdk.DeviceArray("length", where="constant", doc="float64[n]: the branch length to the parent"),
    sdk.DeviceArray("leaves", doc="int64[leaves]: the leaves, left to right"),
), build=_layout)

_OFF, _KIDS, _PARENT = sdk.arr("kidoff"), sdk.arr("kids"), sdk.arr("parent")
R = sdk.RECV
_NKIDS = _OFF[R + 1] - _OFF[R]
DEVICE = {
    ("node", "isleaf"): _NKIDS == 0,
    ("node", "isroot"): R == _PARENT.len - 1,
    # a leaf has no left child, only a binary node a right one: run-time errors
    ("node", "left"): _KIDS[_OFF[R] + sdk.checked(0, _NKIDS)],
    ("node", "right"): _KIDS[_OFF[R] + 1 + sdk.checked(_NKIDS - 2, 1)],
    ("node", "children"): sdk.Each(_OFF[R], _OFF[R + 1], _KIDS[sdk.ITEM]),
    ("node", "parent"): sdk.checked(_PARENT[R], _PARENT.len),
    ("node", "length"): sdk.arr("length")[R],
    ("tree", "root"): _PARENT.len - 1,
    ("tree", "nodes"): sdk.Each(0, _PARENT.len),
    ("tree", "leaves"): sdk.Each(0, sdk.arr("leaves").len, sdk.arr("leaves")[sdk.ITEM]),
}


def _acc(on, name, result, evaluate, doc, bounds=sdk.ANY):
    return sdk.Accessor(on, name, result, evaluate, bounds, doc, device=DEVICE[(on, name)])


extension = sdk.Extension(
    name="tree",
    types=(
        sdk.TypeSpec(name="tree", role="calling", bracket="none",
                     accepts=_instance_of("newick", "Tree"), layout=LAYOUT,
                     doc="a rooted phylogenetic tree (load(tree, file), Newick)"),
        sdk.TypeSpec(name="node", role="recursive", bracket="owner",
                     size=lambda t: t.n, labels=lambda t: t.labels,
                     device_size=_PARENT.len,
                     doc="a node of tree t, numbered in post-order (the root last)"),
        sdk.TypeSpec(name="column", role="calling", bracket="alphabet",
                     alphabet=lambda c: c.alphabet,
                     index_keys=_column_keys, index_value=_column_value,
                     index_eval=_column_index,
                     accepts=_instance_of("columns", "Column"),
                     fits_owner=_column_fits,
                     device_array=lambda c: c.codes,
                     # an internal node holds NO_SYMBOL: a run-time error (guard with u.isleaf)
                     device_index=sdk.checked(sdk.VALUE[sdk.key(0)], NO_SYMBOL),
                     doc="an alignment column; c[u] is the symbol of leaf u"),
    ),
    accessors=(
        _acc("node", "isleaf", lambda t: sdk.BOOL, lambda tr, u: tr.nodes[u].is_leaf,
             "whether the node is a leaf"),
        _acc("node", "isroot", lambda t: sdk.BOOL, lambda tr, u: u == tr.n - 1,
             "whether the node is the root"),
        _acc("node", "left", _node_of, _left, "the first child", sdk.BELOW),
        _acc("node", "right", _node_of, _right, "the second child", sdk.BELOW),
        _acc("node", "children", lambda t: sdk.IterT(_node_of(t)),
             lambda tr, u: tr.nodes[u].children, "the children, left to right", sdk.BELOW),
        _acc("node", "parent", _node_of, _parent, "the parent", sdk.Bounds(1, None)),
        _acc("node", "length", lambda t: sdk.FLOAT, lambda tr, u: tr.nodes[u].length,
             "the branch length to the parent (0.0 when not given)"),
        _acc("tree", "root", _node_of, lambda _, tr: tr.n - 1, "the root (the last node)"),
        _acc("tree", "nodes", lambda t: sdk.IterT(_node_of(t)), lambda _, tr: range(tr.n),
             "every node, in post-order"),
        _acc("tree", "leaves", lambda t: sdk.IterT(_node_of(t)), lambda _, tr: tr.leaves,
             "the leaves, left to right"),
    ),
    loaders=(
        sdk.LoaderSpec("tree", _load_tree, lambda arg, alphabet: sdk.ExtT("tree")),
        sdk.LoaderSpec("columns", _load_columns,
                       lambda arg, alphabet: sdk.ListT(sdk.ExtT(
                           "column", alpha=sdk.AlphaRef("named", arg) if arg else None))),
    ),
)
