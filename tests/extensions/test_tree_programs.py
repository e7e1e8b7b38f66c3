"""Tree programs: the contract's Sankoff parsimony as written, the standard
library's Sankoff, Fitch and Felsenstein pruning (stdlib/phylo.bio), checked
against Biopython's ParsimonyScorer and an independent numpy likelihood, on the
default backend and on the interpreter."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import dslc
from dslc.errors import DslcError

ROOT = Path(__file__).resolve().parents[2]
STDLIB_PHYLO = (ROOT / "stdlib" / "phylo.bio").read_text()
BACKENDS = [None, "interp"]  # None: the default backend
IDS = ["default", "interp"]
DNA = "ACGT"
LOAD = 't = load(tree, "species.nwk")\ncols = load(columns[dna], "aln.fasta")\n'

# The contract's text ("Phylogenetic trees"), verbatim, with the total printed.
CONTRACT_TREE = """\
define matrix dnasimple[dna] {
     A  C  G  T
  A  2 -1 -1 -1
  C -1  2 -1 -1
  G -1 -1  2 -1
  T -1 -1 -1  2
}
t = load(tree, "species.nwk")             // Newick, branch lengths optional
cols = load(columns[dna], "aln.fasta")    // alignment columns; rows matched to leaves by name
int w(tree t, column[dna] c, matrix d, node[t] u, symbol[dna] a)
  | u.isleaf = if c[u] == a then 0 else inf
  | otherwise = min(b in dna : w(u.left, b) + d[a, b]) + min(b in dna : w(u.right, b) + d[a, b])

int cost(tree t, column[dna] c, matrix d) = min(a in dna : w(t.root, a))
total = map(cost, t (*) cols (*) dnasimple)
print total
"""


def compile_program(path, backend):
    return dslc.compile(str(path)) if backend is None else dslc.compile(str(path), backend=backend)


# --------------------------------------------------------------------------- random data

class Tree:
    """A nested tree for the references: a leaf is ``(name, length)``, an
    internal node ``(children, length)``."""

    @staticmethod
    def random(rng, n_leaves: int, max_children: int = 2, lengths: bool = True):
        def length() -> float:
            return float(rng.uniform(0.01, 0.6)) if lengths else 0.0

        nodes = [(f"t{k}", length()) for k in range(n_leaves)]
        rng.shuffle(nodes)
        while len(nodes) > 1:
            k = min(len(nodes), int(rng.integers(2, max_children + 1)))
            group, nodes = nodes[:k], nodes[k:]
            node = (tuple(group), length())
            nodes.insert(int(rng.integers(0, len(nodes) + 1)), node)
        return nodes[0]

    @staticmethod
    def newick(node, root=True) -> str:
        what, length = node
        if isinstance(what, str):
            text = what
        else:
            text = "(" + ",".join(Tree.newick(c, False) for c in what) + ")"
        if root:
            return text + ";"
        return text + (f":{length!r}" if length else "")  # no length given: it reads as 0

    @staticmethod
    def max_children(node) -> int:
        what, _ = node
        return 0 if isinstance(what, str) else max(len(what), *(Tree.max_children(c) for c in what))

    @staticmethod
    def leaves(node) -> list[str]:
        what, _ = node
        return [what] if isinstance(what, str) else [x for c in what for x in Tree.leaves(c)]


def random_alignment(rng, names: list[str], width: int) -> dict[str, str]:
    """Rows that share an ancestor, so columns are informative."""
    anc = rng.choice(list(DNA), width)
    rows = {}
    for name in names:
        row = anc.copy()
        flip = rng.random(width) < 0.35
        row[flip] = rng.choice(list(DNA), int(flip.sum()))
        rows[name] = "".join(row)
    return rows


def fasta(rows: dict[str, str], rng) -> str:
    names = list(rows)
    rng.shuffle(names)  # rows are matched by name, not by order
    return "".join(f">{n} some description\n{rows[n]}\n" for n in names)


def matrix_block(name: str, m) -> str:
    lines = [f"define matrix {name}[dna] {{", "     " + "  ".join(f"{c:>2}" for c in DNA)]
    for a in range(4):
        lines.append(f"  {DNA[a]} " + " ".join(f"{int(m[a][b]):>3}" for b in range(4)))
    return "\n".join(lines) + "\n}\n"


def random_symmetric(rng, diagonal: bool):
    m = rng.integers(1, 9, (4, 4))
    m = np.triu(m) + np.triu(m, 1).T
    np.fill_diagonal(m, rng.integers(0, 3, 4) if diagonal else 0)
    return m


def variable(rows: dict[str, str], col: int) -> bool:
    return len({r[col] for r in rows.values()}) > 1


# --------------------------------------------------------------------------- references

def biopython_scores(newick: str, rows: dict[str, str], matrix=None) -> list[int]:
    """Biopython's parsimony score of every column on its own (Fitch without a
    matrix, Sankoff with one)."""
    from io import StringIO

    from Bio import Phylo
    from Bio.Align import MultipleSeqAlignment
    from Bio.Phylo.TreeConstruction import ParsimonyScorer, _Matrix
    from Bio.Seq import Seq
    from Bio.SeqRecord import SeqRecord

    scorer = ParsimonyScorer(None if matrix is None else _Matrix(
        list(DNA), [[int(matrix[a][b]) for b in range(a + 1)] for a in range(4)]))
    width = len(next(iter(rows.values())))
    out = []
    for k in range(width):
        tree = Phylo.read(StringIO(newick), "newick")
        tree.rooted = True  # keep the root we wrote; no midpoint re-rooting
        aln = MultipleSeqAlignment([SeqRecord(Seq(r[k]), id=n) for n, r in rows.items()])
        out.append(int(scorer.get_score(tree, aln)))
    return out


def sankoff_reference(node, rows, col: int, m) -> list[float]:
    """Per base at ``node``: the least cost below it (plain recursion)."""
    what, _ = node
    if isinstance(what, str):
        return [0.0 if rows[what][col] == DNA[a] else math.inf for a in range(4)]
    kids = [sankoff_reference(c, rows, col, m) for c in what]
    return [sum(min(k[b] + m[a][b] for b in range(4)) for k in kids) for a in range(4)]


def transition_matrix(kappa: float, t: float) -> np.ndarray:
    """K80 (kappa = 1: JC69) by the eigen-decomposition of its rate matrix,
    scaled to one expected substitution per unit of branch length."""
    transition = {(0, 2), (2, 0), (1, 3), (3, 1)}
    q = np.array([[kappa if (a, b) in transition else 1.0 for b in range(4)] for a in range(4)])
    np.fill_diagonal(q, 0.0)
    np.fill_diagonal(q, -q.sum(axis=1))
    q /= -np.diag(q).mean()  # stationary frequencies are uniform
    vals, vecs = np.linalg.eigh(q)
    return vecs @ np.diag(np.exp(vals * t)) @ vecs.T


def pruning_reference(root, rows, col: int, kappa: float) -> float:
    def partial(node) -> np.ndarray:
        what, _ = node
        if isinstance(what, str):
            v = np.zeros(4)
            v[DNA.index(rows[what][col])] = 1.0
            return v
        out = np.ones(4)
        for c in what:
            out *= transition_matrix(kappa, c[1]) @ partial(c)
        return out

    return float(np.log(0.25 * partial(root).sum()))


# --------------------------------------------------------------------------- programs

def run_tree_program(write_bio, backend, text: str, node, rows, rng) -> dict:
    path = write_bio(text, species__nwk=Tree.newick(node), aln__fasta=fasta(rows, rng))
    return compile_program(path, backend).run()


def values(result) -> list:
    return np.asarray(result.values).ravel().tolist()


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_contract_program_runs_as_written(backend, write_bio):
    rng = np.random.default_rng(1)
    node = Tree.random(rng, 7)
    rows = random_alignment(rng, Tree.leaves(node), 30)
    got = values(run_tree_program(write_bio, backend, CONTRACT_TREE, node, rows, rng)["total"])
    m = [[2 if a == b else -1 for b in range(4)] for a in range(4)]
    want = [min(sankoff_reference(node, rows, k, m)) for k in range(30)]
    assert got == want
    bio = biopython_scores(Tree.newick(node), rows, m)
    var = [k for k in range(30) if variable(rows, k)]
    assert var and [got[k] for k in var] == [bio[k] for k in var]


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
@pytest.mark.parametrize("seed", range(4))
def test_sankoff_equals_biopython(backend, seed, write_bio):
    rng = np.random.default_rng(100 + seed)
    node = Tree.random(rng, int(rng.integers(2, 10)), lengths=bool(seed % 2))
    rows = random_alignment(rng, Tree.leaves(node), 16)
    m = random_symmetric(rng, diagonal=seed >= 2)
    text = STDLIB_PHYLO + matrix_block("d", m) + CONTRACT_TREE.split("}\n", 1)[1].replace(
        "dnasimple", "d") + "s = map(sankoff, t (*) cols (*) d)\nprint s\n"
    out = run_tree_program(write_bio, backend, text, node, rows, rng)
    bio = biopython_scores(Tree.newick(node), rows, m)
    want = [min(sankoff_reference(node, rows, k, m)) for k in range(16)]
    # Biopython skips invariant columns (scoring them 0, right for a zero diagonal)
    assert [b for k, b in enumerate(bio) if variable(rows, k)] == \
        [w for k, w in enumerate(want) if variable(rows, k)]
    assert values(out["total"]) == want  # the contract's w and cost
    assert values(out["s"]) == want      # the standard library's sankoff


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
@pytest.mark.parametrize("seed", range(3))
def test_fitch_equals_biopython(backend, seed, write_bio):
    rng = np.random.default_rng(200 + seed)
    node = Tree.random(rng, int(rng.integers(3, 11)))
    rows = random_alignment(rng, Tree.leaves(node), 20)
    text = STDLIB_PHYLO + LOAD + "f = map(fitch, t (*) cols)\nprint f\n"
    out = run_tree_program(write_bio, backend, text, node, rows, rng)
    assert values(out["f"]) == biopython_scores(Tree.newick(node), rows)


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_fitch_and_sankoff_on_polytomies(backend, write_bio):
    # With unit costs the Sankoff score is the Fitch (Hartigan) count, whatever
    # the number of children per node.
    rng = np.random.default_rng(300)
    node = Tree.random(rng, 12, max_children=4)
    assert Tree.max_children(node) > 2
    rows = random_alignment(rng, Tree.leaves(node), 25)
    unit = 1 - np.eye(4, dtype=int)
    text = STDLIB_PHYLO + matrix_block("unit", unit) + LOAD + \
        'f = map(fitch, t (*) cols)\ns = map(sankoff, t (*) cols (*) unit)\nprint f\nprint s\n'
    out = run_tree_program(write_bio, backend, text, node, rows, rng)
    want = [min(sankoff_reference(node, rows, k, unit)) for k in range(25)]
    assert values(out["s"]) == want
    assert values(out["f"]) == want


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
@pytest.mark.parametrize("seed", range(3))
def test_felsenstein_equals_numpy(backend, seed, write_bio):
    rng = np.random.default_rng(400 + seed)
    node = Tree.random(rng, int(rng.integers(2, 9)))
    rows = random_alignment(rng, Tree.leaves(node), 12)
    kappa = float(rng.uniform(0.5, 6.0))
    text = STDLIB_PHYLO + LOAD + \
        f'j = map(jc69, t (*) cols)\nk = map(k80, t (*) cols (*) {kappa!r})\nprint j\nprint k\n'
    out = run_tree_program(write_bio, backend, text, node, rows, rng)
    for name, kap in (("j", 1.0), ("k", kappa)):
        got = values(out[name])
        for col, g in enumerate(got):
            want = pruning_reference(node, rows, col, kap)
            assert abs(g - want) <= 1e-9 * abs(want), (name, col, g, want)


@pytest.mark.parametrize("backend", BACKENDS, ids=IDS)
def test_parsimony_example(backend):
    from Bio import SeqIO

    out = compile_program(ROOT / "examples" / "parsimony.bio", backend).run()
    aln = ROOT / "examples" / "data" / "aln.fasta"
    rows = {r.id: str(r.seq) for r in SeqIO.parse(str(aln), "fasta")}
    newick = (ROOT / "examples" / "data" / "species.nwk").read_text().strip()
    cost = 3 * (1 - np.eye(4, dtype=int))
    bio = biopython_scores(newick, rows, cost)
    assert values(out["costs"]) == bio
    # the score printed first: the total, Biopython's per-column scores summed
    assert list(out)[0] == "sum(costs)" and out["sum(costs)"] == sum(bio) == 33
    # the state sets of column 3, per node (each row named by its clade), against
    # plain recursions over the tree Biopython reads
    node = _nested(newick)
    clades = _clades(node)
    fitch = out["fitch_set(t, cols[3])"]
    sankoff = out["w(t, cols[3], dnasimple)"]
    assert fitch.axes[0].labels == sankoff.axes[0].labels
    for k, label in enumerate(fitch.axes[0].labels):
        sub = clades[_leaf_set(label, rows)]
        assert [DNA[a] for a in range(4) if fitch.values[k, a]] == sorted(fitch_reference(
            sub, rows, 3)), label
        want = sankoff_reference(sub, rows, 3, cost)
        assert [float(v) for v in sankoff.values[k]] == want, label


def _nested(newick: str):
    """The tree of ``newick`` as :class:`Tree`'s nested nodes, read by Biopython."""
    from io import StringIO

    from Bio import Phylo

    def walk(clade):
        if clade.is_terminal():
            return (clade.name, 0.0)
        return (tuple(walk(c) for c in clade.clades), 0.0)
    return walk(Phylo.read(StringIO(newick), "newick").root)


def _clades(node) -> dict:
    """Every subtree of ``node`` by the set of its leaves."""
    out = {frozenset(Tree.leaves(node)): node}
    if not isinstance(node[0], str):
        for c in node[0]:
            out.update(_clades(c))
    return out


def _leaf_set(label: str, rows) -> frozenset:
    """The leaves a printed node label names: a leaf, ``root``, or ``(a,b,c)``."""
    if label == "root":
        return frozenset(rows)
    return frozenset(label.strip("()").split(","))


def fitch_reference(node, rows, col: int) -> set:
    """Fitch's bottom-up set at ``node`` (a binary tree): the children's
    intersection where it is not empty, else their union."""
    what, _ = node
    if isinstance(what, str):
        return {rows[what][col]}
    a, b = (fitch_reference(c, rows, col) for c in what)
    return (a & b) or (a | b)


# --------------------------------------------------------------------------- accessors and errors

def test_node_accessors(write_bio):
    text = """
int nleaves(tree t) = sum(u in t.nodes where u.isleaf : 1)
int nkids(tree t, node[t] u) = sum(v in u.children : 1)
float total(tree t) = sum(u in t.nodes : u.length)
bool rootok(tree t) = t.root.isroot and not t.root.isleaf
bool underroot(tree t, node[t] u) = u.parent == t.root
t = load(tree, "species.nwk")
print nleaves(t)
print nkids(t, 6)
print total(t)
print rootok(t)
print underroot(t, 0)
print underroot(t, 2)
"""
    path = write_bio(text, species__nwk="((a:1,b:2):0.5,(c:1,d:1,e:0.25):1);")
    for backend in BACKENDS:
        out = compile_program(path, backend).run()
        assert out["nleaves(t)"] == 5
        assert out["nkids(t, 6)"] == 3  # post-order: a b ab c d e cde root
        assert out["total(t)"] == pytest.approx(6.75)
        assert out["rootok(t)"] is True
        assert out["underroot(t, 0)"] is False and out["underroot(t, 2)"] is True


def test_columns_follow_the_tree_loaded_before_them(write_bio):
    text = """
int first(tree t, column[dna] c) = sum(u in t.leaves : if c[u] == 'A' then 1 else 0)
t1 = load(tree, "one.nwk")
c1 = load(columns[dna], "one.fasta")
t2 = load(tree, "two.nwk")
c2 = load(columns[dna], "two.fasta")
a = map(first, t1 (*) c1)
b = map(first, t2 (*) c2)
print a
print b
"""
    path = write_bio(text, one__nwk="(x,(y,z));", one__fasta=">z\nA\n>y\nA\n>x\nC\n",
                     two__nwk="(p,q);", two__fasta=">p\nAA\n>q\nCA\n")
    for backend in BACKENDS:
        out = compile_program(path, backend).run()
        assert values(out["a"]) == [2] and values(out["b"]) == [1, 2]


def test_columns_before_any_tree(write_bio):
    path = write_bio('\n\ncols = load(columns[dna], "aln.fasta")\n', aln__fasta=">a\nA\n")
    with pytest.raises(DslcError) as e:
        dslc.compile(str(path)).run()
    assert "no tree has been loaded" in e.value.message and e.value.span.line == 3


def test_rows_that_do_not_match_the_tree(write_bio):
    path = write_bio('t = load(tree, "t.nwk")\ncols = load(columns[dna], "aln.fasta")\n',
                     t__nwk="(a,b);", aln__fasta=">a\nA\n>c\nA\n")
    with pytest.raises(DslcError) as e:
        dslc.compile(str(path)).run()
    assert "does not match the tree" in e.value.message and e.value.span.line == 2
    assert "loaded last" in e.value.hint


def test_symbol_of_an_internal_node_is_an_error(write_bio):
    text = """
int bad(tree t, column[dna] c) = if c[t.root] == 'A' then 1 else 0
t = load(tree, "t.nwk")
cols = load(columns[dna], "aln.fasta")
r = map(bad, t (*) cols)
"""
    path = write_bio(text, t__nwk="(a,b)anc;", aln__fasta=">a\nA\n>b\nA\n")
    for backend in BACKENDS:
        with pytest.raises(DslcError) as e:
            compile_program(path, backend).run()
        assert "internal node" in e.value.message and "'anc'" in e.value.message


def test_left_right_need_a_binary_node(write_bio):
    path = write_bio(CONTRACT_TREE, species__nwk="(a,b,c);", aln__fasta=">a\nA\n>b\nC\n>c\nA\n")
    with pytest.raises(DslcError) as e:
        dslc.compile(str(path), backend="interp").run()
    assert "has 3 children" in e.value.message


# Columns are matched to the leaves of the tree loaded before them; used with another
# tree they would read other leaves' symbols. A call or map task binding both refuses
# them, on every backend, also where the column is indexed only in a called function.
MIXED_TREES = """\
int leafA(tree t, column[dna] c, node[t] u) = if c[u] == 'A' then 1 else 0
int nA(tree t, column[dna] c, node[t] u) = sum(v in u.children where v.isleaf : leafA(v))
int count(tree t, column[dna] c) = sum(u in t.nodes : if u.isleaf then 0 else nA(u) * nA(u))
int outer(tree t, column[dna] c) = count(t, c)
t1 = load(tree, "one.nwk")
c1 = load(columns[dna], "aln.fasta")
t2 = load(tree, "two.nwk")
c2 = load(columns[dna], "aln.fasta")
t3 = load(tree, "three.nwk")
c3 = load(columns[dna], "aln.fasta")
print map(count, t1 (*) c1)
print map(count, t2 (*) c2)
print map(count, t3 (*) c3)
print USE
"""
MIXED_FILES = dict(one__nwk="((a,b),(c,d));", two__nwk="((a,c),(b,d));",
                   three__nwk="(a,(b,(c,d)));", aln__fasta=">a\nA\n>b\nA\n>c\nC\n>d\nC\n")


@pytest.mark.parametrize("use, cols_line, tree_line", [
    ("map(count, t1 (*) c2)", 7, 5),  # same shape, other leaves: was a silent 2 (not 4)
    ("map(outer, t1 (*) c2)", 7, 5),  # indexed only in called functions
    ("count(t1, c2[0])", 7, 5),  # a call
    ("map(count, t1 (*) c3)", 9, 5),  # another shape: was "node 2 is an internal node"
    ("map(count, t3 (*) c1)", 5, 9)])
def test_columns_used_with_another_tree_are_refused(backend, write_bio, use, cols_line,
                                                    tree_line):
    path = write_bio(MIXED_TREES.replace("USE", use), **MIXED_FILES)
    with pytest.raises(DslcError) as e:
        dslc.compile(str(path), backend=backend).run()
    msg = e.value.message
    assert e.value.span.line == 14, msg
    assert (f"column 1 was matched to the leaves of the tree loaded at line {cols_line} "
            in msg), msg
    assert f"not of the tree loaded at line {tree_line} " in msg, msg
    assert "argument 'c' of " in msg and "elements of 't'" in msg, msg


def test_columns_of_matching_trees_run(backend, write_bio):
    # columns matched to each tree in turn are right with it; a tree file loaded again
    # (the same leaves at the same numbers) reads the first copy's columns right
    use = 'map(outer, load(tree, "one.nwk") (*) c1)'
    path = write_bio(MIXED_TREES.replace("USE", use), **MIXED_FILES)
    out = dslc.compile(str(path), backend=backend).run()
    assert [values(r) for r in out.values()] == [[4], [2], [2], [4]]
