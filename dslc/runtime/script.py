"""Running a script's statements top to bottom.

Function bodies are the backends' business; this module evaluates the small
imperative layer around them (``load``, calls, ``map``, indexing a result,
``print``), binds arguments once for every backend, and names the statement
and task in any error raised while running.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dslc.lang import types as T
from dslc import runlog
from dslc.check.calls import arrange, value_fits
from dslc.errors import DslcError
from dslc.lang.arith import check_int, check_literal, power, prob_op, to_log
from dslc.frontend import ast
from dslc.interp.compile import span_text
from dslc.runtime.binding import bind_call, bind_value, check_index_args, check_links
from dslc.runtime import filtered
from dslc.runtime.shipped import backend_globals
from dslc.lang import script_stats
from dslc.lang.batch import SeqColumn, Shared, TaskBatch, ValueColumn
from dslc.lang.limits import check_map
from dslc.lang.records import Records, is_list, record_names
from dslc.lang.results import Axis, MapResult, Prob, TableResult, to_array, wrap
from dslc.lang.fasta import resolve_path
from dslc.lang.sequences import describe
from dslc.lang.values import Sequence
from dslc.check.params import STDIN
from dslc.check.trace_forms import is_form as is_trace_form
from dslc.check.params import resolve as resolve_params
from dslc.check.script import refuse_negation, refuse_prob_op
from dslc.progress import Progress


class ScriptRunner:
    def __init__(self, program, make_backend, base_dir: str | None = None, quiet: bool = False,
                 progress_stream=None, params: dict | None = None, from_text: bool = False,
                 progress=None):
        """``make_backend(program, globals)`` builds the backend over the script's
        environment, which this runner fills as statements run. ``params``: values
        for the script's ``param`` declarations (text from the command line where
        ``from_text``), checked before anything runs. ``progress``: True, False or
        ``f(done, total)`` (runtime.progress); None follows ``quiet``."""
        self.p = program
        self.params = resolve_params(program.param_specs, params or {}, from_text)
        self._stdin = None
        self.base_dir = Path(base_dir) if base_dir else Path.cwd()
        self.progress = (not quiet) if progress is None else progress
        self.stream = progress_stream if progress_stream is not None else sys.stderr
        self.globals = backend_globals(program)
        self.backend = make_backend(program, self.globals)

    def run(self, printed: list | None = None) -> list[tuple[str, object]]:
        """Run every statement; returns ``(printed name, value)`` in print order.
        ``printed``: a list to append them to as they are made (what a caller
        still has when a later statement fails: ``dslc run`` writes it)."""
        if self.p.schedules:
            from dslc.plan import verify_all
            verify_all(self.p)
        printed = [] if printed is None else printed
        for st in self.p.ast.stmts:
            if isinstance(st, ast.Assign):
                self.globals[st.name] = self.eval(st.expr)
            elif isinstance(st, ast.Print):
                printed.append((span_text(st.expr.span), self.eval(st.expr)))
            elif isinstance(st, ast.ParamDef):
                self.globals[st.name] = self.params[st.name]
        return printed

    # ----------------------------------------------------------------- eval
    def eval(self, e: ast.Expr):
        match e:
            case ast.Num(value=v):
                return check_literal(v, e.span)
            case ast.Bool(value=v) | ast.Str(value=v):
                return v
            case ast.Inf():
                return float("inf")
            case ast.Name(id=n):
                if n in self.globals:
                    return self.globals[n]
                return self.p.alphabets[n]
            case ast.Load():
                return self._load(e)
            case ast.Call():
                return self._call(e)
            case ast.Map():
                return self._map(e)
            case ast.Index():
                return self._index(e)
            case ast.Unary(op="-", operand=x):
                v = self.eval(x)
                if isinstance(v, Prob):
                    refuse_negation(e.span)
                return _checked(-self._num(v, x), e.span)
            case ast.Unary(op="not", operand=x):
                return not self.eval(x)
            case ast.Binary():
                return self._binary(e)
            case ast.Extremum(args=(_,)):
                return self._whole(e)
            case ast.If(cond=c, then=a, orelse=b):
                return self.eval(a) if self.eval(c) else self.eval(b)
        raise DslcError("this expression cannot be evaluated in a script statement", e.span)

    def _num(self, v, e):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DslcError(f"expected a number, got {describe(v)}", e.span)
        return v

    def _binary(self, e: ast.Binary):
        return self._combine(e, self.eval(e.left), self.eval(e.right))

    def _whole(self, e: ast.Extremum):
        """``sum(r)``, ``max(r)``, ``min(r)`` of a map result or table: its values
        folded in order with the script's own ``+``, ``max``, ``min`` (so an int
        total is checked for overflow, probabilities add in log space, ``inf``
        absorbs); an empty result gives the empty reduction's value."""
        r = self.eval(e.args[0])
        if not isinstance(r, (MapResult, TableResult)):
            raise DslcError(f"{e.op}(r) folds the numbers of a map result or a table, "
                            f"not {describe(r)}", e.args[0].span)
        step = ast.Binary("+" if e.op == "sum" else e.op, e.args[0], e.args[0], e.span)
        acc = None
        for idx in np.ndindex(*np.shape(r.values)):
            v = r[idx]
            if v is None:
                continue  # (a cell outside a declared range: no value)
            acc = v if acc is None else self._combine(step, acc, v)
        if acc is None:
            return {"sum": 0, "max": -math.inf, "min": math.inf}[e.op]
        return acc

    def _combine(self, e: ast.Binary, a, b):
        """``a OP b`` for the values of ``e``'s operands."""
        if e.op in ("and", "or"):
            return (a and b) if e.op == "and" else (a or b)
        if isinstance(a, Prob) or isinstance(b, Prob):
            if e.op not in ("==", "!=") or (_numeric(a) and _numeric(b)):
                return self._prob_binary(e, a, b)
        if e.op in ("==", "!="):
            return (a == b) == (e.op == "==")
        x, y = self._num(a, e.left), self._num(b, e.right)
        ops = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
               "max": lambda: max(x, y), "min": lambda: min(x, y),
               "<": lambda: x < y, "<=": lambda: x <= y, ">": lambda: x > y, ">=": lambda: x >= y}
        if e.op in ("/", "%") and y == 0:
            raise DslcError("division by zero", e.span)
        ops["/"] = lambda: x / y
        ops["%"] = lambda: x % y
        ops["**"] = lambda: power("int" if _int(x) and _int(y) else "float", e.span)(x, y)
        return _checked(ops[e.op](), e.span)

    def _prob_binary(self, e: ast.Binary, a, b):
        """Arithmetic with a probability, as in a function body: a number with a
        probability becomes one (its log is taken), the result stays in log space
        (``*`` adds logs, ``/`` subtracts them, ``+`` is log-sum-exp, ``max``,
        ``min`` and comparisons compare logs) and ``-``, ``%`` are refused."""
        for v, side in ((a, e.left), (b, e.right)):
            if not isinstance(v, Prob):
                self._num(v, side)
        refuse_prob_op(e.op, _kind(a), _kind(b), e.span)
        x, y = (v.log if isinstance(v, Prob) else to_log(v, side.span)
                for v, side in ((a, e.left), (b, e.right)))
        if e.op in ("*", "/", "+"):
            log = prob_op(e.op, e.span)(x, y)
            if log != log:
                raise DslcError("undefined arithmetic on probabilities", e.span)
            return Prob(log)
        if e.op in ("max", "min"):
            return Prob(max(x, y) if e.op == "max" else min(x, y))
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y,
                "==": x == y, "!=": x != y}[e.op]

    def _reading(self, path: str) -> None:
        """Tell the backend how large a sequence file it is about to read (``auto``
        may start preparing the GPU meanwhile: AutoBackend.reading)."""
        reading = getattr(self.backend, "reading", None)
        if reading is not None:
            try:
                size = os.path.getsize(path)
            except OSError:
                return  # the reader reports the file
            reading(size)

    def _load(self, e: ast.Load):
        path = self.eval(e.path)
        if not isinstance(path, str):
            raise DslcError("load needs a file name (a string)", e.path.span)
        kind, arg = e.type.name, e.type.arg
        if path == STDIN:
            return self._load_stdin(e)
        full = str(self.resolve(path))
        if kind == "seq":
            from dslc.runtime.formats import read_sequences
            self._reading(full)
            return read_sequences(full, self.p.alphabets[arg], e.span)
        spec = self.p.registry.loaders[kind]
        return spec.load(arg, full, e.span, self.p.ext_context())

    def _load_stdin(self, e: ast.Load):
        """``-`` as a file path: FASTA text on standard input, read once (a second
        load of ``-`` sees the same records)."""
        from dslc.lang.fasta import parse_fasta_text

        if e.type.name != "seq":
            raise DslcError(f"standard input ('-') gives FASTA sequences, not a {e.type}",
                            e.path.span)
        if self._stdin is None:
            try:
                self._stdin = sys.stdin.read()
            except (OSError, UnicodeDecodeError) as err:
                raise DslcError(f"cannot read standard input: {err}", e.span) from None
        return parse_fasta_text(self._stdin, self.p.alphabets[e.type.arg], "<stdin>", e.span)

    def resolve(self, path: str) -> Path:
        return resolve_path(path, self.base_dir)

    def _args(self, e):
        return [self.eval(a) for a in e.args]

    def _call(self, e: ast.Call):
        if script_stats.is_builtin(e.func, self.p.functions):
            return script_stats.call(e, self._args(e))
        if is_trace_form(e.func, self.p.functions):
            from dslc.runtime import trace_forms  # tracebacks load when a script traces
            return trace_forms.evaluate(self, e)
        tf = self.p.functions[e.func]
        values = self._args(e)
        what = f"{e.func}(...) at line {e.span.line}"
        if len(values) == len(tf.params):
            values = arrange(tf.params, values, value_fits)
            bound = bind_call(tf, values, self.p, e.span)
            raw = self.backend.value(e.func, bound, e.span, what)
            runlog.ran(self.backend, "call", e.func)
            return wrap(raw, tf.ret.name)
        if not tf.is_table:
            return self._every_point(tf, e, values, what)
        calling = tf.calling_params
        bound = {}
        for p, v in zip(calling, values):
            bound[p.name] = bind_value(v, p.type, self.p, e.span, dict(zip(
                (q.name for q in calling), values)), what=f"argument '{p.name}' of {tf.name}")
        check_links(tf, bound, self.p, e.span)
        raw = self.backend.table(e.func, bound, e.span, what)
        runlog.ran(self.backend, "table", e.func)
        return TableResult(e.func, tf.ret.name, _typed(raw, tf.ret.name),
                           table_axes(tf, bound, self.p))

    def _every_point(self, tf, e: ast.Call, values: list, what: str) -> TableResult:
        return every_point(self.backend, self.p, tf, values, e.span, what)

    def _map(self, e: ast.Map):
        tf = self.p.functions[e.func]
        operands = [self.eval(o) for o in e.operands]
        spans = [o.span for o in e.operands]
        grid = filtered.grid_of(operands, spans, e.func, _labels, seq_lengths)
        lists = [(k, v) for k, v in enumerate(operands) if is_list(v)]
        if grid is None:
            shape = tuple(len(v) for _, v in lists)
            axes = tuple(Axis(span_text(e.operands[k].span), _labels(v), lengths=seq_lengths(v))
                         for k, v in lists)
        else:
            shape, axes = grid.shape, grid.axes
        check_map(shape, e.func, e.span)
        count = int(np.prod(shape))
        keep = self._kept(e, grid, operands, shape, axes)
        kept = None if keep is None or keep.all() else np.flatnonzero(keep)
        if grid is not None:
            ids = np.arange(count, dtype=np.int64) if kept is None else kept
            batch = grid_batch(tf, self.p, grid, operands, ids, spans, e.span,
                               lambda i, p: f"operand {i + 1} of map({e.func}, ...)")
            if batch is None:
                batch = TaskBatch.of(self._tasks(
                    tf, e, filtered.cell_values(grid, operands, ids),
                    {k for k, how in enumerate(grid.reads) if how is not None}))
        else:
            batch = self._columnar(tf, e, operands, lists, shape)
            if batch is None:
                batch = TaskBatch.of(self._tasks(tf, e, self._crossed(operands, lists),
                                                 {k for k, _ in lists}))
            if kept is not None:
                batch = batch.subset(kept)
        results = run_map(self.backend, e.func, batch, e.span, self.progress,
                          self.stream) if len(batch) else []
        runlog.ran(self.backend, f"map of {len(batch)} tasks" if kept is None else
                   f"map of {len(batch)} of {count} tasks", e.func)
        values = filtered.scatter(results, kept, count, tf.ret.name).reshape(shape)
        return MapResult(e.func, tf.ret.name, values, axes,
                         tasks=MapTasks(self, e.func, batch, e.span, kept))

    def _kept(self, e: ast.Map, grid, operands: list, shape, axes) -> np.ndarray | None:
        """The tasks to run, as a flat mask (None: all of them): those the map's
        ``where`` keeps and, over earlier results, those whose cells are present."""
        keep = None if grid is None else filtered.present(grid, operands)
        if e.where is not None:
            mask = filtered.where_mask(self.eval(e.where), e.where.span, shape, axes)
            keep = mask if keep is None else keep & mask
        return keep

    def _columnar(self, tf, e: ast.Map, operands: list, lists: list, shape) -> TaskBatch | None:
        spans = [o.span for o in e.operands]
        return columnar_batch(tf, self.p, operands, lists, shape, spans, e.span,
                              lambda i, p: f"operand {i + 1} of map({e.func}, ...)")

    @staticmethod
    def _crossed(operands: list, lists: list):
        """Each task's operand values, the lists crossed (the last varying fastest)."""
        for combo in itertools.product(*(v for _, v in lists)):
            values = list(operands)
            for (k, _), item in zip(lists, combo):
                values[k] = item
            yield values

    def _tasks(self, tf, e: ast.Map, combos, listed: set[int]) -> list[dict]:
        """Every task of a map bound one by one (see :meth:`_columnar`): ``combos``
        gives each task's operand values; ``listed``: the operands that differ
        from task to task (the others are bound once)."""
        params = tf.map_params
        fixed: dict[int, object] = {}  # operands every task shares, bound once
        spans = {p.name: o.span for p, o in zip(params, e.operands)}
        tasks = []
        for values in combos:
            raw = dict(zip((p.name for p in params), values))
            task = {}
            for i, (p, v) in enumerate(zip(params, values)):
                if i in fixed:
                    task[p.name] = fixed[i]
                    continue
                task[p.name] = bind_value(v, p.type, self.p, e.operands[i].span, raw,
                                          what=f"operand {i + 1} of map({e.func}, ...)")
                if i not in listed and _binds_alone(p.type):
                    fixed[i] = task[p.name]
            check_index_args(tf, task, e.span)
            check_links(tf, task, self.p, e.span, spans)
            tasks.append(task)
        return tasks

    def _index(self, e: ast.Index):
        base = self.eval(e.base)
        idx = [self.eval(i) for i in e.indices]
        for i, sub in zip(idx, e.indices):
            if isinstance(i, bool) or not isinstance(i, int):
                raise DslcError(f"an index must be an int, got {describe(i)}", sub.span)
        if isinstance(base, (TableResult, MapResult)):
            if len(idx) != base.values.ndim:
                raise DslcError(f"this result has {base.values.ndim} dimension(s), "
                                f"indexed with {len(idx)}", e.span)
            for k, (i, n) in enumerate(zip(idx, base.values.shape)):
                if not 0 <= i < n:
                    raise DslcError(f"index {i} is outside 0..{n - 1} (dimension {k + 1})", e.span)
            if base.values[tuple(idx)] is None:
                where = ("is a task its map's where skipped" if isinstance(base, MapResult)
                         else f"is outside the declared ranges of {base.func}")
                raise DslcError(f"cell [{', '.join(map(str, idx))}] {where}", e.span)
            return base[tuple(idx)]
        if isinstance(base, tuple) and len(idx) == 1 and 0 <= idx[0] < len(base):
            return base[idx[0]]  # a tuple's component (the checker saw a literal)
        if is_list(base) and len(idx) == 1:
            if not 0 <= idx[0] < len(base):
                raise DslcError(f"index {idx[0]} is outside the list (0..{len(base) - 1})", e.span)
            return base[idx[0]]
        raise DslcError(f"{describe(base)} cannot be indexed", e.span)


@dataclass(frozen=True, eq=False)
class MapTasks:
    """A map's tasks as the run bound them, to trace some of them again
    (``dslc run --align``: the rows of a hit table)."""

    runner: "ScriptRunner"
    func: str
    batch: TaskBatch
    span: object
    kept: np.ndarray | None = None  # the tasks the batch holds, where a where skipped some

    def alignments(self, ks: list[int]) -> list:
        """The alignment of each task ``ks[i]`` (its position in the map's tasks:
        one that ran)."""
        from dslc.runtime import trace_forms  # tracebacks load when a run traces

        if self.kept is not None:
            ks = np.searchsorted(self.kept, np.asarray(ks, dtype=np.int64)).tolist()
        return trace_forms.map_alignments(self.runner, self.func, self.batch, self.span, ks)


def run_map(backend, func: str, tasks: list[dict], span, want, stream=None) -> list:
    """``backend.map`` with the progress the user asked for (runtime.progress):
    the backend calls ``update(done)`` as groups of tasks finish."""
    bar = Progress(len(tasks), want, stream)
    try:
        return backend.map(func, tasks, span, bar.update if bar.active else None)
    finally:
        bar.close()


def columnar_batch(tf, program, operands: list, lists: list, shape, spans: list, span,
                   what) -> TaskBatch | None:
    """The tasks of a map whose listed operands are all loaded records bound to
    sequence parameters, as columns straight from the packed records: every
    operand is bound once (a record list by its alphabet, which all its records
    share), so no task is made. None where binding depends on the task (an
    ``index`` argument, a ``seq[*]`` given a string): the caller binds task by
    task. ``spans``: each operand's; ``what(i, param)`` names operand ``i`` in
    errors."""
    params = tf.map_params
    listed = dict(lists)
    if not lists or any(not isinstance(v, Records) or not isinstance(params[k].type, T.SeqT)
                        for k, v in lists):
        return None
    if any(isinstance(p.type, T.IndexT) or (k not in listed and not _binds_alone(p.type))
           for k, p in enumerate(params)):
        return None
    count = 1
    for n in shape:
        count *= n
    axes = np.unravel_index(np.arange(count, dtype=np.int64), shape) if count else \
        [np.zeros(0, np.int64)] * len(shape)
    where = {k: axis.astype(np.int64) for (k, _), axis in zip(lists, axes)}
    raw = dict(zip((p.name for p in params), operands))
    columns, first = {}, {}
    for i, (p, v) in enumerate(zip(params, operands)):
        if i in listed:
            if len(v):  # the records share an alphabet: the first binds for all
                first[p.name] = bind_value(v[0], p.type, program, spans[i], raw,
                                           what=what(i, p))
            columns[p.name] = SeqColumn(v.pack, where[i])
        else:
            first[p.name] = bind_value(v, p.type, program, spans[i], raw, what=what(i, p))
            columns[p.name] = Shared(first[p.name])
    if count:
        check_links(tf, first, program, span, {p.name: sp for p, sp in zip(params, spans)})
    return TaskBatch(tuple(p.name for p in params), columns, count)


def grid_batch(tf, program, grid, operands: list, ids: np.ndarray, spans: list, span,
               what) -> TaskBatch | None:
    """The tasks ``ids`` of a map over earlier results (dslc.runtime.filtered) as
    columns: each result's cells bound once per task, a list of records as the
    packed buffer read at each task's row of its axis, another list's items bound
    once each, a shared operand once. None where binding depends on the task (an
    ``index`` argument, a ``seq[*]`` given a string, a list of sequences not read
    from a file): the caller binds task by task (``cell_values``)."""
    params = tf.map_params
    if any(isinstance(p.type, T.IndexT) for p in params):
        return None
    where = np.unravel_index(ids, grid.shape) if grid.shape else ()
    raw = dict(zip((p.name for p in params), operands))
    columns = {}
    for i, (p, v, how) in enumerate(zip(params, operands, grid.reads)):
        def bind(x, p=p, i=i):
            return bind_value(x, p.type, program, spans[i], raw, what=what(i, p))
        if how == "cell":
            cells = v.values.reshape(-1)[ids].tolist()
            columns[p.name] = ValueColumn(tuple(bind(wrap(c, v.value_type)) for c in cells),
                                          np.arange(len(ids), dtype=np.int64))
        elif how is None:
            if not _binds_alone(p.type):
                return None
            columns[p.name] = Shared(bind(v))
        elif isinstance(v, Records) and isinstance(p.type, T.SeqT):
            if len(ids):  # the records share an alphabet: the first binds for all
                bind(v[0])
            columns[p.name] = SeqColumn(v.pack, where[how].astype(np.int64))
        elif not isinstance(p.type, T.SeqT):
            columns[p.name] = ValueColumn(tuple(bind(x) for x in v), where[how].astype(np.int64))
        else:
            return None
    batch = TaskBatch(tuple(p.name for p in params), columns, len(ids))
    if len(ids):
        check_links(tf, batch[0], program, span, {p.name: sp for p, sp in zip(params, spans)})
    return batch


def table_axes(tf, bound: dict, program) -> tuple[Axis, ...]:
    """The axes of ``tf``'s whole table for the bound calling arguments: an
    index axis labelled by the residues of its sequence (position 0 by none), a
    symbol axis by its alphabet."""
    axes = []
    for p in tf.rec_params:
        if isinstance(p.type, T.IndexT):
            seq = bound[p.type.seq]
            syms = seq.alphabet.symbols
            axes.append(Axis(p.name, ("",) + tuple(syms[c] for c in seq.codes), numbered=True))
        elif isinstance(p.type, T.SymT):
            axes.append(Axis(p.name, program.alphabets[p.type.alpha.name].symbols))
        else:
            axes.append(Axis(p.name, _element_labels(p.type, bound, program), numbered=True))
    return tuple(axes)


def every_point(backend, program, tf, values: list, span, what: str) -> TableResult:
    """``f(calling arguments)`` of a function without a table (the checker lets only
    those whose recursive parameters span a box through: positions, symbols, model
    elements): ``f`` called at every point of that box, each call as a call with all
    its arguments, so every backend gives its own values, the table printed and
    folded like a recursive function's."""
    calling = tf.calling_params
    raw = dict(zip((p.name for p in calling), values))
    bound = {p.name: bind_value(v, p.type, program, span, raw,
                                what=f"argument '{p.name}' of {tf.name}")
             for p, v in zip(calling, values)}
    ranges = [_element_range(p.type, bound, program) for p in tf.rec_params]
    cells = []
    for point in itertools.product(*ranges):
        raw.update(zip((p.name for p in tf.rec_params), point))
        full = bind_call(tf, [raw[p.name] for p in tf.params], program, span)
        cells.append(backend.value(tf.name, full, span, what))
    runlog.ran(backend, f"{len(cells)} calls", tf.name)
    flat = np.empty(len(cells), dtype=object)
    flat[:] = cells
    shape = tuple(len(r) for r in ranges)
    return TableResult(tf.name, tf.ret.name, to_array(flat, tf.ret.name).reshape(shape),
                       table_axes(tf, bound, program))


def _element_range(t, bound: dict, program) -> list:
    """The arguments a recursive parameter of type ``t`` takes over its whole
    domain: positions ``0 .. len(s)``, an alphabet's symbols, a model's elements."""
    if isinstance(t, T.IndexT):
        return list(range(len(bound[t.seq]) + 1))
    if isinstance(t, T.SymT):
        return list(program.alphabets[t.alpha.name].symbols)
    return list(range(program.registry.types[t.name].size(bound[t.owner])))


def _element_labels(t, bound: dict, program) -> tuple[str, ...] | None:
    """The names of an extension's elements along a table axis (``state[h]``: the
    model's state names), where the type's extension gives them (TypeSpec.labels)."""
    if not isinstance(t, T.ExtT) or t.owner is None or t.owner not in bound:
        return None
    spec = program.registry.types.get(t.name)
    names = getattr(spec, "labels", None)
    return None if names is None else tuple(str(x) for x in names(bound[t.owner]))


def seq_lengths(items) -> tuple[int, ...] | None:
    """The lengths of a map operand's items where all are sequences (records: read
    from their offsets, no sequence is made)."""
    if isinstance(items, Records):
        return tuple(np.diff(items.pack.offsets).tolist())
    if items and all(isinstance(x, Sequence) for x in items):
        return tuple(len(x) for x in items)
    return None


def _labels(items) -> tuple[str, ...]:
    """The labels of a listed operand's items: records by their names, read from
    the packed names (no sequence is made)."""
    if isinstance(items, Records):
        return record_names(items.pack)
    return tuple(_label(x) for x in items)


def _label(x) -> str:
    if isinstance(x, Sequence):
        return x.name
    return str(getattr(x, "name", x))


def _typed(raw, value_type: str):
    return to_array(raw, value_type).reshape(raw.shape)


def _binds_alone(t) -> bool:
    """Whether binding a value to type ``t`` depends on nothing but the value,
    so that an operand shared by every task of a map is bound once: one object
    for all (a query given as a string is encoded once, and the backends see
    at a glance that every task shares it). A ``seq[*]`` given as a string
    takes its alphabet from a model among the other operands, which may differ
    from task to task."""
    return not (isinstance(t, T.SeqT) and t.alpha.kind != "named")


def _int(v) -> bool:
    """An int value of a script (the int infinities are floats, as in functions)."""
    return type(v) is int or isinstance(v, float) and math.isinf(v)


def _numeric(v) -> bool:
    return isinstance(v, (Prob, int, float)) and not isinstance(v, bool)


def _kind(v) -> str:
    """A numeric script value's type name, as the checker names it."""
    return "prob" if isinstance(v, Prob) else "int" if type(v) is int else "float"


def _checked(v, span):
    """A script's arithmetic obeys the language's rules: an int outside 64 bits
    and ``inf - inf`` (NaN) are errors, as inside functions (interp.arith)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, float) and v != v:
        raise DslcError("undefined arithmetic (inf - inf, 0 * inf or inf / inf)", span)
    return check_int(v, span) if type(v) is int else v
