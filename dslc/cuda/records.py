"""What the CUDA backend's decisions produce (a map's kernel, its launches, a whole
problem's wavefront) and how they are shown: the records the decision, the
compile and the launch pass between them."""

from __future__ import annotations

from dataclasses import dataclass, field

from dslc.cpu.decision import WHOLE_GPU, Decision, Storage


@dataclass(frozen=True)
class Kernel:
    """A map's generated kernel (memoised by the shapes that decide it) and the
    decision that chose it, before the map's own sizes are added."""

    source: str
    args: tuple  # the task's arguments (kernel.ir.TaskArg)
    plan: object = field(compare=False)
    storage: tuple = ()
    dtype: str = "float64"
    per_block: bool = False
    block: int = 128
    decision: Decision | None = None


@dataclass(frozen=True)
class Launches:
    """What a map's run needs beyond its kernel: how arguments travel, where the
    shared model arrays live, and the tasks of each launch."""

    kernel: Kernel
    travel: dict = field(compare=False)
    placed: dict = field(compare=False)
    launches: tuple = field(compare=False)
    # per launch: its sequences' longest (name -> length), and an earlier launch
    # whose tasks read the same rows of every sequence column not in ``constant``
    # (columns with one value in each launch), or itself (see ``_launches``)
    longest: tuple = field(default=(), compare=False)
    rows_as: tuple = field(default=(), compare=False)
    constant: frozenset = field(default=frozenset(), compare=False)


@dataclass(frozen=True)
class Whole:
    """A single problem's whole-GPU wavefront: its generator, plan and sources."""

    gen: object = field(compare=False)
    plan: object = field(compare=False)
    device_src: str = ""
    host_src: str = ""
    args: tuple = ()  # the task's arguments (kernel.ir.TaskArg)
    cooperative: bool = False  # every partition in one launch, the grid synchronised


def interleaved_travel(args: list, travel: dict) -> dict:
    """Arguments of a register-tiled kernel (emit.tiles): a sequence argument with
    a ``base`` (its thread block's first position) is interleaved by block, a
    ``length`` its lengths, ``thread`` the thread's number in its block."""
    out = dict(travel)
    interleaved = {a.of for a in args if a.role == "base"}
    for a in args:
        if a.role == "base":
            out[a.name] = "ibase"
        elif a.role == "argument" and a.of in interleaved:
            out[a.name] = "iseq"
        elif a.role == "length":
            out[a.name] = "ilen"
        elif a.role == "thread":
            out[a.name] = "thread"
    return out


def by_arg(args, placed: dict):
    """(argument, placement) for each placed argument (``placed`` by name), in
    placement order."""
    named = {a.name: a for a in args}
    return [(named[n], p) for n, p in placed.items()]


def shown(arg) -> str:
    """A placed argument as a decision shows it: the source's name, or a layout
    array's ``ARRAY_MODEL``."""
    return "_".join(arg.of) if arg.role == "layout" else arg.of


def plan_extents(plan) -> dict[str, int]:
    out = {}
    for g in plan.groups:
        out.update(g.extents.values)
    return out


def summary(d: Decision) -> str:
    """A device decision in one line (``strategy``: benchmarks and ``-v``)."""
    if d.strategy == WHOLE_GPU:
        return f"whole problem: {'; '.join(d.why)}"
    tile = f", register tile of {d.rows} rows" if d.rows else ""
    return f"{d.strategy} ({'; '.join(d.why)}){tile}, {d.value_type}"


def storage_records(storage, per_block: bool, tiled: bool) -> tuple[Storage, ...]:
    """A map kernel's working storage as the decision records it."""
    from dslc.emit.cuda import storage_role

    out = []
    for name, dims in storage:
        role = storage_role(name)
        why = f"{role}; " if role else "the tile's boundary rows (double-buffered); " \
            if tiled else ""
        dims = tuple(str(d) for d in dims)  # loop-IR expressions over the extents
        shape = ("tasks", *dims) if per_block else (*dims, "tasks")
        why += "a block's own task, shared by its threads" if per_block else \
            "task innermost, so a warp's accesses coalesce"
        out.append(Storage(name, "global", tuple(shape), why))
    return tuple(out)
