"""Polyhedral machinery over a chosen schedule; with :mod:`dslc.deps.polyhedra`
(each recursive call site as an isl set of its instances: exact legality of a
schedule, witnesses, window depths) the only place that talks to isl (islpy).

* :mod:`dslc.poly.isl_sets` - domain facts that let generated code skip checks;
* :mod:`dslc.poly.nest` - the loop nest of a group's sweep, from isl's AST
  builder, as :mod:`dslc.poly.loopir` (the project's own loop IR);
* :mod:`dslc.poly.pretty` - readable text and Python source of a loop nest.

Keeping islpy in these two places keeps the rest of the compiler free of isl
objects (tied to an isl context, not comparable or picklable) and of its API.
"""
