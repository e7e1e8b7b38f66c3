"""Decision records: what a backend chose for one map or call, and why.

A backend decides in one method (``decide``) that both its run and ``dslc
explain`` call, and keeps the record of every map and call it ran
(``backend.decisions``), so explain prints what the code chose rather than a
second account of it that can drift. The record lives here, in the lowest
layer of the targets, so the CPU and CUDA backends (and explain above them)
share it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

# strategies, as explain prints them: the names of emit.strategies' table, where each
# strategy's builder and passes are listed (imported when used: a small run records
# decisions but needs no code generator)
from dslc.lang.strategy_names import (CPU_PACKS, CPU_PLAIN, INTERPRETER,  # noqa: F401
                                      NAMES, TASK_PER_BLOCK, TASK_PER_THREAD, WHOLE_GPU)
from dslc.errors import InternalError

# value types: float32 where emit.precision's static bound holds, float32 with a
# per-lane check (tasks past it recomputed in float64), or float64
VALUE_TYPES = {"float64": "float64", "float32": "float32", "float32c": "float32 checked",
               "int16": "int16 saturating", "int8": "int8 saturating"}
PYTHON_VALUES = "python numbers (exact ints)"  # the interpreter's


@dataclass(frozen=True)
class Placement:
    """Where one kernel argument lives (shared, constant or global memory), and why."""

    argument: str
    memory: str
    why: str


@dataclass(frozen=True)
class Storage:
    """One table's working storage: memory, shape (symbolic extents) and why."""

    table: str
    memory: str
    shape: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class Decision:
    """One map or call: which backend and strategy ran it, its launch sizes,
    where its arguments and tables live, its value type, and the reasons
    (including why a faster strategy was declined: the generator's text)."""

    entry: str
    backend: str  # "cpu" | "cuda"
    work: str  # "map" | "call" | "table"
    strategy: str
    value_type: str = "float64"
    why: tuple[str, ...] = ()
    tasks: int = 1
    grid: int | None = None  # blocks per launch (the largest launch's)
    block: int | None = None  # threads per block
    launches: int | None = None
    rows: int | None = None  # rows of a register tile
    pack: int | None = None  # tasks per CPU pack (dslc.cpu.packs)
    lanes: int | None = None  # GPU threads per point of a wavefront (a warp's lanes)
    placement: tuple[Placement, ...] = ()
    storage: tuple[Storage, ...] = ()
    notes: tuple[tuple[str, str], ...] = field(default=())  # (topic, text): rules for other sizes

    def __post_init__(self):
        if self.strategy not in NAMES:  # every strategy is one of the table's
            raise InternalError(f"strategy {self.strategy!r} is not in emit.strategies")

    def because(self, *reasons: str) -> "Decision":
        """This decision with more reasons."""
        return replace(self, why=self.why + tuple(r for r in reasons if r))

    def note(self, topic: str) -> str | None:
        return dict(self.notes).get(topic)

    def to_json(self) -> dict:
        """The record as explain's JSON carries it (empty fields left out)."""
        out = {k: v for k, v in asdict(self).items()
               if v not in (None, ()) and k not in ("placement", "storage", "notes")}
        out["why"] = list(self.why)
        if self.placement:
            out["placement"] = {p.argument: {"memory": p.memory, "why": p.why}
                                for p in self.placement}
        if self.storage:
            out["storage"] = {s.table: {"memory": s.memory, "shape": list(s.shape), "why": s.why}
                              for s in self.storage}
        if self.notes:
            out["notes"] = dict(self.notes)
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Decision":
        """The record :meth:`to_json` wrote (keys it does not know are ignored)."""
        plain = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        plain["why"] = tuple(data.get("why", ()))
        plain["placement"] = tuple(Placement(a, p["memory"], p["why"])
                                   for a, p in data.get("placement", {}).items())
        plain["storage"] = tuple(Storage(t, s["memory"], tuple(s["shape"]), s["why"])
                                 for t, s in data.get("storage", {}).items())
        plain["notes"] = tuple(data.get("notes", {}).items())
        return cls(**plain)

    def lines(self) -> list[str]:
        """The record as explain's text prints it."""
        sizes = [f"{n} {v}" for n, v in (("grid", self.grid), ("block", self.block),
                                         ("launches", self.launches), ("tile rows", self.rows),
                                         ("pack", self.pack), ("lanes", self.lanes))
                 if v is not None]
        work = f"map of {self.tasks} tasks" if self.work == "map" else self.work
        out = [f"{self.backend}, entry {self.entry}: {self.strategy}, {self.value_type} "
               f"({'; '.join([work] + sizes)})"]
        out += [f"  why: {w}" for w in self.why if w]
        from dslc.emit.strategies import of_decision, passes

        applied = passes(of_decision(self.backend, self.strategy, self.rows is not None))
        out += [f"  passes: {applied}"] if applied else []
        out += [f"  {p.argument}: {p.memory} memory ({p.why})" for p in self.placement]
        out += [f"  {s.table}: {s.memory} memory, [{', '.join(s.shape)}] ({s.why})"
                for s in self.storage]
        out += [f"  {topic}: {text}" for topic, text in self.notes]
        return out


class Decisions(dict):
    """A backend's records, the last one for each (entry, work): a script that
    calls one function a million times keeps one record of it."""

    def add(self, d: Decision) -> Decision:
        self[(d.entry, d.work)] = d
        return d

    def of(self, entry: str, work: str | None = None) -> Decision | None:
        """The last record for ``entry`` (of ``work``, where given)."""
        found = [d for (e, w), d in self.items() if e == entry and work in (None, w)]
        return found[-1] if found else None
