"""The surface a mesh's geometry describes, whatever its indexing (welded, oriented, small holes capped), and how
sure its inside is: ``'exact'``, ``'approximate'`` (with a bound on the volume's error) or ``'none'``.
See docs/architecture.md, section "Mesh: repair and how sure an inside is".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..steps import checkpoint
from ..vector.arrays import cross
from .topology import EdgeTable, bounds_volume, edge_table, label_components, renumber_topology, uses_by_edge
from .trimesh import TriangleMesh
from .volume import mesh_volume
from .weld import exact_representatives, near_representatives

EXACT, APPROXIMATE, NONE = "exact", "approximate", "none"
#: Vertices on open edges closer than this fraction of the mesh's size (along every axis) are welded. Blender
#: keeps coordinates as float32 (6e-8 relative), so a seam whose two sides were computed apart differs by a few
#: units in that last place; 1e-6 closes such cracks and merges nothing a modeller could see apart.
WELD_TOLERANCE = 1e-6
#: Holes whose rims come within this fraction of the mesh's size of each other are the two sides of one crack (a
#: seam written with different vertices on each side, a cap meeting a wall it was not merged with): capped as one
#: hole, whose rims nearly cancel, instead of each side as a wide opening of its own. Nothing is welded.
CRACK_TOLERANCE = 1e-4
#: A mesh whose holes, capped, could change its volume by at most this share of it is nearly closed: its volume
#: is 'approximate'. Larger openings (a cup's rim, a plane's edge) leave it an open surface, without a volume.
NEARLY_CLOSED_SHARE = 0.05


@dataclass(frozen=True, eq=False)
class MeshRepair:
    """A mesh repaired by ``repaired``, and what was changed.

    ``mesh``: welded, without degenerate or repeated triangles, consistently oriented where the surface allows,
    holes capped when it is nearly closed (the caps' triangles come last: ``caps`` of them, on ``holes`` new
    centre vertices). ``certainty``: 'exact', 'approximate' or 'none' (see the module docstring);
    ``volume_error``: a bound on how much the caps may have changed the enclosed volume (world units³, 0 unless
    approximate), taking the missing surface to lie within half a hole's width of the area the hole spans. Counts:
    ``welded_vertices`` (merged into another), ``degenerate_faces`` and ``duplicate_faces`` (ignored),
    ``turned_faces`` (turned over to agree with their neighbours), ``open_edges`` and ``non_manifold_edges``
    (used once, or by more than two triangles, after welding; before capping).
    """

    mesh: TriangleMesh
    certainty: str
    volume_error: float = 0.0
    welded_vertices: int = 0
    degenerate_faces: int = 0
    duplicate_faces: int = 0
    turned_faces: int = 0
    open_edges: int = 0
    non_manifold_edges: int = 0
    holes: int = 0
    caps: int = 0


def repaired(mesh: TriangleMesh, tolerance: float = WELD_TOLERANCE) -> MeshRepair:
    """``mesh`` repaired (see the module docstring); ``tolerance`` relative to the mesh's size."""
    if not len(mesh.triangles):
        return MeshRepair(mesh, NONE)
    if bounds_volume(mesh):
        return MeshRepair(mesh, EXACT)  # closed as indexed (most meshes modelled in Blender): nothing to weld
    checkpoint()  # (a cancelled caller's worker stops here, and below)
    representative = exact_representatives(mesh.vertices)
    moved = _merged(representative) > 0
    triangles, degenerate = _without_degenerate(representative[mesh.triangles] if moved else mesh.triangles)
    if not moved and not degenerate:
        welded = mesh  # nothing to weld: the mesh itself, its derived arrays kept
    else:
        welded = TriangleMesh(mesh.vertices, triangles)  # on the representatives' own indices until compacted
    checkpoint()
    if bounds_volume(welded):
        return MeshRepair(_compacted(welded, representative), EXACT, welded_vertices=_merged(representative),
                          degenerate_faces=degenerate)
    checkpoint()
    table = edge_table(welded)
    loose = np.unique(table.edges[(table.uses == 1) | (2 * table.forward_uses != table.uses)])
    near = near_representatives(mesh.vertices, loose, tolerance * mesh.size)[representative]
    if np.array_equal(near, representative):  # nothing within the tolerance: the welded triangles again
        triangles = welded.triangles
    else:
        representative = near
        triangles, degenerate = _without_degenerate(representative[mesh.triangles])
    checkpoint()
    if triangles is welded.triangles and not _repeats_possible(table):
        unique, duplicates = triangles, 0
    else:
        unique, duplicates = _without_duplicates(triangles)
    # the welded mesh itself, its edge table kept, when the second weld changed nothing
    kept = welded if triangles is welded.triangles and not duplicates else TriangleMesh(mesh.vertices, unique)
    checkpoint()
    oriented, turned = _consistently_oriented(_compacted(kept, representative))
    checkpoint()
    table = edge_table(oriented)
    counts = dict(welded_vertices=_merged(representative), degenerate_faces=degenerate, duplicate_faces=duplicates,
                  turned_faces=turned, open_edges=int((table.uses == 1).sum()),
                  non_manifold_edges=int((table.uses > 2).sum()))
    if bounds_volume(oriented):
        return MeshRepair(oriented, EXACT, **counts)
    checkpoint()
    capped = _capped(oriented)
    if capped is None:
        return MeshRepair(oriented, NONE, **counts)
    caps, centres, cap_corners, holes, error = capped
    if not error <= NEARLY_CLOSED_SHARE * abs(mesh_volume(oriented, cap_corners, centres)):
        return MeshRepair(oriented, NONE, **counts)
    closed = TriangleMesh.from_arrays(np.concatenate([oriented.vertices, centres]),
                                      np.concatenate([oriented.triangles, caps]))
    closed.__dict__["corners"] = np.concatenate([oriented.corners, cap_corners])  # (cached, as the open mesh's)
    return MeshRepair(closed, APPROXIMATE, error, holes=holes, caps=len(caps), **counts)


def _merged(representative: np.ndarray) -> int:
    """How many vertices were welded onto another."""
    return int((representative != np.arange(len(representative))).sum())


def _without_degenerate(triangles: np.ndarray) -> tuple[np.ndarray, int]:
    """The triangles whose three corners are different vertices, and how many were dropped."""
    keep = (triangles[:, 0] != triangles[:, 1]) & (triangles[:, 1] != triangles[:, 2]) & (
        triangles[:, 2] != triangles[:, 0])
    return triangles[keep], int(len(triangles) - keep.sum())


def _repeats_possible(table: EdgeTable) -> bool:
    """Whether the mesh of this edge table can hold a triangle twice the same way round: its three edges would
    then each be used twice in one direction. Without such an edge no triangle repeats (and no sort is needed)."""
    return bool((table.forward_uses > 1).any() or (table.uses - table.forward_uses > 1).any())


def _without_duplicates(triangles: np.ndarray) -> tuple[np.ndarray, int]:
    """The triangles without repeats of one running the same way round the same vertices (a triangle and its
    turned-over twin both stay: together they are a wall of no thickness), and how many were dropped."""
    if not len(triangles):
        return triangles, 0
    start = triangles.argmin(axis=1)[:, None]
    rotated = np.take_along_axis(triangles, (start + np.arange(3)) % 3, axis=1)
    if int(triangles.max()) < 1 << 21:  # three indices packed in one key: one sort, the same order as by rows
        keys = (rotated[:, 0].astype(np.uint64) << np.uint64(42)) | (rotated[:, 1].astype(np.uint64) << np.uint64(21)) \
            | rotated[:, 2].astype(np.uint64)
        order = np.argsort(keys, kind="stable")
    else:
        order = np.lexsort(rotated.T[::-1])
    repeat = np.zeros(len(triangles), dtype=bool)
    repeat[order[1:]] = (rotated[order[1:]] == rotated[order[:-1]]).all(axis=1)
    return triangles[~repeat], int(repeat.sum())


def _compacted(mesh: TriangleMesh, representative: np.ndarray) -> TriangleMesh:
    """``mesh`` (triangles on representatives' indices) with only the representatives as vertices (the edge table
    already made for ``mesh`` kept, renumbered)."""
    keep = representative == np.arange(len(representative))
    if keep.all():
        return mesh
    index = np.cumsum(keep) - 1
    compact = TriangleMesh.from_arrays(mesh.vertices[keep], index[mesh.triangles])
    renumber_topology(mesh, compact, index)
    return compact


def _edge_uses(mesh: TriangleMesh) -> tuple[np.ndarray, np.ndarray]:
    """``(order, first)``: the triangles' edge uses (triangle * 3 + corner) sorted by edge, and where each edge's
    uses begin in that order."""
    table = edge_table(mesh)
    return uses_by_edge(table), np.concatenate([[0], np.cumsum(table.uses)[:-1]])


def _consistently_oriented(mesh: TriangleMesh) -> tuple[TriangleMesh, int]:
    """The mesh with triangles turned over so that across every edge of two triangles they run opposite ways
    (the fewer of each connected piece turned), and how many were turned; unchanged when the surface cannot be
    oriented (a Möbius strip) or already is."""
    table = edge_table(mesh)
    if (table.forward_uses[table.uses == 2] == 1).all():  # every edge of two triangles runs both ways already
        return mesh, 0
    order, first = _edge_uses(mesh)
    shared = np.flatnonzero(table.uses == 2)
    use_1, use_2 = order[first[shared]], order[first[shared] + 1]
    forward = table.forward.ravel()
    same_way = forward[use_1] == forward[use_2]
    if not same_way.any():
        return mesh, 0
    count = len(mesh.triangles)
    root, relation = label_components(count, use_1 // 3, use_2 // 3, same_way)
    if np.any((relation[use_1 // 3] ^ relation[use_2 // 3]).astype(bool) != same_way):
        return mesh, 0
    ones = np.bincount(root, weights=relation, minlength=count)
    sizes = np.bincount(root, minlength=count)
    turn = relation.astype(bool) == (2 * ones[root] <= sizes[root])
    triangles = np.where(turn[:, None], mesh.triangles[:, ::-1], mesh.triangles)
    return TriangleMesh.from_arrays(mesh.vertices, triangles), int(turn.sum())


def _capped(mesh: TriangleMesh) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, float] | None:
    """``(caps, centres, cap corners, holes, volume bound)``: the triangles (on the mesh's vertices and then the
    ``centres``) and their corners that cap every hole (a connected run of edges used once, or the runs on the
    two sides of a crack: ``CRACK_TOLERANCE``) capped by a fan from its vertices' centre, and the sum over holes
    of the hole's vector area (the area it spans, the same for every cap: a thin slit spans almost none; a crack's
    runs nearly cancel, so its strip is added at its widest) times half its width: the volume a missing surface
    within half the hole's width of that area could enclose. None when a hole's edges do not go
    round (a vertex entered more often than left) or edges used more than twice run more one way."""
    table = edge_table(mesh)
    if np.any((table.uses > 2) & (2 * table.forward_uses != table.uses)):
        return None
    use = np.flatnonzero((table.uses == 1)[table.triangle_edges.ravel()])
    triangle, corner = np.divmod(use, 3)
    tails, heads = mesh.triangles[triangle, corner], mesh.triangles[triangle, (corner + 1) % 3]
    count = len(mesh.vertices)
    if not np.array_equal(np.bincount(tails, minlength=count), np.bincount(heads, minlength=count)):
        return None
    loop, _ = label_components(count, tails, heads)
    on_rim = np.unique(tails)
    near = near_representatives(mesh.vertices, on_rim, CRACK_TOLERANCE * mesh.size)
    group, _ = label_components(count, loop[on_rim], loop[near[on_rim]])  # the loops of one crack
    rims, hole = np.unique(group[loop[tails]], return_inverse=True)
    rim_hole = np.searchsorted(rims, group[loop[on_rim]])
    holes = len(rims)
    loops = np.bincount(rim_hole[np.searchsorted(on_rim, np.unique(loop[on_rim]))], minlength=holes)
    lengths = np.bincount(hole, weights=np.linalg.norm(mesh.vertices[heads] - mesh.vertices[tails], axis=1),
                          minlength=holes)
    strips = np.where(loops > 1, lengths * CRACK_TOLERANCE * mesh.size, 0.0)  # a crack's strip, at its widest
    sizes = np.bincount(rim_hole, minlength=holes)
    centres = np.stack([np.bincount(rim_hole, weights=mesh.vertices[on_rim, axis], minlength=holes)
                        for axis in range(3)], axis=1) / sizes[:, None]
    low = np.full((holes, 3), np.inf)
    high = np.full((holes, 3), -np.inf)
    np.minimum.at(low, rim_hole, mesh.vertices[on_rim])
    np.maximum.at(high, rim_hole, mesh.vertices[on_rim])
    caps = np.stack([heads, tails, count + hole], axis=1)
    vertices = np.concatenate([mesh.vertices, centres])
    corners = vertices[caps]
    spans = cross(corners[:, 1] - corners[:, 2], corners[:, 0] - corners[:, 2])  # twice each cap triangle's area
    vector_areas = 0.5 * np.stack([np.bincount(hole, weights=spans[:, axis], minlength=holes) for axis in range(3)],
                                  axis=1)
    widths = np.linalg.norm(high - low, axis=1)
    error = float((0.5 * (np.linalg.norm(vector_areas, axis=1) + strips) * widths).sum())
    return caps, centres, corners, holes, error

