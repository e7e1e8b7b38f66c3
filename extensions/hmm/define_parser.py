"""The body of ``define hmm NAME { ... }`` (the syntax of the thesis's Figure 6.2).

Statements, each ended by ``;``, in any order::

    alphabet dice;                       // an alphabet defined in the script
    startstate start;                    // exactly one; silent
    endstate end;                        // exactly one; silent
    state fair emits fairemission;       // an emitting state
    state skip;                          // a silent state
    const p = 0.05;                      // a constant of this model
    fair -> loaded p;                    // a transition and its probability
    fair -> fair 1 - p - 0.00001;
    emission fairemission = [1/6, 1/6, 1/6, 1/6, 1/6, 1/6];   // one value per symbol
    emission background = * : 0.25;                          // every symbol
    emission skewed = A : 0.3, * : 0.7 / 3;                   // listed symbols, the rest
    emission startcodon = ATG : 1, * : 0;                     // k-mers: a codon state

Comments are ``// ...`` and ``/* ... */``.

The syntax is the grammar ``define_hmm.lark`` (LALR, read through
:func:`dslc.sdk.grammar`, so every syntax error is one located DslcError in the
script); this module turns the parse into statement records, evaluates them and
checks the model.

Probabilities are expressions of numbers and constants. The host passes its own
expression evaluator ``eval_expr(text, span, constants)``; :func:`default_eval_expr`
(numbers, names of constants, ``+ - * /``, parentheses) is used when it does not.
Constants are evaluated first, in declaration order (a constant may use those
declared before it); transitions and emissions may use any constant of the block.

Emissions:

* ``[p1, p2, ...]`` lists one probability per symbol in alphabet order, or one
  per k-mer (``|A| ** k`` values, in k-mer code order; see :mod:`.model`).
* ``KEY : p, ..., * : q`` gives listed keys their probability and every other
  symbol (k-mer) ``q``; without ``*`` the unlisted ones get 0. A key is a symbol
  (``A``, ``6``) or, over an alphabet of one-character symbols, a k-mer written
  as one word (``ATG``); all keys of one emission have the same length, which is
  the width of the states that use it. Keys may be quoted (``'*'`` is the
  symbol ``*``; a bare ``*`` means "all the others"). Over an alphabet with
  multi-character symbols a k-mer key lists its symbols separated by blanks. An
  emission with only ``* : q`` emits single symbols.
* Every emission must sum to 1 (within 1e-6) over all ``|A| ** k`` keys.

Checks (each a :class:`DslcError` pointing at the offending text): every name
declared once (states, emissions and constants have separate name spaces);
every state used in a transition declared (unlike the thesis, where silent state
declarations are optional, a transition to an undeclared name is an error: it is
almost always a typo); exactly one start and one end state, both silent, no
transition into the start state or out of the end state; no duplicate
transitions; every probability in [0, 1]; the transitions out of every state
except the end state sum to 1 (within 1e-6); no cycle of silent states; every
state reachable from the start state, and the end state reachable from every
state (both along transitions of non-zero probability).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from lark import Tree
from lark.visitors import Transformer_NonRecursive, v_args

from dslc.sdk import (Alphabet, DslcError, GrammarError, Span, SyntaxProblem, grammar, is_token,
                      span_of)

from .model import EMITTING, END, HMM, SILENT, START, build_hmm, silent_cycle

EvalExpr = Callable[[str, Span, dict], float]

TOLERANCE = 1e-6
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_FORMS = ("alphabet A; startstate S; endstate E; state S; state S emits EM; "
          "A -> B PROB; emission EM = [p, ...]; emission EM = KEY : p, * : q; const C = EXPR;")


# --------------------------------------------------------------------------- positions

class _Locator:
    """Maps offsets in a piece of text to spans in the file the text came from.
    ``origin`` is where the text's first character sits."""

    def __init__(self, origin: Span, text: str):
        self.origin = origin
        self.text = text
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def _linecol(self, offset: int) -> tuple[int, int]:
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        line = lo
        col = offset - self.line_starts[line]
        if line == 0:
            return self.origin.line, self.origin.col + col
        return self.origin.line + line, col + 1

    def span(self, start: int, end: int | None = None) -> Span:
        line, col = self._linecol(start)
        if end is None or end <= start:
            return Span(self.origin.file, line, col)
        eline, ecol = self._linecol(end)
        return Span(self.origin.file, line, col, eline, ecol)


# --------------------------------------------------------------------------- expressions

_TOKEN = re.compile(r"\s*(?:(?P<num>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)|(?P<name>" + _IDENT
                    + r")|(?P<op>[-+*/()]))")


def default_eval_expr(text: str, span: Span, constants: dict) -> float:
    """Evaluate a constant expression: numbers, names of ``constants``, unary and
    binary ``+ - * /`` and parentheses. Not Python's ``eval``."""
    loc = _Locator(span, text)
    toks: list[tuple[str, str, int]] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise DslcError(f"unexpected '{text[pos]}' in expression", loc.span(pos, pos + 1))
        kind = m.lastgroup
        toks.append((kind, m.group(kind), m.start(kind)))
        pos = m.end()
    toks.append(("end", "", len(text)))
    k = 0

    def peek():
        return toks[k]

    def take():
        nonlocal k
        k += 1
        return toks[k - 1]

    def expr() -> float:
        v = term()
        while peek()[1] in ("+", "-") and peek()[0] == "op":
            op = take()[1]
            w = term()
            v = v + w if op == "+" else v - w
        return v

    def term() -> float:
        v = unary()
        while peek()[1] in ("*", "/") and peek()[0] == "op":
            _, op, at = take()
            w = unary()
            if op == "*":
                v = v * w
            else:
                if w == 0:
                    raise DslcError("division by zero", loc.span(at, at + 1))
                v = v / w
        return v

    def unary() -> float:
        if peek()[0] == "op" and peek()[1] in ("+", "-"):
            op = take()[1]
            v = unary()
            return -v if op == "-" else v
        return atom()

    def atom() -> float:
        kind, val, at = take()
        if kind == "num":
            return float(val)
        if kind == "name":
            if val in constants:
                return float(constants[val])
            if val == "inf":
                return math.inf
            raise DslcError(f"undefined name '{val}'", loc.span(at, at + len(val)))
        if kind == "op" and val == "(":
            v = expr()
            kind2, val2, at2 = take()
            if val2 != ")":
                raise DslcError("expected ')'", loc.span(at2, at2 + max(1, len(val2))))
            return v
        if kind == "end":
            raise DslcError("expected an expression", loc.span(max(0, at - 1)))
        raise DslcError(f"unexpected '{val}' in expression", loc.span(at, at + len(val)))

    v = expr()
    kind, val, at = peek()
    if kind != "end":
        raise DslcError(f"unexpected '{val}' in expression", loc.span(at, at + len(val)))
    return v


# --------------------------------------------------------------------------- statements

@dataclass
class _Name:
    text: str
    span: Span


@dataclass
class _Expr:
    text: str
    span: Span


@dataclass
class _StateDecl:
    name: _Name
    kind: str
    emits: _Name | None
    span: Span | None = None  # the whole statement


@dataclass
class _TransDecl:
    src: _Name
    dst: _Name
    prob: _Expr
    span: Span


@dataclass
class _EmissionDecl:
    name: _Name
    vector: list[_Expr] | None  # [p1, ...]
    keyed: list[tuple[list[str] | None, Span, _Expr]] | None  # (symbols or None for '*', key span, p)
    span: Span


@v_args(meta=True)
class _Statements(Transformer_NonRecursive):
    """Parse-tree rules to the statement records, with spans in ``file`` (the
    grammar is define_hmm.lark; its positions, and so each rule's ``meta``, are the
    file's)."""

    def __init__(self, model_name: str, file: str):
        super().__init__()
        self.model_name, self.file = model_name, file

    def _span(self, at) -> Span:
        return span_of(self.file, at)

    def _name(self, tok) -> _Name:
        return _Name(str(tok), self._span(tok))

    def start(self, meta, children):
        return [c for c in children if not is_token(c, "SEMI")]

    def last(self, meta, children):
        raise GrammarError("missing ';' at the end of this statement", meta)

    def alphabet(self, meta, children):
        return ("alphabet", self._name(children[1]), self._span(meta))

    def _state(self, kind: str, meta, children) -> _StateDecl:
        name = self._name(children[1])
        emits = self._name(children[3]) if len(children) > 2 else None
        if kind in (START, END) and emits is not None:
            which = "start" if kind == START else "end"
            raise GrammarError(f"the {which} state '{name.text}' cannot emit: start and end "
                               "states are silent", children[3])
        if kind == SILENT and emits is not None:
            kind = EMITTING
        return _StateDecl(name, kind, emits, self._span(meta))

    def startstate(self, meta, children):
        return self._state(START, meta, children)

    def endstate(self, meta, children):
        return self._state(END, meta, children)

    def state(self, meta, children):
        return self._state(SILENT, meta, children)

    def const(self, meta, children):
        name = self._name(children[1])
        if len(children) < 3:
            raise GrammarError(f"missing value of constant '{name.text}'", meta)
        return ("const", name, children[2])

    def name(self, meta, children):
        return children[0]

    def transition(self, meta, children):
        src, dst = self._name(children[0]), self._name(children[1])
        if len(children) < 3:
            raise GrammarError(f"missing probability for transition {src.text} -> {dst.text}",
                               meta)
        return _TransDecl(src, dst, children[2], self._span(meta))

    def emission(self, meta, children):
        name = self._name(children[1])
        whole = self._span(meta)
        if len(children) < 3:
            raise GrammarError(f"missing values of emission '{name.text}'", meta)
        kind, items, at = children[2]
        if kind == "vector":
            values = []
            for k, e in enumerate(items):
                if e is None:
                    raise GrammarError(f"value {k + 1} of emission '{name.text}' is missing", at)
                values.append(e)
            return _EmissionDecl(name, values, None, whole)
        keyed = []
        for tokens, e, item in items:
            if tokens is None:
                raise GrammarError(f"missing key before ':' in emission '{name.text}'", item)
            if e is False:
                raise GrammarError(f"expected 'KEY : PROBABILITY' in emission '{name.text}'", item)
            key_text = " ".join(tokens)
            if e is None:
                raise GrammarError(f"missing probability for key '{key_text}'", item)
            keyspan = self._span((tokens[0], tokens[-1]))
            if [str(t) for t in tokens] == ["*"]:
                symbols = None
            else:
                if "*" in tokens:
                    raise GrammarError("'*' stands for all the other symbols on its own; "
                                       "quote it ('*') to mean the symbol", keyspan)
                symbols = [t[1:-1] if t.type == "QUOTED" else str(t) for t in tokens]
            keyed.append((symbols, keyspan, e))
        return _EmissionDecl(name, None, keyed, whole)

    def vector(self, meta, children):
        entries = [c for c in children if not is_token(c, "LSQB", "RSQB", "COMMA")]
        return ("vector", entries, meta)

    def entry(self, meta, children):
        return children[0] if children else None

    def keyed(self, meta, children):
        return ("keyed", [c for c in children if not is_token(c, "COMMA")], meta)

    def pair(self, meta, children):
        """``(key tokens, probability or None where missing or False where there is
        no ':', where)``."""
        if len(children) == 1:
            return children[0], False, meta
        return children[0], (children[2] if len(children) > 2 else None), meta

    def keyless(self, meta, children):
        return None, None, meta

    def key(self, meta, children):
        return list(children)

    def expr(self, meta, tokens):
        """The expression's text as the file has it, comments blanked and line breaks
        kept (so the evaluator's positions stay the file's), and its span."""
        parts, prev = [], None
        for t in tokens:
            if prev is not None:
                if t.line > prev.end_line:
                    parts.append("\n" * (t.line - prev.end_line) + " " * (t.column - 1))
                else:
                    parts.append(" " * (t.column - prev.end_column))
            parts.append(str(t))
            prev = t
        return _Expr("".join(parts), self._span((tokens[0], tokens[-1])))


_ALL_TOKENS = ("ALPHABET", "STARTSTATE", "ENDSTATE", "STATE", "EMITS", "CONST", "EMISSION",
               "SEMI", "LPAR", "RPAR", "LSQB", "RSQB", "COMMA", "COLON", "NAME", "ATOM",
               "QUOTED", "_EQUAL", "_ARROW")


_KEYWORD_FORMS = {
    "ALPHABET": "expected 'alphabet NAME;'",
    "STARTSTATE": "expected 'startstate NAME;'",
    "ENDSTATE": "expected 'endstate NAME;'",
    "STATE": "expected 'state NAME;' or 'state NAME emits EMISSION;'",
    "CONST": "expected 'const NAME = EXPRESSION;'",
    "EMISSION": "expected 'emission NAME = [p, ...];' or 'emission NAME = KEY : p, * : q;'",
}


def _describe(model_name: str):
    """The block's wording of a syntax error: an unterminated comment or quote, a
    statement that is none of the forms, a keyword's statement not in its form."""

    def describe(p: SyntaxProblem) -> DslcError | None:
        opened = _unclosed_comment(p.text, p.offset)
        if opened is not None:
            return DslcError("unterminated comment '/*'", _at_offset(p, opened, 2))
        if p.kind == "character" and p.found in "'\"":
            return DslcError("unterminated quote", p.span)
        stmt = _statement_tokens(p.stack)
        if not stmt:
            if p.kind == "end":
                return None
            return DslcError(f"unexpected statement in 'define hmm {model_name}'", p.span,
                             hint="the statements of a model are: " + _FORMS)
        first, last = stmt[0], stmt[-1]
        if "SEMI" in p.expected and p.kind == "token" and p.span.line > last.end_line:
            return DslcError("missing ';' at the end of this statement",
                             Span(p.file, last.end_line, last.end_column),
                             hint=f"the next line starts with '{p.found}'")
        if first.type in _KEYWORD_FORMS:  # at what breaks the form, saying what it found
            return DslcError(_KEYWORD_FORMS[first.type], p.span, hint=p.message)
        if first.type == "NAME" and len(stmt) == 1:
            return DslcError(f"unexpected statement in 'define hmm {model_name}'", p.at(first),
                             hint="the statements of a model are: " + _FORMS)
        return None

    return describe


def _statement_tokens(stack: tuple) -> list:
    """The tokens of the statement being read when the parse stopped: those after
    the last ';' on the parser's stack (sub-rules already reduced, as trees, give
    theirs)."""
    k = len(stack)
    while k > 0 and not is_token(stack[k - 1], "SEMI") and not (
            isinstance(stack[k - 1], Tree) and stack[k - 1].data.startswith("__start")):
        k -= 1
    out = []
    for x in stack[k:]:
        out.extend(x.scan_values(lambda v: is_token(v, *_ALL_TOKENS)) if isinstance(x, Tree)
                   else [x])
    return out


def _unclosed_comment(text: str, offset: int) -> int | None:
    """The offset of a '/*' at or before ``offset`` that nothing closes."""
    i = text.rfind("/*", 0, offset + 2)
    if i >= 0 and text.find("*/", i + 2) < 0:
        return i
    return None


def _at_offset(p: SyntaxProblem, offset: int, width: int) -> Span:
    line = p.text.count("\n", 0, offset) + 1
    col = offset - (p.text.rfind("\n", 0, offset) + 1) + 1
    return Span(p.file, line, col, line, col + width)


_GRAMMAR = grammar(__package__, "define_hmm.lark", propagate_positions=True,
                   names={"ATOM": "a number or name", "QUOTED": "a quoted symbol",
                          "NAME": "a name", "$END": "the model's closing '}'"})


class _BlockParser:
    def __init__(self, name: str, body: str, span: Span, alphabets: dict, eval_expr: EvalExpr):
        self.model_name = name
        self.block_span = span
        self.alphabets = alphabets
        self.eval_expr = eval_expr
        self.alphabet_decl: _Name | None = None
        self.states: list[_StateDecl] = []
        self.transitions: list[_TransDecl] = []
        self.emissions: list[_EmissionDecl] = []
        self.consts: list[tuple[_Name, _Expr]] = []
        self.body = body

    def parse(self) -> None:
        file = self.block_span.file
        for stmt in _GRAMMAR.parse(self.body, file, self.block_span,
                                   transformer=_Statements(self.model_name, file),
                                   describe=_describe(self.model_name)):
            if isinstance(stmt, _StateDecl):
                self.states.append(stmt)
            elif isinstance(stmt, _TransDecl):
                self.transitions.append(stmt)
            elif isinstance(stmt, _EmissionDecl):
                self.emissions.append(stmt)
            elif stmt[0] == "const":
                self.consts.append((stmt[1], stmt[2]))  # (name, expression)
            else:
                _, name, whole = stmt
                if self.alphabet_decl is not None:
                    raise DslcError("the model's alphabet is already given", whole,
                                    hint=f"first given at {self.alphabet_decl.span}")
                self.alphabet_decl = name

    # ---- evaluation and checks
    def value(self, e: _Expr, constants: dict, what: str) -> float:
        v = self.eval_expr(e.text, e.span, constants)
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise DslcError(f"{what} must be a number, not {v!r}", e.span)
        v = float(v)
        if math.isnan(v) or v < 0 or v > 1 + 1e-12:
            raise DslcError(f"{what} is {v:g}; a probability lies between 0 and 1", e.span)
        return min(v, 1.0)

    def build(self) -> HMM:
        if self.alphabet_decl is None:
            raise DslcError(f"model '{self.model_name}' has no 'alphabet NAME;' statement", self.block_span)
        try:
            alphabet = self.alphabets[self.alphabet_decl.text]
        except KeyError:
            raise DslcError(f"unknown alphabet '{self.alphabet_decl.text}'", self.alphabet_decl.span,
                            hint="known alphabets: " + ", ".join(sorted(self.alphabets))) from None
        if not isinstance(alphabet, Alphabet):
            raise DslcError(f"'{self.alphabet_decl.text}' is not an alphabet", self.alphabet_decl.span)

        # constants, in order
        constants: dict[str, float] = {}
        const_spans: dict[str, Span] = {}
        for cname, e in self.consts:
            if cname.text in constants:
                raise DslcError(f"constant '{cname.text}' is defined twice", cname.span,
                                hint=f"first defined at {const_spans[cname.text]}")
            v = self.eval_expr(e.text, e.span, dict(constants))
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
                raise DslcError(f"constant '{cname.text}' must be a number, not {v!r}", e.span)
            constants[cname.text] = float(v)
            const_spans[cname.text] = cname.span

        emissions = self.build_emissions(alphabet, constants)

        # states: start first, end last, others in declaration order
        seen: dict[str, _StateDecl] = {}
        start = end = None
        for d in self.states:
            if d.name.text in seen:
                raise DslcError(f"state '{d.name.text}' is declared twice", d.name.span,
                                hint=f"first declared at {seen[d.name.text].name.span}")
            seen[d.name.text] = d
            if d.kind == START:
                if start is not None:
                    raise DslcError(f"a second start state '{d.name.text}'", d.name.span,
                                    hint=f"the start state is '{start.name.text}' ({start.name.span})")
                start = d
            elif d.kind == END:
                if end is not None:
                    raise DslcError(f"a second end state '{d.name.text}'", d.name.span,
                                    hint=f"the end state is '{end.name.text}' ({end.name.span})")
                end = d
        if start is None:
            raise DslcError(f"model '{self.model_name}' has no start state", self.block_span,
                            hint="declare one with 'startstate NAME;'")
        if end is None:
            raise DslcError(f"model '{self.model_name}' has no end state", self.block_span,
                            hint="declare one with 'endstate NAME;'")
        decls = [start] + [d for d in self.states if d.kind not in (START, END)] + [end]
        number = {d.name.text: i for i, d in enumerate(decls)}
        n = len(decls)
        state_rows = []
        for d in decls:
            if d.emits is None:
                state_rows.append((d.name.text, d.kind, None, 0, None))
                continue
            if d.emits.text not in emissions:
                raise DslcError(f"undefined emission '{d.emits.text}'", d.emits.span,
                                hint="define it with 'emission NAME = ...;'")
            vec, width = emissions[d.emits.text]
            state_rows.append((d.name.text, d.kind, vec, width, d.emits.text))

        # transitions
        edges: dict[tuple[int, int], tuple[float, _TransDecl]] = {}
        for t in self.transitions:
            for nm in (t.src, t.dst):
                if nm.text not in number:
                    raise DslcError(f"undefined state '{nm.text}'", nm.span,
                                    hint=f"declare it with 'state {nm.text};' (silent) or "
                                         f"'state {nm.text} emits EMISSION;'")
            a, b = number[t.src.text], number[t.dst.text]
            if b == 0:
                raise DslcError(f"transition into the start state '{t.dst.text}'", t.dst.span,
                                hint="nothing may return to the start state")
            if a == n - 1:
                raise DslcError(f"transition out of the end state '{t.src.text}'", t.src.span,
                                hint="the end state is final")
            if (a, b) in edges:
                raise DslcError(f"transition {t.src.text} -> {t.dst.text} is given twice", t.span,
                                hint=f"first given at {edges[(a, b)][1].span}")
            p = self.value(t.prob, constants, f"probability of {t.src.text} -> {t.dst.text}")
            edges[(a, b)] = (p, t)

        # distributions over outgoing transitions
        out: list[list[tuple[int, float, _TransDecl]]] = [[] for _ in range(n)]
        for (a, b), (p, t) in edges.items():
            out[a].append((b, p, t))
        for i, d in enumerate(decls[:-1]):
            total = math.fsum(p for _, p, _ in out[i])
            if abs(total - 1.0) > TOLERANCE:
                listed = ", ".join(f"{d.name.text} -> {decls[b].name.text} {p:g}" for b, p, _ in out[i])
                raise DslcError(
                    f"the transitions out of state '{d.name.text}' sum to {total:.10g}, not 1",
                    out[i][-1][2].span if out[i] else d.name.span,
                    hint=("its transitions: " + listed) if listed else "it has no outgoing transitions")

        # silent cycles
        cyc = silent_cycle([d.name.text for d in decls], [d.kind != EMITTING for d in decls], list(edges))
        if cyc is not None:
            names = [decls[i].name.text for i in cyc] + [decls[cyc[0]].name.text]
            raise DslcError("silent states form a cycle: " + " -> ".join(names),
                            edges[(cyc[0], cyc[1 % len(cyc)])][1].span,
                            hint="a silent state emits nothing, so a cycle of them has no order "
                                 "within a position; give one of them an emission")

        # reachability along non-zero transitions
        succ = [[b for b, p, _ in out[i] if p > 0] for i in range(n)]
        pred: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            for b in succ[i]:
                pred[b].append(i)
        fwd = _reach(0, succ)
        for i, d in enumerate(decls):
            if not fwd[i]:
                raise DslcError(f"state '{d.name.text}' cannot be reached from the start state "
                                f"'{start.name.text}'", d.name.span)
        back = _reach(n - 1, pred)
        for i, d in enumerate(decls):
            if not back[i]:
                raise DslcError(f"the end state '{end.name.text}' cannot be reached from state "
                                f"'{d.name.text}'", d.name.span)

        return build_hmm(self.model_name, alphabet, state_rows,
                         [(a, b, p) for (a, b), (p, _) in edges.items()])

    def build_emissions(self, alphabet: Alphabet, constants: dict) -> dict[str, tuple[np.ndarray, int]]:
        size = len(alphabet)
        out: dict[str, tuple[np.ndarray, int]] = {}
        spans: dict[str, Span] = {}
        for e in self.emissions:
            nm = e.name.text
            if nm in out:
                raise DslcError(f"emission '{nm}' is defined twice", e.name.span,
                                hint=f"first defined at {spans[nm]}")
            if e.vector is not None:
                count = len(e.vector)
                width = _width_of(count, size)
                if width is None:
                    sizes = ", ".join(str(size ** k) for k in range(1, 4) if size > 1)
                    raise DslcError(
                        f"emission '{nm}' has {count} values; alphabet '{alphabet.name}' has {size} symbols",
                        e.span, hint=f"give one value per symbol (or per k-mer: {sizes}, ...)")
                vec = np.array([self.value(x, constants, f"value {k + 1} of emission '{nm}'")
                                for k, x in enumerate(e.vector)])
            else:
                width = None
                star: float | None = None
                explicit: dict[int, tuple[float, Span]] = {}
                for symbols, keyspan, x in e.keyed:
                    p = self.value(x, constants, f"probability in emission '{nm}'")
                    if symbols is None:
                        if star is not None:
                            raise DslcError(f"emission '{nm}' has two '*' entries", keyspan)
                        star = p
                        continue
                    syms = _key_symbols(symbols, alphabet)
                    if not syms:
                        raise DslcError("empty key", keyspan)
                    if width is None:
                        width = len(syms)
                    elif len(syms) != width:
                        raise DslcError(
                            f"key of {len(syms)} symbols in emission '{nm}', whose other keys have {width}",
                            keyspan, hint="all keys of one emission are symbols, or all are k-mers of one length")
                    code = 0
                    for sym in syms:
                        code = code * size + alphabet.code(sym, keyspan)
                    if code in explicit:
                        raise DslcError(f"key '{''.join(syms)}' is given twice in emission '{nm}'", keyspan,
                                        hint=f"first given at {explicit[code][1]}")
                    explicit[code] = (p, keyspan)
                width = width or 1
                vec = np.full(size ** width, star if star is not None else 0.0)
                for code, (p, _) in explicit.items():
                    vec[code] = p
            total = math.fsum(vec)
            if abs(total - 1.0) > TOLERANCE:
                raise DslcError(f"emission '{nm}' sums to {total:.10g}, not 1", e.span,
                                hint=(f"its {len(vec)} entries are over "
                                      + ("symbols" if width == 1 else f"{width}-mers")
                                      + f" of alphabet '{alphabet.name}'"))
            out[nm] = (vec, width)
            spans[nm] = e.name.span
        return out


def _width_of(count: int, size: int) -> int | None:
    if size < 1 or count < 1:
        return None
    if size == 1:
        return 1 if count == 1 else None
    w, c = 1, size
    while c < count:
        c *= size
        w += 1
    return w if c == count else None


def _key_symbols(tokens: list[str], alphabet: Alphabet) -> list[str]:
    if alphabet.single_chars:
        out = []
        for t in tokens:
            if alphabet.has(t) and len(t) == 1:
                out.append(t)
            else:
                out.extend(t)
        return out
    return list(tokens)


def _reach(root: int, adj: list[list[int]]) -> list[bool]:
    seen = [False] * len(adj)
    seen[root] = True
    stack = [root]
    while stack:
        v = stack.pop()
        for w in adj[v]:
            if not seen[w]:
                seen[w] = True
                stack.append(w)
    return seen


def parse_hmm_block(name: str, body_text: str, span: Span, alphabets: dict[str, Alphabet],
                    eval_expr: EvalExpr | None = None) -> HMM:
    """Parse and check the body of ``define hmm NAME { ... }``.

    ``span`` is where the body's first character (the one after ``{``) sits in
    the source file; errors point into the file. ``eval_expr(text, span,
    constants)`` evaluates one probability expression (``span`` is where the
    text starts); it defaults to :func:`default_eval_expr`.
    """
    p = _BlockParser(name, body_text, span, alphabets, eval_expr or default_eval_expr)
    p.parse()
    return p.build()
