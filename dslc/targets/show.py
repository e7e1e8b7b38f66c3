"""The kernel IR as text for people (``dslc compile F --emit kernel``): parameters
with their roles and element types, statements with their memory spaces and the
GPU's thread numbers named, not the Python a target prints."""

from __future__ import annotations

from dslc.kernel import ir
from dslc.targets.printer import Printer, statements


def show(k: ir.Kernel) -> str:
    lines = [f"kernel {k.name} ({k.target})"]
    for p in k.params:
        of = f" of {p.of}" if p.of else ""
        lines.append(f"  param {p.name}: {p.role}{of}, {p.dtype}")
    lines += statements(_Reader(), k.body, "  ")
    return "\n".join(lines)


class _Reader(Printer):
    """Expressions as a target prints them, thread numbers and lengths in words."""

    _WORDS = {"global": "thread in grid", "block": "block in grid",
              "thread": "thread in block", "width": "threads per block"}

    INDENT = "  "

    def store(self, target: str, value: str) -> str:
        return f"store {target} = {value}"

    def tasks_loop(self, var: str, n: str, parallel: bool) -> str:
        return f"for each task {var} < {n}, {'in parallel' if parallel else 'in order'}:"

    def gpu_statement(self, s, pad: str) -> list[str]:
        match s:
            case ir.Strided(var=v, count=n, body=body):
                return ([f"{pad}for {v} < {n}, strided over the block's threads:"]
                        + statements(self, body, pad + self.INDENT))
            case ir.Barrier():
                return [f"{pad}barrier (every thread of the block)"]
            case ir.Shared(name=n, shape=shape, dtype=dt):
                return [f"{pad}shared {n}: {dt}{list(shape)}"]
            case ir.ConstArray(name=n, shape=shape, dtype=dt):
                return [f"{pad}constant {n}: {dt}{list(shape)} (values compiled in)"]
        raise TypeError(f"not a kernel statement: {s!r}")

    def length(self, x: str) -> str:
        return f"length({x})"

    def thread(self, what: str) -> str:
        return self._WORDS[what]


def expr(e) -> str:
    return _Reader().expr(e)
