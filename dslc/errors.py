"""Errors and source positions.

Two kinds of error, kept apart on purpose:

* :class:`DslcError` is the user's mistake (bad syntax, a type error, a symbol
  outside an alphabet, a missing file, a recursive argument out of its domain).
  It carries a :class:`Span` when one is known and renders as
  ``file:line:col: error: message`` followed by the source line and a caret.
  The command line prints it and exits with status 2; no traceback.
* :class:`InternalError` is ours: a broken invariant inside the compiler. It is
  allowed to surface as a traceback, because then the bug is in dslc.
"""

from __future__ import annotations

from dataclasses import dataclass

_SOURCES: dict[str, str] = {}


class SourceName(str):
    """A source's name that also holds the source's text.

    Spans name their file by this, so a span quotes the lines of the source it was
    parsed from even when a later source took the same name: every program given
    as a string is called ``<string>``, and an error of the first one must not
    quote the second's lines. It equals, hashes and prints as the plain name."""

    text: str

    def __new__(cls, name: str, text: str) -> "SourceName":
        made = super().__new__(cls, name)
        made.text = text
        return made

    def __reduce__(self):
        return SourceName, (str(self), self.text)


def register_source(name: str, text: str) -> SourceName:
    """Remember the text of a source so that errors can quote its lines; the name
    to give its spans (it carries the text)."""
    _SOURCES[name] = text
    return SourceName(name, text)


def source_text(name: str) -> str | None:
    """The text of the source ``name`` (a span's file): its own text where the name
    carries one, else the last registered under that name."""
    own = getattr(name, "text", None)
    return own if own is not None else _SOURCES.get(name)


@dataclass(frozen=True)
class Span:
    """A region of a source file; lines and columns are 1-based."""

    file: str
    line: int
    col: int
    end_line: int | None = None
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def shifted(self, line_offset: int, col_offset: int = 0) -> "Span":
        """The span moved by an offset: used for text parsed out of a larger file
        (the body of a ``define`` block is parsed by its extension on its own)."""
        col = self.col + col_offset if self.line == 1 else self.col
        end_col = self.end_col
        if end_col is not None and self.end_line == 1:
            end_col += col_offset
        end_line = None if self.end_line is None else self.end_line + line_offset
        return Span(self.file, self.line + line_offset, col, end_line, end_col)


class DslcError(Exception):
    """A mistake in the user's program, data or command line."""

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint

    def render(self) -> str:
        """``file:line:col: error: message``, the source line and a caret."""
        if self.span is None:
            head = f"error: {self.message}"
        else:
            head = f"{self.span}: error: {self.message}"
        lines = [head]
        quoted = _quote(self.span) if self.span is not None else None
        if quoted:
            lines.extend(quoted)
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def warn(message: str, span: Span | None = None) -> None:
    """``file:line:col: warning: message`` on standard error: something the run
    did on the user's behalf and goes on with (a residue read as its stand-in)."""
    import sys

    sys.stderr.write(f"{span}: warning: {message}\n" if span is not None
                     else f"warning: {message}\n")


class InternalError(Exception):
    """A bug in dslc itself (never the user's fault)."""


def source_lines(text: str) -> list[str]:
    """The lines of a script as its spans count them: ended by ``\\n`` only (a
    ``\\r`` before it dropped), so a form feed, vertical tab or U+2028 inside a
    line is no line break (``str.splitlines`` breaks at those: the quoted line,
    and the caret, would then be another line than the one the location names)."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [ln.removesuffix("\r") for ln in lines]


# white space a terminal would not show as one column: quoted as a space
_ODD_SPACES = dict.fromkeys(map(ord, "\f\v\x85\u2028\u2029"), " ")


def _quote(span: Span) -> list[str] | None:
    text = source_text(span.file)
    if text is None:
        return None
    src_lines = source_lines(text)
    if not 1 <= span.line <= len(src_lines):
        return None
    line = src_lines[span.line - 1]
    width = 1
    if span.end_line == span.line and span.end_col and span.end_col > span.col:
        width = span.end_col - span.col
    width = max(1, min(width, len(line) - span.col + 1))
    line, col, width = _window(line.translate(_ODD_SPACES), span.col, width)
    prefix = "".join(c if c == "\t" else " " for c in line[: col - 1])
    return [f"  {line}", f"  {prefix}^{'~' * (width - 1)}"]


QUOTE_WIDTH = 120  # characters of a source line an error quotes around its caret


def _window(line: str, col: int, width: int) -> tuple[str, int, int]:
    """At most QUOTE_WIDTH characters of ``line`` around column ``col`` (an
    ellipsis where some were cut), the caret's column in them and its width
    (cut to the window): a multi-megabyte line is not echoed whole."""
    if len(line) <= QUOTE_WIDTH:
        return line, col, width
    start = max(0, min(col - 1 - QUOTE_WIDTH // 3, len(line) - QUOTE_WIDTH))
    end = start + QUOTE_WIDTH
    head = "..." if start else ""
    tail = "..." if end < len(line) else ""
    width = max(1, min(width, end - (col - 1)))
    return head + line[start:end] + tail, col - start + len(head), width


def write_user_file(path: str, data: str | bytes) -> None:
    """Write a file the user named (``compile -o``, ``explain --plot``). A path
    that cannot be written (a missing folder, a folder, no permission) is the
    user's mistake: one line naming it, not a traceback."""
    try:
        with open(path, "wb" if isinstance(data, bytes) else "w") as fh:
            fh.write(data)
    except OSError as e:
        raise DslcError(f"cannot write {path}: {e.strerror or e}") from None


class NotCompilable(Exception):
    """A construct a compiled backend cannot compile (found while planning or
    generating code); the caller falls back to the interpreter for that function
    and says so in ``dslc explain``. Not the user's error: never shown as one."""
