"""``--format tsv`` of a whole two-dimensional table: a TSV block a spreadsheet or a
data-frame reader takes as it is, where other values that are not hits stay ``# ``
comment lines (dslc.runtime.hits).

A table of posterior probabilities, positions by states, reads as the positions'
rows with each state's column named by the state: the block is the table's text
heading as a ``# `` line, a header line (the first axis's name; ``symbol`` where its
positions are annotated by a sequence's residues, or its labels where they name
the rows; then each column's label, or ``AXIS=K``), then a row per position. A
probability is two columns, ``LABEL`` and ``LABEL.log``, as in hit tables (one too
small for a float keeps its log); a cell outside the declared ranges is empty.
"""

from __future__ import annotations

import numpy as np

from dslc.lang.results import TableResult, wrap
from dslc.runtime.tsv_cells import field as _field, tsv_cell as _tsv_cell


def is_tsv_table(value) -> bool:
    """A whole table of two axes of numbers, probabilities or booleans."""
    return isinstance(value, TableResult) and value.values.ndim == 2 \
        and value.value_type in ("int", "float", "prob", "bool")


def table_tsv(name: str, table: TableResult) -> str:
    """The TSV block of ``table`` (the module says what it holds)."""
    from dslc.runtime.render import render_text

    rows, cols = table.values.shape
    first, second = table.axes[0], table.axes[1]
    row_labels = _labels(first, rows)
    head = [first.name] if row_labels is None or first.numbered else [first.name + ".label"]
    if row_labels is not None and first.numbered:
        head.append("symbol")
    for c, label in enumerate(_labels(second, cols) or [f"{second.name}={c}" for c in range(cols)]):
        head += [label, f"{label}.log"] if table.value_type == "prob" else [label]
    lines = [render_text([(name, table)]).splitlines()[0], "\t".join(_field(h) for h in head)]
    lines[0] = "# " + lines[0]
    for r in range(rows):
        cells = [str(r)] if row_labels is None or first.numbered else [row_labels[r]]
        if row_labels is not None and first.numbered:
            cells.append(row_labels[r])
        for c in range(cols):
            v = table.values[r, c]
            if v is None:
                cells += [""] * (2 if table.value_type == "prob" else 1)
            else:
                cells += _tsv_cell(wrap(v.item() if isinstance(v, np.generic) else v,
                                        table.value_type))
        lines.append("\t".join(_field(x) for x in cells))
    return "\n".join(lines)


def _labels(axis, n) -> list[str] | None:
    return [str(s) for s in axis.labels] if axis.labels and len(axis.labels) == n else None
