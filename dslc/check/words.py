"""Lists of sequences as calling values: a dictionary of words.

``const words = ["leet", "code"]`` is a list of texts, encoded over an alphabet
when it is passed to a parameter ``seqs[A] d`` (as a string literal becomes a
sequence when it meets a ``seq[A]`` parameter); a list loaded with
``load(seq[A], file)`` is passed the same way. In a function, ``len(d)`` is the
number of words, and a word is read through ``d[k]``: ``len(d[k])`` its length,
``d[k][m]`` its symbol ``m`` (a ``symbol[A]``, compared with a sequence's).

Those two reads are the whole compiled interface, so a list travels to compiled
code as one 2-D array of doubles (check.grids' route): row ``k`` holds word ``k``'s
length, then its codes, padded. ``len(d[k])`` and ``d[k][m]`` are typed as two
indexers over that array (:data:`WORD_LENGTH`, :data:`WORD_SYMBOL`) with
bounds-checked compiled forms; a word as a whole value (``d[k]`` passed on, say)
has no compiled form and is refused where it is written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dslc import sdk
from dslc.check import tir
from dslc.errors import DslcError
from dslc.lang import types as T
from dslc.lang.values import Alphabet, Sequence

SEQS = "seqs"


@dataclass(frozen=True, eq=False)
class WordTexts:
    """A constant list of string literals, over no alphabet yet."""

    texts: tuple[str, ...]
    name: str = ""
    counted = True  # len(d) in a script statement (lang.script_stats)

    def __len__(self) -> int:
        return len(self.texts)

    def __str__(self) -> str:
        return "[" + ", ".join(f'"{t}"' for t in self.texts) + "]"


@dataclass(frozen=True, eq=False)
class SeqList:
    """A list of sequences over one alphabet, as a ``seqs[A]`` parameter holds it."""

    alphabet: Alphabet
    seqs: tuple[Sequence, ...]
    name: str = ""
    counted = True

    def __len__(self) -> int:
        return len(self.seqs)

    def device(self) -> np.ndarray:
        width = 1 + max((len(s) for s in self.seqs), default=0)
        out = np.zeros((len(self.seqs), width), dtype=np.float64)
        for k, s in enumerate(self.seqs):
            out[k, 0] = len(s)
            out[k, 1:1 + len(s)] = s.codes
        return out

    def __str__(self) -> str:
        return "[" + ", ".join(f'"{s.text}"' for s in self.seqs) + "]"


def bind(value, t: T.ExtT, program, span, what: str) -> SeqList:
    """``value`` (a constant list of texts, a loaded list of sequences, or a list
    already bound) as a ``seqs[A]`` argument: every word encoded over ``A`` (a symbol
    outside it is the error naming the word)."""
    from dslc.lang.records import is_list
    from dslc.lang.sequences import as_sequence, describe

    alpha = program.alphabets[t.alpha.name]
    seq_t = T.SeqT(t.alpha)
    if isinstance(value, SeqList):
        items = value.seqs
    elif isinstance(value, WordTexts):
        items = value.texts
    elif is_list(value) and not isinstance(value, str):
        items = list(value)
    else:
        raise DslcError(f"{what} expects a list of sequences (seqs[{alpha.name}]), got "
                        f"{describe(value)}", span,
                        hint='const words = ["ab", "ba"], or load(seq[A], file)')
    name = getattr(value, "name", "")
    seqs = tuple(as_sequence(v, seq_t, program, span, what=f"word {k} of {what}")
                 for k, v in enumerate(items))
    return SeqList(alpha, seqs, name if isinstance(name, str) else "")


def _word(d: SeqList, k) -> Sequence:
    if type(k) is not int or not 0 <= k < len(d.seqs):
        where = f" '{d.name}'" if d.name else ""
        raise DslcError(f"index {k} is outside the list of words{where} "
                        f"(positions 0..{len(d.seqs) - 1})")
    return d.seqs[k]


def _symbol(d: SeqList, k, m) -> int:
    w = _word(d, k)
    if type(m) is not int or not 0 <= m < len(w):
        raise DslcError(f"index {m} is outside word {k} of the list (positions 0..{len(w) - 1})")
    return int(w.codes[m])


_ROW = sdk.checked(sdk.key(0), sdk.VALUE.len)
_LENGTH = sdk.VALUE[_ROW, 0]


def _spec(value_type, evaluate, device) -> sdk.TypeSpec:
    return sdk.TypeSpec(name=SEQS, role="calling", bracket="alphabet",
                        alphabet=lambda d: d.alphabet,
                        index_keys=lambda t: (sdk.INT,), index_value=value_type,
                        index_eval=evaluate, accepts=lambda v: isinstance(v, SeqList),
                        device_array=SeqList.device, device_index=device,
                        doc="a list of sequences over A; len(d), len(d[k]), d[k][m]")


SPEC = _spec(lambda t: T.SeqT(t.alpha), _word, None)
WORD_LENGTH = _spec(lambda t: T.INT, lambda d, k: len(_word(d, k)), _LENGTH)
WORD_SYMBOL = _spec(lambda t: T.SymT(t.alpha), _symbol,
                    sdk.VALUE[_ROW, 1 + sdk.checked(sdk.key(1), _LENGTH)])

extension = sdk.Extension(name="words", types=(SPEC,))


def is_word(x: tir.TExpr) -> bool:
    """``d[k]`` of a list of sequences."""
    return isinstance(x, tir.ExtIndex) and x.indexer is SPEC


def length(word: tir.ExtIndex, span) -> tir.TExpr:
    """``len(d[k])``."""
    return tir.ExtIndex(WORD_LENGTH, word.base, word.keys, T.INT, span)


def symbol(word: tir.ExtIndex, m: tir.TExpr, span) -> tir.TExpr:
    """``d[k][m]``."""
    return tir.ExtIndex(WORD_SYMBOL, word.base, word.keys + (m,), T.SymT(word.type.alpha),
                        span)


def refuse_whole_words(e: tir.TExpr) -> None:
    """A word read as a whole value (not through ``len(d[k])`` or ``d[k][m]``)."""
    for x in tir.walk(e):
        if is_word(x):
            raise DslcError("a word of a list is read as len(d[k]) and d[k][m]", x.span,
                            hint="compare it symbol by symbol: all(m in 0 ... len(d[k]) - 1 : "
                                 "d[k][m] == s[i + m])")
