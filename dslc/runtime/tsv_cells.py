"""How one printed value becomes TSV fields: the hit tables (dslc.runtime.hits) and
the whole two-axis tables (dslc.runtime.table_tsv) write their cells the same way,
so both read the one definition here."""

from __future__ import annotations

from dslc.lang.results import Prob


def tsv_cell(v) -> list[str]:
    """A value as TSV: a probability as its value and its natural log (two
    columns, so one too small for a float keeps its log)."""
    from dslc.runtime.render import fmt_scalar

    if isinstance(v, Prob):
        return [fmt_scalar(v.p), fmt_scalar(v.log)]
    return [field(fmt_scalar(v))]


def field(s: str) -> str:
    """No tab or line break inside a field (a record name could hold a tab)."""
    return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")
