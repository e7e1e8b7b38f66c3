"""HMM texts shared by the HMM tests (one copy of each model)."""

from __future__ import annotations

from pathlib import Path

STDLIB_HMM = (Path(__file__).resolve().parents[1] / "stdlib" / "hmm.bio").read_text()

CASINO_ALPHABET = "define alphabet dice [1, 2, 3, 4, 5, 6]\n"

# The dishonest casino of the contract ("Hidden Markov models"), thesis Figure 6.2.
CASINO_BODY = """
  alphabet dice;
  startstate start;
  state fair emits fairemission;
  state loaded emits loadedemission;
  endstate end;
  start -> fair 1;
  fair -> fair 0.94999;   fair -> loaded 0.05;   fair -> end 0.00001;
  loaded -> loaded 0.97999; loaded -> fair 0.02; loaded -> end 0.00001;
  emission fairemission = [1/6, 1/6, 1/6, 1/6, 1/6, 1/6];
  emission loadedemission = [0.1, 0.1, 0.1, 0.1, 0.1, 0.5];
"""
CASINO_MODEL = "define hmm casino {" + CASINO_BODY + "}\n"
CASINO = CASINO_ALPHABET + CASINO_MODEL

# A second dice model over the same alphabet (a map can run over two models).
CASINO2_MODEL = """
define hmm casino2 {
  alphabet dice;
  startstate start;
  state fair emits fairemission;
  state loaded emits loadedemission;
  endstate end;
  start -> fair 0.5; start -> loaded 0.5;
  fair -> fair 0.9;   fair -> loaded 0.09;   fair -> end 0.01;
  loaded -> loaded 0.8; loaded -> fair 0.19; loaded -> end 0.01;
  emission fairemission = [1/6, 1/6, 1/6, 1/6, 1/6, 1/6];
  emission loadedemission = [0.5, 0.1, 0.1, 0.1, 0.1, 0.1];
}
"""

# Silent states between the emitting ones (skip from the start, d2 between m1 and
# m2), numbered so that d2 is read by m1 and reads m1 and skip, and a path that
# emits nothing.
SILENT_MODEL = """\
define hmm sil {
  alphabet dna;
  startstate b;
  state skip;
  state m1 emits e1;
  state m2 emits e2;
  state d2;
  endstate e;
  const stay = 0.3;
  b -> m1 0.6;  b -> skip 0.4;
  skip -> m2 0.5;  skip -> d2 0.5;
  m1 -> m1 stay;  m1 -> m2 0.4;  m1 -> d2 1 - stay - 0.4;
  m2 -> m2 0.2;  m2 -> m1 0.3;  m2 -> e 0.5;
  d2 -> e 0.2;  d2 -> m1 0.8;
  emission e1 = A : 0.4, * : 0.2;
  emission e2 = [0.1, 0.2, 0.3, 0.4];
}
"""
