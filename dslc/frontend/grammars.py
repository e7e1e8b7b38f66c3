"""Extension grammars: a lark grammar an extension ships (for a ``define`` block's
body or a data file), parsed with dslc's located errors.

The grammar is LALR(1) (lark's ``lalr`` parser with its contextual lexer): tables are
built once per grammar and a parse is linear in the text, without recursion, so a data
file of a hundred thousand tokens or a tree nested thousands deep parses in one pass.
The extension's transformer runs inline, as each rule is reduced: no parse tree is
built, which is what keeps a large file fast.

Every position is a position in the user's file: text that sits inside a larger file
(a block's body) is padded to its real line and column before lark sees it (as
:func:`dslc.frontend.parser.parse_expression` does), so the tokens a transformer
receives carry file positions, and so does every error. A syntax error becomes one
:class:`DslcError` at the offending character or token; the extension may word it
itself (``describe``), given what the parser found, expected and had read so far
(:class:`SyntaxProblem`), else it reads ``syntax error: unexpected X; expected Y``. A
transformer reports a bad value by raising :class:`GrammarError` at a token or rule.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

from dslc.errors import DslcError, Span

# lark (and the host grammar's token names) are imported where a grammar is built or a
# parse fails: a run that parses nothing, its program read back (frontend.stored), loads
# neither.


class GrammarError(Exception):
    """Raised by a grammar's transformer: ``message`` at ``at`` (a token, a rule's
    ``meta``, or a pair ``(first, last)`` of them); the parse turns it into a
    DslcError in the file being parsed."""

    def __init__(self, message: str, at: Any, hint: str | None = None):
        super().__init__(message)
        self.message, self.at, self.hint = message, at, hint


def span_of(file: str, at: Any) -> Span:
    """The span of a token, a rule's ``meta`` (``propagate_positions``), or a pair
    ``(first, last)`` of them, in ``file``."""
    if isinstance(at, tuple):
        a, b = span_of(file, at[0]), span_of(file, at[1])
        return Span(file, a.line, a.col, b.end_line, b.end_col)
    line, col = getattr(at, "line", None), getattr(at, "column", None)
    if line is None or col is None:
        return Span(file, 1, 1)
    return Span(file, line, col, getattr(at, "end_line", None), getattr(at, "end_column", None))


@dataclass(frozen=True)
class SyntaxProblem:
    """What the parser stumbled on, for an extension's ``describe`` to word.

    ``kind`` is ``character`` (no terminal matches here), ``token`` (a token the
    grammar does not allow here) or ``end`` (the text ended too early); ``found`` the
    character or token text (``""`` at the end); ``token_type`` the terminal's name;
    ``expected`` the terminal names allowed here; ``stack`` what the parser has read
    and not yet reduced, innermost last (tokens and the transformer's values);
    ``text`` the (padded) text, ``offset`` where the problem is in it; ``origin``
    where the text's first character is; ``message`` the default wording."""

    file: str
    origin: Span
    span: Span
    kind: str
    found: str
    token_type: str | None
    expected: frozenset
    stack: tuple
    text: str
    offset: int
    message: str

    def at(self, x: Any) -> Span:
        """The span of a token or meta of ``stack`` in this file."""
        return span_of(self.file, x)


Describe = Callable[[SyntaxProblem], "DslcError | None"]


class Grammar:
    """A lark grammar (its text) with an optional inline transformer (a
    ``lark.Transformer`` whose methods build the extension's values) and
    ``describe`` (its own wording of syntax errors, None for the default).
    ``names`` words terminals in the default messages (``{"NAME": "a state name"}``)."""

    def __init__(self, text: str, *, start: str = "start", transformer: Any = None,
                 describe: Describe | None = None, names: dict[str, str] | None = None,
                 propagate_positions: bool = False):
        self.text, self.start = text, start
        self.transformer, self.describe = transformer, describe
        self.names = dict(names or {})
        self.propagate_positions = propagate_positions

    @functools.cached_property
    def lark(self):
        """The LALR parser, built at its first use. Its tables are kept in the temp
        directory (lark's ``cache``, keyed by the grammar and the options, as the host
        grammar's are): a run that parses a block loads them instead of building them."""
        import lark
        return lark.Lark(self.text, parser="lalr", lexer="contextual", start=self.start,
                         transformer=self.transformer, maybe_placeholders=False,
                         propagate_positions=self.propagate_positions, cache=True)

    def parse(self, text: str, file: str, origin: Span | None = None,
              transformer: Any = None, describe: Describe | None = None) -> Any:
        """Parse ``text``, found in ``file`` at ``origin`` (its first character; the
        file's start when None or in another file). Returns what the inline
        transformer built, else the parse tree, or what ``transformer`` (one made
        for this parse: it may know ``file``; a ``lark.visitors.Transformer_NonRecursive``,
        so that deep nesting costs no stack) makes of the tree; raises DslcError
        pointing into ``file`` (worded by ``describe``, else the grammar's own)."""
        if origin is None or origin.file != file:
            origin = Span(file, 1, 1)
        elif (origin.line, origin.col) != (1, 1):
            text = "\n" * (origin.line - 1) + " " * (origin.col - 1) + text
        import lark
        parser = self.lark
        try:
            tree = parser.parse(text)
            if transformer is None:
                return tree
            return transformer.transform(tree)
        except lark.exceptions.UnexpectedInput as e:
            raise self._syntax_error(e, text, origin, describe or self.describe) from None
        except lark.exceptions.VisitError as e:
            if isinstance(e.orig_exc, GrammarError):
                raise _located(e.orig_exc, file) from None
            if isinstance(e.orig_exc, DslcError):
                raise e.orig_exc from None
            raise
        except GrammarError as e:
            raise _located(e, file) from None

    def _syntax_error(self, e, text: str, origin: Span, describe: Describe | None) -> DslcError:
        problem = self._problem(e, text, origin)
        if describe is not None:
            got = describe(problem)
            if got is not None:
                return got
        return DslcError(problem.message, problem.span)

    def _problem(self, e, text: str, origin: Span) -> SyntaxProblem:
        import lark
        file = origin.file
        ip = getattr(e, "interactive_parser", None)
        stack = tuple(ip.parser_state.value_stack) if ip is not None else ()
        tok = getattr(e, "token", None)
        if isinstance(e, lark.exceptions.UnexpectedCharacters):
            kind, offset, ttype = "character", e.pos_in_stream, None
            found = text[offset] if offset < len(text) else ""
            expected = frozenset(e.allowed or ())
        elif tok is None or tok.type == "$END":
            kind, offset, found, ttype = "end", len(text.rstrip()), "", "$END"
            expected = frozenset(getattr(e, "expected", None) or ())
        else:
            kind, offset, found, ttype = "token", tok.start_pos, str(tok), tok.type
            expected = frozenset(getattr(e, "expected", None) or ())
        expected = frozenset("$END" if t == "<END-OF-FILE>" else t for t in expected)
        line = text.count("\n", 0, offset) + 1
        col = offset - (text.rfind("\n", 0, offset) + 1) + 1
        if kind == "token":
            span = span_of(file, tok)
        else:
            span = Span(file, line, col, line, col + 1) if found else Span(file, line, col)
        return SyntaxProblem(file, origin, span, kind, found, ttype, expected, stack, text, offset,
                             self._default_message(kind, found, expected))

    def _default_message(self, kind: str, found: str, expected: frozenset) -> str:
        from dslc.frontend.parser import _token_name
        what = {"character": f"unexpected character '{found}'", "end": "unexpected end of text",
                "token": f"unexpected '{found}'"}[kind]
        words = sorted({self.names.get(t) or _token_name(t, self.lark) for t in expected
                        if not t.startswith("__")})
        if not words:
            return f"syntax error: {what}"
        shown = words if len(words) <= 8 else words[:8] + ["..."]
        listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
        return f"syntax error: {what}; expected {listed}"


def _located(e: GrammarError, file: str) -> DslcError:
    return DslcError(e.message, span_of(file, e.at), e.hint)


def is_token(x: Any, *types: str) -> bool:
    """Whether ``x`` (an item of :attr:`SyntaxProblem.stack`) is a token of one of ``types``."""
    from lark import Token
    return isinstance(x, Token) and x.type in types
