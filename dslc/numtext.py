"""Numbers read from text a person wrote: a script's literals, ``-D`` and ``--set``
values, number and matrix files, branch lengths, settings.

Python's ``int()`` and ``float()`` read more than the language writes, and fail
in ways that are no message for a user:

* they take the digits of every script (fullwidth ``１２``, Arabic-Indic ``٣``),
  so a number the user did not write in ASCII would be silently read;
* ``int()`` of more than 4,300 digits raises a ValueError (Python's guard
  against quadratic conversions), and ``str()`` of such an int does too, so even
  quoting the number in an error fails;
* ``float()`` turns ``1e999`` into infinity, a value the text did not say.

Everything here works on the text before converting it: a number's digits are
ASCII, an int with more significant digits than any 64-bit int has is refused
without converting it, and a float that overflows is refused unless the text
says ``inf``. Each reader raises its own located :class:`~dslc.errors.DslcError`
with these functions' answers, so every reader says the same thing.
"""

from __future__ import annotations

import unicodedata

INT_DIGITS = 19  # the most significant digits of a 64-bit int (2^63 - 1 has 19)
# A script's int literal with more significant digits than this is refused by the parser;
# a shorter one past 64 bits goes on to the checks that know its context (a literal past
# 64 bits, a schedule's coefficient past 2^31), whose messages quote it whole.
LITERAL_DIGITS = 40
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
SHOWN = 24  # characters of an over-long number a message quotes


def foreign_digit(text: str) -> int | None:
    """The offset of the first character of ``text`` that is a digit (or other
    numeric character) outside ASCII, or None: ``'１２'`` -> 0."""
    for k, c in enumerate(text):
        if not c.isascii() and c.isnumeric():
            return k
    return None


def foreign_digit_message(text: str, k: int) -> str:
    """What is wrong with the digit at ``text[k]``: its name and the rule."""
    c = text[k]
    name = unicodedata.name(c, f"U+{ord(c):04X}")
    return (f"'{c}' ({name}) is not an ASCII digit: numbers are written with the "
            "digits 0-9")


def significant_digits(digits: str) -> int:
    """How many digits an int's text has once its sign and leading zeros are gone."""
    return len(digits.lstrip("+-").lstrip("0"))


def int_of(text: str) -> int | None:
    """The int that ``text`` (an optional sign and ASCII digits, already matched
    by the caller) writes, or None where it lies outside 64 bits. More than
    :data:`INT_DIGITS` significant digits is outside without converting (Python
    refuses to convert more than 4,300)."""
    if significant_digits(text) > INT_DIGITS:
        return None
    sign = -1 if text.startswith("-") else 1
    v = sign * int(text.lstrip("+-").lstrip("0") or "0")
    return v if INT_MIN <= v <= INT_MAX else None


def finite_float(text: str) -> float | None:
    """The float that ``text`` (a number's ASCII text, already matched by the
    caller, not ``inf``) writes, or None where it overflows to infinity."""
    v = float(text)
    return None if v in (float("inf"), float("-inf")) else v


def shown(text: str) -> str:
    """``text`` as a message quotes it: a long number cut, with its length
    (``123456789012...789 (5,000 digits)``)."""
    if len(text) <= SHOWN:
        return text
    return f"{text[:SHOWN - 8]}...{text[-5:]} ({len(text):,} characters)"
