"""Launches as kernel IR: one builder, and strategies as lists of passes over it.

``tasks(...)`` builds the launch every target starts from: a loop over the tasks in
the order they run, each calling the generated ``task`` with its arguments unpacked
from the batch (how each travels: :func:`packed`) and storing its value (or a tuple's
components) in ``out``. A strategy is the passes it applies, in order (each
strategy's, with its passes over the task's body, is a row of emit.strategies'
table; kernel.strategies names the lists and ``launch_passes`` applies them):

* the CPU: :data:`CPU` (the loop stays, serial over a chunk of the tasks: threads take
  the chunks, dslc.cpu.threads);
* a GPU, a thread per task: :data:`THREAD_PER_TASK` (the loop becomes the thread's
  number in the grid and a test against the number of tasks);
* a GPU, a block per task: :data:`BLOCK_PER_TASK` (the block's number; every thread
  runs the task, thread 0 keeps its value);
* model arrays placed by dslc.cuda.placement: :func:`place` (copied into shared memory
  by the block's threads, then a barrier; or compiled in as constants), the task
  reading the copy.

The verifier runs after the builder and after every pass (:func:`apply`).
"""

from __future__ import annotations

import numpy as np

from dslc.kernel import ir
from dslc.kernel.verify import verify


def packed(args, travel: dict[str, str],
           at: ir.Expr = ir.Name("k")) -> tuple[list[ir.Param], list[ir.Expr]]:
    """The launch's parameters for the task's arguments ``args`` (ir.TaskArg) and
    the arguments it passes ``task`` for task (or pack) ``at``; ``travel``
    (by argument name) says how each travels: ``cseq`` (a task batch's packed
    buffer, starts and lengths: dslc.lang.batch), ``seq`` (one buffer and
    offsets), ``scalar`` (one value per task), ``shared`` (one value for all), or
    the block-interleaved ways of emit.tiles (``iseq`` the whole buffer, ``ibase``
    a block's base, ``ilen`` the task's length, ``thread`` the thread's number in
    its block)."""
    params, call = [], []
    n, block = ir.Name("n"), ir.Name("BLOCK")
    for arg in args:
        a, k = arg.name, travel[arg.name]
        if k == "iseq":
            params.append(ir.Param(f"buf_{a}", "buffer", a, "uint8"))
            call.append(ir.Name(f"buf_{a}"))
        elif k == "ibase":
            params.append(ir.Param(f"arr_{a}", "bases", a, "int64"))
            call.append(ir.Index(ir.Name(f"arr_{a}"), (ir.Bin("//", n, block),)))
        elif k == "ilen":
            params.append(ir.Param(f"arr_{a}", "lengths", a, "int64"))
            call.append(ir.Index(ir.Name(f"arr_{a}"), (n,)))
        elif k == "thread":
            call.append(ir.Bin("%", n, block))
        elif k == "cseq":
            buf, st, ln = (ir.Name(f"{p}_{a}") for p in ("buf", "st", "ln"))
            params += [ir.Param(buf.id, "buffer", a, "uint8"),
                       ir.Param(st.id, "starts", a, "int64"),
                       ir.Param(ln.id, "lengths", a, "int64")]
            start = ir.Index(st, (at,))
            call.append(ir.Index(buf, (ir.Slice(start, ir.Bin("+", start, ir.Index(ln, (at,)))),)))
        elif k == "seq":
            buf, off = ir.Name(f"buf_{a}"), ir.Name(f"off_{a}")
            params += [ir.Param(buf.id, "buffer", a, "uint8"),
                       ir.Param(off.id, "offsets", a, "int64")]
            call.append(ir.Index(buf, (ir.Slice(ir.Index(off, (at,)),
                                                ir.Index(off, (ir.Bin("+", at, ir.Const(1)),))),)))
        elif k == "scalar":
            params.append(ir.Param(f"arr_{a}", "values", a))
            call.append(ir.Index(ir.Name(f"arr_{a}"), (at,)))
        else:
            params.append(ir.Param(a, "shared", a))
            call.append(ir.Name(a))
    return params, call


def tasks(target: str, args, travel: dict[str, str],
          storage: tuple[str, ...] = (), width: int | None = None,
          module: tuple[str, ...] = ("task",)) -> ir.Kernel:
    """The launch before any strategy: task ``order[n]`` for every ``n``, its
    per-task ``storage`` tables passed with the thread's number on a GPU."""
    params, call = packed(args, travel)
    params = [ir.Param("order", "order", dtype="int64"), *params,
              *(ir.Param(f"T_{f}", "storage", f) for f in storage), ir.Param("out", "result")]
    call += [ir.Name(f"T_{f}") for f in storage]
    if target == "cuda":
        call.append(ir.Name("n"))  # the task's column of the per-task storage
    task = ir.Call("task", tuple(call))
    k = ir.Name("k")
    if width is None:
        result = (ir.Store(ir.Index(ir.Name("out"), (k,)), task),)
    else:  # a tuple's components, one column each
        result = (ir.Assign("v", task),) + tuple(
            ir.Store(ir.Index(ir.Name("out"), (k, ir.Const(c))),
                     ir.Index(ir.Name("v"), (ir.Const(c),))) for c in range(width))
    body = (ir.Assign("k", ir.Index(ir.Name("order"), (ir.Name("n"),))),) + result
    loop = ir.Tasks("n", ir.Length(ir.Name("order")), body)
    return verify(ir.Kernel("batch", target, tuple(params), (loop,), module))


def apply(k: ir.Kernel, passes) -> ir.Kernel:
    """``passes`` applied in order, the kernel verified after each."""
    for p in passes:
        k = verify(p(k))
    return k


# ------------------------------------------------------------------ passes
def _tasks_to(k: ir.Kernel, number: str, keep) -> ir.Kernel:
    """The tasks loop as one task per GPU thread (``number``: ``global``) or per
    block (``block``): ``n`` is that number, tested against the number of tasks;
    ``keep`` rewrites the result's stores."""
    out = []
    for s in k.body:
        if isinstance(s, ir.Tasks):
            test = ir.Bin("<", ir.Name(s.var), s.count)
            out += [ir.Assign(s.var, ir.Thread(number)), ir.If(test, keep(s.body))]
        else:
            out.append(s)
    return ir.Kernel(k.name, k.target, k.params, tuple(out), k.module)


def thread_per_task(k: ir.Kernel) -> ir.Kernel:
    return _tasks_to(k, "global", lambda body: body)


def block_per_task(k: ir.Kernel) -> ir.Kernel:
    """Every thread of the block runs the task (its loops strided over them,
    emit.blocks); thread 0 stores the value."""
    def keep(body):
        out = []
        for s in body:
            if isinstance(s, ir.Store) and s.target.base == ir.Name("out"):
                out += [ir.Assign("v", s.value),
                        ir.If(ir.Bin("==", ir.Thread("thread"), ir.Const(0)),
                              (ir.Store(s.target, ir.Name("v")),))]
            else:
                out.append(s)
        return tuple(out)
    return _tasks_to(k, "block", keep)


CPU = ()
THREAD_PER_TASK = (thread_per_task,)
BLOCK_PER_TASK = (block_per_task,)


def place(placed: dict):
    """The pass placing model arrays (dslc.cuda.placement's ``Placement`` by
    argument): shared ones copied by the block's threads, then one barrier;
    constant ones compiled in; the task reads the placed copy."""
    def run(k: ir.Kernel) -> ir.Kernel:
        shared = {a: p for a, p in placed.items() if p.memory == "shared"}
        const = {a: p for a, p in placed.items() if p.memory == "constant"}
        pre = []
        for a, p in shared.items():
            pre += [ir.Shared(f"s_{a}", tuple(p.shape), p.dtype), _copy(a, p)]
        if shared:
            pre.append(ir.Barrier())
        for a, p in const.items():
            data = np.ascontiguousarray(p.value)
            pre.append(ir.ConstArray(f"c_{a}", f"_C_{a}", data.tobytes(), data.shape,
                                     data.dtype.name))
        rename = {a: f"s_{a}" for a in shared} | {a: f"c_{a}" for a in const}
        body = tuple(pre) + tuple(_renamed(s, rename) for s in k.body)
        return ir.Kernel(k.name, k.target, k.params, body, k.module)
    return run


def _copy(arg: str, p) -> ir.Strided:
    """``s_<arg>`` from ``arg``, element by element over the block's threads."""
    z = ir.Name("_z")
    if len(p.shape) == 1:
        idx = (z,)
    else:
        w = ir.Const(p.shape[1])
        idx = (ir.Bin("//", z, w), ir.Bin("%", z, w))
    n = int(np.prod(p.shape))
    return ir.Strided("_z", n, (ir.Store(ir.Index(ir.Name(f"s_{arg}"), idx),
                                         ir.Index(ir.Name(arg), idx)),))


def _renamed(s, rename: dict):
    """Statement ``s`` with the task's arguments renamed (``a`` -> its placed copy)."""
    def expr(e):
        match e:
            case ir.Call(fn="task", args=args):
                return ir.Call("task", tuple(ir.Name(rename[a.id]) if isinstance(a, ir.Name)
                                             and a.id in rename else a for a in args))
        return e
    match s:
        case ir.Store(target=t, value=v):
            return ir.Store(t, expr(v))
        case ir.Assign(target=t, value=v):
            return ir.Assign(t, expr(v))
        case ir.If(cond=c, body=body):
            return ir.If(c, tuple(_renamed(x, rename) for x in body))
        case ir.Tasks(var=v, count=n, body=body, parallel=par):
            return ir.Tasks(v, n, tuple(_renamed(x, rename) for x in body), par)
    return s
