"""``dslc run --plot FILE.png``: the printed values that have a picture, drawn.

What a value looks like is decided by its kind, not by the program that made it:

* a structure read off a traceback that draws itself (``brackets(trace(...))``: an
  arc diagram, dslc.trace.brackets) is drawn as it draws itself;
* a whole table of numbers or probabilities over one or two axes is drawn as lines
  along its first axis, one line per position of its second (a table of posterior
  probabilities, positions by states, is each state's posterior along the
  sequence), each line named by the second axis's label where it has one;
* anything else (a number, a hit table of a ``map``, a list) has no picture and is
  left out. A run with nothing to draw is an error saying what can be drawn.

One value drawn is written to ``FILE.png`` itself; several to ``FILE.NAME.png``, one
per value, ``NAME`` the printed expression's name made safe for a file name.
matplotlib is optional (``pip install dslc[plot]``); figures are made without
pyplot (no display needed) and written through dslc.errors.write_user_file, so a
path that cannot be written is one clear error.
"""

from __future__ import annotations

import io
import re

import numpy as np

from dslc.errors import DslcError, write_user_file
from dslc.lang.results import TableResult

DRAWN = "a structure (brackets(trace(...))) or a whole table of numbers or probabilities"
MAX_TICKS = 80  # label each position along the x axis up to this many positions


def drawable(value) -> bool:
    """Whether ``value`` has a picture (the module says which values do)."""
    if callable(getattr(value, "figure", None)):
        return True
    return isinstance(value, TableResult) and value.values.ndim in (1, 2) \
        and value.value_type in ("int", "float", "prob") and value.values.size > 0


def write_plots(printed: list[tuple[str, object]], path: str) -> list[tuple[str, str]]:
    """Draw every drawable printed value; ``[(file, printed name)]`` written."""
    chosen = [(name, v) for name, v in printed if drawable(v)]
    if not chosen:
        raise DslcError(f"--plot: nothing printed can be drawn (it draws {DRAWN})")
    out, used = [], set()
    for name, value in chosen:
        target = path if len(chosen) == 1 else _path_for(path, name, used)
        fig = value.figure() if callable(getattr(value, "figure", None)) else \
            table_figure(name, value)
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        write_user_file(target, buf.getvalue())
        out.append((target, name))
    return out


def _path_for(path: str, name: str, used: set) -> str:
    """``FILE.NAME.png`` for a printed name (unsafe characters as ``_``; a name
    that repeats gets ``_2``, ``_3`` ...)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_")[:40] or "value"
    stem, dot, ext = path.rpartition(".")
    if not dot or "/" in ext:
        stem, ext = path, "png"
    candidate, k = safe, 1
    while candidate in used:
        k += 1
        candidate = f"{safe}_{k}"
    used.add(candidate)
    return f"{stem}.{candidate}.{ext}"


def table_figure(name: str, table: TableResult):
    """Lines along the table's first axis, one per position of its second."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise DslcError("--plot needs matplotlib",
                        hint="pip install 'dslc[plot]' (or matplotlib)") from None
    values = np.asarray(table.values, dtype=np.float64)
    if table.value_type == "prob":  # held as natural logs
        values = np.exp(values)
    if values.ndim == 1:
        values = values[:, None]
    rows, cols = values.shape
    first = table.axes[0] if table.axes else None
    second = table.axes[1] if len(table.axes) > 1 else None
    fig = Figure(figsize=(max(6.0, min(0.12 * rows, 20.0)), 3.6), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    x = np.arange(rows)
    for c in range(cols):
        label = None
        if second is not None:
            label = str(second.labels[c]) if second.labels and len(second.labels) == cols \
                else f"{second.name}={c}"
        ax.plot(x, values[:, c], lw=1.3, label=label)
    if first is not None and first.labels and len(first.labels) == rows and rows <= MAX_TICKS:
        ax.set_xticks(x)
        ax.set_xticklabels([str(s) for s in first.labels], fontsize=7, fontfamily="monospace")
    ax.set_xlabel(first.name if first is not None else "position")
    ax.set_ylabel("probability" if table.value_type == "prob" else "value")
    if table.value_type == "prob":
        ax.set_ylim(-0.02, 1.02 if values.max() <= 1 else None)
    if second is not None and cols <= 12:
        ax.legend(fontsize=8, loc="best")
    ax.set_title(f"{name}: table of {table.func}", fontsize=9)
    return fig
