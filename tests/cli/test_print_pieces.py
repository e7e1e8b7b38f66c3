"""``dslc run`` writes its text a piece at a time (dslc.runtime.render.text_pieces):
the same text as ``render_text`` gives, byte for byte, for a map over FASTA records
(their names a map axis read from the packed bytes, multi-byte ones among them) whose
heading and row are cut into several slices, beside a table, a number and a list."""

from __future__ import annotations

import pytest

from dslc.cli import main
from dslc.runtime import render

SCRIPT = """\
int f(seq[protein] s, seq[protein] t) = 10 * len(s) - len(t)
q = load(seq[protein], "q.fa")
d = load(seq[protein], "d.fa")
print map(f, q (*) d)
print map(f, d (*) q)
print 2 * 3
print d
"""
NAMES = [f"r{k}" + "é" * (k % 3) + "名" * (k % 2) for k in range(23)]
FILES = {"q__fa": ">a\nMKV\n>bé\nMKVLA\n",
         "d__fa": "".join(f">{n} x\n{'W' * (k % 7 + 1)}\n" for k, n in enumerate(NAMES))}


@pytest.mark.parametrize("at_once", [1, 5, 1 << 14])
def test_the_written_text_is_render_texts(write_bio, capsys, monkeypatch, at_once):
    import dslc

    monkeypatch.setattr(render, "_CELLS_AT_ONCE", at_once)
    path = str(write_bio(SCRIPT, **FILES))
    assert main(["run", "--backend", "interp", "--quiet", path]) == 0
    out = capsys.readouterr().out
    printed = dslc.compile(path, backend="interp").run_printed(quiet=True)
    assert out == render.render_text(printed) + "\n"
    heading = next(x for x in out.splitlines() if x.lstrip().startswith("q\\d"))
    assert heading.split()[1:] == NAMES  # (every record's name, in order)
    row = next(x for x in out.splitlines() if x.lstrip().startswith("bé "))
    assert [int(v) for v in row.split()[1:]] == [50 - (k % 7 + 1) for k in range(23)]
