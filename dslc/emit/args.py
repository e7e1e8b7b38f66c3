"""How generated batch functions and kernels take their arguments: packed one
buffer per argument for all tasks (:func:`packed_call`), copied into a block's
shared memory (:func:`copy_lines`) or compiled in as constant memory
(:func:`constant_lines`) where dslc.cuda.placement put them (``p``: its
``Placement`` of the argument)."""

from __future__ import annotations

import numpy as np


def packed_call(argnames: list[str], kinds: dict[str, str],
                at: str = "k") -> tuple[list[str], list[str]]:
    """Parameters of a batch function and the arguments it passes ``task`` for
    task (or lane group) ``at``; ``kinds`` says how each argument is packed:
    ``cseq`` (a task batch's packed buffer, starts and lengths: dslc.lang.batch),
    ``seq`` (one buffer + offsets), ``scalar`` (an array with one value per task),
    ``shared``, or one of the block-interleaved kinds of emit.tiles."""
    params, call = [], []
    for a in argnames:
        k = kinds[a]
        if k == "iseq":  # interleaved by block (emit.tiles): the whole buffer
            params.append(f"buf_{a}")
            call.append(f"buf_{a}")
        elif k == "ibase":
            params.append(f"arr_{a}")
            call.append(f"arr_{a}[n // BLOCK]")
        elif k == "ilen":
            params.append(f"arr_{a}")
            call.append(f"arr_{a}[n]")
        elif k == "lane":
            call.append("n % BLOCK")
        elif k == "cseq":  # the whole packed buffer, each task's start and length
            params += [f"buf_{a}", f"st_{a}", f"ln_{a}"]
            call.append(f"buf_{a}[st_{a}[{at}]:st_{a}[{at}] + ln_{a}[{at}]]")
        elif k == "seq":
            params += [f"buf_{a}", f"off_{a}"]
            call.append(f"buf_{a}[off_{a}[{at}]:off_{a}[{at} + 1]]")
        elif k == "scalar":
            params.append(f"arr_{a}")
            call.append(f"arr_{a}[{at}]")
        else:
            params.append(a)
            call.append(a)
    return params, call


def copy_lines(arg: str, p) -> list[str]:
    """Kernel lines copying ``arg`` into its shared array ``s_<arg>`` (every
    thread of the block a strided part, then a barrier)."""
    n = int(np.prod(p.shape))
    lines = [f"s_{arg} = cuda.shared.array({p.shape!r}, np.{p.dtype})",
             "_z = cuda.threadIdx.x",
             f"while _z < {n}:"]
    if len(p.shape) == 1:
        lines.append(f"    s_{arg}[_z] = {arg}[_z]")
    else:
        w = p.shape[1]
        lines.append(f"    s_{arg}[_z // {w}, _z % {w}] = {arg}[_z // {w}, _z % {w}]")
    lines.append("    _z += cuda.blockDim.x")
    return lines


def constant_lines(arg: str, p) -> tuple[str, str]:
    """(module-level definition of the values, kernel line binding ``c_<arg>``)."""
    a = np.ascontiguousarray(p.value)
    data = f"np.frombuffer(bytes.fromhex({a.tobytes().hex()!r}), np.{a.dtype.name})"
    return (f"_C_{arg} = {data}.reshape({a.shape!r})",
            f"c_{arg} = cuda.const.array_like(_C_{arg})")
