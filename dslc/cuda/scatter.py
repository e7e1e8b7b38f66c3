"""The kernel that interleaves sequences by block (dslc.cuda.layout says how and
why). A module of its own so that ``cuda`` is a module global, which Numba's
simulator replaces with its own when it runs the kernel."""

from numba import cuda


@cuda.jit(cache=True)
def scatter(codes, starts, lens, base, block, out):
    """A thread block per block of tasks, its threads striding over the block's
    bytes in order: coalesced writes, each residue read once, padding 0."""
    b = cuda.blockIdx.x
    first = b * block
    at = base[b]
    size = base[b + 1] - at
    i = cuda.threadIdx.x
    while i < size:
        j = i // block
        k = first + i - j * block
        v = 0
        if k < lens.shape[0] and j < lens[k]:
            v = codes[starts[k] + j]
        out[at + i] = v
        i += cuda.blockDim.x
