"""Cells ordered at run time inside a partition (calls through accessors such
as ``h.lastnode``, emit.cpu ``_retry``) where isl peels a partition into lone
statements (the base row ``i == 0``): the compiled map gives the interpreter's
values without sending its tasks back to the interpreter."""

from __future__ import annotations

from pathlib import Path

import dslc

PROFILE = Path(__file__).resolve().parents[2] / "examples" / "data" / "PF02826.hmm"

# t_b reads t_n at its own cell (the same partition, ordered at run time) and
# comes first in the partition's code; the row i == 0 is a piece of its own
# (t_n's guard), so isl writes that partition as lone statements, not a loop.
SPECIALS = f"""\
prob t_m(hmm h, pnode[h] k, seq[*] x, index[x] i)
  | k.number == 0 or i == 0 = 0.0
  | otherwise = k.match.odds[x[i - 1]] *
      (t_b(h.firstnode, i - 1) * k.entry + k.prev.match.to[k.match] * t_m(k.prev, i - 1))
prob t_e(hmm h, pnode[h] k, seq[*] x, index[x] i)
  | k.number == 0 = 0.0
  | otherwise = t_e(k.prev, i) + t_m(k, i)
prob t_n(hmm h, pnode[h] k, seq[*] x, index[x] i)
  | k.number > 0 = 0.0
  | i == 0 = 1.0
  | otherwise = t_n(k, i - 1) * 0.5 + t_e(h.lastnode, i) * 0.5
prob t_b(hmm h, pnode[h] k, seq[*] x, index[x] i)
  | k.number > 0 = 0.0
  | otherwise = t_n(k, i) * 0.5
float score(hmm h, seq[*] x) = log(t_n(h.firstnode, len(x)))
m = load(hmm, "{PROFILE}")
"""


PROTEINS = ["MKV", "GGLAVIGLGRIGQ", "W"]


def test_peeled_partition_ordered_at_run_time_is_not_rerun(write_bio):
    path = write_bio(SPECIALS)
    interp = dslc.compile(str(path), backend="interp")
    interp.run()
    model = interp._globals["m"]
    want = list(interp.map("score", model, PROTEINS))
    prog = dslc.compile(str(path), backend="cpu")
    engine = prog._engine()
    assert list(prog.map("score", model, PROTEINS)) == want
    assert engine.reruns == {}, engine.reruns
