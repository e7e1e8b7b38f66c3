"""The kernel IR's verifier: run after every pass (kernel.launch), so a pass that
breaks an invariant fails where it is applied, not in the code a target prints.

It checks what a printer relies on and a target's rules: every name is a parameter,
an array declared before, or assigned before it is read (in the same block or an
enclosing one); parameters are distinct and their roles known; a store goes to a
parameter or a shared array; GPU constructs (thread numbers, strided loops,
barriers, shared and constant arrays) appear only in a ``cuda`` kernel, and a
barrier only at the kernel's top level (every thread of the block reaches it: none
inside a branch or a loop that threads leave at different times); a CPU kernel's
tasks loop is at its top level.

A task's body (kernel.body) is checked by :func:`verify_body`, after every pass
over it (emit.pyexpr ``Lines.apply``): loop kinds known and their bounds of the
right arity, ``strided`` loops, barriers and thread-0 blocks only in ``cuda``
code, ``lanes`` loops (and the statements per lane the lane-groups pass puts in
them) only in ``cpu`` code; a barrier only where every thread of
the block (a grid barrier: of the grid) reaches it (not inside a strided loop, a
thread-0 block, a lane loop or a cell's code: an ``if`` outside those is taken to be
the same for every thread, as the loop nest's guards on extents and partitions
are); a ``break`` only inside a loop; no loop binds the
variable of a strided, lane or partition loop around it (a reduction's may shadow
its own, as the language lets it); the depths within MAX_INDENT and MAX_LOOPS;
every load and store in a memory space its target has (``shared`` and
``constant`` only in ``cuda`` code); atomic updates (of a known op, on an
element of ``global`` or ``shared`` memory) and warp reductions (of a known op,
over a power of two lanes up to a warp) only in ``cuda`` code; given the
function's parameters, every name an expression record reads defined before it
(``Text`` leaves and ``Line`` statements are text, not seen); a grid barrier and
the grid group it synchronises through only in a kernel launched cooperatively
(``cooperative``), the group assigned before the barrier; an assignment to several
names at once to two or more distinct names, an update in place (``n += 1``) of a
name defined before it, and a tuple without parentheses only as
a return's value (``return a, b``).
"""

from __future__ import annotations

from dslc.errors import InternalError
from dslc.kernel import body as kb
from dslc.kernel import ir
from dslc.kernel.lane_groups import PerLane
from dslc.kernel.register_tile import TileRead
from dslc.kernel.strip_mine import Row, Start, Stream, Tiles

_GPU_ONLY = (ir.Strided, ir.Barrier, ir.Shared, ir.ConstArray)


def verify(k: ir.Kernel) -> ir.Kernel:
    """``k`` itself, or InternalError naming the broken rule."""
    names = [p.name for p in k.params]
    if len(set(names)) != len(names):
        _fail(k, "a parameter named twice")
    for p in k.params:
        if p.role not in ir.ROLES:
            _fail(k, f"parameter {p.name} has an unknown role {p.role!r}")
    if k.target not in ("cpu", "cuda"):
        _fail(k, f"unknown target {k.target!r}")
    _block(k, k.body, set(names) | set(k.module), {p.name for p in k.params}, top=True)
    return k


def _block(k, stmts, known: set, arrays: set, top: bool) -> None:
    known = set(known)
    for s in stmts:
        if isinstance(s, _GPU_ONLY) and k.target != "cuda":
            _fail(k, f"{type(s).__name__} in a {k.target} kernel")
        match s:
            case ir.Assign(value=v):
                _expr(k, v, known)
                known.update(s.names)
            case ir.Store(target=t, value=v):
                if not (isinstance(t.base, ir.Name) and t.base.id in arrays):
                    _fail(k, f"a store into {t.base!r}, not a parameter or shared array")
                _expr(k, t, known)
                _expr(k, v, known)
            case ir.If(cond=c, body=body):
                _expr(k, c, known)
                _block(k, body, known, arrays, top=False)
            case ir.Tasks(var=v, count=n, body=body):
                if k.target == "cpu" and not top:
                    _fail(k, "the tasks loop of a CPU kernel inside another statement")
                _expr(k, n, known)
                _block(k, body, known | {v}, arrays, top=False)
            case ir.Strided(var=v, body=body):
                _block(k, body, known | {v}, arrays, top=False)
            case ir.Barrier():
                if not top:
                    _fail(k, "a barrier that not every thread of the block reaches")
            case ir.Shared(name=n) | ir.ConstArray(name=n):
                known.add(n)
                arrays.add(n)
            case _:
                _fail(k, f"unknown statement {s!r}")


def _expr(k, e, known: set) -> None:
    for x in ir.exprs(e):
        if isinstance(x, ir.Call) and x.fn not in known:
            _fail(k, f"a call of {x.fn}, which the module does not define")
        if isinstance(x, ir.Name) and x.id not in known:
            _fail(k, f"{x.id} read before it is defined")
        if isinstance(x, ir.Thread):
            if k.target != "cuda":
                _fail(k, f"a thread number in a {k.target} kernel")
            if x.what not in ir.THREAD:
                _fail(k, f"unknown thread number {x.what!r}")


def verify_body(stmts: tuple, target: str, known=None, cooperative: bool = False) -> tuple:
    """``stmts`` (a task's body) themselves, or InternalError naming the broken rule.
    ``known``: the names defined before the body (its function's parameters); where
    given, every name an expression record reads must be one of them, a loop's
    variable around it, or assigned before it (kernel.ir ``Assign``: in program
    order; after an ``if``, only what both branches assign; nothing a loop's body
    or thread 0's code assigns counts after it). ``Text`` leaves and ``Line``
    statements are text: what they read and assign is not seen. ``cooperative``:
    the body is a kernel launched cooperatively (every block resident), the only
    place a grid group and a grid barrier may be."""
    if target not in ("cpu", "cuda"):
        _body_fail(target, f"unknown target {target!r}")
    scope = None if known is None else set(known)
    _body(stmts, _Target(target, cooperative), bound=(), divergent=None, scope=scope)
    if kb.levels(stmts) - 1 > kb.MAX_INDENT:
        _body_fail(target, f"statements nested more than {kb.MAX_INDENT} levels deep")
    if kb.loops(stmts) > kb.MAX_LOOPS:
        _body_fail(target, f"loops nested more than {kb.MAX_LOOPS} deep")
    return stmts


_ARITY = {"while": (1,), "strided": (3,)}


class _Target(str):
    """A body's target (``cpu``, ``cuda``: compared as the string) and whether it
    is a cooperative kernel's (``cooperative``: grid groups and barriers allowed)."""

    def __new__(cls, name: str, cooperative: bool = False):
        out = super().__new__(cls, name)
        out.cooperative = cooperative
        return out

_ONLY = {"strided": "cuda", "lanes": "cpu"}
_GPU_SPACES = ("shared", "constant")  # memory only a GPU kernel has
_SHARED_SPACES = ("global", "shared")  # memory threads share: what an atomic updates


def _body(stmts, target: str, bound: tuple, divergent: str | None, scope: set | None,
          looped: bool = False) -> set:
    """``bound``: the variables of the strided, lane and partition loops around
    (which no loop inside may bind again); ``divergent``: what around
    these statements not every thread of a block runs (None: every thread does);
    ``scope``: the names defined so far (None: names are not checked), added to
    as statements assign; ``looped``: a loop is around them (a ``break`` leaves it).
    Returns the names defined after ``stmts``."""
    def inner(b, scope, bound=bound, divergent=divergent, looped=looped):
        return _body(b, target, bound, divergent, scope, looped)
    for s in stmts:
        match s:
            case kb.Line():
                continue
            case kb.Break():
                if not looped:
                    _body_fail(target, "a break outside a loop")
            case kb.Alloc():
                _alloc(s, target, scope)
            case kb.Return(value=ir.Tuple(bare=True, items=items)):
                for x in items:  # (``return a, b``: the one place a bare tuple may be)
                    _reads(x, target, scope)
            case kb.Return(value=v) | kb.Eval(value=v):
                _reads(v, target, scope)
            case kb.Augment(name=n, op=op, value=v):
                if op not in kb.AUGMENT_OPS:
                    _body_fail(target, f"an update {n} {op}= of unknown op")
                _reads(ir.Name(n), target, scope)  # (it reads the name it updates)
                _reads(v, target, scope)
            case ir.Assign(value=v):
                _assigned(s, target)
                _reads(v, target, scope)
                if scope is not None:
                    scope.update(s.names)
            case ir.Store(target=t, value=v):
                if not isinstance(t, (ir.Load, TileRead)):  # (a tile's cell: its register)
                    _body_fail(target, f"a store into {t!r}, not an array element")
                _reads(t, target, scope)
                _reads(v, target, scope)
            case ir.Atomic():
                _atomic(s, target, scope)
            case kb.Point() | kb.Cell():
                inside = divergent or ("a cell's code" if isinstance(s, kb.Cell) else None)
                scope = inner(s.body, scope, divergent=inside)
            case PerLane():  # (a pack's lane loop, before the lane-groups pass)
                if target != "cpu":
                    _body_fail(target, "statements per lane of a CPU pack")
                inner(s.body, _with(scope), divergent=divergent or "a lane loop")
            case kb.Barrier():
                _barrier(s, target, divergent, scope)
            case kb.Loop(kind=kind, var=var, over=over):
                if kind not in kb.LOOP_KINDS:
                    _body_fail(target, f"a loop of unknown kind {kind!r}")
                if _ONLY.get(kind, target) != target:
                    _body_fail(target, f"a {kind} loop")
                if len(over) not in _ARITY.get(kind, (1, 2, 3)):
                    _body_fail(target, f"a {kind} loop over {over!r}")
                if var and var in bound:
                    _body_fail(target, f"loop variable {var} bound again inside its loop")
                for x in over:
                    _reads(x, target, scope)
                inside = {"strided": "a strided loop", "lanes": "a lane loop"}.get(kind)
                # a reduction may rebind its own name (the language lets an inner
                # ``sum(i in ...)`` shadow an outer one): the loops a pass or a
                # backend relies on may not be rebound
                held = (var,) if var and (kind in _ONLY or s.partition) else ()
                inner(s.body, _with(scope, var), bound + held, divergent or inside, True)
            case Stream():  # (a tile's column loop, before the strip-mining pass)
                inner(s.body, _with(scope, *s.defines()), looped=True)
            case Start():  # (a tile function's parity and registers: their reads are
                if scope is not None:  # tile reads until the register-tile pass)
                    scope.update(s.defines())
            case Tiles():  # (the task's tile loop, before the pass)
                for name in s.reads():
                    _reads(ir.Name(name), target, scope)
            case Row():  # (its rows)
                inner(s.body, _with(scope))
            case kb.OneThread():
                if target != "cuda":
                    _body_fail(target, "code for thread 0 of a block")
                inner(s.body, _with(scope), divergent=divergent or "a thread-0 block")
            case kb.If(cond=c):
                _reads(c, target, scope)
                after = [inner(b, _with(scope)) for b in kb.children(s)]
                if scope is not None and s.orelse is not None:
                    scope |= after[0] & after[1]
            case _:
                _body_fail(target, f"unknown statement {s!r}")
    return scope


def _alloc(s: kb.Alloc, target: str, scope: set | None) -> None:
    """A new array: a known memory space (shared: GPU code only, never filled) and
    fill; its shape's names defined; its name defined after it."""
    if s.space not in kb.ALLOC_SPACES:
        _body_fail(target, f"an array in unknown memory {s.space!r}")
    if s.space == "shared" and target != "cuda":
        _body_fail(target, f"{s.name} in shared memory, which only a GPU kernel has")
    if s.fill not in kb.ALLOC_FILLS:
        _body_fail(target, f"an array filled by unknown {s.fill!r}")
    for x in s.shape if isinstance(s.shape, tuple) else (s.shape,):
        _reads(x, target, scope)
    if scope is not None:
        scope.add(s.name)


def _barrier(s: kb.Barrier, target: str, divergent: str | None, scope: set | None) -> None:
    """A barrier: GPU code only, of a known scope, where every thread it waits for
    reaches it; a grid's only in a cooperative kernel, through a grid group
    assigned before it."""
    if target != "cuda":
        _body_fail(target, "a barrier")
    if s.scope not in kb.BARRIER_SCOPES:
        _body_fail(target, f"a barrier of unknown scope {s.scope!r}")
    if divergent is not None:
        _body_fail(target, f"a {s.scope} barrier inside {divergent}, which not every "
                           f"thread of the {s.scope} reaches")
    if s.scope == "grid":
        if not getattr(target, "cooperative", False):
            _body_fail(target, "a grid barrier in a kernel not launched cooperatively")
        if not s.group or scope is not None and s.group not in scope:
            _body_fail(target, f"a grid barrier through {s.group or 'no grid group'}, "
                               "not a grid group assigned before it")
    elif s.group:
        _body_fail(target, f"a block barrier through grid group {s.group}")


def _atomic(s: ir.Atomic, target: str, scope: set | None) -> None:
    """An atomic update: GPU code only, a known op, an element of memory that other
    threads share (a thread's own needs no atomic)."""
    if target != "cuda":
        _body_fail(target, "an atomic update, which only a GPU kernel has")
    if s.op not in ir.ATOMIC_OPS:
        _body_fail(target, f"an atomic update of unknown op {s.op!r}")
    if not isinstance(s.target, ir.Load) or s.target.space not in _SHARED_SPACES:
        _body_fail(target, f"an atomic update of {s.target!r}, not an element of "
                           "global or shared memory")
    _reads(s.target, target, scope)
    _reads(s.value, target, scope)


def _assigned(s: ir.Assign, target: str) -> None:
    """An assignment to several names at once: two or more distinct names."""
    names = s.names
    if isinstance(s.target, tuple) and not (
            len(names) >= 2 and len(set(names)) == len(names)
            and all(isinstance(n, str) and n.isidentifier() for n in names)):
        _body_fail(target, f"an assignment to {s.target!r}, not two or more distinct names")


def _with(scope: set | None, *names: str) -> set | None:
    """A copy of ``scope`` for a nested body (what it assigns stays inside)."""
    return None if scope is None else scope | {n for n in names if n}


def _reads(e, target: str, scope: set | None) -> None:
    """Expression ``e`` (text: nothing to see) reads only defined names, and its
    loads are in memory its target has."""
    if isinstance(e, str):
        return
    for x in ir.exprs(e):
        match x:
            case ir.Name(id=n) if scope is not None and n not in scope:
                _body_fail(target, f"{n} read before it is defined")
            case ir.Load(space=sp) if sp not in ir.SPACES:
                _body_fail(target, f"a load from unknown memory {sp!r}")
            case ir.Load(array=a, space=sp) if sp in _GPU_SPACES and target != "cuda":
                _body_fail(target, f"{a} in {sp} memory, which only a GPU kernel has")
            case ir.Thread() | ir.GridGroup() if target != "cuda":
                _body_fail(target, "a thread number" if isinstance(x, ir.Thread)
                           else "a grid group, which only a GPU kernel has")
            case ir.Thread(what=w) if w not in ir.THREAD:
                _body_fail(target, f"unknown thread number {w!r}")
            case ir.GridGroup() if not getattr(target, "cooperative", False):
                _body_fail(target, "a grid group in a kernel not launched cooperatively")
            case ir.Tuple(bare=True):
                _body_fail(target, "a tuple without parentheses inside an expression "
                                   "(only a return's value may be one)")
            case ir.WarpReduce() if target != "cuda":
                _body_fail(target, "a warp reduction, which only a GPU kernel has")
            case ir.WarpReduce(op=op) if op not in ir.WARP_OPS:
                _body_fail(target, f"a warp reduction of unknown op {op!r}")
            case ir.WarpReduce(width=w) if not (1 < w <= ir.WARP and w & (w - 1) == 0):
                _body_fail(target, f"a warp reduction over {w} lanes, not a power of two "
                                   f"from 2 to {ir.WARP}")


def _body_fail(target: str, why: str):
    raise InternalError(f"a task body ({target}): {why}")


def _fail(k: ir.Kernel, why: str):
    raise InternalError(f"kernel {k.name} ({k.target}): {why}")
