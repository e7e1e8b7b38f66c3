"""How generated code spells what differs between targets: one printer per target.

The code generators (dslc.emit) write one body of code for every target; what differs
between Numba on the CPU and numba-cuda device code, and between value types, is asked
of a printer instead of being patched into the text afterwards:

* numbers: an infinity is ``np.inf`` on the CPU, ``math.inf`` on a device, ``INF`` (the
  value type's own) in a float32 kernel, so that no float32 operation widens to float64;
  a conversion to the value type is ``float(x)`` or ``DT(x)``; int64 casts and the math
  functions have the target's names;
* runtime helpers (targets.runtime): a helper that can fail is called as it is on the
  CPU and as its flagged variant ``NAME_f(_F, tid, ...)`` on a device; every helper
  spelled is recorded in ``used``, which a module's printers share, so a generator asks
  ``fails()`` whether its plan holds a run-time check;
* generated functions (``fn_<name>``) take the task's failure flag on a device when
  they, or what they call, hold a check;
* decorators, and the helper library a module carries;
* a GPU's barriers (kernel.body.Barrier: a block's ``syncthreads``, or a cooperative
  launch's grid sync through its grid group, kernel.ir.GridGroup) and its numbering of
  threads (kernel.ir.Thread); the CPU refuses them;
* a GPU's atomic updates and warp reductions (kernel.ir.Atomic, WarpReduce): calls of
  ``cuda.atomic`` and of butterfly helpers printed on demand, their shuffles a device's
  or, for Numba's simulator (``SimulatedCudaPrinter``), a stand-in; the CPU refuses both.

A printer is made for one function's value type (:meth:`for_value`): the task of a
float32 kernel prints its values as float32, the helper functions it calls as float64.
A task whose value type is chosen later (emit.precision) is generated with a printer
for ``VALUE``: its infinities, conversions and typed zeros are then symbolic records,
which the value-type pass (kernel.value_type) makes concrete; printing one before is
refused.
"""

from __future__ import annotations

import math

from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.module import Function
from dslc.targets import runtime


# The value type of a function generated with it named symbolically (kernel.ir's
# ValueInf, ToValue, ValueZero), made concrete by the value-type pass (kernel.value_type).
VALUE = "value"


class Printer:
    """Numba on the CPU."""

    INF = "np.inf"
    NAN = "np.nan"
    # plain Numba functions, not inline="always": Numba's IR inlining copies a helper
    # into every call site before type inference and SSA, which made a module of a few
    # hundred checked cells twice as slow to compile; LLVM inlines them anyway
    HELPER = "@numba.njit"
    FUNCTION = "@numba.njit(cache=True, nogil=True)"
    # a function called for a short while from Python on a thread that others share (a
    # traceback's walk, an alignment): it keeps the interpreter lock. Released, the lock
    # went to the thread filling the next tables, and taking it back waited for that
    # thread's switch interval (5 ms): a 45 us walk took 360 us on average, 880 at the 90th
    # percentile (``nogil`` pays where the call is long and other threads run compiled code)
    SHORT = "@numba.njit(cache=True)"
    # a pack's lanes (emit.packs): Numba told that no two arrays overlap
    NOALIAS = "@numba.njit(cache=True, noalias=True)"
    device = False

    def __init__(self, value: str = "float64", typed_zero: bool = False,
                 used: set | None = None):
        self.value = value  # the value type of the function being printed
        self.typed_zero = typed_zero  # a zero start value in the value type (a float32 kernel)
        self.used: set[str] = set() if used is None else used
        self.calls_flagged = False  # a generated function holding a check was called

    def helper(self) -> "Printer":
        """A printer for a generated helper function: float64 values and its own
        record of the checks it holds (merged into the module's by the generator)."""
        return type(self)()

    def for_value(self, value: str = "float64", typed_zero: bool = False) -> "Printer":
        """A printer for another function of the same module (sharing ``used``)."""
        return type(self)(value, typed_zero, self.used)

    # ------------------------------------------------------------------ numbers
    def inf(self, negative: bool = False) -> str:
        return self.expr(self.ir_inf(negative))

    def ir_inf(self, negative: bool = False) -> ir.Const | ir.ValueInf:
        if self.value == VALUE:
            return ir.ValueInf(negative)
        s = "INF" if self.value != "float64" else self.INF
        return ir.Const(-math.inf if negative else math.inf, f"-{s}" if negative else s)

    def nan(self) -> str:
        return self.NAN

    def ir_value(self, x) -> ir.Call | ir.ToValue:
        if self.value == VALUE:
            return ir.ToValue(x)
        return ir.Call("DT" if self.value != "float64" else "float", (x,))

    def ir_zero(self) -> ir.Const | ir.Call | ir.ValueZero:
        if not self.typed_zero or self.value == "float64":
            return ir.Const(0.0)
        return ir.ValueZero() if self.value == VALUE else ir.Call("DT", (ir.Const(0),))

    def ir_int64(self, x) -> ir.Call:
        return ir.Call("np.int64", (x,))

    def ir_math(self, fn: str, x) -> ir.Call:
        """``exp``, ``log``, ``log1p``, ``sqrt``, ``floor`` of a scalar."""
        return ir.Call(f"np.{fn}", (x,))

    # ------------------------------------------------------------------ calls
    def ir_check(self, name: str, *args) -> ir.Helper:
        """A call of runtime helper ``name`` (kernel IR), recorded in ``used``."""
        self.used.add(name)
        return ir.Helper(name, tuple(args))

    def helper_params(self, params: list[str], flagged: bool) -> list[str]:
        return params

    def fails(self, value=None) -> bool:
        """Has any function printed with this module's printers a check that can fail?
        With ``value`` (a kernel.value_type.ValueType): a check its pass keeps."""
        dropped = value.dropped if value is not None else frozenset()
        return any(runtime.fails(n) for n in self.used if n not in dropped)

    # ------------------------------------------------------------------ modules
    def function(self, name: str, params, body: str, kind: str = "FUNCTION") -> str:
        """A generated function as module text: the target's decorator of ``kind``
        (``FUNCTION``: a task or a helper; ``KERNEL`` or ``SERIAL``: a launch; ``SHORT``,
        ``NOALIAS``, ``HELPER``), its
        ``def`` line and ``body``, its statements printed one level in."""
        return f"{getattr(self, kind)}\n{plain_function(name, params, body)}"

    def module(self, m) -> str:
        """Module ``m`` (kernel.module) as text: each function under its decorator,
        its body printed here, one level in; the text parts as they are."""
        return "\n".join(self.function(p.name, p.params, self.task_text(p.body, 1), p.kind)
                         if isinstance(p, Function) else p for p in m.parts)

    def library(self, *groups: str) -> str:
        """The runtime helpers of ``groups`` (targets.runtime), as module text."""
        return "".join(f"\n{self.HELPER}\n{h.host}\n" for h in runtime.HELPERS
                       if h.group in groups and h.host is not None)

    # ------------------------------------------------------------------ launches
    # (kernel IR, dslc.kernel.ir: the function that hands a map's tasks to ``task``)
    KERNEL = "@numba.njit(parallel=True, cache=True)"
    SERIAL = "@numba.njit(parallel=False, cache=True)"  # a launch run on one core

    def length(self, x: str) -> str:
        return f"len({x})"

    def tasks_range(self, n: str, parallel: bool) -> str:
        return f"numba.prange({n})" if parallel else f"range({n})"

    def thread(self, what: str) -> str:
        raise TypeError(f"a GPU thread number ({what}) in CPU code")

    INDENT = "    "

    def store(self, target: str, value: str) -> str:
        return f"{target} = {value}"

    def tasks_loop(self, var: str, n: str, parallel: bool) -> str:
        return f"for {var} in {self.tasks_range(n, parallel)}:"

    def gpu_statement(self, s, pad: str) -> list[str]:
        raise TypeError(f"a GPU statement in CPU code: {s!r}")

    def expr(self, e) -> str:
        """A kernel IR expression as text."""
        return _expr(self, e)

    def kernel(self, k) -> str:
        """Launch ``k`` (kernel.ir) as module text: module-level values first."""
        values = "".join(self.module_value(s) for s in ir.walk(k.body)
                         if isinstance(s, ir.ConstArray))
        params = ", ".join(p.name for p in k.params)
        body = "\n".join(statements(self, k.body, "    "))
        return f"{values}{self.KERNEL}\ndef {k.name}({params}):\n{body}\n"

    def module_value(self, s) -> str:
        raise TypeError("a constant array in CPU code")

    # ------------------------------------------------------------------ task bodies
    # (kernel IR, dslc.kernel.body: the statements of the generated task)
    def strided(self, var: str, lo: str, end: str, step: str) -> str:
        raise TypeError(f"a loop strided over a block's threads ({var}) in CPU code")

    def barrier(self, scope: str = "block", group: str = "") -> str:
        """Every thread of the block (or of the grid, through grid group ``group``)
        waits here (kernel.body.Barrier)."""
        raise TypeError(f"a {scope} barrier in CPU code")

    def grid_group(self) -> str:
        """The grid as a cooperative group (kernel.ir.GridGroup)."""
        raise TypeError("a GPU grid group in CPU code")

    def alloc(self, shape: str, dtype: str, fill: str, space: str) -> str:
        """A new array (kernel.body.Alloc): the task's own; a block's is a GPU's."""
        if space != "local":
            raise TypeError(f"an array in {space} memory in CPU code")
        return f"np.{fill}({shape}, np.{dtype})"

    def atomic(self, op: str, array: str, index: list[str], value: str) -> str:
        """``array[index] = op(array[index], value)`` as one indivisible update."""
        raise TypeError(f"an atomic update ({op} of {array}) in CPU code")

    def warp_reduce(self, op: str, value: str, width: int) -> str:
        """``op`` of ``value`` over ``width`` lanes of a warp (kernel.ir.WarpReduce)."""
        raise TypeError(f"a warp reduction ({op} over {width} lanes) in CPU code")

    def task_text(self, stmts, indent: int = 0) -> str:
        """A task body's statements (kernel.body) as text, ``indent`` levels in."""
        return "\n".join(body_text(self, stmts, self.INDENT * indent))


class ThreadedPrinter(Printer):
    """The CPU printer, its launches serial (``range``, not ``prange``) and run
    without the GIL, for dslc.cpu.threads.run_chunks to spread over threads."""

    KERNEL = "@numba.njit(nogil=True, cache=True)"
    SERIAL = KERNEL

    def tasks_range(self, n: str, parallel: bool) -> str:
        return f"range({n})"


def saturating(lo: int, hi: int) -> str:
    """The narrow lanes' ``SAT`` (dslc.emit.narrow): an int32 sum clamped to the
    lane type's range ``lo..hi`` and narrowed to the lanes' type ``DT``."""
    return ("@numba.njit(inline='always')\n"
            "def SAT(x):\n"
            f"    return DT(min(max(x, np.int32({lo})), np.int32({hi})))\n")


class CudaPrinter(Printer):
    """numba-cuda device code: ``math`` names, flagged checks, device decorators."""

    INF = "math.inf"
    NAN = "math.nan"
    # not inline=True (Numba IR inlining, as on the CPU): NVVM inlines them anyway
    HELPER = "@cuda.jit(device=True)"
    FUNCTION = "@cuda.jit(device=True)"
    device = True

    def ir_int64(self, x) -> ir.Call:
        return ir.Call("int", (x,))

    def ir_math(self, fn: str, x) -> ir.Call:
        return ir.Call(f"math.{fn}", (x,))

    def ir_check(self, name: str, *args) -> ir.Helper:
        self.used.add(name)
        h = runtime.BY_NAME.get(name)
        if h is not None and h.fails:
            if h.device is None:
                from dslc.errors import NotCompilable
                raise NotCompilable(f"a check ({name}) with no device form")
            return ir.Helper(name, tuple(args), flagged=True)
        return ir.Helper(name, tuple(args))

    def helper_params(self, params: list[str], flagged: bool) -> list[str]:
        return (["_F", "tid"] if flagged else []) + params

    def library(self, *groups: str, flagged: bool = False) -> str:
        """Device helpers of ``groups``; the flagged checks too where ``flagged``."""
        out = []
        for h in runtime.HELPERS:
            if h.device is None:
                continue
            if h.group in groups and not h.fails or flagged and (h.fails or h.group == "device"):
                out.append(f"\n{self.HELPER}\n{h.device}\n")
        return "".join(out)

    # ------------------------------------------------------------------ launches
    # Every kernel is cached on disk by Numba-CUDA beside its generated module (one entry
    # per signature and compute capability), so a second process that loads the same module
    # launches the kernels it compiled before instead of compiling them again. Generated
    # modules are named by the hash of their text, so a cached kernel can only belong to the
    # code that made it.
    KERNEL = "@cuda.jit(cache=True)"
    _THREAD = {"global": "cuda.grid(1)", "block": "cuda.blockIdx.x",
               "thread": "cuda.threadIdx.x", "width": "cuda.blockDim.x",
               "grid": "cuda.gridsize(1)"}

    def length(self, x: str) -> str:
        return f"{x}.shape[0]"

    def thread(self, what: str) -> str:
        return self._THREAD[what]

    def gpu_statement(self, s, pad: str) -> list[str]:
        match s:
            case ir.Barrier():
                return [f"{pad}cuda.syncthreads()"]
            case ir.Shared(name=n, shape=shape, dtype=dt):
                return [f"{pad}{n} = cuda.shared.array({tuple(shape)!r}, np.{dt})"]
            case ir.ConstArray(name=n, values=v):
                return [f"{pad}{n} = cuda.const.array_like({v})"]
            case ir.Strided(var=z, count=n, body=body):
                return ([f"{pad}{z} = {self.thread('thread')}", f"{pad}while {z} < {n}:"]
                        + statements(self, body, pad + self.INDENT)
                        + [f"{pad}{self.INDENT}{z} += {self.thread('width')}"])
        raise TypeError(f"not a kernel statement: {s!r}")

    def strided(self, var: str, lo: str, end: str, step: str) -> str:
        t, w = self.thread("thread"), self.thread("width")
        return f"for {var} in range({lo} + {t} * {step}, {end}, {step} * {w}):"

    def barrier(self, scope: str = "block", group: str = "") -> str:
        if scope == "grid":
            return f"{group}.sync()"
        if scope != "block":
            raise TypeError(f"a barrier of unknown scope {scope!r}")
        return "cuda.syncthreads()"

    def grid_group(self) -> str:
        return "cuda.cg.this_grid()"

    def alloc(self, shape: str, dtype: str, fill: str, space: str) -> str:
        if space == "shared":
            return f"cuda.shared.array({shape}, np.{dtype})"
        return super().alloc(shape, dtype, fill, space)

    def atomic(self, op: str, array: str, index: list[str], value: str) -> str:
        at = index[0] if len(index) == 1 else f"({', '.join(index)})"
        return f"cuda.atomic.{op}({array}, {at}, {value})"

    # ------------------------------------------------------------------ warp reductions
    # A warp reduction is a call of a butterfly helper (one per op and width), printed
    # into the module on demand (lanes_library) like the runtime helpers: every helper
    # of a width once any reduction over that width was printed.
    SHUFFLE = "cuda.shfl_xor_sync(0xffffffff, {v}, {m})"  # a full-mask shuffle
    SHUFFLE_IMPORT: tuple[str, ...] = ()  # module lines defining the shuffle
    _COMBINE = {"max": "max(v, {o})", "min": "min(v, {o})", "sum": "v + {o}"}

    def warp_reduce(self, op: str, value: str, width: int) -> str:
        name = lanes_helper(op, width)
        self.used.add(name)
        return f"{name}({value})"

    def lanes_library(self) -> str:
        """The butterfly helpers of every width a warp reduction printed with this
        module's printers reduces over: for each, the lanes exchange values ``width
        / 2, width / 4, ... 1`` apart (log2(width) shuffles), after which every lane
        holds the whole value."""
        return "\n".join(self._lane_helpers(w) for w in _WIDTHS
                         if any(lanes_helper(op, w) in self.used for op in ir.WARP_OPS))

    def _lane_helpers(self, width: int) -> str:
        steps = [width >> k for k in range(1, width.bit_length())]
        out = list(self.SHUFFLE_IMPORT)
        for op in ir.WARP_OPS:
            step = self._COMBINE[op]
            body = "".join(f"    v = {step.format(o=self.SHUFFLE.format(v='v', m=m))}\n"
                           for m in steps)
            out.append(f"@cuda.jit(device=True, inline=True)\ndef {lanes_helper(op, width)}(v):"
                       f"\n{body}    return v\n")
        return "\n\n".join(out)

    def module_value(self, s) -> str:
        data = f"np.frombuffer(bytes.fromhex({s.data.hex()!r}), np.{s.dtype})"
        return f"{s.values} = {data}.reshape({tuple(s.shape)!r})\n"


class SimulatedCudaPrinter(CudaPrinter):
    """numba-cuda code for Numba's CUDA simulator, which has no warp shuffles: each
    is ``emit.wavefront.simulated_shfl_xor``, an exchange between the simulator's
    threads (the same butterfly, the same steps)."""

    SHUFFLE = "_shfl_xor({v}, {m})"
    SHUFFLE_IMPORT = ("from dslc.emit.wavefront import simulated_shfl_xor as _shfl_xor\n",)


_WIDTHS = tuple(1 << k for k in range(1, ir.WARP.bit_length()))  # 2, 4, ... WARP


def plain_function(name: str, params, body: str) -> str:
    """A function's ``def`` line and ``body`` (its statements printed one level in),
    with no decorator: code Python compiles itself (the interpreter's fused
    expressions, dslc.trace.fused), and every target's functions under theirs."""
    return f"def {name}({', '.join(params)}):\n{body}\n"


def lanes_helper(op: str, width: int) -> str:
    """The name of the butterfly helper of ``op`` over ``width`` lanes."""
    return f"_lanes_{op}" if width == ir.WARP else f"_lanes{width}_{op}"


def _expr(pr: Printer, e) -> str:
    def go(x, nested=False) -> str:
        match x:
            case ir.Name(id=n) | ir.Text(text=n):
                return n
            case ir.Const(text=t) if t:
                return t
            case ir.Const(value=float() as v):
                return repr(v)
            case ir.Const(value=v):
                return str(v)
            case ir.Bin(op=op, left=a, right=b, paren=True):
                return f"({go(a, True)} {op} {go(b, True)})"
            case ir.Bin(op=op, left=a, right=b, bare=True):
                p = ir.PRECEDENCE[op]
                text = f"{wrap(a, p + (op in ir.COMPARISONS))} {op} {wrap(b, p + 1)}"
                return f"({text})" if nested else text
            case ir.Chain(ops=ops, operands=xs):
                p = ir.PRECEDENCE["<"] + 1
                text = " ".join([wrap(xs[0], p)] + [f"{op} {wrap(x, p)}"
                                                    for op, x in zip(ops, xs[1:])])
                return f"({text})" if nested else text
            case ir.Unary(op=op, operand=a, paren=p):
                inner = wrap(a, ir.PRECEDENCE["neg" if op == "-" else op]) \
                    if isinstance(a, ir.Bin) and a.bare else go(a)
                text = f"{op}{' ' if op.isalpha() else ''}{inner}"
                return f"({text})" if p else text
            case ir.Cond(cond=c, then=a, orelse=b, paren=p):
                text = f"{go(a)} if {go(c)} else {go(b)}"
                return f"({text})" if p else text
            case ir.Helper(name=n, args=args, flagged=f):
                return f"{n}_f({', '.join(['_F', 'tid'] + [go(a) for a in args])})" if f \
                    else f"{n}({', '.join(go(a) for a in args)})"
            case ir.Load(array=a, index=idx, comma=c):
                return f"{a}[{', '.join(go(i) for i in idx)}{',' if c else ''}]"
            case ir.Slice(lo=a, hi=b):
                return f"{go(a)}:{go(b)}"
            case ir.Index(base=base, index=idx):
                return f"{go(base)}[{', '.join(go(i) for i in idx)}]"
            case ir.Bin(op=op, left=a, right=b):
                text = f"{go(a, True)} {op} {go(b, True)}"
                return f"({text})" if nested else text
            case ir.Call(fn=fn, args=args, flagged=f):  # the flag fixed in the record
                return f"{fn}({', '.join((['_F', 'tid'] if f else []) + [go(a) for a in args])})"
            case ir.Length(of=a):
                return pr.length(go(a))
            case ir.Thread(what=w):
                return pr.thread(w)
            case ir.GridGroup():
                return pr.grid_group()
            case ir.Paren(x=a):
                return f"({go(a)})"
            case ir.Tuple(items=items, bare=b):
                text = ", ".join(go(a) for a in items)
                return text if b else f"({text})"
            case ir.WarpReduce(op=op, value=v, width=w):
                return pr.warp_reduce(op, go(v), w)
            case ir.ValueInf() | ir.ToValue() | ir.ValueZero():
                raise TypeError(f"the value type printed before its pass "
                                f"(kernel.value_type): {x!r}")
        raise TypeError(f"not a kernel expression: {x!r}")

    def wrap(x, need: int) -> str:
        """``x`` inside a ``bare`` operation: in parentheses where it binds looser
        than ``need`` (a Bin that is neither bare nor parenthesised always is)."""
        match x:
            case ir.Bin(bare=True):
                return f"({go(x)})" if ir.PRECEDENCE[x.op] < need else go(x)
            case ir.Bin(paren=False):
                return go(x, True)
            case ir.Chain():
                return f"({go(x)})" if ir.PRECEDENCE["<"] < need else go(x)
            case ir.Unary(op=op, paren=False):
                prec = ir.PRECEDENCE["neg" if op == "-" else op]
                return f"({go(x)})" if prec < need else go(x)
        return go(x)
    return go(e)


def statements(pr: Printer, stmts, pad: str) -> list[str]:
    """Kernel-IR statements as ``pr`` spells them (code for a target, or text for
    people: dslc.targets.show), nested blocks indented by ``pr.INDENT``."""
    out = []
    inner = pad + pr.INDENT
    for s in stmts:
        match s:
            case ir.Assign(value=v):
                out.append(f"{pad}{', '.join(s.names)} = {_expr(pr, v)}")
            case ir.Store(target=t, value=v):
                out.append(pad + pr.store(_expr(pr, t), _expr(pr, v)))
            case ir.If(cond=c, body=body):
                out.append(f"{pad}if {_expr(pr, c)}:")
                out += statements(pr, body, inner)
            case ir.Tasks(var=v, count=n, body=body, parallel=par):
                out.append(pad + pr.tasks_loop(v, _expr(pr, n), par))
                out += statements(pr, body, inner)
            case _:
                out += pr.gpu_statement(s, pad)
    return out


def _text(pr: Printer, x) -> str:
    """A loop bound or condition: an expression record, or text a generator spelled."""
    return x if isinstance(x, str) else _expr(pr, x)


def body_text(pr: Printer, stmts, pad: str) -> list[str]:
    """A task body's statements (kernel.body) as ``pr`` spells them, one line each,
    nested blocks indented by ``pr.INDENT``: the one place a task's text is made."""
    out: list[str] = []
    inner = pad + pr.INDENT

    def block(stmts):
        out.extend(body_text(pr, stmts, inner) or [f"{inner}pass"])

    for s in stmts:
        match s:
            case kb.Line(text=t):
                out.append(pad + t)
            case ir.Assign(value=v):
                out.append(f"{pad}{', '.join(s.names)} = {_expr(pr, v)}")
            case ir.Store(target=t, value=v):
                out.append(f"{pad}{_expr(pr, t)} = {_expr(pr, v)}")
            case kb.Return(value=v):
                out.append(f"{pad}return {_expr(pr, v)}")
            case kb.Eval(value=v, comment=c):
                out.append(f"{pad}{_expr(pr, v)}" + (f"  # {c}" if c else ""))
            case kb.Augment(name=n, op=op, value=v):
                out.append(f"{pad}{n} {op}= {_expr(pr, v)}")
            case kb.Break():
                out.append(f"{pad}break")
            case kb.Alloc(name=n, shape=shape, dtype=dt, fill=fill, space=sp, comma=c):
                if isinstance(shape, tuple):
                    dims = ", ".join(_expr(pr, x) for x in shape)
                    shape = f"({dims},)" if c else f"({dims})"
                else:
                    shape = _expr(pr, shape)
                out.append(f"{pad}{n} = {pr.alloc(shape, dt, fill, sp)}")
            case ir.Atomic(op=op, target=t, value=v):
                at = [_expr(pr, i) for i in t.index]
                out.append(pad + pr.atomic(op, t.array, at, _expr(pr, v)))
            case kb.Point(body=b) | kb.Cell(body=b):
                out += body_text(pr, b, pad)
            case kb.Barrier(scope=scope, group=g):
                out.append(pad + pr.barrier(scope, g))
            case kb.If():
                _if_text(pr, s, pad, out, "if")
            case kb.OneThread(body=b):
                out.append(f"{pad}if {pr.thread('thread')} == 0:")
                block(b)
            case kb.Loop(kind="while", over=(cond,), body=b):
                out.append(f"{pad}while {_text(pr, cond)}:")
                block(b)
            case kb.Loop(kind="strided", var=v, over=over, body=b):
                out.append(pad + pr.strided(v, *(_text(pr, x) for x in over)))
                block(b)
            case kb.Loop(var=v, over=over, body=b):
                out.append(f"{pad}for {v} in range({', '.join(_text(pr, x) for x in over)}):")
                block(b)
            case _:
                raise TypeError(f"not a task statement: {s!r}")
    return out


def _if_text(pr: Printer, s, pad: str, out: list, word: str) -> None:
    inner = pad + pr.INDENT
    out.append(f"{pad}{word} {_text(pr, s.cond)}:")
    out.extend(body_text(pr, s.body, inner) or [f"{inner}pass"])
    if s.orelse is None:
        return
    if len(s.orelse) == 1 and isinstance(s.orelse[0], kb.If) and s.orelse[0].chained:
        _if_text(pr, s.orelse[0], pad, out, "elif")
        return
    out.append(f"{pad}else:")
    out.extend(body_text(pr, s.orelse, inner) or [f"{inner}pass"])
