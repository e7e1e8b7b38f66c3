"""examples/tutorial.ipynb runs from top to bottom in a fresh kernel (nbclient), on a
small search and the reference interpreter, and shows what it says it shows: a
progress bar, pandas tables and the schedule's figure."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from nbclient import NotebookClient

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
QUERY = "IPMNGIIMIVRKTSMIGDALD"  # cut from the first record, with one substitution
DB = {"near": "MKVLAIPMNGIIMIVRKTAMIGDALDHSS", "far": "WWWWCCCCHHHHWWWW", "other": "GDRKEEY"}


def _parameters(nb, **values) -> None:
    """Replace the cell tagged ``parameters`` (papermill's convention) by ``values``."""
    [cell] = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    cell.source = "\n".join(f"{k} = {v!r}" for k, v in values.items())


def _outputs(nb, kind: str) -> list:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if o.output_type == kind]


def test_the_tutorial_runs_and_shows_progress_tables_and_the_schedule(tmp_path, monkeypatch):
    monkeypatch.setenv("DSLC_CACHE_DIR", str(tmp_path / "cache"))  # read by the kernel
    (tmp_path / "q.fasta").write_text(f">q1\n{QUERY}\n")
    (tmp_path / "db.fasta").write_text("".join(f">{k}\n{s}\n" for k, s in DB.items()))
    nb = nbformat.read(EXAMPLES / "tutorial.ipynb", as_version=4)
    assert not _outputs(nb, "execute_result") and not _outputs(nb, "display_data"), \
        "commit the notebook without outputs"
    _parameters(nb, QUERIES=str(tmp_path / "q.fasta"), DB=str(tmp_path / "db.fasta"),
                BACKEND="interp")
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(EXAMPLES)}}).execute()
    stderr = "".join(o.text for o in _outputs(nb, "stream") if o.name == "stderr")
    assert "search: 100%" in stderr and "3/3" in stderr  # the bar ran to the end
    html = [o.data["text/html"] for o in _outputs(nb, "execute_result")
            if "text/html" in o.data]
    assert len(html) == 2 and all("<table" in h for h in html)
    best = json.dumps(html[1])
    assert "near" in best and "far" not in best  # the query's hit is the record it came from
    assert any("image/png" in o.data for o in _outputs(nb, "execute_result"))
