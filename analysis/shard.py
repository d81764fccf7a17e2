"""The candidate pairs that shard ``K/N`` of a clash check measures (``check --shard K/N``).

Every shard reads the same objects and runs the same broad phase, so all agree on the candidate pairs;
each then measures its own share, balanced by an estimate of each pair's cost (``farm.plan.balanced_shards``).
A pair of convex objects (or hulls) is measured by GJK/EPA on its vertices, a few of them in a batch;
any other pair on its triangles, through trees, which costs far more per vertex (``TRIANGLE_PAIR_WEIGHT``).
"""

from __future__ import annotations

from ..core.mesh import CONVEX, HULL, Solid
from ..core.mesh.contact.result import pair_method
from ..farm.plan import balanced_shards

#: How much more a pair measured on its triangles costs than a convex pair of as many vertices (an estimate).
TRIANGLE_PAIR_WEIGHT = 40.0


def pair_cost(a: Solid, b: Solid) -> float:
    """An estimate of the time measuring the pair takes, in units of a convex pair's vertex."""
    vertices = len(a.mesh.vertices) + len(b.mesh.vertices)
    return float(vertices) if pair_method(a, b) in (CONVEX, HULL) else TRIANGLE_PAIR_WEIGHT * vertices


def shard_pairs(pairs: list[tuple[int, int]], solids: list[Solid], shard: tuple[int, int]) -> list[tuple[int, int]]:
    """The pairs (indices into ``solids``) that shard ``(K, N)`` (K from 1) measures, in their given order."""
    index, count = shard
    owners = balanced_shards([pair_cost(solids[i], solids[j]) for i, j in pairs], count)
    return [pair for pair, owner in zip(pairs, owners) if owner == index - 1]
