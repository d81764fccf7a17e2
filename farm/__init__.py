"""Checks spread over many processes: shards of a check, merging their reports, and a runner on a cluster.

``plan`` decides which pairs (or, for an animation scan, which frames) a shard ``--shard K/N`` measures;
``merge`` joins the shards' JSON reports into the report one process would have written; ``runner`` runs
the shards on ``dask.distributed`` (imported only when the runner runs: never a dependency of the add-on).
Standard library only at import time, so ``python -m farm merge ...`` needs neither Blender nor numpy.
"""
