"""A map's kernel: planned, its strategy and value type chosen, generated, and
kept on disk for later processes (functions over the backend, which holds the
memo of plans and kernels)."""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np

from dslc import timings
from dslc.cpu.convert import plan_shape
from dslc.cpu.decision import Decision
from dslc.cuda import kernel_cache, rules
from dslc.cuda.launch import block_threads
from dslc.cuda.records import Kernel, plan_extents, storage_records
from dslc.cuda.rules import hybrid, partition_width
from dslc.emit.precision import STATIC, float32_info, largest
from dslc.emit.pyexpr import NotCompilable
from dslc.emit.strategies import build, strategy
from dslc.emit.tiles import block_size
from dslc.kernel.value_type import ValueType
from dslc.plan import lower


def device_compile(be, func, kind, scope, request, tasks) -> Kernel:
    """The kernel for a map: task-per-block (emit.blocks) where ``hybrid``
    picks it, else task-per-thread: register-tiled (emit.tiles) where the
    group's dependences allow, float32 where emit.precision's static bound
    holds for these tasks, else the general kernel in float64."""
    shared, lens = tasks.shared, tasks.lengths
    key = (func, kind, request, shared, tuple(
        (n, plan_shape(v, be.program.registry)) for n, v in sorted(scope.items())),
        be.options)
    if key not in be._plans:
        with timings.planning():
            be._plans[key] = lower(be.program, func, kind, scope, request,
                                  verify=be.options.verify_ir).task
    plan = be._plans[key]
    dtype = value_dtype(be, plan, tasks, lens, shared)
    per_block, why = hybrid(plan, len(tasks), be.options)
    block, sized = block_threads(per_block, partition_width(plan), be.options)
    key += (dtype, per_block, block)
    if key not in be._kernels:
        be._kernels[key] = kept(be, key, func, plan) or made(be, 
            key, func, plan, tasks, dtype, per_block, why, block, sized)
    k = be._kernels[key]
    if k.decision is not None and k.decision.why[:1] != (why,):
        # the kernel serves other task counts: its first reason is this map's
        k = replace(k, decision=replace(k.decision, why=(why,) + k.decision.why[1:]))
    be.device_generated[func] = (plan, k.source)
    return k


def kept(be, key, func, plan) -> Kernel | None:
    """The kernel an earlier process generated under ``key`` (dslc.cuda.kernel_cache)."""
    kept = kernel_cache.load(kernel_cache.key_of(be.program, func, key, be.options))
    if kept is None:
        return None
    kept.pop("format")
    return Kernel(plan=plan, **kept)


def made(be, key, func, plan, *how) -> Kernel:
    """The kernel generated now, and kept on disk for later processes."""
    with timings.planning():  # (generating a kernel's source)
        k = generate(be, func, plan, *how)
    kernel_cache.store(kernel_cache.key_of(be.program, func, key, be.options),
                       {f.name: getattr(k, f.name) for f in fields(k) if f.name != "plan"})
    return k


def generate(be, func, plan, tasks, dtype, per_block, why, block, sized) -> Kernel:
    """A map kernel's source and the decision that chose it (``why``: the
    hybrid rule's reason; a strategy declined adds the generator's reason)."""
    said = dict(entry=func, backend="cuda", work="map")
    common = (("hybrid", rules.hybrid_note(be.program, plan, be.options)),
              ("scratch", rules.scratch()), ("placement", rules.PLACEMENT),
              ("single calls", rules.single_calls(be.program, func)))
    reasons = [why]
    if per_block:
        blocks = strategy("cuda task-per-block")
        try:
            gen = build(blocks, be.program, plan, block)
            source, args = gen.generate()
            d = Decision(**said, strategy=blocks.name, value_type=gen.dtype,
                         block=block, why=(why, f"{block} threads: {sized}"),
                         storage=storage_records(gen.storage, True, False),
                         notes=(("register tile", "none (a block per task)"),) + common)
            return Kernel(source, tuple(args), plan, tuple(gen.storage), gen.dtype,
                          True, block, d)
        except NotCompilable as e:
            reasons.append(f"no task-per-block: {e}")
    block = block_size(be.options)
    sized = rules.block_source(block_threads(False, None, be.options)[1])
    shared_seqs = frozenset(n for n in tasks.shared if tasks.is_seq(n))
    chosen = strategy("cuda register-tiled")
    try:
        gen = build(chosen, be.program, plan, shared_seqs, value=ValueType(dtype),
                    options=be.options)
        source, args = gen.generate()
        tile = (("register tile", rules.tile(gen.rows)),
                ("specialised", rules.SPECIALISED))
    except NotCompilable as e:
        chosen = strategy("cuda task-per-thread")
        gen = build(chosen, be.program, plan)
        source, args = gen.generate()
        reasons.append(str(e))
        tile = (("register tile", f"none ({e})"),)
    tiled = chosen.key == "cuda register-tiled"
    d = Decision(**said, strategy=chosen.name, value_type=gen.dtype, block=block,
                 rows=gen.rows if tiled else None, why=tuple(reasons),
                 storage=storage_records(gen.storage, False, tiled),
                 notes=(("block", sized),) + tile + common)
    return Kernel(source, tuple(args), plan, tuple(gen.storage), gen.dtype, False,
                  block, d)


def value_dtype(be, plan, tasks, lens, shared) -> str:
    """float32 where the static argument of emit.precision holds (a kernel
    cannot re-run a task whose checked magnitudes went too far)."""
    info = float32_info(be.program, plan)
    if info is None or not info.linear:
        return "float64"
    arrays = []
    extent = max([int(v.max()) for v in lens.values()] + [0])
    for n, col in tasks.columns.items():
        if n in lens:
            continue
        column = [col.value] if n in shared else list({id(v): v for v in col.items}.values())
        try:
            arrays += [np.asarray(be.cpu.convert(v), dtype=np.float64) for v in column]
        except (NotCompilable, TypeError, ValueError):
            return "float64"
    for name in be.globals:
        try:
            arrays.append(np.asarray(be.cpu.convert(be.globals[name]), dtype=np.float64))
        except (NotCompilable, TypeError, ValueError):
            pass
    values = largest(arrays)
    extent = max([extent] + list(plan_extents(plan).values()))
    if values is None or info.static_bound(values, extent) >= STATIC:
        return "float64"
    return "float32"
