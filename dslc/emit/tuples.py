"""Which entries the compiled backends leave to the interpreter because of tuples.

Tuple values (``tuple[int, int]``, docs/language.md) are evaluated by the
interpreter only: generated code holds every value in one float64 (or float32)
slot, and a tuple would need one table per component and a lexicographic
``max``/``min`` in every generator. Rather than reach some generator with a node
it does not know, a backend asks here first and runs such an entry on the
interpreter, recording this reason (``dslc explain`` prints it).
"""

from __future__ import annotations

from dslc.check import tir
from dslc.lang import types as T


def tuple_reason(program, entry: str) -> str | None:
    """Why ``entry`` cannot be compiled: the first function it reaches (itself,
    a table it reads, a helper it calls) that uses a tuple; None when none does."""
    seen, todo = set(), [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        f = program.functions[name]
        found = _tuple_type(f)
        if found is not None:
            return f"{name} uses tuple values ({found}); no compiled backend evaluates tuples yet"
        todo.extend(e.func for e in _exprs(f) if isinstance(e, tir.Call))
    return None


def _exprs(f: tir.TFunction):
    for g in f.guards:
        for root in (g.cond, g.body):
            if root is not None:
                yield from tir.walk(root)


def _tuple_type(f: tir.TFunction) -> T.TupleT | None:
    types = [f.ret, *(p.type for p in f.params), *(e.type for e in _exprs(f))]
    return next((t for t in types if isinstance(t, T.TupleT)), None)
