"""Register tiling for task-per-thread kernels (issue: "several cells of the
inner dimension per thread per step, held in registers").

A thread runs its task alone, so it need not follow the wavefront: any order in
which every cell's reads come first will do. When a group's dependences are
*uniform and non-negative* in two dimensions (every call reads
``f(x_t - d_t, x_u - d_u)`` with constant ``d_t, d_u >= 0``: a fully
permutable band, such as three functions that read each other one step back),
the sweep can be strip-mined along one dimension ``t`` into tiles of ``R`` rows and
stream along the other, ``u``:

    for t0 in 0, R, 2R, ...:           # a tile of R rows
        for u in 0 .. E_u:             # stream the other dimension
            for r in 0 .. R-1:         # unrolled: row t0 + r, in registers
                cells of every function at (t0 + r, u), callees first

A read of ``f(x_t - d_t, x_u - d_u)`` is then a register: row ``r - d_t`` of this
tile, ``d_u`` columns back (registers shift by one column per step, only as far
back as some call reads), or, for a row of the previous tile, a boundary buffer
in global memory holding that tile's last ``max d_t`` rows for every ``u``
(double-buffered by tile parity, task innermost so it coalesces). Only those
boundary rows touch memory: everything else is registers, which is what makes
hand-written alignment kernels fast; here it follows from the dependence
distances alone.

``t`` is the dimension whose extent is shared by every task where there is one
(the query of a database search: no divergence at the tile's last rows), else
the first. ``R`` defaults to :data:`ROWS` (``DSLC_CUDA_TILE`` overrides).

The generator builds one column's rows of each part of the sweep (the inner and
edge variants, the peeled head columns) as device functions beside the task
(``_tile_*``), with every read of the group as a ``kernel.register_tile.TileRead``
(the call's distances back) and every guard as an ``if`` inside a cell whose box
is recorded, and records the structure around them (kernel.strip_mine ``Stream``,
``Row``, ``Start``, ``Tiles``). The strategy's passes (kernel.strategies, run by
``lower()`` over the task and those functions) then do the rest: the
strip-mining (the tile and column loops, register and boundary shifts, boundary
loads and stores, row tests), the register tile's scalar replacement (which
register holds each read), guard specialisation over the boxes and the value type.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dslc.check import tir
from dslc.lang import types as T
from dslc.deps.extract import dependence_graph
from dslc.emit import cpu, cuda
from dslc.emit.built import Built
from dslc.emit.cpu import (arg_name, argument, fused_emitter, fused_init_ir, fused_step_expr,
                           length)
from dslc.emit.cuda import FAIL, storage_param
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.ir import TaskArg, Text
from dslc.kernel.module import Function, Module
from dslc.kernel.register_tile import Tile, TileRead, replace_reads
from dslc.kernel.strip_mine import Row, Start, Stream, Tiles, if_inside, registers
from dslc.kernel.value_type import ValueType
from dslc.options import CompileOptions
from dslc.plan.task import GroupPlan, TaskPlan
from dslc.emit.pyexpr import ExprEmitter, Lines, NotCompilable, Rule
from dslc.kernel.boxes import INF, constants, live_guards
from dslc.poly import loopir as L
from dslc.targets.printer import VALUE, CudaPrinter

ROWS = 32

# float32 min/max of a register-tiled kernel. NaN is where Python's max and
# IEEE fmax differ; an integer table only meets NaN after inf - inf, which the
# language makes an error, and the compiled sweeps do not detect it either
# way. The simulator has no libdevice: Python's own min and max there.
SIMULATED_FMAX = "_fmax, _fmin = max, min\n"
DEVICE_FMAX = "from numba.cuda import libdevice\n_fmax, _fmin = libdevice.fmaxf, libdevice.fminf\n"


def fmax_source(simulated: bool) -> str:
    """The kernel module's ``_fmax`` and ``_fmin`` (chosen when the code is
    generated: the compile options, the simulator among them, are part of every cache key)."""
    return SIMULATED_FMAX if simulated else DEVICE_FMAX


def tile_rows(options) -> int:
    """Rows per register tile: the compile options' ``cuda_tile``, else ``ROWS``."""
    return options.cuda_tile or ROWS


def uniform_deltas(program, g: GroupPlan) -> dict:
    """Call span -> per-dimension distance of every call in the group, or raise
    NotCompilable when some call is not a uniform, non-negative step back."""
    graph = dependence_graph(program.functions, g.functions, program.consts)
    params = {f.name: f.params for f in graph.functions}
    out = {}
    for d in graph.deps:
        mine = params[d.caller]
        if len(mine) != 2 or len(params[d.callee]) != 2:
            raise NotCompilable("register tiles need two recursive dimensions")
        deltas = []
        for k, a in enumerate(d.args):
            if a is None or a.coeffs != ((mine[k], 1),) or a.const > 0:
                raise NotCompilable(f"call to {d.callee} is not a uniform step back")
            deltas.append(-a.const)
        out[d.span] = tuple(deltas)
    return out


def _flatten(e, op: str) -> list:
    """Operands of a chain of the same min or max."""
    if isinstance(e, tir.MinMax) and e.op == op:
        return _flatten(e.left, op) + _flatten(e.right, op)
    return [e]


def _signed_terms(e, sign: int = 1):
    """``a - b + c`` as (+1, a), (-1, b), (+1, c)."""
    if isinstance(e, tir.Arith) and e.op in "+-" and e.type == T.INT:
        yield from _signed_terms(e.left, sign)
        yield from _signed_terms(e.right, sign if e.op == "+" else -sign)
    else:
        yield sign, e


def _join(terms, value, b) -> ir.Expr:
    """``(a - b + c)`` of signed terms ``(+1, a), (-1, b), (+1, c)`` (``value``: each
    term's record), in parentheses."""
    out = None
    for sg, x in terms:
        v = value(x, b)
        out = (ir.Unary("-", v, paren=False) if sg < 0 else v) if out is None \
            else ir.Bin("-" if sg < 0 else "+", out, v, bare=True)
    return ir.Paren(out)


def param_vars(e: tir.TExpr) -> set[str] | None:
    """Parameters read by index expression ``e``; None where it reads a local
    (a reduction variable: not invariant anywhere outside its reduction)."""
    out: set[str] = set()
    for x in _subexprs(e):
        if isinstance(x, tir.Var):
            if x.scope == "local":
                return None
            if x.scope == "param":
                out.add(x.name)
        elif not isinstance(x, (tir.Lit, tir.Neg, tir.Arith, tir.Builtin, tir.Coerce)):
            return None
    return out


def _subexprs(e):
    yield e
    for x in tir.children(e):
        yield from _subexprs(x)


THREAD_BLOCK = 128  # task-per-thread threads per block (dslc.cuda.launch says why)


def block_size(options) -> int:
    """Threads per block of task-per-thread kernels (and the interleaving of
    their sequences): the compile options' ``cuda_block``, else ``THREAD_BLOCK``."""
    return options.cuda_block or THREAD_BLOCK


def _assign(self, b: Lines, name: str, value) -> None:
    """``name = value`` into the task's lines before its tiles (``b``), the name
    recorded as it is emitted (extents, numbers in the table type, the requested
    cell's result, reduction bounds and accumulators). The tile device functions
    take exactly these names (and the task's parameters) as parameters, so what
    they are passed comes from this record, never from reading the lines back.
    Temporaries an expression emits on its way (``_acc3``) are not recorded: only
    the assigned value reads them."""
    b.assign(name, value)
    self.assigned.append(name)


@dataclass(frozen=True)
class _Function:
    """A tile device function before the strategy's passes: its name, parameters
    and body (printed after the task, :func:`generate`)."""

    name: str
    params: tuple
    body: Lines
    known: tuple = ()  # defined before its body: the parameters, what its head call returns


def _past(extent: str) -> ir.Expr:
    """``E + 1``: one past extent ``E`` (a loop's end)."""
    return ir.bare("+", ir.Name(extent), ir.Const(1))


def tile_rules() -> tuple[Rule, ...]:
    """The rules (pyexpr.Rule) of the tile's code. Sequences that differ between
    tasks are interleaved by thread block: residue ``j`` of the task of thread
    ``ln`` lies at ``base + j * BLOCK + ln``, so the threads of a warp reading their
    ``j``-th residues read one line. Where values are float32 integers (the static
    bound, emit.precision) a max chain and a sum are regrouped (:func:`_tile_minmax`,
    :func:`_tile_arith`)."""
    return (Rule("seqindex", _tile_seqindex), Rule("builtin", _tile_builtin),
            Rule("minmax", _tile_minmax), Rule("arith", _tile_arith))


def _tile_seqindex(em, default, e, b):
    """A read of a sequence, hoisted out of the stream where it is invariant."""
    n = len(b.stmts)
    text = _tile_read(em, default, e, b)
    if len(b.stmts) == n and e.span in em.safe_indexes:
        name = hoist_read(em.names.gen, e, em.text(text), text)
        return text if name is None else ir.Name(name)
    return text


def _tile_read(em, default, e, b):
    name = _interleaved(em, e.seq)
    if name is None:
        return default(e, b)
    if e.span not in em.safe_indexes:
        raise NotCompilable("a sequence index not proved in range")
    # (BLOCK: the module's constant, the interleaving fixed when the code is made)
    at = ir.bare("+", ir.Name(f"ib_{name}"), ir.bare(
        "*", ir.Paren(em.as_int(e.index, b)), ir.Const(block_size(em.names.gen.options), "BLOCK")),
        ir.Name("ln"))
    return em.pr.ir_int64(ir.Load(f"a_{name}", (at,), "global"))


def _exact(em) -> bool:
    """Values are float32 integers under the static bound (emit.precision):
    every sum and max below is exact, so their operands may be regrouped
    and reordered without changing a bit (no NaN: see fmax_source)."""
    return em.names.gen.exact


def _tile_minmax(em, default, e, b):
    """float32 values: one max.f32 instruction per operand rather than a
    compare and a select. A chain ``max(max(a, b), c)`` is flattened and
    the operands computed in this column's earlier rows go last, so the
    row-to-row dependence passes through one max, not several."""
    ints = e.type == T.INT and em.index(e.left) and em.index(e.right)
    if ints or not _exact(em):
        return default(e, b)
    gen = em.names.gen
    operands = []  # (text, reads a cell computed earlier in this column)
    for x in _flatten(e, e.op):
        before = gen.current_reads
        text = em.as_value(x, b)
        operands.append((text, gen.current_reads != before))
    operands.sort(key=lambda tc: tc[1])  # stable: the others keep their order
    texts = [t for t, _ in operands]
    out = texts[0]
    for x in texts[1:]:
        out = ir.Call(f"_f{e.op}", (out, x))
    return out


def _tile_arith(em, default, e, b):
    """A sum whose terms include several run-invariant ones (``h - open -
    ext``) adds their total once: one addition on the dependence chain."""
    if e.type != T.INT or e.op not in "+-" or em.index(e) or not _exact(em) or \
            any(isinstance(x, tir.Arith) and em.undefined(x) for x in tir.walk(e)):
        return default(e, b)  # (a regrouped sum would lose its _undef checks)
    terms = list(_signed_terms(e))
    fixed = [(sg, x) for sg, x in terms if _invariant(em, x)]
    moving = [(sg, x) for sg, x in terms if not _invariant(em, x)]
    if len(fixed) < 2 or not moving:
        return default(e, b)
    chain = None  # the moving terms as records: their tile reads stay for the pass
    for sg, x in moving:
        v = _term(em, x, b)
        chain = (ir.Unary("-", v, paren=False) if sg < 0 else v) if chain is None \
            else ir.Bin("-" if sg < 0 else "+", chain, v, bare=True)
    if len(moving) == 1:
        chain = ir.Call("", (chain,))  # (printed in parentheses)
    return ir.Bin("+", chain, _join(fixed, em.as_value, b), paren=True)


def _term(em, x, b) -> ir.Expr:
    """A moving term of a regrouped sum as a record, spelled as it would be alone.
    One the printer would put in parentheses inside the sum (an unparenthesised
    operation) stays text, its tile reads replaced here by the pass's own rule."""
    v = em.as_value(x, b)
    if isinstance(v, (ir.Bin, ir.Unary)) and not v.paren:
        return Text(em.text(replace_reads(v, em.names.gen.tile)))
    return v


def _invariant(em, x) -> bool:
    """A finite literal or a number argument: the same all through a task."""
    while isinstance(x, tir.Coerce):
        x = x.expr
    if isinstance(x, tir.Lit):
        return isinstance(x.value, int) and not isinstance(x.value, bool)
    return isinstance(x, tir.Var) and x.scope == "param" and x.name not in em.rec \
        and x.type in (T.INT, T.FLOAT)


def _tile_builtin(em, default, e, b):
    name = _interleaved(em, e.args[0]) if e.name == "len" else None
    return ir.Name(f"n_{name}") if name is not None else default(e, b)


def _interleaved(em, x) -> str | None:
    if isinstance(x, tir.Var) and x.scope == "param":
        gen = em.names.gen
        name = gen.scope_name(x.name)
        if name in gen.interleaved:
            return name
    return None


# ---------------------------------------------------------------- pieces and the module
# (``self``: the task being built, an emit.cpu task)

def _start(self, program, plan: TaskPlan, shared_dims: frozenset, rows: int | None, dtype: str,
           value: ValueType | None, options=None) -> None:
    """The tile's own state, on the task (``self``) once it is made."""
    # the CompileOptions (block size, tile rows, the simulator); their defaults where
    # none are given (a test building a kernel to read it)
    self.options = options if options is not None else CompileOptions()
    if len(plan.groups) != 1:
        raise NotCompilable("register tiles for one group of tables")
    self.g = g = plan.groups[0]
    if plan.kind == "table" or not g.windowed:
        raise NotCompilable("the whole table is needed")
    self.deltas = uniform_deltas(program, g)
    f0 = program.functions[g.functions[0]]
    if any([p.type for p in program.functions[f].rec_params] != [p.type for p in f0.rec_params]
           for f in g.functions):
        raise NotCompilable("functions of the group over different domains")
    self.tdim = next((k for k, p in enumerate(f0.rec_params)
                      if isinstance(p.type, T.IndexT) and p.type.seq in shared_dims), 0)
    self.udim = 1 - self.tdim
    self.rows = rows or tile_rows(self.options)
    # emit.precision's decision (``dtype``: the older form), the value-type pass's
    # input (kernel.value_type); float32 values under the static bound are exact
    # integers, which lets the tile regroup sums and use one-instruction min/max
    self.value = value or ValueType(dtype)
    self.exact = self.value.dtype == "float32"
    self.current_reads = 0  # reads of a cell computed earlier in the current column
    self.interleaved = frozenset(n for n, p in plan.scope.items()
                                 if isinstance(p.type, T.SeqT) and n not in shared_dims)
    self.dt = max([d[self.tdim] for d in self.deltas.values()] + [1])
    if self.dt > self.rows:  # only the previous tile's last rows are kept
        raise NotCompilable(f"a read {self.dt} rows back, past a tile of {self.rows}")
    self.back: dict[str, int] = {f: 0 for f in g.functions}  # columns read back, per function
    callee = _callee_of_spans(self)
    for span, d in self.deltas.items():
        self.back[callee[span]] = max(self.back[callee[span]], d[self.udim])
    # functions read a row back across a tile edge: only their last rows are stored
    self.crossing = [f for f in g.functions if any(
        callee[s] == f and d[self.tdim] > 0 for s, d in self.deltas.items())]
    self.bback = {f: max(d[self.udim] for s, d in self.deltas.items()
                         if callee[s] == f and d[self.tdim] > 0) for f in self.crossing}
    # the strip-mining and register-tile passes' input
    self.tile = Tile(self.rows, self.dt, tuple(self.back.items()),
                     tuple((f, self.bback[f], self.cell_ref(f, [])) for f in self.crossing))
    self.row = 0  # the tile row being generated
    self.box = None  # (t, u) ranges of the code being generated (kernel.boxes)
    self.column_hoist = self.tile_hoist = None  # invariant reads: pending, tile lines
    self.hoisted: dict = {}
    self.row_guarded = False  # the tile being generated may be cut short
    self.hoist_from = 0  # its first row whose reads of t alone are hoisted
    self.capturing = True  # the code being generated may hold the requested cell
    self.trivial: set[str] = set()  # fused-reduction bounds the sweep never passes


def _callee_of_spans(self) -> dict:
    graph = dependence_graph(self.program.functions, self.g.functions, self.program.consts)
    return {d.span: d.callee for d in graph.deps}


def printer(self):
    """Values, literals and zero starts in the table type (float32 stays float32),
    named symbolically until the value-type pass (kernel.value_type)."""
    return CudaPrinter(VALUE, typed_zero=True)


def emitter(self, names, rec, safe_indexes=frozenset()):
    return ExprEmitter(names, self.program.consts, rec, self.program.alphabets, safe_indexes,
                       rules=tile_rules())


def extent_expr(self, f, k):
    t = self.program.functions[f].rec_params[k].type
    if isinstance(t, T.IndexT) and self.scope_name(t.seq) in self.interleaved:
        return ir.Name(f"n_{self.scope_name(t.seq)}")
    return cpu.extent_expr(self, f, k)


def read(self, func, args, span=None):
    if func not in self.g.functions or span not in self.deltas:
        raise NotCompilable(f"a read of {func} outside the tiled group")
    if span not in self.g.safe:  # a kernel cannot report a call outside the domain
        raise NotCompilable(f"a call to {func} not proved inside its domain")
    d = self.deltas[span]
    dt, du = d[self.tdim], d[self.udim]
    self.current_reads += dt <= self.row and du == 0
    # a register of this tile or the previous tile's boundary: the register-tile
    # pass decides (kernel.register_tile)
    return TileRead(func, self.row, dt, du)


def write(self, g, func, xs):
    """The cell itself (no distance back): the register-tile pass makes the
    store into it an assignment of its register."""
    return TileRead(func, self.row, 0, 0)


def guarded_value(self, f, em, b):
    """Every guard, as an ``if`` the guard pass (kernel.guards) decides over
    the cell's box (recorded on its code, see :func:`_column`). Where reads
    are hoisted out of the stream (a tile's columns past the peeled ones)
    only the guards the box leaves undecided are emitted: a read of a branch
    the box rules out would be hoisted and loaded where its guard fails."""
    if self.box is None or f.name not in self.g.functions or self.column_hoist is None:
        return cpu.guarded_value(self, f, em, b)
    names = [p.name for p in f.rec_params]
    live = live_guards(f.guards, {names[self.tdim]: self.box[0], names[self.udim]: self.box[1]})
    if not live:
        return cpu.guarded_value(self, f, em, b)
    out = b.fresh("val")
    self._guard_chain(tuple(live), 0, em, b, out, f.ret)
    return out


def hoist_read(self, e, text: str, value: ir.Expr) -> str | None:
    """A sequence read ``value`` (of ``e``, proved in range; ``text``: how it
    prints, what tells two reads the same) whose index does not change along
    the stream is read once: per column when it depends on ``u`` alone, per
    tile row when on ``t`` alone. Only in the interior, where every cell's
    body runs unconditionally. Returns the name holding it."""
    if self.column_hoist is None or self.current is None:
        return None
    used = param_vars(e.index)
    f = self.program.functions[self.current]
    if used is None:
        return None
    used &= {p.name for p in f.rec_params}
    t, u = _t_name(self, f.name), _u_name(self, f.name)
    if used <= {u}:
        key = ("u", text)
        if key not in self.hoisted:  # fetched a column ahead (see _column)
            self.hoisted[key] = f"hv{len(self.hoisted)}"
            self.column_hoist.append((self.hoisted[key], value))
    elif used == {t} and self.row >= self.hoist_from:
        key = ("t", text, self.row)
        if key not in self.hoisted:
            self.hoisted[key] = f"hv{len(self.hoisted)}"
            self.tile_hoist.assign(f"x_{t}", ir.bare("+", ir.Name("t0"), ir.Const(self.row)))
            e_t = self.g.extents.names[self.g.functions[0]][self.tdim]
            at = ir.bare("+", ir.Name("t0"), ir.Const(self.row))
            self.tile_hoist.assign(self.hoisted[key], if_inside(
                value, ir.Bin("<=", at, ir.Name(e_t), bare=True) if self.row_guarded
                else None))
    else:
        return None
    return self.hoisted[key]


def _u_name(self, func: str) -> str:
    return self.program.functions[func].rec_params[self.udim].name


def _t_name(self, func: str) -> str:
    return self.program.functions[func].rec_params[self.tdim].name


def generate(self) -> tuple[Module, list[TaskArg]]:
    """Every tile runs code specialised to where it lies: guards decided by
    the box of each row (kernel.boxes), the first columns peeled off where
    ``u`` guards bite, and sequence reads that do not change along the stream
    hoisted out of it. Full tiles past the first need no row test; the first
    and a partial last tile (the edge tiles) test each row against the extent,
    and in rows below the corner their ``t`` guards too.

    Compile time is weighed here (docs/decisions/compile-time.md): Numba's frontend
    passes (liveness, SSA) cost the product of a function's variables and
    basic blocks, so the code is cut into device functions of one unrolled tile
    column each (:func:`_device_function`), and the first and last tiles share
    one; NVVM inlines them again. The tile functions are lowered with the task by the
    strategy's passes marked ``functions`` (kernel.strategies: the register tile's
    scalar replacement, the guards each cell's box decides, the value type), each
    verified with the names defined before its body."""
    g = self.g
    b = Lines()
    self.assigned = []  # what the prologue assigns (_assign)
    for name, value in self.extent_assignments():
        _assign(self, b, name, value)
    entry = self.program.functions[self.plan.entry]
    for p in entry.params:  # numbers in the table type: float32 stays float32
        if p.type in (T.INT, T.FLOAT) and argument(p.name) in _args(self):
            _assign(self, b, arg_name(p.name), self.pr.ir_value(ir.Name(arg_name(p.name))))
    fused_by_func = _prologue(self, b)
    f0 = g.functions[0]
    e_t = g.extents.names[f0][self.tdim]
    for f in self.crossing:  # one column more: the stream loads a column ahead
        self.storage.append((f, [L.Const(2), L.Const(self.dt),
                                 L.Add(L.Var(g.extents.names[f0][self.udim]), L.Const(2))]))
    kt, ku = _corner(self)
    # (name, rows' t ranges, guarded, first row whose t-only reads are hoisted): in
    # an edge tile row r is x_t = r (the first tile) or past the corner (the last);
    # which tiles are inner is the strip-mining pass's test (kernel.strip_mine.Tiles)
    variants = [("_tile_inner", lambda r: (kt, INF), False, 0),
                ("_tile_edge", lambda r: (r, INF), True, kt)]
    # the peeled columns: one copy for every tile, each row tested (once a tile)
    head = _head(self, fused_by_func, ku) if ku else None
    streams = []
    for name, t_range, guarded, hoist_from in variants:
        self.capturing = name != "_tile_inner"
        streams.append(_stream(self, fused_by_func, t_range, ku, guarded, hoist_from))
    self.capturing = True
    tail = b.child()
    _epilogue(self, tail)
    params = _tile_params(self, b)
    state = (["res"] if self.plan.kind == "cell" else []) + \
        [f"acc{k}" for k in range(len(self.plan.fused))]
    handed = list(self.tile.handed()) if head is not None else []
    self.tile_functions = [
        _device_function(self, name, params, stream, state, handed,
                              "_tile_head" if head is not None else None)
        for (name, *_), stream in zip(variants, streams)]
    if head is not None:
        self.tile_functions.append(
            _device_function(self, "_tile_head", params, head, state + handed))
    kept = f"q_{self.tdim}" if self.plan.kind == "cell" else None  # (edge tiles keep it)
    b.nest(Tiles("_tile_inner", "_tile_edge", tuple(params), tuple(state), e_t, kt, kept))
    b.extend(tail)
    args = _args(self)
    record = cuda.module_record(self, args, b, tuple((fn.body, list(fn.known))
                                                     for fn in self.tile_functions),
                                module_constants(self), lowering_inputs(self))
    # the task, then its tile functions (passed the task's own parameters)
    if cuda.task_params(self, args) != self.planned_params:
        raise NotCompilable("the tile functions' parameters differ from the task's")
    tiles = tuple(Function(fn.name, tuple(fn.params), tuple(fn.body.stmts))
                  for fn in self.tile_functions)
    return Module(record.parts + tiles), args


def _tile_params(self, prologue: Lines) -> list[str]:
    """What a tile function is passed: the task's parameters as the task will
    have them (with its failure flag where a check was printed, see
    ``cuda.module_record``), every name the prologue assigns (its record:
    extents, numbers in the table type, reduction bounds and accumulators),
    and ``t0``."""
    planned = cuda.task_params(self, _args(self))
    if self.pr.fails():
        planned = planned[:-1] + [storage_param(FAIL)] + planned[-1:]
    self.planned_params = planned
    return list(dict.fromkeys(planned + self.assigned + ["t0"]))


def _device_function(self, name: str, params: list[str], body: Lines, result: list[str],
                     handed: list[str] = (), head: str | None = None) -> "_Function":
    """A part of a tile as a device function: ``body``, after calling ``head``
    for the registers ``handed`` over, returning ``result``. Registers are its
    own locals: a tile reads no column before the stream's first, so none is
    live across tiles; the task's result and reductions go in and out."""
    out = Lines()
    # (the strip-mining pass: parity, registers' zeros)
    out.nest(Start(tuple(handed), registers(self.tile)))
    taken = [x for x in result if x not in handed] + list(handed)
    if head is not None:
        out.nest(ir.several(taken, ir.Call(head, tuple(ir.Name(p) for p in params))))
    out.extend(body)
    if result:
        out.return_(ir.names(result))
    returned = tuple(taken) if head is not None else ()
    return _Function(name, tuple(params), out, tuple(params) + returned)


def lowering_inputs(self) -> dict:
    """The value type's input, and the register-tile pass's: the tile's shape."""
    return {**cuda.lowering_inputs(self), "tile": self.tile}


def capture(self, b: Lines, xs: list[str], val: str) -> None:
    """The requested cell is kept by the tile that holds it: never an
    interior tile (see :func:`generate`), whose cells test nothing."""
    if self.capturing:
        cpu.capture(self, b, xs, val)


def _head(self, fused_by_func, ku: int) -> Lines:
    """The first ``ku`` columns of any tile (where the ``u`` guards still
    bite): row ``r`` is at least ``x_t = r``, and tested against the extent."""
    e_u = self.g.extents.names[self.g.functions[0]][self.udim]
    self.row_guarded, self.hoist_from = True, self.rows
    end = ir.Cond(ir.Bin("<=", ir.Const(ku), ir.Name(e_u), bare=True), ir.Const(ku),
                  _past(e_u), paren=False)  # (the stream may be shorter)
    head = Lines()
    head.nest(_column(self, fused_by_func, lambda r: (r, INF), (0, ku - 1), True, 0,
                           (ir.Const(0), end)))
    return head


def _stream(self, fused_by_func, t_range, ku: int, guarded: bool, hoist_from: int) -> Lines:
    """A tile's columns from ``ku`` on: reads of ``t`` alone hoisted to the
    top (from row ``hoist_from`` on), then the stream. ``t_range(r)`` bounds
    ``x_t`` in row ``r``; ``guarded`` tiles may be cut short by the extent
    (each row tested, hoisted reads too)."""
    e_u = self.g.extents.names[self.g.functions[0]][self.udim]
    self.row_guarded, self.hoist_from = guarded, hoist_from
    out = Lines()
    out.nest(_column(self, fused_by_func, t_range, (ku, INF), guarded, ku,
                          (ir.Const(ku), _past(e_u)), out))
    return out


def _corner(self) -> tuple[int, int]:
    """Where the interior starts in each dimension: one past the largest
    constant any guard of the group compares with (``i == 0`` gives 1),
    at most one tile."""
    consts = [c for f in self.g.functions for gd in self.program.functions[f].guards
              if gd.cond is not None for c in constants(gd.cond)]
    k = min(max(consts, default=-1) + 1, self.rows)
    return k, k


def _column(self, fused_by_func, t_range, u_range, guarded: bool, first: int,
            over: tuple, hoist: Lines | None = None) -> Stream:
    """The stream's columns ``over`` (``u`` from ``first``) as a
    :class:`~dslc.kernel.strip_mine.Stream` of one column's rows, callees
    first: the strip-mining pass builds the loop around them (register
    shifts, boundary loads a column ahead, the hoisted reads of ``u`` alone,
    boundary stores). ``box`` bounds (t, u) there; ``guarded`` tests each row
    against the extent (the last tile may be partial); ``hoist``: where reads
    of ``t`` alone go (None: nothing is hoisted)."""
    g = self.g
    e_t = g.extents.names[g.functions[0]][self.tdim]
    e_u = g.extents.names[g.functions[0]][self.udim]
    self.column_hoist = [] if hoist is not None else None
    self.tile_hoist, self.hoisted = hoist, {}
    order = [f for f in g.schedule.order if f in g.functions]
    body = Lines()
    for r in range(self.rows):
        self.row = r
        cell = Lines()
        self.box = (t_range(r), u_range)
        for f in order:
            box = ((_t_name(self, f), self.box[0]), (_u_name(self, f), self.box[1]))
            cell.nest(kb.Cell(tuple(self._cell(f, fused_by_func.get(f, [])).stmts), box))
        body.nest(Row(tuple(cell.stmts), r))
    self.box = None
    hoisted = None if self.column_hoist is None else tuple(self.column_hoist)
    self.column_hoist = self.tile_hoist = None
    coords = [tuple(f"x_{n}" for n in dict.fromkeys(name(f) for f in g.functions))
              for name in (lambda f: _u_name(self, f), lambda f: _t_name(self, f))]
    return Stream(tuple(body.stmts), first, over, e_u, coords[0], hoisted, coords[1],
                  guarded, e_t)


def _prologue(self, b: Lines) -> dict:
    """Requested cell and fused reductions, as in the wavefront task."""
    plan = self.plan
    if plan.kind == "cell":
        _assign(self, b, "res", self.pr.nan())
    fused_by_func: dict[str, list] = {}
    entry_em = self.emitter(self.task_names(self.program.functions[plan.entry]), set())
    for k, fu in enumerate(plan.fused):
        for i, (lo, hi) in enumerate(fu.bounds):
            for side, e in (("lo", lo), ("hi", hi)):
                if self.bound_at_edge(e, fu.func, i, side):
                    self.trivial.add(f"{side}{k}_{i}")  # the sweep never passes it
                _assign(self, b, f"{side}{k}_{i}", entry_em.as_int(e, b))
        _assign(self, b, f"acc{k}", fused_init_ir(fu, self.pr))
        fused_by_func.setdefault(fu.func, []).append((k, fu))
    return fused_by_func


def fuse(self, b, k, fu, xs, val):
    """Accumulate ``val`` into fused reduction ``k`` (records: the bounds, the
    accumulator and the value are names the verifier sees defined), testing
    only the bounds the sweep may pass."""
    tests = [ir.Bin(op, ir.Name(x), ir.Name(f"{side}{k}_{i}"), bare=True)
             for i, x in enumerate(xs) for side, op in (("lo", ">="), ("hi", "<="))
             if f"{side}{k}_{i}" not in self.trivial]
    acc = f"acc{k}"
    if self.exact and fu.op in ("max", "min") and fu.type != T.PROB \
            and not isinstance(fu.type, T.TupleT):
        # one instruction (fmax_source)
        step = ir.Call(f"_f{fu.op}", (ir.Name(acc), ir.Name(val)))
    else:
        step = fused_step_expr(fu, acc, ir.Name(val), self.program, self.pr)
    if not tests:
        b.assign(acc, step)
        return
    inner = b.child()
    inner.assign(acc, step)
    b.if_(ir.bare("and", *tests), inner)


def _epilogue(self, b: Lines) -> None:
    plan = self.plan
    if plan.kind == "cell":
        self.give_result(b, ir.Name("res"))
        return
    f = self.program.functions[plan.entry]
    fused_nodes = {id(fu.node): f"acc{k}" for k, fu in enumerate(plan.fused)}
    em = fused_emitter(self.task_names(f), self.program, fused_nodes)
    self.give_result(b, ir.Name(self.guarded_value(f, em, b)))


def module_constants(self) -> str:
    """The block size the kernel's sequences are interleaved by; a float32
    kernel's value type, its infinity and its min/max (fmax_source)."""
    if self.value.dtype == "float64":
        return f"BLOCK = {block_size(self.options)}\n"
    return (f"DT = np.{self.value.dtype}\nINF = DT(math.inf)\n"
            f"BLOCK = {block_size(self.options)}\n" + fmax_source(self.options.simulated))


def _args(self) -> list[TaskArg]:
    """An interleaved sequence also takes its base in the thread block and its
    length; the thread's number in its block comes last (no window depths: no windows)."""
    def per_argument(name):
        return [TaskArg(f"ib_{name}", "base", name, "int64"), length(name)] \
            if name in self.interleaved else []
    return self.task_args(per_argument, windows=False) + [TaskArg("ln", "thread",
                                                                   dtype="int64")]


# the strategy's pieces (emit.cpu.Pieces): task-per-thread's, with the tile's reads
# and writes, guards and expressions; tuples are left to the plain task (emit.tuples)
TILES = replace(cuda.CUDA, TUPLES="the register-tiled kernel", printer=printer,
                emitter=emitter, extent_expr=extent_expr, read=read, write=write,
                guarded_value=guarded_value, capture=capture, fuse=fuse)


def build_tiles(strategy, program, plan: TaskPlan, shared_dims: frozenset = frozenset(),
                rows: int | None = None, dtype: str = "float64",
                value: ValueType | None = None, options=None) -> Built:
    """Task-per-thread with a register tile (emit.strategies "cuda register-tiled", see
    the module docstring): ``shared_dims``, the sequences every task shares (the
    tile's rows run along one), ``rows`` per tile (default :func:`tile_rows`), the
    value type (``dtype``: its older form), the CompileOptions (``options``)."""
    task = cuda.task_of(strategy, program, plan, TILES)
    _start(task, program, plan, shared_dims, rows, dtype, value, options)
    record, args = generate(task)
    return cuda.built(task, record, args, rows=task.rows, functions=tuple(task.tile_functions))
