"""HMMER3 profile files (``hmmbuild`` output, ASCII format ``HMMER3/f``).

A file holds one or more profiles, each a header of tagged lines (``NAME``,
``LENG``, ``ALPH``, ...), the ``HMM`` line naming the alphabet's residues, a
line naming the seven transitions, an optional ``COMPO`` line, the node-0 lines
(insert emissions and transitions of the begin state) and then three lines per
node ``k = 1 .. M``: the match emissions (with up to five annotation fields),
the insert emissions and the transitions ``m->m m->i m->d i->m i->i d->m d->d``.
Values are ``-ln p``; ``*`` is probability 0. A profile ends with ``//``.
Older HMMER3 variants (``HMMER3/a`` .. ``/e``) share this layout, with fewer
annotation fields, and are read too; HMMER2 files are not (``hmmconvert``
turns them into HMMER3).

What is checked
---------------
Every line of a profile's body is checked as it is read
(:mod:`.hmmer3_rows`): its field count against the alphabet and the format's
version, and every distribution's sum against 1 (within
:data:`.hmmer3_rows.TOLERANCE`, 1e-4). A file that fails is one
:class:`DslcError` naming the file, the line and the column: a line short of
a field is never read shifted, and an unnormalised model is never read.

What is kept
------------
:class:`Profile` holds the file's numbers as probabilities, unchanged (no
renormalisation): ``match_emissions[k - 1]`` for node ``k``,
``insert_emissions[k]`` for nodes ``0 .. M`` and ``transitions[k]`` (columns
:data:`MM` .. :data:`DD`) for nodes ``0 .. M``, in the residue order of
:data:`AMINO` (``ACDEFGHIKLMNPQRSTVWY``, HMMER's), :data:`DNA` or :data:`RNA`.

The model built
---------------
:func:`profile_to_hmm` builds the *core* Plan7 model the file describes, with
no flanking (N, C, J) states and no length model: a global model, in which the
whole sequence is aligned to the whole profile. Its states:

* ``B`` (the start state; HMMER's begin state, playing the part of ``M0``),
* ``I0`` (inserts before node 1),
* for each node ``k = 1 .. M``: ``Mk`` (emitting), ``Ik`` (emitting; none for
  ``k = M``: HMMER's profiles have no insert state after the last node, so node
  M's insert line and its ``m->i``, ``i->m``, ``i->i`` are read and checked but
  not used) and ``Dk`` (silent),
* ``E`` (the end state).

They are numbered node by node: ``B = 0``, ``I0 = 1``, ``Mk = 3k - 1``,
``Ik = 3k``, ``Dk = 3k + 1`` (``DM = 3M``) and ``E = 3M + 1``, so
``n = 3M + 2`` (:meth:`Profile.match_state` and friends compute them). Every
transition goes from a lower to a higher number except the insert self-loops,
so the numbering itself is a valid order for the silent states within a column
(a wavefront over (node, position) works). The transitions are exactly the
file's: ``B -> M1, I0, D1`` with ``t[0]``'s ``m->m, m->i, m->d``;
``I0 -> M1, I0``; ``Mk -> Mk+1, Ik, Dk+1``; ``Ik -> Mk+1, Ik``;
``Dk -> Mk+1, Dk+1``; ``MM -> E`` with ``t[M]``'s ``m->m`` (1 where the file's
``m->i`` there is ``*``; many files written by hmmbuild give it an ``m->i`` above
0, and ``MM -> E`` then keeps only the ``m->m`` part) and ``DM -> E`` with
``d->m`` (1).
Transitions of probability 0 are left out (so ``I0`` can be a state with no
way in, when ``t[0][m->i]`` is 0).

``P(x | model)`` is then the sum over all global alignments of ``x`` to the
profile, computed by the generic forward pass or by
``tests/hmm_reference.profile_forward`` directly over the arrays.

The model's alphabet is the profile's own (:data:`AMINO` etc.) unless another
is asked for: then every residue of the profile's alphabet must be a symbol of
it, and symbols that are not are IUPAC degenerate codes (emitting the sum of
their residues' probabilities, e.g. ``B = D + N``, ``X = everything``) or
emitted with probability 0 (``*``, ``-``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from dslc import sdk
from dslc.sdk import Alphabet, DslcError, Span

from . import hmmer3_rows as rows
from .hmmer3_rows import DD, DM, II, IM, MD, MI, MM, TRANSITION_NAMES  # noqa: F401 (the columns)
from .model import EMITTING, END, HMM, SILENT, START, build_hmm

AMINO = Alphabet("amino", tuple("ACDEFGHIKLMNPQRSTVWY"))
DNA = Alphabet("dna", tuple("ACGT"))
RNA = Alphabet("rna", tuple("ACGU"))
ALPHABETS = {"amino": AMINO, "dna": DNA, "rna": RNA}


# IUPAC degenerate codes (Easel's): each stands for the residues listed.
_DEGENERATE = {
    "amino": {"B": "DN", "J": "IL", "Z": "EQ", "O": "K", "U": "C", "X": "ACDEFGHIKLMNPQRSTVWY"},
    "dna": {"R": "AG", "Y": "CT", "M": "AC", "K": "GT", "S": "CG", "W": "AT", "H": "ACT", "B": "CGT",
            "V": "ACG", "D": "AGT", "N": "ACGT", "X": "ACGT", "U": "T"},
    "rna": {"R": "AG", "Y": "CU", "M": "AC", "K": "GU", "S": "CG", "W": "AU", "H": "ACU", "B": "CGU",
            "V": "ACG", "D": "AGU", "N": "ACGU", "X": "ACGU", "T": "U"},
}


@dataclass(frozen=True, eq=False)
class Profile:
    """One HMMER3 profile's numbers, as probabilities (see the module notes)."""

    name: str
    alphabet: Alphabet  # AMINO, DNA or RNA
    M: int
    match_emissions: np.ndarray   # (M, K): row k-1 is node k
    insert_emissions: np.ndarray  # (M + 1, K): row k is node k (0 .. M)
    transitions: np.ndarray       # (M + 1, 7): row k is node k; columns MM .. DD
    compo: np.ndarray | None = None  # (K,) the model's average composition, if given
    accession: str | None = None
    description: str | None = None
    consensus: str | None = None  # from the CONS column, '-' where absent (3/a .. 3/d)
    source: str = ""
    tags: dict = field(default_factory=dict, repr=False)

    @property
    def n_states(self) -> int:
        return 3 * self.M + 2

    # state numbers in the model built by profile_to_hmm
    @staticmethod
    def start_state() -> int:
        return 0

    def end_state(self) -> int:
        return 3 * self.M + 1

    def match_state(self, k: int) -> int:
        if not 1 <= k <= self.M:
            raise IndexError(k)
        return 3 * k - 1

    def insert_state(self, k: int) -> int:
        if not 0 <= k < self.M:
            raise IndexError(k)
        return 1 if k == 0 else 3 * k

    def delete_state(self, k: int) -> int:
        if not 1 <= k <= self.M:
            raise IndexError(k)
        return 3 * k + 1 if k < self.M else 3 * k

    def log_transitions(self) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self.transitions)


# --------------------------------------------------------------------------- reading

class _Reader:
    def __init__(self, text: str, source: str, span: Span | None):
        self.lines = text.splitlines()
        self.source = source
        self.span = span
        self.i = 0  # index of the next line

    def error(self, message: str, lineno: int | None = None, hint: str | None = None,
              col: int | None = None) -> DslcError:
        where = f"{self.source}, line {lineno}" if lineno else self.source
        if lineno and col:
            where += f", column {col}"
        return DslcError(f"{where}: {message}", self.span, hint)

    def fail(self, message: str, lineno: int, col: int) -> DslcError:
        """The error of a field (see :mod:`.hmmer3_rows`): file, line and column."""
        return self.error(message, lineno, col=col)

    def next_line(self, what: str) -> tuple[int, str]:
        while self.i < len(self.lines):
            line = self.lines[self.i]
            self.i += 1
            if line.strip():
                return self.i, line
        raise self.error(f"the file ends where {what} was expected", len(self.lines))

    def next_row(self, what: str) -> rows.Row:
        return rows.Row.of(*self.next_line(what))

    def nodes_ahead(self) -> tuple[int, int | None, bool]:
        """How many nodes the lines up to the profile's ``//`` can hold (node 0's
        transitions, then three lines a node): what LENG is checked against
        before any array of LENG rows is allocated; and, for a file that ends
        with no ``//``, the number of its last non-blank line (else None) and
        whether the lines end part-way through a node (node 0's included)."""
        lines, last = 0, self.i
        for k, line in enumerate(itertools.islice(self.lines, self.i, None), self.i + 1):
            if line.strip() == "//":
                return max(0, (lines - 1) // 3), None, False
            if line.strip():
                lines, last = lines + 1, k
        return max(0, (lines - 1) // 3), last, lines == 0 or (lines - 1) % 3 != 0


def parse_hmmer3_text(text: str, source: str, span: Span | None = None) -> list[Profile]:
    """All profiles in the text of a HMMER3 file. Errors name ``source`` and the
    line (and the column of a wrong field); ``span`` (the ``load`` statement) is
    attached to them."""
    r = _Reader(text, source, span)
    profiles = []
    while True:
        # skip blank lines between profiles
        while r.i < len(r.lines) and not r.lines[r.i].strip():
            r.i += 1
        if r.i >= len(r.lines):
            break
        profiles.append(_read_profile(r))
    if not profiles:
        raise r.error("no HMM in the file (expected a line starting 'HMMER3/f')")
    return profiles


@dataclass(frozen=True)
class _Header:
    """A profile's header: its tags, the lines they are on, the format's
    version letter (``a`` .. ``f``) and the ``HMM`` line's number."""

    tags: dict
    tag_lines: dict
    version: str
    hmm_line: int
    alphabet: Alphabet
    M: int


def _read_header(r: _Reader) -> _Header:
    lineno, line = r.next_line("the 'HMMER3/f' line")
    head = line.split()[0]
    if head.startswith("HMMER2"):
        raise r.error("a HMMER2 file; only HMMER3 profiles are read", lineno,
                      hint="convert it with 'hmmconvert'")
    if not head.startswith("HMMER3/"):
        raise r.error(f"expected a line starting 'HMMER3/f', found '{line.strip()[:40]}'", lineno)
    version = head[len("HMMER3/"):]
    if version not in rows.ANNOTATIONS:
        raise r.error(f"'{head[:40]}' is not a HMMER3 format this reader knows "
                      "(HMMER3/a to HMMER3/f are read)", lineno)
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    while True:
        lineno, line = r.next_line("the 'HMM' line")
        fields = line.split()
        tag = fields[0]
        if tag == "HMM":
            break
        if tag == "//":
            raise r.error("the profile ends before its 'HMM' line", lineno)
        if not tag.isupper():
            raise r.error(f"expected a header tag (NAME, LENG, ALPH, ...) or the 'HMM' line, "
                          f"found '{line.strip()[:40]}'", lineno)
        value = line[len(line) - len(line.lstrip()) + len(tag):].strip()
        tag_lines[tag] = lineno
        if tag in ("COM", "STATS"):
            tags[tag] = (tags.get(tag, "") + "\n" + value).strip()
        else:
            tags[tag] = value
    hmm_line = lineno
    for required in ("NAME", "LENG", "ALPH"):
        if required not in tags:
            raise r.error(f"the header has no {required} line", hmm_line)
    alph = tags["ALPH"].lower()
    if alph not in ALPHABETS:
        raise r.error(f"unknown alphabet '{tags['ALPH']}' (amino, DNA and RNA are read)",
                      tag_lines["ALPH"])
    alphabet = ALPHABETS[alph]
    residues = fields[1:]
    if [s.upper() for s in residues] != list(alphabet.symbols):
        raise r.error(f"the HMM line lists residues {' '.join(residues)}, expected "
                      f"{' '.join(alphabet.symbols)} for ALPH {tags['ALPH']}", hmm_line)
    if not rows.WHOLE.fullmatch(tags["LENG"].removeprefix("-")):  # int() takes '2_43', '٢٤٣'
        raise r.error(f"LENG '{tags['LENG']}' is not a number", tag_lines["LENG"])
    M = int(tags["LENG"])
    if M < 1:
        raise r.error(f"LENG is {M}; a profile has at least one node", tag_lines["LENG"])
    return _Header(tags, tag_lines, version, hmm_line, alphabet, M)


def _read_profile(r: _Reader) -> Profile:
    h = _read_header(r)
    tags, alphabet, M = h.tags, h.alphabet, h.M
    K = len(alphabet)
    lineno, line = r.next_line("the transition names line")
    if line.split() != list(TRANSITION_NAMES):
        raise r.error("expected the line 'm->m m->i m->d i->m i->i d->m d->d'", lineno)

    compo = None
    row = r.next_row("the COMPO line or the node 0 insert emissions")
    if row.fields[0] == "COMPO":
        rows.check_count(row, K + 1, "COMPO line", f"COMPO and {K} values", r.fail)
        compo = np.array(_distribution(r, row, 1, K, "COMPO"))
        row = r.next_row("node 0 insert emissions")
    rows.check_count(row, K, "node 0 insert emissions", f"{K} emissions", r.fail)
    present, last, partial = r.nodes_ahead()
    if M > present and last is not None:  # no '//': the file was cut short
        where = (f"inside node {present + 1 if present or last > row.lineno else 0}" if partial
                 else f"after node {present}")
        raise r.error(f"the file ends {where}, with no '//' (LENG is {M})", last,
                      hint="the file looks cut short")
    if M > present:
        raise r.error(f"LENG is {M}, but the profile has {present} node(s): no node "
                      f"{present + 1} before its '//'",
                      h.tag_lines["LENG"], hint="LENG must be the number of nodes in the file")
    match = np.zeros((M, K))
    insert = np.zeros((M + 1, K))
    trans = np.zeros((M + 1, 7))
    insert[0] = _distribution(r, row, 0, K, "node 0 insert emissions")
    trans[0] = _transitions(r, 0, M)
    map_set = tags.get("MAP", "no").strip().lower() == "yes"
    names = rows.ANNOTATIONS[h.version]
    cons_at = K + 1 + names.index("CONS") if "CONS" in names else None
    cons = []
    for k in range(1, M + 1):
        row = r.next_row(f"node {k} match emissions")
        if row.fields[0] != str(k):
            raise r.error(f"expected node {k}, found '{row.fields[0]}'", row.lineno,
                          hint=f"LENG says {M} nodes" if row.fields[0] == "//" else None,
                          col=row.cols[0])
        rows.check_count(row, K + 1 + len(names), f"node {k} match emissions",
                         rows.match_parts(K, h.version), r.fail)
        match[k - 1] = _distribution(r, row, 1, K, f"node {k} match emissions")
        rows.check_annotations(row, K + 1, k, h.version, map_set, r.fail)
        cons.append(row.fields[cons_at] if cons_at is not None else "-")
        row = r.next_row(f"node {k} insert emissions")
        rows.check_count(row, K, f"node {k} insert emissions", f"{K} emissions", r.fail)
        insert[k] = _distribution(r, row, 0, K, f"node {k} insert emissions")
        trans[k] = _transitions(r, k, M)
    ln, line = r.next_line("'//' at the end of the profile")
    if line.strip() != "//":
        raise r.error(f"expected '//' after node {M} (LENG is {M}), found '{line.strip()[:40]}'", ln)
    for a in (match, insert, trans):
        a.setflags(write=False)
    return Profile(
        name=tags["NAME"], alphabet=alphabet, M=M, match_emissions=match, insert_emissions=insert,
        transitions=trans, compo=compo, accession=tags.get("ACC"), description=tags.get("DESC"),
        consensus="".join(cons), source=r.source, tags=tags)


def _distribution(r: _Reader, row: rows.Row, first: int, count: int, what: str) -> list[float]:
    """Fields ``first .. first + count - 1`` of ``row`` as probabilities that
    sum to 1 (within :data:`.hmmer3_rows.TOLERANCE`)."""
    probs = rows.probabilities(row, first, count, what, r.fail)
    rows.check_sum(row, first, probs, what, r.fail)
    return probs


def _transitions(r: _Reader, k: int, M: int) -> list[float]:
    """Node ``k``'s transition line, checked (see :mod:`.hmmer3_rows`)."""
    row = r.next_row(f"node {k} transitions")
    rows.check_count(row, 7, f"node {k} transitions", " ".join(TRANSITION_NAMES), r.fail)
    probs = rows.probabilities(row, 0, 7, f"node {k} transition", r.fail)
    rows.check_transitions(row, probs, k, M, r.fail)
    return probs


def read_profiles(path: str, span: Span | None = None) -> list[Profile]:
    """The profiles of a HMMER3 file (gzip-compressed files too): the ASCII
    format, or the binary one of ``hmmpress`` (``.h3m``) through pyhmmer."""
    binary = _binary_hmm(str(path), span)
    if binary is not None:
        return parse_hmmer3_text(_binary_as_text(binary, str(path), span), str(path), span)
    return parse_hmmer3_text(sdk.read_text(str(path), span, "HMM file"), str(path), span)


_CHUNK = 1 << 20  # bytes of a binary file read at a time


def _binary_hmm(path: str, span: Span | None) -> bytes | None:
    """The (gunzipped) bytes of a binary HMMER3 file, or None for a text file.
    Binary files start with a magic number whose first byte is not ASCII.
    The file is read a megabyte at a time up to ``DSLC_MAX_LOAD_BYTES``: one
    ``read`` of the whole limit would reserve the limit (16 GiB by default) up
    front, more than an ordinary ``ulimit -v`` allows. Only a regular file is
    looked at here: the bytes of a FIFO (``<(zcat x.hmm.gz)``) can be read only
    once, so it goes to the text reader, which bounds the wait for a writer."""
    import gzip
    import os
    import stat
    import zlib

    from dslc.sdk import LOAD_SETTING, max_load_bytes

    limit = max_load_bytes()
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # a FIFO is read once, by the text reader (its wait is bounded)
        with open(path, "rb") as fh:
            head = fh.read(2)
            fh.seek(0)
            stream = gzip.GzipFile(fileobj=fh) if head == b"\x1f\x8b" else fh
            first = stream.read(1)
            if not first or (first[0] < 0x80 and not path.endswith((".h3m", ".h3m.gz"))):
                return None
            chunks, total = [first], 1
            while chunk := stream.read(_CHUNK):
                total += len(chunk)
                if total > limit:
                    raise DslcError(f"HMM file '{path}' holds more than {LOAD_SETTING} = "
                                    f"{limit:,} bytes (uncompressed)", span,
                                    f"set {LOAD_SETTING} higher to read it")
                chunks.append(chunk)
    except (OSError, EOFError, zlib.error):
        return None  # the text reader reports it, with its messages
    return b"".join(chunks)


def _binary_as_text(data: bytes, path: str, span: Span | None) -> str:
    """A binary HMMER3 file's models written out in the ASCII format by pyhmmer,
    so that one parser reads both."""
    import io

    try:
        from pyhmmer.plan7 import HMMFile
    except ImportError:
        raise DslcError(f"'{path}' is a binary HMMER3 file; reading it needs pyhmmer", span,
                        "pip install pyhmmer (or 'dslc[hmm]'), or convert it with "
                        "'hmmconvert -a'") from None
    out = io.BytesIO()
    try:
        with HMMFile(io.BytesIO(data)) as models:
            for hmm in models:
                hmm.write(out, binary=False)
    except (ValueError, EOFError, OSError) as e:
        raise DslcError(f"'{path}' is not a HMMER3 file pyhmmer can read: {e}", span) from None
    return out.getvalue().decode("utf-8")


# --------------------------------------------------------------------------- conversion

def _emission_map(profile: Profile, alphabet: Alphabet | None, span: Span | None) -> np.ndarray | None:
    """A (K, |target|) 0/1 matrix taking emissions in the profile's residue order
    to the target alphabet's order, or ``None`` for the profile's own alphabet."""
    src = profile.alphabet
    if alphabet is None or alphabet.symbols == src.symbols:
        return None
    missing = [s for s in src.symbols if not alphabet.has(s)]
    if missing:
        raise DslcError(f"the profile '{profile.name}' is over {src.name} residues, and "
                        f"{', '.join(missing)} are not symbols of alphabet '{alphabet.name}'", span)
    degenerate = _DEGENERATE[src.name]
    m = np.zeros((len(src), len(alphabet)))
    for j, sym in enumerate(alphabet.symbols):
        if src.has(sym):
            m[src.code(sym), j] = 1.0
        elif sym.upper() in degenerate:
            for res in degenerate[sym.upper()]:
                m[src.code(res), j] = 1.0
    return m


def profile_to_hmm(profile: Profile, alphabet: Alphabet | None = None, span: Span | None = None) -> HMM:
    """The global core model of ``profile`` (see the module notes)."""
    M = profile.M
    t = profile.transitions
    remap = _emission_map(profile, alphabet, span)

    def em(v):
        return v if remap is None else v @ remap

    states: list[tuple] = [("B", START, None, 0, None), ("I0", EMITTING, em(profile.insert_emissions[0]), 1, None)]
    for k in range(1, M + 1):
        states.append((f"M{k}", EMITTING, em(profile.match_emissions[k - 1]), 1, None))
        if k < M:
            states.append((f"I{k}", EMITTING, em(profile.insert_emissions[k]), 1, None))
        states.append((f"D{k}", SILENT, None, 0, None))
    states.append(("E", END, None, 0, None))

    B, E = 0, 3 * M + 1

    def Mk(k):
        return profile.match_state(k)

    def Ik(k):
        return profile.insert_state(k)

    def Dk(k):
        return profile.delete_state(k)

    edges = [(B, Mk(1), t[0, MM]), (B, Ik(0), t[0, MI]), (B, Dk(1), t[0, MD]),
             (Ik(0), Mk(1), t[0, IM]), (Ik(0), Ik(0), t[0, II])]
    for k in range(1, M):
        edges += [(Mk(k), Mk(k + 1), t[k, MM]), (Mk(k), Ik(k), t[k, MI]), (Mk(k), Dk(k + 1), t[k, MD]),
                  (Ik(k), Mk(k + 1), t[k, IM]), (Ik(k), Ik(k), t[k, II]),
                  (Dk(k), Mk(k + 1), t[k, DM]), (Dk(k), Dk(k + 1), t[k, DD])]
    edges += [(Mk(M), E, t[M, MM]), (Dk(M), E, t[M, DM])]
    edges = [(a, b, float(p)) for a, b, p in edges if p > 0]
    use = alphabet if remap is not None else profile.alphabet
    return build_hmm(profile.name, use, states, edges, profile=profile)


def load_hmmer3(path: str, span: Span | None = None, alphabet: Alphabet | None = None) -> list[HMM]:
    """Every profile of a HMMER3 file as an :class:`HMM` (the global core model;
    the :class:`Profile` is on ``hmm.profile``). With ``alphabet`` the emissions
    are laid out in that alphabet's symbol order (e.g. the 24-symbol ``protein``)."""
    return [profile_to_hmm(p, alphabet, span) for p in read_profiles(path, span)]
