"""Volumes of objects whose loose parts overlap each other: an object's solid is the union of its parts, so shared
space counts once (inclusion-exclusion over sets of overlapping parts, their intersections as convex meshes).
See docs/architecture.md, section "Mesh: volumes of objects made of overlapping parts".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..shapes.hull import convex_hull
from .convex_volume import convex_overlap_volumes
from .trimesh import TriangleMesh
from .volume import mesh_volume, overlap_volume

#: Points within this fraction of the pair's size of a face count as on it (the hull merges them).
ON_FACE = 1e-9
#: At most this many sets of mutually overlapping parts per object are expanded (beyond it: not measured).
MAX_SETS = 4096


def _boxes_meet(a: TriangleMesh, b: TriangleMesh) -> bool:
    return bool((a.vertices.min(axis=0) <= b.vertices.max(axis=0)).all()
                and (b.vertices.min(axis=0) <= a.vertices.max(axis=0)).all())


def part_overlaps(meshes: Sequence[TriangleMesh], closed: Sequence[bool],
                  exactly_convex: Sequence[bool] | None = None) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, i < j, of closed parts whose volumes overlap (positive volume; parts that only
    touch, sharing a face, do not). Only parts whose boxes share volume are measured; pairs of parts convex to rounding
    (``exactly_convex``: their face planes bound them) are clipped together (``convex_overlap_volumes``)."""
    if len(meshes) < 2:
        return []
    lows = np.array([mesh.vertices.min(axis=0) for mesh in meshes])
    highs = np.array([mesh.vertices.max(axis=0) for mesh in meshes])
    meet = np.all((lows[:, None] < highs[None]) & (lows[None] < highs[:, None]), axis=2)  # boxes sharing volume
    usable = np.asarray(closed, dtype=bool)
    first, second = np.nonzero(np.triu(meet & usable[:, None] & usable[None], k=1))
    exact = np.zeros(len(meshes), bool) if exactly_convex is None else np.asarray(exactly_convex, dtype=bool)
    clipped = np.flatnonzero(exact[first] & exact[second])
    volumes = np.zeros(len(first))
    volumes[clipped] = [volume for volume, _ in convex_overlap_volumes([(meshes[first[k]], meshes[second[k]])
                                                                         for k in clipped])]
    for k in np.flatnonzero(~(exact[first] & exact[second])):
        volumes[k] = overlap_volume(meshes[first[k]], meshes[second[k]])[0]
    return [(int(i), int(j)) for i, j, volume in zip(first, second, volumes) if volume > 0.0]


def overlapping_sets(count: int, overlaps: Sequence[tuple[int, int]]) -> list[tuple[int, ...]] | None:
    """Every non-empty set of parts that pairwise overlap (each sorted, singles first); None past ``MAX_SETS``."""
    neighbours = [set() for _ in range(count)]
    for i, j in overlaps:
        neighbours[i].add(j)
        neighbours[j].add(i)
    sets = [(i,) for i in range(count)]
    frontier = list(sets)
    while frontier:
        grown = [members + (k,) for members in frontier for k in range(members[-1] + 1, count)
                 if all(k in neighbours[m] for m in members)]
        sets += grown
        frontier = grown
        if len(sets) > MAX_SETS:
            return None
    return sets


def convex_intersection(first: TriangleMesh, second: TriangleMesh) -> TriangleMesh | None:
    """The intersection of two closed convex meshes as a closed convex mesh; None when it has no volume.

    Its corners are the corners of each mesh inside the other and the points where an edge of one passes
    through a face of the other; their hull is the intersection.
    """
    size = max(first.size, second.size)
    points = [first.vertices[_inside(second, first.vertices, size)],
              second.vertices[_inside(first, second.vertices, size)],
              _edge_face_points(first, second, size), _edge_face_points(second, first, size)]
    points = np.concatenate(points)
    if len(points) < 4:
        return None
    hull = convex_hull(points)
    if hull.dimension < 3:
        return None
    return TriangleMesh.from_arrays(hull.vertices, hull.triangles, "intersection")


def _inside(mesh: TriangleMesh, points: np.ndarray, size: float) -> np.ndarray:
    """Points on the inner side of every face plane of the convex ``mesh`` (or within ``ON_FACE`` of it)."""
    normals = mesh.area_normals
    lengths = np.linalg.norm(normals, axis=1)
    keep = lengths > 0.0
    unit, origins = normals[keep] / lengths[keep, None], mesh.corners[keep, 0]
    heights = points @ unit.T - np.einsum("ij,ij->i", unit, origins)[None, :]
    return (heights <= ON_FACE * size).all(axis=1)


def _edge_face_points(mesh: TriangleMesh, other: TriangleMesh, size: float) -> np.ndarray:
    """Where the edges of ``mesh`` pass through the faces of ``other`` (points inside ``other``, with slack)."""
    edges = np.unique(np.sort(np.concatenate([mesh.triangles[:, [0, 1]], mesh.triangles[:, [1, 2]],
                                              mesh.triangles[:, [2, 0]]]), axis=1), axis=0)
    start, end = mesh.vertices[edges[:, 0]], mesh.vertices[edges[:, 1]]
    normals, origins = other.area_normals, other.corners[:, 0]
    offsets = np.einsum("ij,ij->i", normals, origins)
    at_start = start @ normals.T - offsets
    at_end = end @ normals.T - offsets
    edge, face = np.nonzero((at_start > 0.0) != (at_end > 0.0))
    along = at_start[edge, face] / (at_start[edge, face] - at_end[edge, face])
    points = start[edge] + along[:, None] * (end[edge] - start[edge])
    return points[_inside(other, points, size)]


def _set_mesh(meshes: Sequence[TriangleMesh], convex: Sequence[bool], members: tuple[int, ...]
              ) -> TriangleMesh | None | bool:
    """The intersection of the parts ``members`` as a mesh; None when it has no volume; False when it cannot
    be built (two or more parts, one of them not convex)."""
    if len(members) == 1:
        return meshes[members[0]]
    if not all(convex[k] for k in members):
        return False
    result = meshes[members[0]]
    for k in members[1:]:
        result = convex_intersection(result, meshes[k])
        if result is None:
            return None
    return result


def union_overlap(parts_a: Sequence[TriangleMesh], convex_a: Sequence[bool], overlaps_a: Sequence[tuple[int, int]],
                  parts_b: Sequence[TriangleMesh], convex_b: Sequence[bool], overlaps_b: Sequence[tuple[int, int]]
                  ) -> tuple[float, np.ndarray | None] | None:
    """``(volume, centroid)`` of the region inside both objects, each the union of its closed parts (see the
    module notes); None when a set of several overlapping parts has a non-convex one, or there are too many
    sets. ``overlaps_*``: ``part_overlaps`` of each object's parts."""
    sets_a, sets_b = overlapping_sets(len(parts_a), overlaps_a), overlapping_sets(len(parts_b), overlaps_b)
    if sets_a is None or sets_b is None:
        return None
    crossing = {(i, j): overlap_volume(a, b) for i, a in enumerate(parts_a) for j, b in enumerate(parts_b)
                if _boxes_meet(a, b)}
    meets = {key for key, (volume, _) in crossing.items() if volume > 0.0}
    volume, moment = 0.0, np.zeros(3)
    built_a: dict[tuple[int, ...], TriangleMesh | None | bool] = {}
    built_b: dict[tuple[int, ...], TriangleMesh | None | bool] = {}
    for members_a in sets_a:
        for members_b in sets_b:
            if not all((i, j) in meets for i in members_a for j in members_b):
                continue
            if len(members_a) == 1 and len(members_b) == 1:
                term, centre = crossing[members_a[0], members_b[0]]
            else:
                mesh_a = built_a.setdefault(members_a, _set_mesh(parts_a, convex_a, members_a))
                mesh_b = built_b.setdefault(members_b, _set_mesh(parts_b, convex_b, members_b))
                if mesh_a is False or mesh_b is False:
                    return None
                if mesh_a is None or mesh_b is None:
                    continue
                term, centre = overlap_volume(mesh_a, mesh_b)
            if term > 0.0:
                sign = (-1.0) ** (len(members_a) + len(members_b))
                volume += sign * term
                moment += sign * term * centre
    if volume <= 0.0:
        return 0.0, None
    return volume, moment / volume


def covered_twice(parts: Sequence[TriangleMesh], convex: Sequence[bool], overlaps: Sequence[tuple[int, int]]
                  ) -> float | None:
    """The volume inside two or more of an object's closed parts (0 when none overlap); None when a set of
    three or more overlapping parts has a non-convex one, or there are too many sets."""
    sets = overlapping_sets(len(parts), overlaps)
    if sets is None:
        return None
    total = 0.0
    for members in (members for members in sets if len(members) >= 2):
        if len(members) == 2:
            term = overlap_volume(parts[members[0]], parts[members[1]])[0]
        else:
            mesh = _set_mesh(parts, convex, members)
            if mesh is False:
                return None
            term = 0.0 if mesh is None else mesh_volume(mesh)
        total += (-1.0) ** len(members) * (len(members) - 1) * term
    return max(total, 0.0)

