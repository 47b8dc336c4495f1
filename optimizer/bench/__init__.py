"""Benchmarking: dense synthetic boards (:mod:`.synthetic`) and a measuring runner (:mod:`.runner`)."""
