"""Certified bounds on the space closed surfaces enclose inside a box, for overlap volumes whose exact cut gave up:
each surface split into cones from one point, its outward-facing cones bound where its winding number is positive,
its inward-facing ones where it is negative (each cone at most its box's share of the box). Holds for surfaces
crossing themselves. See docs/architecture.md, section "Mesh: bounds when the cut gives up".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .parts_union import union_overlap
from .sheets import star_shaped
from .solid import Solid
from .trimesh import TriangleMesh
from .volume import mesh_volume

#: Added to a bound, relative to it: covers the rounding of the cones' volumes (float64, a few ulps each).
ROUNDING = 1e-9


def overlap_bounds(a: Solid, b: Solid, low: np.ndarray, high: np.ndarray) -> tuple[float, float]:
    """Bounds on the overlap of two closed objects in their common box ``[low, high]``, whatever their parts' own
    crossings: at most the box's volume and each object's ``enclosed_bound``; at least the overlap of their parts
    proved not to cross themselves (``Solid.own_crossings`` none, or ``sheets.star_shaped``), measured as unions
    (``parts_union.union_overlap``), less where another part's winding number may be negative (``negative_bound``)."""
    embedded = [[(not part.convex and not len(crossings)) or star_shaped(part.mesh)
                 for part, crossings in zip(solid.parts, solid.own_crossings)] for solid in (a, b)]
    most = min(float(np.prod(np.maximum(high - low, 0.0))),
               *(enclosed_bound([part.mesh for part in solid.parts], low, high, once)
                 for solid, once in zip((a, b), embedded)))
    kept = [np.flatnonzero(once) for once in embedded]
    if not all(len(indices) for indices in kept):
        return 0.0, most
    unions = []
    for solid, indices in zip((a, b), kept):
        number = {int(k): n for n, k in enumerate(indices)}
        unions += [[solid.parts[k].mesh for k in indices], [False] * len(indices),
                   [(number[i], number[j]) for i, j in solid.part_overlaps if i in number and j in number]]
    shared, _, error = union_overlap(*unions)
    others = [solid.parts[k].mesh for solid, once in zip((a, b), embedded) for k in np.flatnonzero(~np.array(once))]
    return min(max(shared - error - negative_bound(others, low, high), 0.0), most), most


def enclosed_bound(parts: Sequence[TriangleMesh], low: np.ndarray, high: np.ndarray,
                   embedded: Sequence[bool]) -> float:
    """At least the volume of the points of the box ``[low, high]`` whose winding numbers about the closed, outward
    facing ``parts`` sum to 1 or more (the object's solid, the union of its parts, in the box). ``embedded``: per
    part, whether it is proved not to cross itself (winding numbers 0 or 1), so that its own volume bounds it too."""
    low, high = np.asarray(low, float), np.asarray(high, float)
    return sum(min(_cone_bound(part, low, high, 1.0), mesh_volume(part) * (1.0 + ROUNDING)) if once
               else _cone_bound(part, low, high, 1.0) for part, once in zip(parts, embedded))


def negative_bound(parts: Sequence[TriangleMesh], low: np.ndarray, high: np.ndarray) -> float:
    """At least the volume of the points of the box ``[low, high]`` where the winding number about one of the closed
    ``parts`` is negative (none for a part that does not cross itself and faces outward)."""
    low, high = np.asarray(low, float), np.asarray(high, float)
    return sum(_cone_bound(part, low, high, -1.0) for part in parts)


def _cone_bound(part: TriangleMesh, low: np.ndarray, high: np.ndarray, sign: float) -> float:
    """The least of the cone sums (``_cone_sum``) seen from a few apexes: the part's vertices' mean, its box's
    centre and the centre of its box's share of ``[low, high]``."""
    vertices = part.vertices
    inner_low, inner_high = np.maximum(low, vertices.min(axis=0)), np.minimum(high, vertices.max(axis=0))
    if (inner_high <= inner_low).any():
        return 0.0
    apexes = (vertices.mean(axis=0), 0.5 * (vertices.min(axis=0) + vertices.max(axis=0)),
              0.5 * (inner_low + inner_high))
    return min(_cone_sum(part.corners, apex, low, high, sign) for apex in apexes)


def _cone_sum(corners: np.ndarray, apex: np.ndarray, low: np.ndarray, high: np.ndarray, sign: float) -> float:
    """Over the triangles whose cone from ``apex`` has the orientation ``sign``, the smaller of the cone's volume and
    of its box's volume inside ``[low, high]``, summed (plus ``ROUNDING``)."""
    a, b, c = (corners[:, k] - apex for k in range(3))
    volumes = sign * np.einsum("ij,ij->i", a, np.cross(b, c)) / 6.0
    chosen = volumes > 0.0
    a, b, c, volumes = a[chosen], b[chosen], c[chosen], volumes[chosen]
    cone_low = np.minimum(np.minimum(np.minimum(a, b), c), 0.0) + apex
    cone_high = np.maximum(np.maximum(np.maximum(a, b), c), 0.0) + apex
    inside = np.prod(np.clip(np.minimum(cone_high, high) - np.maximum(cone_low, low), 0.0, None), axis=1)
    return float(np.minimum(volumes, inside).sum()) * (1.0 + ROUNDING)
