"""Vector helpers: plain-float 3-vectors for the solver's loops, batched numpy operations."""
