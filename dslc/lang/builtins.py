"""The language's built-in functions of one number: one table for every stage.

``log``, ``exp``, ``sqrt`` and ``log2`` take a number and give a float. Each entry says
everything the compiler needs about one of them, so that adding such a function is
adding an entry here (with its tests and documentation):

* the checker types a call from it (any number in, ``float`` out; of a ``prob`` only
  where ``of_prob`` gives the meaning: ``log(p)`` is the stored log) and evaluates it
  in constants;
* the interpreter (the specification) runs ``value``; a ``ValueError`` or
  ``OverflowError`` from it is the language's error "f(x) is not defined";
* generated code calls the target's math function ``math`` (numpy's on the CPU,
  Python ``math``'s on a GPU, targets.printer). Where the function is undefined for
  some finite arguments, the domain is stated as data (``below``/``at_below``,
  ``above``) and code generation wraps the call in a checking helper made from it
  (targets.runtime): the check runs *before* the math function, so every target fails
  exactly where ``value`` raises, never returning numpy's NaN or infinity instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class MathBuiltin:
    name: str
    value: Callable[[float], float]  # the interpreter's semantics
    math: str  # the function's name in numpy (CPU) and in Python's math (GPU)
    below: float | None = None  # undefined under this argument...
    at_below: bool = False  # ... and at it
    above: float | None = None  # finite arguments over this overflow (an error)
    of_prob: str | None = None  # "log": the function of a prob is its stored log
    doc: str = ""

    def helper(self) -> str | None:
        """The checking helper's name (targets.runtime), None where the math
        function is defined for every argument."""
        return f"_{self.name}" if self.below is not None or self.above is not None else None


# the largest x whose exp is finite: exp of the next double overflows (an error)
EXP_LIMIT = 709.782712893384

MATH = (
    MathBuiltin("log", math.log, "log", below=0.0, at_below=True, of_prob="log",
                doc="natural logarithm (of a prob: its stored log)"),
    MathBuiltin("exp", math.exp, "exp", above=EXP_LIMIT, doc="e to the power x"),
    MathBuiltin("sqrt", math.sqrt, "sqrt", below=0.0, doc="square root"),
    MathBuiltin("log2", math.log2, "log2", below=0.0, at_below=True,
                doc="base-2 logarithm (bits from a ratio of probabilities)"),
)

BY_NAME = {b.name: b for b in MATH}
