"""``dslc explain --plot``: the chosen wavefront drawn with matplotlib.

The figure shows a recursive function's table over its first two recursive
parameters (further ones sliced at 0), each cell coloured by its partition
(the schedule's time step, with a colour bar), and the function's dependences
as arrows from one cell to the cells it reads, so that one can see why the
wavefront runs the way it does. Where the function ran inside a ``map``, two
more panels show the work (cells) and the partitions of every task, which is
what decides how the tasks load the cores or the GPU.

matplotlib is an optional dependency (``pip install dslc[plot]``); it is drawn
without pyplot (no global state, no display needed) and the PNG written through
:func:`dslc.errors.write_user_file`, so a bad path is one clear error.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from dslc.lang import types as T
from dslc.errors import DslcError, write_user_file
from dslc.lang.values import Sequence

SIZE = (7.5, 6.0)  # inches; at DPI, the PNG is 750 x 600 pixels
DPI = 100


@dataclass(frozen=True)
class Axis:
    """One recursive parameter of the plotted function: its name, what it
    ranges over (for the label) and its extent (largest value)."""

    param: str
    over: str
    extent: int


def draw(program, rep: dict, func: str, tasks: list[dict], path: str) -> None:
    """Draw ``func``'s domain (and, for a map's tasks, their work) into ``path``."""
    fig = figure(program, rep, func, tasks)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    write_user_file(path, buf.getvalue())


def figure(program, rep: dict, func: str, tasks: list[dict]):
    """The matplotlib Figure :func:`draw` writes."""
    Figure = _matplotlib()
    axes = domain_axes(program, func, rep[func])
    coeffs = [rep[func]["schedule"][a.param] for a in axes]
    fig = Figure(figsize=SIZE if not tasks else (12.0, 6.0), dpi=DPI, layout="constrained")
    if tasks:
        grid = fig.add_gridspec(2, 2, width_ratios=(1.3, 1))
        ax = fig.add_subplot(grid[:, 0])
        _tasks(fig.add_subplot(grid[0, 1]), fig.add_subplot(grid[1, 1]),
               program, func, axes, coeffs, tasks)
    else:
        ax = fig.add_subplot()
    _domain(fig, ax, program, func, rep[func], axes, coeffs)
    return fig


def _matplotlib():
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise DslcError("dslc explain --plot needs matplotlib",
                        hint="pip install 'dslc[plot]' (or matplotlib)") from None
    return Figure


def domain_axes(program, func: str, r: dict) -> list[Axis]:
    """Each recursive parameter with its own extent: two parameters indexing one
    sequence share an extent name, so each looks its extent up by name."""
    from dslc.plan.task import extent_names

    f = program.checked.functions[func]
    names = extent_names(program.checked, func)
    return [Axis(p.name, _over(p.type), r["extents"][n]) for p, n in zip(f.rec_params, names)]


def _over(t) -> str:
    if isinstance(t, T.IndexT):
        return f"position in {t.seq}"
    if isinstance(t, T.SymT):
        return f"symbol of {t.alpha.name}"
    if isinstance(t, T.ExtT):
        return f"{t.name} of {t.owner}"
    return "int"


def _domain(fig, ax, program, func, r, axes, coeffs) -> None:
    shown = axes[:2]
    rows = shown[0].extent + 1
    cols = shown[1].extent + 1 if len(shown) > 1 else 1
    i, j = np.mgrid[0:rows, 0:cols]
    t = coeffs[0] * i + (coeffs[1] * j if len(shown) > 1 else 0)
    t = t - t.min()
    cmap = _cmap(int(t.max()) + 1)
    if len(shown) == 1:
        ax.bar(np.arange(rows), t[:, 0] + 1, color=cmap(t[:, 0] / max(1, t.max())), width=1.0)
        ax.set_xlabel(_label(shown[0]))
        ax.set_ylabel("partition (time step) + 1")
        mappable = None
    else:
        mappable = ax.imshow(t, origin="upper", cmap=cmap, aspect="auto",
                             interpolation="nearest", extent=(-0.5, cols - 0.5, rows - 0.5, -0.5))
        ax.set_xlabel(_label(shown[1]))
        ax.set_ylabel(_label(shown[0]))
        _dependences(ax, program, func, shown, axes)
    from matplotlib.ticker import MaxNLocator

    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(integer=True))
    sliced = [a.param for a in axes[2:]]
    ax.set_title(f"{func}: {r['partitions']} partitions, S = {_schedule(r['schedule'])}"
                 + (f" (slice {', '.join(f'{p} = 0' for p in sliced)})" if sliced else ""),
                 fontsize=10)
    if mappable is not None:
        bar = fig.colorbar(mappable, ax=ax)
        bar.set_label("partition (schedule time step): cells of one colour run in parallel")


def _cmap(n: int):
    from matplotlib import colormaps

    return colormaps["viridis"].resampled(max(2, min(n, 256)))


def _label(a: Axis) -> str:
    return f"{a.param} ({a.over}, 0 .. {a.extent})"


def _schedule(s: dict) -> str:
    return " + ".join(f"{c}*{p}" if c != 1 else p for p, c in s.items() if c) or "0"


def _dependences(ax, program, func, shown, axes) -> None:
    """Arrows from one cell to each cell it reads (both ends of a ranged read,
    dashed), for the dependences of ``func`` on its group's functions over the
    same parameters; lengthened alike where the table is large, so they show."""
    from dslc.check.tir import groups
    from dslc.deps.extract import dependence_graph

    grp = next(g for g in groups(program.checked.functions) if func in g)
    graph = dependence_graph(program.checked.functions, grp, program.checked.consts)
    at = {a.param: (a.extent // 3 if k == 0 else 2 * a.extent // 3) if k < 2 else 0
          for k, a in enumerate(axes)}
    here = (at[shown[0].param], at[shown[1].param])
    reads = [(d, _read_cells(d, at)) for d in graph.deps
             if d.caller == func and d.callee in grp and len(d.args) == len(axes)
             and all(a is not None for a in d.args)]
    reads = [(d, ends) for d, ends in reads if ends]
    if not reads:
        return
    longest = max(abs(c[k] - here[k]) for _, ends in reads for c in ends for k in (0, 1))
    scale = max(1, int(0.15 * max(a.extent for a in shown) / max(1, longest)))
    colours = ["#ff7f0e", "#d62728", "#e377c2", "#17becf", "#ffffff", "#bcbd22"]
    for n, (d, ends) in enumerate(reads):
        colour = colours[n % len(colours)]
        for cell in ends:
            y, x = (here[k] + scale * (cell[k] - here[k]) for k in (0, 1))
            ax.annotate("", xy=(x, y), xytext=(here[1], here[0]),
                        arrowprops=dict(arrowstyle="->", color=colour, lw=1.8,
                                        linestyle="--" if len(ends) > 1 else "-"))
        ax.plot([], [], color=colour, label=f"reads {d.callee}({', '.join(map(str, d.args))})"
                + "".join(f", {v.name} in {v.lo} .. {v.hi}" for v in d.ranged))
    ax.plot([here[1]], [here[0]], "o", color="white", mec="black")
    ax.legend(loc="lower left", fontsize=7, title=f"cell {here} reads"
              + (f" (arrows x{scale})" if scale > 1 else ""), title_fontsize=7, framealpha=0.85)


def _read_cells(d, at: dict) -> list[tuple[int, ...]]:
    """The cells dependence ``d`` reads from the cell ``at``: one, or the first
    and last of a ranged read (none where the range is empty there)."""
    envs = [dict(at)]
    for v in d.ranged:
        if v.lo is None or v.hi is None:
            return []
        lo, hi = v.lo.evaluate({**at, **envs[0]}), v.hi.evaluate({**at, **envs[0]})
        if lo > hi:
            return []
        envs = [{**e, v.name: x} for e in envs for x in dict.fromkeys((lo, hi))]
    return [tuple(a.evaluate(e) for a in d.args) for e in envs]


def _tasks(work_ax, parts_ax, program, func, axes, coeffs, tasks) -> None:
    """Cells and partitions of ``func``'s table for each task of the map that
    ran it, in the map's order (what one task costs, and how long its wavefront
    is: few long tasks leave cores idle at the end of a map)."""
    from matplotlib.ticker import MaxNLocator

    f = program.checked.functions[func]
    extents = [_task_extents(f, t, [a.extent for a in axes]) for t in tasks]
    n = np.arange(len(tasks))
    if any(e is None for e in extents):  # the entry does not pass func's sequences by name
        res = [sum(len(v.codes) for v in t.values() if isinstance(v, Sequence)) for t in tasks]
        work_ax.bar(n, res, width=1.0, color="#4c72b0")
        work_ax.set_ylabel("residues in the task")
        parts_ax.text(0.5, 0.5, f"partitions per task: the map's tasks do not name\n"
                      f"the sequences {func} indexes", ha="center", va="center",
                      transform=parts_ax.transAxes)
    else:
        cells = [int(np.prod([e + 1 for e in ext])) for ext in extents]
        parts = [sum(abs(c) * e for c, e in zip(coeffs, ext)) + 1 for ext in extents]
        work_ax.bar(n, cells, width=1.0, color="#4c72b0")
        work_ax.set_ylabel(f"cells of {func}")
        if any(not isinstance(p.type, T.IndexT) for p in f.rec_params):
            work_ax.set_ylabel(f"cells of {func}\n(states, symbols: the widest)")
        parts_ax.bar(n, parts, width=1.0, color="#dd8452")
        parts_ax.set_ylabel("partitions")
    work_ax.set_title(f"{len(tasks)} map tasks: work per task", fontsize=10)
    parts_ax.set_title("partitions (wavefront steps) per task", fontsize=10)
    for a in (work_ax, parts_ax):
        a.set_xlabel("task (map order)")
        a.xaxis.set_major_locator(MaxNLocator(integer=True))


def _task_extents(f, task: dict, widest: list[int]) -> list[int] | None:
    """The extent of each recursive parameter of ``f`` in one task: a position
    in a sequence the task holds (by the same name) its length, any other
    parameter (a state, a symbol) its extent in the report (``widest``); None
    where a sequence ``f`` indexes is not among the task's arguments."""
    out = []
    for p, w in zip(f.rec_params, widest):
        if not isinstance(p.type, T.IndexT):
            out.append(w)
            continue
        seq = task.get(p.type.seq)
        if not isinstance(seq, Sequence):
            return None
        out.append(len(seq.codes))
    return out
