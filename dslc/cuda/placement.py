"""Where a kernel's read-only arguments live (thesis §5.4, the allocation cost
model, reduced to what Numba-CUDA lets a generated kernel choose).

Every thread of a map reads the same model arrays (a substitution matrix, an
HMM's transition table) at addresses that depend on its own data, so a warp's
reads scatter. From global memory each such read is an L1/L2 transaction; from
shared memory it is a bank access, and the copy costs one coalesced pass per
block. So an array that fits the budget (``SHARED_BYTES`` per array, together
at most ``SHARED_TOTAL`` per block) is copied to shared memory when the block
starts; larger arrays stay in global memory. Constant memory is not chosen
on its own: it serialises a warp whose threads read different addresses (a
matrix indexed by each thread's residue), and reads every thread makes at one
address (the query residue of a tile row) are already hoisted into registers
by the register tile. An extension that knows its array is read uniformly (an
HMM's transitions, walked state by state in lockstep) pins it with
``sdk.DeviceArray(where="constant")``: its values are then compiled into the
kernel (``cuda.const.array_like``), one kernel per model value, within the
64 KiB of constant memory. Sequences stay in global memory (interleaved so
reads coalesce).

``DSLC_CUDA_PLACE=name:global,other:shared,third:constant`` overrides the
choice by argument name (the ``.bio`` parameter or global; a layout array as
``ARRAY_MODEL``), then a layout's own ``where``; ``shared`` is honoured only
for an array of one or two dimensions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from dslc.errors import DslcError

SHARED_BYTES = 16 * 1024
SHARED_TOTAL = 32 * 1024
SHARED_LIMIT = 48 * 1024  # static shared memory a block may have: a pin cannot exceed it
CONSTANT_TOTAL = 64 * 1024
MEMORIES = ("shared", "constant", "global")
OVERRIDE = "DSLC_CUDA_PLACE=name:" + "|".join(MEMORIES)  # the setting's form, as reports say it


@dataclass(frozen=True)
class Placement:
    memory: str  # "shared" | "constant" | "global"
    shape: tuple[int, ...]
    dtype: str
    why: str
    value: object = field(default=None, compare=False)  # the array, for constant memory


def overrides(text: str) -> dict[str, str]:
    """``DSLC_CUDA_PLACE``'s placements by name (its text: the compile options'
    ``cuda_place``)."""
    out = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        name, _, memory = item.partition(":")
        if memory not in MEMORIES:
            raise DslcError(f"DSLC_CUDA_PLACE: {item!r} is not name:shared, name:constant "
                            "or name:global")
        out[name] = memory
    return out


def place(arrays: dict[str, np.ndarray], pinned: dict[str, str] | None = None,
          names: dict[str, str] | None = None, asked: str = "") -> dict[str, Placement]:
    """Kernel argument -> placement, for the model arrays every task shares
    (``arrays``: argument name -> the host array the kernel receives;
    ``pinned``: argument -> a layout array's ``where``; ``names``: argument ->
    the source's name, as ``DSLC_CUDA_PLACE`` spells it, taken from the task's
    arguments: a generated argument's name is never parsed; by default each
    argument's own; ``asked``: ``DSLC_CUDA_PLACE``'s text, from the compile options)."""
    forced, out, used, const = overrides(asked), {}, 0, 0
    for arg, a in sorted(arrays.items(), key=lambda kv: kv[1].nbytes):
        name = (names or {}).get(arg, arg)
        fits = a.ndim in (1, 2) and a.size > 0
        want = forced.get(name) or (pinned or {}).get(arg)
        source = "DSLC_CUDA_PLACE" if name in forced else "the layout's where"
        if want == "constant" and a.size and const + a.nbytes <= CONSTANT_TOTAL:
            const += a.nbytes
            out[arg] = Placement("constant", a.shape, a.dtype.name,
                                 f"{source}: read uniformly, compiled into the kernel", a)
        elif want in ("global", "constant") or not fits:
            why = source if want == "global" else "over the 64 KiB of constant memory" \
                if want == "constant" else "not an array of one or two dimensions"
            out[arg] = Placement("global", a.shape, a.dtype.name, why)
        elif want == "shared" and used + a.nbytes > SHARED_LIMIT:
            out[arg] = Placement("global", a.shape, a.dtype.name,
                                 f"{source} asked for shared memory, but {a.nbytes} bytes do "
                                 f"not fit a block's {SHARED_LIMIT}")
        elif want == "shared" or (a.nbytes <= SHARED_BYTES and used + a.nbytes <= SHARED_TOTAL):
            used += a.nbytes
            why = source if want == "shared" else (
                f"{a.nbytes} bytes read by every thread at scattered addresses: copied to "
                f"shared memory once per block (budget {SHARED_BYTES} per array)")
            out[arg] = Placement("shared", a.shape, a.dtype.name, why)
        else:
            out[arg] = Placement("global", a.shape, a.dtype.name,
                                 f"{a.nbytes} bytes: over the shared-memory budget")
    return out
