"""Volumes of objects whose loose parts overlap each other: an object's solid is the union of its parts, so shared
space counts once (inclusion-exclusion over sets of overlapping parts, their intersections as convex meshes).
See docs/architecture.md, section "Mesh: volumes of objects made of overlapping parts".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..shapes.hull import convex_hull
from .convex_volume import convex_overlap_volumes
from .intersection import RELATIVE_TOLERANCE
from .trimesh import TriangleMesh
from .volume import overlap_volume
from .winding_volume import covered_twice as twice_region, overlap_of_unions, region_volume

#: Points within this fraction of the pair's size of a face count as on it (the hull merges them).
ON_FACE = 1e-9
#: At most this many sets of mutually overlapping parts per object are expanded (beyond it: not measured).
MAX_SETS = 4096

#: Called when needed: each of two objects' per-part (K, 2) pairs of its own triangles that cross.
OwnCrossings = Callable[[], tuple[Sequence[np.ndarray], Sequence[np.ndarray]]]


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


def _convex_core(meshes: Sequence[TriangleMesh]) -> TriangleMesh | None:
    """The intersection of one or more closed convex meshes; None when it has no volume."""
    result = meshes[0]
    for mesh in meshes[1:]:
        result = convex_intersection(result, mesh)
        if result is None:
            return None
    return result


def _common_volume(meshes: Sequence[TriangleMesh], convex: Sequence[bool]) -> tuple[float, np.ndarray | None] | None:
    """``(volume, centroid)`` of the region inside every one of two or more closed meshes; None when two or more of
    them are not convex (their intersection cannot be built). The convex ones are intersected into one mesh,
    measured against the non-convex one (``overlap_volume``: any closed shape)."""
    rough = [mesh for mesh, flat in zip(meshes, convex) if not flat]
    flat = [mesh for mesh, flat in zip(meshes, convex) if flat]
    if len(rough) > 1:
        return None
    if len(rough) == 1:
        core = _convex_core(flat)
        return (0.0, None) if core is None else overlap_volume(rough[0], core)
    core = _convex_core(flat[:-1])
    return (0.0, None) if core is None else overlap_volume(core, flat[-1])


def union_overlap(parts_a: Sequence[TriangleMesh], convex_a: Sequence[bool], overlaps_a: Sequence[tuple[int, int]],
                  parts_b: Sequence[TriangleMesh], convex_b: Sequence[bool], overlaps_b: Sequence[tuple[int, int]],
                  own_crossings: OwnCrossings | None = None) -> tuple[float, np.ndarray | None, float]:
    """``(volume, centroid, error)`` of the region inside both objects, each the union of its closed parts (see the
    module notes). ``error`` is 0 when the volume is exact: always, unless the surfaces' cut is inconsistent
    (``winding_volume.region_volume`` gives up near degenerate triple crossings); then the volume is the sum over
    pairs of parts, at most ``error`` above the true one (``approximate_union_overlap``).
    ``overlaps_*``: ``part_overlaps`` of each object's parts. ``own_crossings``: called when the parts' surfaces
    are cut, returns each object's per-part pairs of triangles that cross (``Solid.own_crossings``): without it,
    parts are taken not to cross themselves."""
    sets_a, sets_b = overlapping_sets(len(parts_a), overlaps_a), overlapping_sets(len(parts_b), overlaps_b)
    if sets_a is None or sets_b is None or _mixed_terms(convex_a, sets_a, convex_b, sets_b):
        measured = cut_overlap(parts_a, parts_b, own_crossings)
        if measured is not None:
            return measured[0], measured[1], 0.0
    crossing = {(i, j): overlap_volume(a, b) for i, a in enumerate(parts_a) for j, b in enumerate(parts_b)
                if _boxes_meet(a, b)}
    exact = None if sets_a is None or sets_b is None else _inclusion_exclusion(
        parts_a, convex_a, sets_a, parts_b, convex_b, sets_b, crossing)
    if exact is not None:
        return exact[0], exact[1], 0.0
    return approximate_union_overlap(parts_a, convex_a, overlaps_a, parts_b, convex_b, overlaps_b, crossing)


def cut_overlap(parts_a: Sequence[TriangleMesh], parts_b: Sequence[TriangleMesh],
                own_crossings: OwnCrossings | None = None) -> tuple[float, np.ndarray | None] | None:
    """``(volume, centroid)`` of the region inside both unions of closed parts, by cutting their surfaces along
    their crossings (``winding_volume.region_volume``), exact for any closed parts, also parts crossing themselves
    when ``own_crossings`` gives their crossings (see ``union_overlap``); None when the cut gives up."""
    near_a, near_b = _near_parts(parts_a, parts_b), _near_parts(parts_b, parts_a)
    if not (near_a and near_b):
        return 0.0, None
    own = None
    if own_crossings is not None:
        found_a, found_b = own_crossings()
        own = [found_a[k] for k in near_a] + [found_b[k] for k in near_b]
    return region_volume([parts_a[k] for k in near_a] + [parts_b[k] for k in near_b],
                         [0] * len(near_a) + [1] * len(near_b), overlap_of_unions, own)


def _near_parts(parts: Sequence[TriangleMesh], others: Sequence[TriangleMesh]) -> list[int]:
    """The indices of the parts whose boxes meet the box of all ``others``: the overlap lies in that box, and the
    windings of the parts that miss it are 0 there, so leaving them out changes nothing."""
    low = np.min([other.vertices.min(axis=0) for other in others], axis=0)
    high = np.max([other.vertices.max(axis=0) for other in others], axis=0)
    margin = RELATIVE_TOLERANCE * float((high - low).max())
    return [k for k, part in enumerate(parts) if (part.vertices.min(axis=0) <= high + margin).all()
            and (part.vertices.max(axis=0) >= low - margin).all()]


def _mixed_terms(convex_a: Sequence[bool], sets_a: list[tuple[int, ...]], convex_b: Sequence[bool],
                 sets_b: list[tuple[int, ...]]) -> bool:
    """Whether some inclusion-exclusion term may hold two or more non-convex parts (it cannot be built): a set of
    overlapping parts of one object with a non-convex part, and a non-convex part in the other or in that set."""
    for convex, sets, other in ((convex_a, sets_a, convex_b), (convex_b, sets_b, convex_a)):
        for members in sets:
            rough = sum(not convex[k] for k in members)
            if len(members) >= 2 and (rough >= 2 or (rough == 1 and not all(other))):
                return True
    return False


def _inclusion_exclusion(parts_a: Sequence[TriangleMesh], convex_a: Sequence[bool], sets_a: list[tuple[int, ...]],
                         parts_b: Sequence[TriangleMesh], convex_b: Sequence[bool], sets_b: list[tuple[int, ...]],
                         crossing: dict) -> tuple[float, np.ndarray | None] | None:
    """The module notes' sum over the sets of overlapping parts; None when a term cannot be measured."""
    meets = {key for key, (volume, _) in crossing.items() if volume > 0.0}
    volume, moment = 0.0, np.zeros(3)
    for members_a in sets_a:
        for members_b in sets_b:
            if not all((i, j) in meets for i in members_a for j in members_b):
                continue
            if len(members_a) == 1 and len(members_b) == 1:
                term, centre = crossing[members_a[0], members_b[0]]
            else:
                measured = _common_volume([parts_a[i] for i in members_a] + [parts_b[j] for j in members_b],
                                          [convex_a[i] for i in members_a] + [convex_b[j] for j in members_b])
                if measured is None:
                    return None
                term, centre = measured
            if term > 0.0:
                sign = (-1.0) ** (len(members_a) + len(members_b))
                volume += sign * term
                moment += sign * term * centre
    if volume <= 0.0:
        return 0.0, None
    return volume, moment / volume


def approximate_union_overlap(parts_a: Sequence[TriangleMesh], convex_a: Sequence[bool],
                              overlaps_a: Sequence[tuple[int, int]], parts_b: Sequence[TriangleMesh],
                              convex_b: Sequence[bool], overlaps_b: Sequence[tuple[int, int]], crossing: dict
                              ) -> tuple[float, np.ndarray | None, float]:
    """``(volume, centroid, error)``: the sum of the parts' pairwise overlaps ``crossing`` (``{(i, j): (volume,
    centroid)}``, missing pairs 0), an upper bound of the union's, and ``error`` bounding how much it exceeds it.

    With ``a(x)``, ``b(x)`` the numbers of A's and B's parts holding a point, the sum is the integral of ``a b``
    and the union's the integral of 1 where both are at least 1; there ``a b - 1 = (a - 1) b + (b - 1)``, at most
    one term per pair of overlapping parts of A and part of B, plus one per pair of overlapping parts of B and part
    of A: each the volume inside all three (measured when at most one of them is not convex), else at most the
    smaller of the two pairwise overlaps.
    """
    volume = sum(term for term, _ in crossing.values())
    if volume <= 0.0:
        return 0.0, None, 0.0
    centroid = sum(term * centre for term, centre in crossing.values() if term > 0.0) / volume

    def pairwise(i: int, j: int) -> float:
        return crossing.get((i, j), (0.0, None))[0]

    error = 0.0
    for first, second in overlaps_a:
        for j in range(len(parts_b)):
            bound = min(pairwise(first, j), pairwise(second, j))
            if bound > 0.0:
                error += _triple_or(bound, [parts_a[first], parts_a[second], parts_b[j]],
                                    [convex_a[first], convex_a[second], convex_b[j]])
    for first, second in overlaps_b:
        for i in range(len(parts_a)):
            bound = min(pairwise(i, first), pairwise(i, second))
            if bound > 0.0:
                error += _triple_or(bound, [parts_b[first], parts_b[second], parts_a[i]],
                                    [convex_b[first], convex_b[second], convex_a[i]])
    return volume, centroid, min(error, volume)


def _triple_or(bound: float, meshes: list[TriangleMesh], convex: list[bool]) -> float:
    """The volume inside all three ``meshes`` when it can be measured, else ``bound``."""
    measured = _common_volume(meshes, convex)
    return bound if measured is None else min(max(measured[0], 0.0), bound)


def covered_twice(parts: Sequence[TriangleMesh], convex: Sequence[bool], overlaps: Sequence[tuple[int, int]],
                  own_crossings: Sequence[np.ndarray | None] | None = None) -> float | None:
    """The volume inside two or more of an object's closed parts, or two or more sheets of a part crossing itself
    (``own_crossings``: per part, the pairs of its own triangles that cross, as ``self_intersection`` finds them);
    0 when nothing overlaps. Sets of overlapping parts with at most one non-convex part are measured by
    inclusion-exclusion, the rest by their surfaces' cut (``winding_volume``); None when that cut is inconsistent."""
    crossing_itself = own_crossings is not None and any(pairs is not None and len(pairs) for pairs in own_crossings)
    sets = None if crossing_itself else overlapping_sets(len(parts), overlaps)
    if not crossing_itself and not overlaps:
        return 0.0
    total = None if sets is None else _covered_twice_by_sets(parts, convex, sets)
    if total is None:
        measured = region_volume(parts, [0] * len(parts), twice_region, own_crossings)
        total = None if measured is None else measured[0]
    return None if total is None else max(total, 0.0)


def _covered_twice_by_sets(parts: Sequence[TriangleMesh], convex: Sequence[bool], sets: list[tuple[int, ...]]
                           ) -> float | None:
    """Inclusion-exclusion over the sets of overlapping parts; None when a set's intersection cannot be built."""
    total = 0.0
    for members in (members for members in sets if len(members) >= 2):
        if len(members) == 2:
            term = overlap_volume(parts[members[0]], parts[members[1]])[0]
        else:
            measured = _common_volume([parts[k] for k in members], [convex[k] for k in members])
            if measured is None:
                return None
            term = measured[0]
        total += (-1.0) ** len(members) * (len(members) - 1) * term
    return total
