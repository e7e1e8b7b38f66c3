"""Task-per-block as a pass over a task's body (kernel.body): one block of threads
sweeps one task (emit.blocks says when and why).

The body is the loop nest every generator makes; the pass changes three things,
read off the tree's records (never off its text):

* the outermost ``parallel`` loops inside a partition (a loop marked
  ``partition``) become ``strided`` loops, so the block's threads share the
  partition's points;
* a cell outside any strided loop (a boundary piece of a partition, a lone cell
  before the sweep) is computed by thread 0 alone; outside any partition a barrier
  follows it;
* every partition's iteration ends with a barrier, because the next one reads what
  this one wrote.

Points of one partition never read each other (the schedule is legal), so nothing
else needs ordering.
"""

from __future__ import annotations

from dataclasses import replace

from dslc.kernel import body as kb


def per_block(stmts: tuple) -> tuple:
    """``stmts`` with the partitions' points spread over a block's threads."""
    return _pass(tuple(stmts), in_partition=False, strided=False)


def _pass(stmts: tuple, in_partition: bool, strided: bool) -> tuple:
    out: list = []
    for s in stmts:
        match s:
            case kb.Loop(partition=True):
                body = _pass(s.body, True, strided) + (kb.Barrier(),)
                out.append(replace(s, body=body))
            case kb.Loop(kind="parallel") if in_partition and not strided:
                out.append(replace(s, kind="strided", body=_pass(s.body, True, True)))
            case kb.Cell() if not strided:
                out.append(kb.OneThread((s,)))
                if not in_partition:  # inside one, the partition's barrier will do
                    out.append(kb.Barrier())
            case kb.Cell():
                out.append(s)
            case kb.If():
                orelse = None if s.orelse is None else _pass(s.orelse, in_partition, strided)
                out.append(replace(s, body=_pass(s.body, in_partition, strided), orelse=orelse))
            case kb.Loop() | kb.OneThread():
                out.append(replace(s, body=_pass(s.body, in_partition, strided)))
            case _:
                out.append(s)
    return tuple(out)
