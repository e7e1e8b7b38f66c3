"""The language's data model, shared by every stage: static types (types.py),
script values - alphabets, sequences, matrices (values.py), results (results.py),
the arithmetic every backend must agree with (arith.py), data files and their
limits (fasta.py, limits.py), and the standard library's files (stdlib.py).

It imports nothing of dslc but :mod:`dslc.errors`, so the checker, the extension
SDK and every later stage can use it (docs/architecture.md, "Layers").
"""
