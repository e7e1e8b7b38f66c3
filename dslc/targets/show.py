"""The kernel IR as text for people (``dslc compile F --emit kernel``): parameters
with their roles and element types, statements with their memory spaces and the
GPU's thread numbers named, not the Python a target prints."""

from __future__ import annotations

from dslc.kernel import ir
from dslc.targets.printer import Printer


def show(k: ir.Kernel) -> str:
    lines = [f"kernel {k.name} ({k.target})"]
    for p in k.params:
        of = f" of {p.of}" if p.of else ""
        lines.append(f"  param {p.name}: {p.role}{of}, {p.dtype}")
    lines += _stmts(k.body, "  ")
    return "\n".join(lines)


def _stmts(stmts, pad: str) -> list[str]:
    out = []
    for s in stmts:
        match s:
            case ir.Assign(target=t, value=v):
                out.append(f"{pad}{t} = {expr(v)}")
            case ir.Store(target=t, value=v):
                out.append(f"{pad}store {expr(t)} = {expr(v)}")
            case ir.If(cond=c, body=body):
                out.append(f"{pad}if {expr(c)}:")
                out += _stmts(body, pad + "  ")
            case ir.Tasks(var=v, count=n, body=body, parallel=par):
                how = "in parallel" if par else "in order"
                out.append(f"{pad}for each task {v} < {expr(n)}, {how}:")
                out += _stmts(body, pad + "  ")
            case ir.Strided(var=v, count=n, body=body):
                out.append(f"{pad}for {v} < {n}, strided over the block's threads:")
                out += _stmts(body, pad + "  ")
            case ir.Barrier():
                out.append(f"{pad}barrier (every thread of the block)")
            case ir.Shared(name=n, shape=shape, dtype=dt):
                out.append(f"{pad}shared {n}: {dt}{list(shape)}")
            case ir.ConstArray(name=n, shape=shape, dtype=dt):
                out.append(f"{pad}constant {n}: {dt}{list(shape)} (values compiled in)")
    return out


class _Reader(Printer):
    """Expressions as a target prints them, thread numbers and lengths in words."""

    _WORDS = {"global": "thread in grid", "block": "block in grid",
              "thread": "thread in block", "width": "threads per block"}

    def length(self, x: str) -> str:
        return f"length({x})"

    def thread(self, what: str) -> str:
        return self._WORDS[what]


def expr(e) -> str:
    return _Reader().expr(e)
