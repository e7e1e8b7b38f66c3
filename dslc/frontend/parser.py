"""Parse .bio text into the AST.

The grammar lives in ``grammar/host.lark`` (installed as ``dslc.grammar``) and is
LALR(1), so syntax errors can say precisely which tokens were expected.
"""

from __future__ import annotations

import dataclasses
import functools
from importlib import resources

import lark
from lark import Token, Transformer, v_args

from dslc import deep
from dslc.deep import MAX_NESTING
from dslc.errors import DslcError, Span, register_source, source_lines
from dslc.frontend import ast
from dslc import numtext

_TWO_63 = 2**63

# the contract's keywords (docs/contract/LANGUAGE.md, "Lexical"): none of them names anything
KEYWORDS = frozenset("""define alphabet const if then else otherwise and or not in where sum min
    max map load print schedule inf true false""".split())

# the words a parameter's declared direction may be: contextual, not keywords
DIRECTIONS = ("decreasing", "increasing")

_TOKEN_NAMES = {
    "NAME": "a name", "NUMBER": "a number", "STRING": "a string", "SYMBOL": "a symbol literal",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','",
    "EQUAL": "'='", "COLON": "':'", "VBAR": "'|'", "DOT": "'.'", "CMPOP": "a comparison",
    "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "POW": "'**'", "SLASH": "'/'", "PERCENT": "'%'",
    "CROSS": "'(*)'", "BLOCK": "'{ ... }'", "MAX": "'max'", "MIN": "'min'", "SUM": "'sum'",
    "$END": "end of file",
}


@functools.cache
def _parser() -> lark.Lark:
    text = resources.files("dslc.grammar").joinpath("host.lark").read_text()
    # cache=True keeps the LALR tables in the temp directory: parsing starts instantly
    return lark.Lark(text, parser="lalr", propagate_positions=True, maybe_placeholders=True,
                     cache=True,
                     start=["start", "expr"])


def _token_name(name: str, parser: lark.Lark) -> str:
    if name in _TOKEN_NAMES:
        return _TOKEN_NAMES[name]
    for term in parser.terminals:
        if term.name == name and term.pattern.type == "str":
            return f"'{term.pattern.value}'"
    return name.lower()


def parse(text: str, source_name: str = "<string>") -> ast.Program:
    """Parse a whole script. Raises DslcError with the position of the first
    offending token and what the grammar expected there."""
    source_name = register_source(source_name, text)
    parser = _parser()
    try:
        tree = parser.parse(text, start="start")
    except lark.exceptions.UnexpectedInput as e:
        raise _syntax_error(e, text, source_name, parser) from None
    depth = _check_tree(tree, source_name)
    return dataclasses.replace(deep.run(depth, _to_ast, tree, source_name), depth=depth)


def parse_expression(text: str, at: Span) -> ast.Expr:
    """Parse one expression found at ``at`` inside a larger file (an extension's
    block). Padding the text to its real line and column keeps every span, and
    so every error message, pointing into the user's file."""
    padded = "\n" * (at.line - 1) + " " * (at.col - 1) + text
    parser = _parser()
    try:
        tree = parser.parse(padded, start="expr")
    except lark.exceptions.UnexpectedInput as e:
        raise _syntax_error(e, padded, at.file, parser) from None
    return deep.run(_check_tree(tree, at.file), _to_ast, tree, at.file)


def _to_ast(tree: lark.Tree, source_name: str):
    """The AST of a parse tree. lark wraps what a transformer method raises in a
    VisitError; a DslcError comes out as itself."""
    try:
        return _ToAst(source_name).transform(tree)
    except lark.exceptions.VisitError as e:
        if isinstance(e.orig_exc, DslcError):
            raise e.orig_exc from None
        raise


# what a name defines, by the rule it appears in (for messages)
_DEFINES = {"funcdef": "a function", "param": "a parameter", "const_param": "a parameter",
            "const_stmt": "a constant", "assign": "a variable", "reduction": "a variable",
            "define_alphabet": "an alphabet", "define_block": "a definition",
            "schedule_stmt": "a parameter",
            "param_stmt": "a parameter", "import_stmt": "a module"}


def _check_tree(tree: lark.Tree, source_name: str) -> int:
    """Walk the parse tree in reading order, without recursion, refusing:

    * nesting deeper than MAX_NESTING: every later stage recurses once (or a
      few times) per level, and is tested up to this depth, not beyond;
    * a keyword used as a name (the lexer reads one as a name where only a name
      can stand: ``int if(int then)``).

    Returns the tree's depth."""
    stack, deepest = [(tree, 1)], 0
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_NESTING:
            raise DslcError(f"expression nested too deeply: more than {MAX_NESTING} levels "
                            "(dslc's limit)", _span_of(source_name, node.meta),
                            hint="name parts of it with const or a function")
        for tok in node.children:
            if isinstance(tok, Token) and tok.type == "NAME" and tok in KEYWORDS:
                raise DslcError(f"'{tok}' is a keyword and cannot name "
                                f"{_DEFINES.get(node.data, 'anything')}",
                                _span_of(source_name, tok), hint="choose another name")
        # children pushed last first, so the first too deep in reading order is reported
        stack.extend((c, depth + 1) for c in reversed(node.children) if isinstance(c, lark.Tree))
    return deepest


def _line_col(text: str, pos: int) -> tuple[int, int]:
    """The 1-based line and column of offset ``pos`` (lines end at ``\\n``, as lark counts)."""
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _closes(text: str, pos: int) -> bool:
    """Whether the ``{`` at ``pos`` has a matching ``}`` later in ``text``."""
    depth = 0
    for k in range(pos, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            return True
    return False


_OPENED = {"comment": ("'/*'", "'*/'"), "string": ("'\"'", "'\"'"),
           "symbol literal": ("\"'\"", "\"'\" on its line"), "block": ("'{'", "'}'")}


def _unterminated(e, text: str) -> tuple[str, int] | None:
    """``(what, offset of its opening)`` where a syntax error is really a comment,
    string, symbol literal or block that is never closed: the lexer then fails at
    the opening ``"``, ``'`` or ``{``, or reads an unclosed ``/*`` as ``/`` and ``*``,
    so the plain message would name a character or token that is not the mistake."""
    if isinstance(e, lark.exceptions.UnexpectedCharacters):
        p = e.pos_in_stream
        c = text[p] if 0 <= p < len(text) else ""
        if c == '"':
            return "string", p
        if c == "'":
            return "symbol literal", p
        if c == "{" and not _closes(text, p):
            return "block", p
        return None
    tok = getattr(e, "token", None)
    p = getattr(tok, "start_pos", None)
    if tok is None or tok.type == "$END" or p is None:
        return None
    if text.startswith("/*", p):
        return "comment", p
    if text.startswith("*", p) and p > 0 and text[p - 1] == "/":
        return "comment", p - 1
    return None


def _syntax_error(e, text: str, source_name: str, parser: lark.Lark) -> DslcError:
    opened = _unterminated(e, text)
    if opened is not None:
        what, pos = opened
        line, col = _line_col(text, pos)
        opening, closing = _OPENED[what]
        return DslcError(f"unterminated {what} (opened here): no {closing} closes this "
                         f"{opening}", Span(source_name, line, col, line, col + 2 if what ==
                                            "comment" else col + 1))
    line, col = getattr(e, "line", -1), getattr(e, "column", -1)
    if line is None or line < 1:  # unexpected end of input
        lines = source_lines(text) or [""]
        line, col = len(lines), len(lines[-1]) + 1
    span = Span(source_name, line, col)
    expected = sorted({_token_name(t, parser) for t in (getattr(e, "expected", None) or [])
                       if not t.startswith("__")})
    if isinstance(e, lark.exceptions.UnexpectedCharacters):
        if numtext.foreign_digit(text[e.pos_in_stream]) == 0:
            return DslcError(numtext.foreign_digit_message(text, e.pos_in_stream), span)
        found = f"unexpected character '{text[e.pos_in_stream]}'"
    elif isinstance(e, lark.exceptions.UnexpectedEOF) or getattr(e, "token", None) is None \
            or e.token.type == "$END":
        found = "unexpected end of file"
    else:
        found = f"unexpected '{e.token.value}'"
    msg = f"syntax error: {found}"
    if expected:
        shown = expected if len(expected) <= 8 else expected[:8] + ["..."]
        msg += "; expected " + (shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1])
    return DslcError(msg, span)


def _bare(kind: ast.TypeExpr, word: str) -> bool:
    """Whether a statement's leading type-like word is just ``word`` (``param``,
    ``import``: contextual words, no keywords), with no ``[...]``."""
    return kind.name == word and kind.arg is None and not kind.items


def _span_of(source: str, meta_or_tok) -> Span:
    if isinstance(meta_or_tok, Token):
        return Span(source, meta_or_tok.line, meta_or_tok.column,
                    meta_or_tok.end_line, meta_or_tok.end_column)
    m = meta_or_tok
    return Span(source, m.line, m.column, m.end_line, m.end_column)


# a string's escapes: the contract's \" and \\, and the documented \n and \t
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}


def _unquote(tok: Token, source: str) -> str:
    """The text of a string or symbol literal token. A backslash must begin one
    of :data:`_ESCAPES`; any other (``"a\\qb"``) is an error at the backslash,
    not a character silently dropped."""
    body = tok[1:-1]
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt not in _ESCAPES:
                what = "string" if tok.startswith('"') else "symbol literal"
                raise DslcError(f"unknown escape '\\{nxt}' in a {what}: "
                                "the escapes are \\\", \\\\, \\n and \\t",
                                _escape_span(tok, 1 + i, source),
                                hint="write a backslash itself as \\\\")
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _escape_span(tok: Token, offset: int, source: str) -> Span:
    """The two characters at ``offset`` inside the token ``tok``."""
    before = tok[:offset]
    line = tok.line + before.count("\n")
    col = tok.column + offset if "\n" not in before else offset - before.rfind("\n")
    return Span(source, line, col, line, col + 2)


@v_args(meta=True)
class _ToAst(Transformer):
    """lark tree -> ast nodes (bottom-up)."""

    def __init__(self, source: str):
        super().__init__()
        self.src = source

    def _sp(self, x) -> Span:
        return _span_of(self.src, x)

    # ---- statements
    def start(self, meta, stmts):
        return ast.Program(self.src, tuple(stmts))

    def define_alphabet(self, meta, items):
        name, *syms, stand_ins = items
        chars = len(syms) == 1 and isinstance(syms[0], Token) and syms[0].type == "STRING"
        symbols = tuple(_unquote(syms[0], self.src)) if chars else tuple(syms)
        pairs = ()
        if stand_ins is not None:  # a string of several characters: each of them, where
            one = chars or all(len(x) == 1 for x in symbols)  # symbols are characters
            pairs = tuple((c, to) for frm, to in stand_ins
                          for c in (frm if one and len(frm) > 1 else (frm,)))
        return ast.DefineAlphabet(str(name), symbols, self._sp(meta), pairs)

    def stand_ins(self, meta, items):
        return list(items)

    def stand_in(self, meta, items):
        return (items[0], items[1])

    def symbol_token(self, meta, items):
        tok = items[0]
        if tok.type in ("STRING", "SYMBOL"):
            return _unquote(tok, self.src)
        return str(tok)

    def define_block(self, meta, items):
        kind, name, *rest = items
        block = rest[-1]
        args = tuple(str(a) for a in rest[:-1] if a is not None)
        body_span = Span(self.src, block.line, block.column + 1)
        return ast.DefineBlock(str(kind), str(name), args, str(block)[1:-1], body_span,
                               self._sp(meta))

    def const_stmt(self, meta, items):
        return ast.ConstDef(str(items[0]), items[1], self._sp(meta))

    def array_lit(self, meta, items):
        return ast.ArrayLit(tuple(x for x in items if x is not None), self._sp(meta))

    def schedule_stmt(self, meta, items):
        func, *params, expr = items
        return ast.ScheduleDef(str(func), tuple(str(p) for p in params), expr, self._sp(meta))

    def print_stmt(self, meta, items):
        return ast.Print(items[0], self._sp(meta))

    def assign(self, meta, items):
        return ast.Assign(str(items[0]), items[1], self._sp(meta))

    def param_stmt(self, meta, items):
        kind, name, default = items
        if _bare(kind, "import"):
            raise DslcError(f"'import {name}': import a file by its path in quotes or a "
                            "library module by its dotted name", self._sp(meta),
                            hint=f'import "{name}.bio"' + (
                                ", or a module: import stdlib.hmm" if str(name) == "stdlib"
                                else f", or import stdlib.{name}"))
        if not _bare(kind, "param"):
            raise DslcError(f"'{kind} {name}' is not a statement", kind.span,
                            hint=f"declare a script parameter with 'param {name} = ...', assign "
                                 f"with '{name} = ...', or define a function '{kind} {name}(...)'")
        return ast.ParamDef(str(name), default, self._sp(meta))

    def import_stmt(self, meta, items):
        kind, *target = items
        if not _bare(kind, "import"):
            raise DslcError(f"'{kind}' is not a statement", kind.span,
                            hint='import definitions with import "file.bio" or import stdlib.hmm')
        if len(target) == 1 and target[0].type == "STRING":
            path = _unquote(target[0], self.src)
            if not path:
                raise DslcError("import of an empty file name", self._sp(target[0]))
            return ast.Import(path, False, self._sp(meta))
        return ast.Import(".".join(str(t) for t in target), True, self._sp(meta))

    def funcdef(self, meta, items):
        ret, name, *params, body = items
        params = tuple(p for p in params if p is not None)
        guarded, guards = body
        return ast.FuncDef(ret, str(name), params, guards, guarded, self._sp(meta))

    def param(self, meta, items):
        lo, hi = items[2:4] if len(items) > 2 else (None, None)
        rng = None if lo is None else (lo, hi)
        word = items[4] if len(items) > 4 else None
        if word is not None and str(word) not in DIRECTIONS:
            # contextual: only here, after a parameter (where the contract's grammar has
            # nothing but ',' or ')'), is a name a direction; elsewhere it stays a name
            raise DslcError(f"'{word}' after the parameter '{items[1]}': expected ',', ')' "
                            "or a direction ('decreasing' or 'increasing')",
                            self._sp(word),
                            hint="int m decreasing: every recursive call passes a smaller m")
        direction = None if word is None else str(word)
        return ast.Param(items[0], str(items[1]), self._sp(meta), rng, direction)

    def const_param(self, meta, items):
        sp = self._sp(meta)
        return ast.Param(ast.TypeExpr("const", None, sp), str(items[0]), sp)

    def type(self, meta, items):
        name, arg = items
        return ast.TypeExpr(str(name), None if arg is None else str(arg), self._sp(meta))

    def tuple_type(self, meta, items):
        name, *parts = items
        return ast.TypeExpr(str(name), None, self._sp(meta), tuple(str(x) for x in parts))

    def single_body(self, meta, items):
        return False, (ast.Guard(None, items[0], self._sp(meta)),)

    def guarded_body(self, meta, guards):
        return True, tuple(guards)

    def guard(self, meta, items):
        return ast.Guard(items[0], items[1], self._sp(meta))

    def otherwise(self, meta, items):
        return ast.Guard(None, items[0], self._sp(meta))

    # ---- expressions
    def ifexpr(self, meta, items):
        return ast.If(items[0], items[1], items[2], self._sp(meta))

    def or_(self, meta, items):
        return ast.Binary("or", items[0], items[1], self._sp(meta))

    def and_(self, meta, items):
        return ast.Binary("and", items[0], items[1], self._sp(meta))

    def not_(self, meta, items):
        return ast.Unary("not", items[0], self._sp(meta))

    def compare(self, meta, items):
        return ast.Binary(str(items[1]), items[0], items[2], self._sp(meta))

    def binop(self, meta, items):
        return ast.Binary(str(items[1]), items[0], items[2], self._sp(meta))

    def neg(self, meta, items):
        x = items[1]
        if isinstance(x, ast.Num) and not x.is_float and x.value == _TWO_63:
            return ast.Num(-_TWO_63, False, self._sp(meta))  # the least int64, written out
        return ast.Unary("-", x, self._sp(meta))

    def call(self, meta, items):
        func, *args = items
        args = tuple(a for a in args if a is not None)
        if not isinstance(func, ast.Name):
            raise DslcError("only a named function can be called", func.span)
        return ast.Call(func.id, args, self._sp(meta), func.span)

    def named_reduction(self, meta, items):
        func, var, iterable, where, body = items
        if not (isinstance(func, ast.Name) and func.id in ast.BOOL_REDUCTIONS):
            raise DslcError("only any(v in R : c) and all(v in R : c) are written with a "
                            "name before '(' and 'v in R'", func.span,
                            hint="sum, min and max reduce numbers: sum(v in R : e)")
        return ast.Reduce(func.id, str(var), iterable, where, body, self._sp(meta))

    def index(self, meta, items):
        return ast.Index(items[0], tuple(items[1:]), self._sp(meta))

    def attr(self, meta, items):
        return ast.Attr(items[0], str(items[1]), self._sp(meta))

    def number(self, meta, items):
        text = str(items[0])
        span = self._sp(meta)
        if any(c in text for c in ".eE"):
            value = numtext.finite_float(text)
            if value is None:
                raise DslcError(f"the number {numtext.shown(text)} is too large for a float",
                                span, hint="write inf for an infinity")
            return ast.Num(value, True, span)
        # an int beyond 64 bits is refused by the checker (2^63 is fine negated, see neg);
        # one far longer is refused here, before Python converts it (it refuses past 4,300
        # digits) and before a message quotes it whole
        if numtext.significant_digits(text) > numtext.LITERAL_DIGITS:
            raise DslcError(f"the integer {numtext.shown(text)} does not fit in 64 bits", span,
                            hint=f"integers lie in {numtext.INT_MIN} .. {numtext.INT_MAX}")
        return ast.Num(int(text.lstrip("0") or "0"), False, span)

    def string(self, meta, items):
        return ast.Str(_unquote(items[0], self.src), self._sp(meta))

    def symbol(self, meta, items):
        return ast.Sym(_unquote(items[0], self.src), self._sp(meta))

    def inf(self, meta, items):
        return ast.Inf(self._sp(meta))

    def true(self, meta, items):
        return ast.Bool(True, self._sp(meta))

    def false(self, meta, items):
        return ast.Bool(False, self._sp(meta))

    def name(self, meta, items):
        return ast.Name(str(items[0]), self._sp(meta))

    def redop(self, meta, items):
        return str(items[0])

    def reduction(self, meta, items):
        op, var, iterable, where, body = items
        return ast.Reduce(op, str(var), iterable, where, body, self._sp(meta))

    def extremum(self, meta, items):
        op, *args = items
        if op == "sum" and len(args) > 1:
            raise DslcError("sum needs the form sum(v in R : e)", self._sp(meta))
        return ast.Extremum(op, tuple(args), self._sp(meta))

    def tuple_(self, meta, items):
        return ast.TupleLit(tuple(items), self._sp(meta))

    def range_(self, meta, items):
        return ast.Range(items[0], items[1], self._sp(meta))

    def load(self, meta, items):
        return ast.Load(items[0], items[1], self._sp(meta))

    def map_(self, meta, items):
        func, *rest = items
        where = rest.pop()  # the expression after `where`, or None
        operands = tuple(x for x in rest if not (isinstance(x, Token) and x.type == "CROSS"))
        return ast.Map(str(func), operands, self._sp(meta), self._sp(func), where)
