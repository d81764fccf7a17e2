"""Support-query accelerators for large point clouds (exact answers, sublinear time)."""
