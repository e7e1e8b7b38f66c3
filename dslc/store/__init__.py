"""What dslc keeps between runs, in one directory, for every backend.

A compiled run keeps what it made so that the next run of the same script makes
nothing: the parsed program (``ast_<key>.json``, dslc.runtime.parsed), each plan
(``plan_<key>.json``, dslc.cpu.modules) and the generated module it names
(``dslc_<digest>.py``, beside Numba's machine code in ``__pycache__``), a CUDA map's
kernel (``cuda_kernel_<key>.pickle``, dslc.cuda.kernel_cache) and records that only
choose (the extensions found, calibrations, which map ran where).

* :mod:`dslc.store.key`: the one key of every entry made from inputs: the caller's
  inputs, the target, the settings that change code and a digest of the whole
  installed compiler's files, so an upgrade or an edit of any module never meets an
  entry another compiler made.
* :mod:`dslc.store.disk`: the directory (the user's own, 0700; one others can write
  is refused), reading an entry (only a regular file, opened without following a
  link or blocking: anything else is no entry), writing one (a private temporary
  renamed over it; a full disk is one error naming the directory) and Numba's
  cache kept behind the same checks.
* :mod:`dslc.store.files`: the one read of a file as an entry (a regular file, or
  nothing; never a link followed, never a blocking open).
* :mod:`dslc.store.entries`: dslc's entries recognised by name, in the groups a run
  uses together, and the size cap that removes the least recently used groups.
* :mod:`dslc.store.tools`: ``dslc cache info`` and ``dslc cache clear``.

A generated module is named by the hash of its own text and used only where its
text still hashes to its name; every other entry carries a checksum over its key
and body. An entry that fails a check is a miss: made again, never an error and
never a different value (docs/robustness.md, "The cache").

Nothing here imports a backend: every layer above (the front end's parsed programs,
the CPU and CUDA backends, tracebacks, ``auto``) keeps its entries through it.
"""
