"""Tuple values (``tuple[int, int]``, docs/language.md) in generated code.

Representation: a tuple of ``k`` components is a Numba tuple of ``k`` float64
(a ``UniTuple``, which nopython code and numba-cuda device code both support),
each component held as a scalar of its type is (ints as float64, exact to 2^53,
infinities included). A table of tuples has one more dimension of extent ``k``,
innermost on the CPU (a cell's components are one row: ``T_f[i, j]`` is a view
of them) and just before the task on the GPU (``T_f[i, j, :, tid]``).

The operations follow the interpreter (the specification): ``+`` and ``sum`` add
component by component with the scalar checks (``inf - inf`` is an error), ``max``
and ``min`` are lexicographic and keep the left operand on a tie (Python's
``max(a, b)`` returns ``b`` only when ``b > a``), ``==`` compares every component.
The lexicographic helpers are emitted once per module for each length the
program uses; the component-wise sum is written inline, so its checks take a
kernel's failure flag like every other check (targets.printer).

Only the plain generators (the per-task CPU generator and the plain CUDA kernel)
compile tuples; the specialised strategies (SIMD lanes, register tiles,
task-per-block, whole-problem wavefronts) refuse a plan that holds one with
:func:`refuse`, so the backend falls to the plain generator and ``dslc explain``
says why. Two forms stay on the interpreter, each with its reason: a tuple
table evaluated on demand, and one whose cells are ordered inside a partition
at run time.
"""

from __future__ import annotations

from dslc.check import tir
from dslc.kernel import ir
from dslc.lang import types as T


def width(t: T.Type) -> int | None:
    """The number of components of a tuple type, None for any other type."""
    return len(t.items) if isinstance(t, T.TupleT) else None


def tuple_type(program, entry: str) -> T.TupleT | None:
    """The first tuple type that ``entry`` reaches (itself, a table it reads, a
    helper it calls), None when it reaches none."""
    seen, todo = set(), [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        f = program.functions[name]
        found = _tuple_types(f)
        if found:
            return found[0]
        todo.extend(e.func for e in _exprs(f) if isinstance(e, tir.Call))
    return None


def refuse(program, plan, strategy: str) -> None:
    """Raise NotCompilable when ``plan`` holds tuple values: ``strategy`` (a
    specialised generator) leaves them to the plain generator."""
    from dslc.errors import NotCompilable

    found = tuple_type(program, plan.entry)
    if found is not None:
        raise NotCompilable(f"{plan.entry} uses tuple values ({found}): {strategy} does not "
                            "hold them; the plain per-task generator compiles tuples")


def widths(program) -> list[int]:
    """Every tuple length the program's functions use (for the helpers)."""
    return sorted({len(t.items) for f in program.functions.values() for t in _tuple_types(f)})


def _exprs(f: tir.TFunction):
    for g in f.guards:
        for root in (g.cond, g.body):
            if root is not None:
                yield from tir.walk(root)


def _tuple_types(f: tir.TFunction) -> list[T.TupleT]:
    types = [f.ret, *(p.type for p in f.params), *(e.type for e in _exprs(f))]
    return [t for t in types if isinstance(t, T.TupleT)]


# ----------------------------------------------------------------- code
def literal(items: list[str]) -> str:
    """A tuple of ``items`` as module text (the helpers below)."""
    return f"({', '.join(items)})"


def filled(k: int, value: str) -> str:
    """A tuple of ``k`` equal components as module text."""
    return literal([value] * k)


def init(op: str, k: int, pr) -> ir.Tuple:
    """The empty reduction: every component ``-inf`` (max), ``inf`` (min) or 0 (sum)."""
    start = {"max": pr.ir_inf(True), "min": pr.ir_inf(), "sum": ir.Const(0.0)}[op]
    return ir.Tuple((start,) * k)


def named(x) -> ir.Expr:
    """A tuple value: a record as it is, a name a generator holds as text its
    variable."""
    return ir.Name(x) if isinstance(x, str) else x


def component(x, c: int) -> ir.Index:
    """Component ``c`` of tuple value ``x``."""
    return ir.Index(named(x), (ir.Const(c),))


def add(k: int, x, y, pr) -> ir.Tuple:
    """``x + y`` component by component (``x``, ``y``: names, or their records), each
    sum checked
    for ``inf - inf`` as the interpreter's int and float ``+`` are."""
    return ir.Tuple(tuple(pr.ir_check("_undef", ir.Bin("+", component(x, c), component(y, c)))
                          for c in range(k)))


def combine(op: str, k: int, x, y, pr) -> ir.Expr:
    """One step of reduction ``op`` (or binary ``max``/``min``) over tuples ``x`` and
    ``y`` (records, or names as text; a sum's: names)."""
    if op == "sum":
        return add(k, x, y, pr)
    return ir.Call(f"_t{op}{k}", (named(x), named(y)))


def equal(k: int, x, y) -> ir.Call:
    """Every component of ``x`` equal to ``y``'s (records, or names as text)."""
    return ir.Call(f"_teq{k}", (named(x), named(y)))


def exact(b, t: T.TupleT, val: str, pr) -> None:
    """Check every int component of a cell's value ``val`` before it is stored:
    one beyond 2^53 stops the task (a kernel flags it), and the interpreter
    recomputes it exactly or reports its overflow. Stored values are checked, not
    only results, because an entry may read one component of a cell (``t[1]``)
    whose other component the interpreter reports."""
    for c, item in enumerate(t.items):
        if item == T.INT:
            b.eval(pr.ir_check("_inexact", component(val, c)))


def getter(k: int) -> str:
    """The helper giving a stored cell's ``k`` components as a tuple."""
    return f"_tget{k}"


def put(k: int, row: ir.Expr, val: str) -> ir.Call:
    """Storing tuple ``val`` into a cell's components (``row``: the view of them), a
    call evaluated for its effect."""
    return ir.Call(f"_tput{k}", (row, named(val)))


def helpers(ks: list[int], pr) -> str:
    """Lexicographic max/min, equality, loads and stores for tuples of each length
    in ``ks``, and the GPU's flagged result (a task whose check failed returns NaNs)."""
    return "\n".join(_helpers(k, pr) for k in ks)


def _helpers(k: int, pr) -> str:
    # plain Numba functions, not inline="always": inlining them at the IR level made a
    # tuple module about a third slower to compile, and LLVM inlines them anyway
    def lex(op: str) -> str:
        cmp = ">" if op == "max" else "<"
        lines = [f"    if b[{c}] != a[{c}]:\n        return b if b[{c}] {cmp} a[{c}] else a"
                 for c in range(k)]
        return pr.function(f"_t{op}{k}", ["a", "b"], "\n".join(lines) + "\n    return a")
    comps = [f"r[{c}]" for c in range(k)]
    same = " and ".join(f"a[{c}] == b[{c}]" for c in range(k))
    stores = "\n".join(f"    r[{c}] = v[{c}]" for c in range(k))
    return (lex("max") + "\n" + lex("min") + "\n"
            + pr.function(f"_teq{k}", ["a", "b"], f"    return {same}") + "\n"
            + pr.function(f"_tget{k}", ["r"], f"    return {literal(comps)}") + "\n"
            + pr.function(f"_tput{k}", ["r", "v"], stores) + "\n"
            + pr.function(f"_tresult{k}_f", ["F", "tid", "v"],
                          f"    if F[tid] != 0:\n        return {filled(k, pr.nan())}\n    return v"))
