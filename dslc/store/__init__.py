"""What dslc keeps between runs: one key for every entry (:mod:`dslc.store.key`)."""
