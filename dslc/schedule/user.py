"""User schedules: ``schedule f(i, j) = 2*i + j`` is read as coefficients and
verified exactly against the dependences (never trusted)."""

from __future__ import annotations

from dslc.errors import DslcError
from dslc.frontend import ast


def coefficients(sd: ast.ScheduleDef) -> tuple[int, ...]:
    _names_only(sd.expr, set(sd.params), sd)
    return tuple(_coefficient(sd.expr, p, sd) for p in sd.params)


def user_schedules(program) -> dict[str, tuple[int, ...]]:
    return {sd.func: coefficients(sd) for sd in program.schedules}


def verify_all(program) -> None:
    """Check every user schedule against its group's dependences (legality is
    decided for all extents at once, so no input is needed)."""
    from dslc.deps.extract import dependence_graph, groups
    from dslc.emit.plan import data_dependent, extent_names, group_schedule, unprovable
    from dslc.schedule.model import Extents
    from dslc.schedule.verify import verify_schedule

    wanted = user_schedules(program)
    for grp in groups(program.functions):
        if not any(f in wanted for f in grp):
            continue
        graph = dependence_graph(program.functions, grp, program.consts)
        names = {f: extent_names(program, f) for f in grp}
        # legality is decided for every extent; 10 is only where witnesses are sought first
        ext = Extents(names, {n: 10 for ns in names.values() for n in ns})
        try:
            verify_schedule(graph, group_schedule(program, grp, wanted), ext)
        except DslcError as err:
            # refused only over calls whose offsets depend on data: not proved,
            # not disproved; the group is evaluated on demand (emit.plan)
            if not (data_dependent(graph) and unprovable(err)):
                raise


def _coefficient(e, var: str, sd) -> int:
    match e:
        case ast.Num(value=v) if isinstance(v, int):
            return 0
        case ast.Name(id=n):
            return 1 if n == var else 0
        case ast.Unary(op="-", operand=x):
            return -_coefficient(x, var, sd)
        case ast.Binary(op="+" | "-" as op, left=a, right=b):
            cb = _coefficient(b, var, sd)
            return _coefficient(a, var, sd) + (cb if op == "+" else -cb)
        case ast.Binary(op="*", left=ast.Num(value=k), right=x) if isinstance(k, int):
            return k * _coefficient(x, var, sd)
        case ast.Binary(op="*", left=x, right=ast.Num(value=k)) if isinstance(k, int):
            return k * _coefficient(x, var, sd)
    raise DslcError("a schedule must be an integer affine expression of the parameters",
                    getattr(e, "span", sd.span))


def _names_only(e, params: set, sd) -> None:
    if isinstance(e, ast.Name) and e.id not in params:
        raise DslcError(f"'{e.id}' is not a parameter of the schedule of {sd.func}", e.span)
    for v in vars(e).values():
        if isinstance(v, ast.Expr):
            _names_only(v, params, sd)
