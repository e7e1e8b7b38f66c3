"""Sequences as the register-tiled kernels read them: interleaved by block.

Residue ``j`` of task ``k`` lies at ``base[k // block] + j * block + k % block``,
each block of ``block`` tasks padded with zeros to its longest sequence, so a
warp's reads of residue ``j`` are one line (emit.tiles reads them by that rule).

The interleaving runs on the device, from the packed buffer already uploaded
(``CudaBackend._resident``): a million proteins are 325 MB, which the host took
about a quarter of a second per million to scatter and then had to upload
again; the device writes them in milliseconds and nothing crosses the bus but
the tasks' starts and lengths. The host computes only the layout (one base
per block) from the lengths.
"""

from __future__ import annotations

import numpy as np


def layout(lens: np.ndarray, block: int) -> np.ndarray:
    """``base``: block ``b`` of the tasks (lengths ``lens``) occupies bytes
    ``base[b]`` to ``base[b + 1]`` (``block`` times its longest sequence)."""
    nb = -(-len(lens) // block)
    padded = np.zeros(nb * block, dtype=np.int64)
    padded[:len(lens)] = lens
    base = np.zeros(nb + 1, dtype=np.int64)
    np.cumsum(padded.reshape(nb, block).max(axis=1) * block, out=base[1:])
    return base


def interleave(cuda, codes, starts: np.ndarray, lens: np.ndarray, block: int, stream,
               threads: int = 256, put=None):
    """``(device buffer, base per block)``: the sequences of the tasks (residues
    ``codes[starts[k]:starts[k] + lens[k]]``, ``codes`` a device array)
    interleaved by block on the device, every byte written, padding included.
    ``put(host array)``: the device copy of the starts, lengths and bases (a
    launch's arena, :meth:`dslc.cuda.arena.Arena.put`: made each on its own, they
    were freed once the copy was made, each free waiting for the device)."""
    base = layout(lens, block)
    total = int(base[-1])
    if not total:
        return cuda.to_device(np.zeros(1, dtype=np.uint8), stream=stream), base[:-1]
    out = cuda.device_array(total, dtype=np.uint8, stream=stream)
    put = put or (lambda a: cuda.to_device(a, stream=stream))
    args = [put(np.ascontiguousarray(a, dtype=np.int64)) for a in (starts, lens, base)]
    from dslc.cuda.scatter import scatter  # imports Numba-CUDA: on first use only

    scatter[len(base) - 1, threads, stream](codes, *args, block, out)
    return out, base[:-1]
