"""User schedules: ``schedule f(i, j) = 2*i + j`` is read as coefficients, which
the planner verifies exactly against the dependences (never trusted;
:func:`dslc.plan.verify_all` checks them all before a script runs)."""

from __future__ import annotations

from dslc.errors import DslcError
from dslc.frontend import ast


# a coefficient's magnitude at most: partition numbers (coefficient times
# coordinate, summed) stay well inside the int64 of loop bounds and of isl's
# integer arguments; a schedule needing more has no use (that many partitions)
MAX_COEFFICIENT = 2**31


def coefficients(sd: ast.ScheduleDef) -> tuple[int, ...]:
    _names_only(sd.expr, set(sd.params), sd)
    out = tuple(_coefficient(sd.expr, p, sd) for p in sd.params)
    for p, c in zip(sd.params, out):
        if abs(c) > MAX_COEFFICIENT:
            raise DslcError(f"the schedule's coefficient of {p} is {c}, beyond what a schedule "
                            f"may use (at most 2^31 in magnitude)", sd.expr.span)
    return out


def user_schedules(program) -> dict[str, tuple[int, ...]]:
    """Each scheduled function's coefficients (the driver verifies them); two
    schedules written for one recursive group must agree (:func:`_check_agree`)."""
    out = {sd.func: coefficients(sd) for sd in program.schedules}
    if len(out) > 1:
        _check_agree(program, out)
    return out


def _check_agree(program, given: dict[str, tuple[int, ...]]) -> None:
    """A mutually recursive group is evaluated in one order, so it follows one
    schedule (dslc.plan.task.group_schedule: a smaller function's positions padded
    with 0). Two schedules of one group that give different coefficients there
    would leave one unused, silently: refused, naming both."""
    from dslc.check.tir import groups

    by_func = {sd.func: sd for sd in program.schedules}
    for grp in groups(program.functions):
        written = [g for g in grp if g in given]
        if len(written) < 2:
            continue
        width = max(len(given[g]) for g in written)
        padded = {g: given[g] + (0,) * (width - len(given[g])) for g in written}
        first = written[0]
        for other in written[1:]:
            if padded[other] != padded[first]:
                a, b = by_func[first], by_func[other]
                raise DslcError(
                    f"the schedules of '{first}' (line {a.span.line}) and '{other}' disagree: "
                    f"they are mutually recursive ({', '.join(grp)}), evaluated in one order",
                    b.span, hint=f"write one schedule for the group, or the same one for "
                                 f"'{first}' and '{other}'")


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
        case ast.Binary(op="*", left=k, right=x) if _number(k) is not None:
            return _number(k) * _coefficient(x, var, sd)
        case ast.Binary(op="*", left=x, right=k) if _number(k) is not None:
            return _number(k) * _coefficient(x, var, sd)
    raise DslcError("a schedule must be an integer affine expression of the parameters",
                    getattr(e, "span", sd.span))


def _number(e) -> int | None:
    """An integer literal, negated or not (``2``, ``-2``, ``(-2)``), else None."""
    match e:
        case ast.Num(value=k) if isinstance(k, int):
            return k
        case ast.Unary(op="-", operand=x) if _number(x) is not None:
            return -_number(x)
    return None


def _names_only(e, params: set, sd) -> None:
    if isinstance(e, ast.Name) and e.id not in params:
        raise DslcError(f"'{e.id}' is not a parameter of the schedule of {sd.func}", e.span)
    for v in vars(e).values():
        if isinstance(v, ast.Expr):
            _names_only(v, params, sd)
